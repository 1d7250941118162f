/*
 * A wall clock past 2038 for a 32-bit ARM process: scripts/pi-binaries-test.sh preloads this
 * into the armhf package's binaries under qemu-arm (`qemu-arm -E LD_PRELOAD=...`), so that
 * they run as on a Raspberry Pi whose clock reads a date after 2038-01-19T03:14:07Z, the
 * last second a 32-bit time_t holds. qemu-user has no clock offset of its own, and a time
 * namespace moves only the monotonic and boot clocks; libfaketime is a host library, which a
 * foreign process cannot load. Built with Debian's arm-linux-gnueabihf-gcc at test time.
 *
 * CHESSCLOCK_WALL_CLOCK_SHIFT (seconds, may be negative) is added to the wall clocks
 * (CLOCK_REALTIME and its coarse, alarm and TAI forms) as the C library reports them:
 *   - the 64-bit calls (__clock_gettime64, __gettimeofday64, __time64: what a program built
 *     with a 64-bit time_t calls, Rust's std among them) return the shifted time;
 *   - the 32-bit calls (clock_gettime, gettimeofday, time) fail with EOVERFLOW once the
 *     shifted time does not fit in 32 bits, as glibc's do on a Pi after 2038, so a binary
 *     that still reads the 32-bit clock fails here as it would there.
 * The monotonic and boot clocks pass through unchanged. Calls that go around the C library
 * (a raw syscall, the vDSO read directly) are not shifted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* glibc's 64-bit time structures on 32-bit little-endian ARM. */
struct ts64 {
	int64_t tv_sec;
	int32_t tv_nsec;
	int32_t pad;
};
struct tv64 {
	int64_t tv_sec;
	int64_t tv_usec;
};
/* The 32-bit ones (time_t and long are 32 bits on armhf). */
struct ts32 {
	int32_t tv_sec;
	int32_t tv_nsec;
};
struct tv32 {
	int32_t tv_sec;
	int32_t tv_usec;
};

enum { REALTIME = 0, REALTIME_COARSE = 5, REALTIME_ALARM = 8, TAI = 11 };

typedef int (*gettime64_fn)(int, struct ts64 *);

static int64_t shift(void)
{
	const char *s = getenv("CHESSCLOCK_WALL_CLOCK_SHIFT");
	return s ? strtoll(s, NULL, 10) : 0;
}

static int is_wall(int clock)
{
	return clock == REALTIME || clock == REALTIME_COARSE || clock == REALTIME_ALARM || clock == TAI;
}

/* The C library's own 64-bit clock read, shifted for the wall clocks. */
static int read64(int clock, struct ts64 *ts)
{
	static gettime64_fn real;
	if (!real)
		real = (gettime64_fn)dlsym(RTLD_NEXT, "__clock_gettime64");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	int r = real(clock, ts);
	if (r == 0 && is_wall(clock))
		ts->tv_sec += shift();
	return r;
}

static int fits32(int64_t sec)
{
	return sec >= INT32_MIN && sec <= INT32_MAX;
}

int __clock_gettime64(int clock, struct ts64 *ts)
{
	return read64(clock, ts);
}

int clock_gettime(int clock, struct ts32 *ts)
{
	struct ts64 t;
	if (read64(clock, &t) != 0)
		return -1;
	if (!fits32(t.tv_sec)) {
		errno = EOVERFLOW;
		return -1;
	}
	ts->tv_sec = (int32_t)t.tv_sec;
	ts->tv_nsec = t.tv_nsec;
	return 0;
}

int __gettimeofday64(struct tv64 *tv, void *tz)
{
	struct ts64 t;
	(void)tz;
	if (read64(REALTIME, &t) != 0)
		return -1;
	if (tv) {
		tv->tv_sec = t.tv_sec;
		tv->tv_usec = t.tv_nsec / 1000;
	}
	return 0;
}

int gettimeofday(struct tv32 *tv, void *tz)
{
	struct ts64 t;
	(void)tz;
	if (read64(REALTIME, &t) != 0)
		return -1;
	if (!fits32(t.tv_sec)) {
		errno = EOVERFLOW;
		return -1;
	}
	if (tv) {
		tv->tv_sec = (int32_t)t.tv_sec;
		tv->tv_usec = t.tv_nsec / 1000;
	}
	return 0;
}

int64_t __time64(int64_t *out)
{
	struct ts64 t;
	if (read64(REALTIME, &t) != 0)
		return -1;
	if (out)
		*out = t.tv_sec;
	return t.tv_sec;
}

int32_t time(int32_t *out)
{
	struct ts64 t;
	if (read64(REALTIME, &t) != 0)
		return -1;
	if (!fits32(t.tv_sec)) {
		errno = EOVERFLOW;
		return -1;
	}
	if (out)
		*out = (int32_t)t.tv_sec;
	return (int32_t)t.tv_sec;
}
