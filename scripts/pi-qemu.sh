#!/usr/bin/env bash
# A qemu-user that can run the Pi packages' daemon: ./scripts/pi-qemu.sh arm64|armhf prints
# the path of a qemu-aarch64 / qemu-arm (scripts/pi-binaries-test.sh runs the binaries with
# it).
#
# The daemon sets its ports up with the termios2 ioctls (TCGETS2/TCSETS2, made by rustix as
# raw system calls, so nothing in the C library can stand in for them). Every kernel a Pi
# runs has them, but qemu-user translates them for its guest only from version 11: Debian
# 12's qemu-user (7.2) and Debian 13's (10.0) answer ENOSYS, and no pty could be attached.
# So the machine's own qemu (Debian package qemu-user, if installed) is used when it passes
# a probe, a small program of the architecture (built with Debian's cross gcc) that sets a
# pty up with TCGETS2/TCSETS2; else Debian 13's backport of qemu-user (static binaries,
# no dependencies) is fetched with apt-get download from the Debian archive, its signature
# checked against the machine's debian-archive-keyring, and its qemu-aarch64 and qemu-arm
# kept in ${CARGO_TARGET_DIR:-target}/pi-qemu/ (nothing is installed on the machine; the
# next run finds them there). Needs no root.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "pi-qemu.sh: $*" >&2; exit 1; }
[ $# = 1 ] || { echo "usage: pi-qemu.sh arm64|armhf" >&2; exit 2; }
case "$1" in
  arm64) qemu=qemu-aarch64 sysroot=/usr/aarch64-linux-gnu gcc=aarch64-linux-gnu-gcc ;;
  armhf) qemu=qemu-arm sysroot=/usr/arm-linux-gnueabihf gcc=arm-linux-gnueabihf-gcc ;;
  *) fail "no qemu for '$1'; use arm64 or armhf" ;;
esac
command -v "$gcc" >/dev/null || fail "$gcc is missing (scripts/package.sh installs it for $1)"
dir=$(realpath -m "${CARGO_TARGET_DIR:-target}/pi-qemu")
mkdir -p "$dir"

# The probe: a pty set up with TCGETS2 and TCSETS2, as the daemon does.
probe=$dir/termios2-probe-$1
if [ ! -x "$probe" ]; then
  "$gcc" -x c -O2 -o "$probe" - <<'EOF' || fail "cannot build the termios2 probe with $gcc"
#include <asm/ioctls.h>
#include <asm/termbits.h>
#include <fcntl.h>
extern int ioctl(int, unsigned long, ...);
extern int grantpt(int), unlockpt(int);
extern char *ptsname(int);
extern int posix_openpt(int);
int main(void)
{
	struct termios2 t;
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return 2;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0 || ioctl(s, TCGETS2, &t) || ioctl(s, TCSETS2, &t))
		return 1;
	return 0;
}
EOF
fi
works() { [ -x "$1" ] && "$1" -L "$sysroot" "$probe" 2>/dev/null; }

if works "$(command -v "$qemu" || true)"; then
  command -v "$qemu"
  exit 0
fi
if works "$dir/usr/bin/$qemu"; then
  echo "$dir/usr/bin/$qemu"
  exit 0
fi

# Debian 13's backport, from the Debian archive, with apt's own state kept in $dir/apt.
apt=$dir/apt
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/deb"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie-backports main" \
  >"$apt/sources.list"
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || fail "the Debian archive keyring is missing (apt-get install debian-archive-keyring)"
opts=(-qq -o "Dir::Etc::sourcelist=$apt/sources.list" -o Dir::Etc::sourceparts=- -o Dir::Etc::parts=/nonexistent
  -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Dir::State::status=/dev/null
  -o Acquire::Languages=none -o APT::Architecture=amd64 -o APT::Sandbox::User=root)
[ "$(dpkg --print-architecture)" = amd64 ] || fail "fetching qemu-user is done for amd64 machines only; install a qemu-user >= 11"
echo "pi-qemu.sh: $qemu here cannot set a pty up with termios2; fetching qemu-user from Debian 13's backports" >&2
apt-get "${opts[@]}" update || fail "apt-get update of trixie-backports failed"
(cd "$apt/deb" && apt-get "${opts[@]}" download qemu-user) || fail "apt-get download qemu-user (trixie-backports) failed"
deb=$(ls "$apt"/deb/qemu-user_*.deb)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" ./usr/bin/qemu-aarch64 ./usr/bin/qemu-arm ||
  fail "$deb holds no usr/bin/qemu-aarch64 and qemu-arm"
echo "pi-qemu.sh: $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) in $dir/usr/bin" >&2
rm -rf "$apt"
works "$dir/usr/bin/$qemu" || fail "$dir/usr/bin/$qemu cannot set a pty up with termios2 either"
echo "$dir/usr/bin/$qemu"
