#!/usr/bin/env bash
# The Raspberry Pi packages' own binaries, run (scripts/package-test.sh runs it for the arm64
# and the armhf package):
#
#   ./scripts/pi-binaries-test.sh PACKAGE.deb [RAN_FILE]
#
# The package's files are extracted (dpkg-deb -x; nothing comes from target/) and its
# binaries run on this machine under qemu-user (qemu-aarch64 / qemu-arm run a foreign Linux
# program as a process, its system calls served by this kernel), with Debian's C libraries
# of that architecture (the cross libc6 in /usr/<triple>). First `--version` of every binary
# in the package, then a round with these binaries only: the
# daemon on a private dbus-daemon enforcing the package's own bus policy, the packaged
# emulator on a pty attached to it, a control set, a game played on the emulator's pieces and
# lever, `chessclockctl status --json`, the live PGN read by python-chess, the bridge serving
# /api/v1/clocks, `doctor` passing; then the daemon killed (SIGKILL) and started again: the
# game resumes with the waiting clock unchanged and the running one charged the time that
# passed, more moves, a result, and the archived record read by python-chess.
#
# armhf (32 bits) runs the same round on a Pi up for 60 days whose clock reads a date past
# 2038: a time namespace (unshare --time) moves the monotonic and boot clocks 60 days on, so
# the daemon's monotonic microseconds and boot-clock milliseconds are past 2^32 (64-bit
# counters), and scripts/pi-wall-clock.c, preloaded into each binary, sets the wall clock to
# 2038-01-19T04:14:08Z (an hour past the last second of a 32-bit time_t) at the round's
# start. The round then checks that the journal's stamps are past 2038 and its boot stamps
# past 2^32, that the PGN's Date is 2038.01.19, that the restart charged the gap measured on
# the boot clock past 2^32 ms, and that the status' monotonic stamp is this namespace's.
# docs/install.md ("What runs where") says what this proves and what it cannot.
#
# With RAN_FILE, the sha256 of every file of the package is appended to it ("SUM  PATH"
# lines, as sha256sum writes them, with the architecture): scripts/apt-repo-test.sh
# compares the repository's packages with the ones whose binaries ran here.
#
# qemu comes from scripts/pi-qemu.sh: the machine's qemu-user if it serves the termios2
# ioctls the daemon sets a port up with, else Debian 13's backport of qemu-user (Debian 12's
# and 13's own answer ENOSYS to them).
#
# Runs as root (through sudo if started as another user): the package's bus policy lets root
# operate the clocks, the time namespace needs it, and what is missing is installed (the
# cross C libraries and compiler: armhf's wall-clock library is built here; dbus-daemon).
# Prints how long each part took.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then echo "usage: pi-binaries-test.sh PACKAGE.deb [RAN_FILE]" >&2; exit 2; fi
[ -f "$1" ] || { echo "pi-binaries-test.sh: $1 does not exist" >&2; exit 2; }
deb=$(realpath "$1") ran=${2:+$(realpath -m "$2")}
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "pi-binaries-test.sh: needs root (or sudo)" >&2; exit 1; }
  exec sudo --preserve-env=CARGO_TARGET_DIR,KEEP "$PWD/scripts/pi-binaries-test.sh" "$deb" ${ran:+"$ran"}
fi
arch=$(dpkg-deb -f "$deb" Architecture)
case "$arch" in
  arm64) sysroot=/usr/aarch64-linux-gnu gcc=aarch64-linux-gnu-gcc
    libs="libc6-arm64-cross libgcc-s1-arm64-cross" dev="gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
  armhf) sysroot=/usr/arm-linux-gnueabihf gcc=arm-linux-gnueabihf-gcc
    libs="libc6-armhf-cross libgcc-s1-armhf-cross" dev="gcc-arm-linux-gnueabihf libc6-dev-armhf-cross" ;;
  *) echo "pi-binaries-test.sh: $deb is for $arch; this runs the arm64 and armhf packages" >&2; exit 2 ;;
esac
fail() { echo "pi-binaries-test.sh: FAIL ($arch): $*" >&2; exit 1; }
ok() { echo "ok - $arch: $*"; }
began=$SECONDS

# --- what it needs ---------------------------------------------------------------------------
need=()
if [ ! -e "$sysroot/lib/libc.so.6" ] || [ ! -e "$sysroot/lib/libgcc_s.so.1" ]; then
  read -ra more <<<"$libs"
  need+=("${more[@]}")
fi
command -v dbus-daemon >/dev/null || need+=(dbus-daemon)
command -v unshare >/dev/null || need+=(util-linux)
command -v python3 >/dev/null || need+=(python3)
if ! command -v "$gcc" >/dev/null || [ ! -e "$sysroot/include/asm/termbits.h" ]; then
  read -ra more <<<"$dev"
  need+=("${more[@]}")
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "pi-binaries-test.sh: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
python3 -c 'import chess' 2>/dev/null || fail "python-chess is missing (scripts/test.sh installs it: pip install chess)"
qemu=$(./scripts/pi-qemu.sh "$arch") || fail "no qemu-user that can run the daemon (scripts/pi-qemu.sh)"

tmp=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${KEEP:-}" ]; then echo "pi-binaries-test.sh: kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# --- the package's files -----------------------------------------------------------------------
root=$tmp/root
dpkg-deb -x "$deb" "$root"
version=$(dpkg-deb -f "$deb" Version)
upstream=${version%-*}

# The clocks of the round: armhf's 60 days of uptime and its wall clock past 2038.
prefix=() qemu_env=() shift_s=0
if [ "$arch" = armhf ]; then
  uptime_s=$((60 * 86400))
  prefix=(unshare --time --monotonic "$uptime_s" --boottime "$uptime_s")
  shift_s=$(((1 << 31) + 3600 - $(date +%s)))
  "$gcc" -shared -fPIC -O2 -Wall -Werror -o "$tmp/wall-clock.so" scripts/pi-wall-clock.c ||
    fail "cannot build scripts/pi-wall-clock.c with $gcc"
  qemu_env=(-E "LD_PRELOAD=$tmp/wall-clock.so" -E "CHESSCLOCK_WALL_CLOCK_SHIFT=$shift_s")
fi
# The command that runs one of the package's programs under qemu, with the architecture's C
# library (and armhf's clocks), in the array cmd: "${cmd[@]}" ARGS & gives the program's own
# pid in $!. No binfmt registration is needed: qemu is named here.
foreign_cmd() { cmd=("${prefix[@]}" "$qemu" -L "$sysroot" "${qemu_env[@]}" "$root/usr/bin/$1"); }
foreign() {
  local cmd
  foreign_cmd "$1"
  shift
  "${cmd[@]}" "$@"
}
ctl() { foreign chessclockctl --address "$address" "$@"; }
# Poll CMD... until it succeeds, for at most SECONDS: wait_for SECONDS WHAT CMD...
wait_for() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then
      echo "pi-binaries-test.sh: waited $limit s for $what" >&2
      return 1
    fi
    sleep 0.2
  done
}

# --- --version of every binary -------------------------------------------------------------------
step=$SECONDS
bins=()
while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] && bins+=("${file#"$root"/}")
done < <(find "$root" -type f -print0)
[ ${#bins[@]} -ge 4 ] || fail "the package holds ${#bins[@]} binaries: ${bins[*]}"
for bin in "${bins[@]}"; do
  name=$(basename "$bin")
  out=$("${prefix[@]}" "$qemu" -L "$sysroot" "${qemu_env[@]}" "$root/$bin" --version 2>&1) ||
    fail "$bin --version under $qemu: $out"
  [ "$out" = "$name $upstream" ] || fail "$bin --version says '$out', not '$name $upstream'"
done
ok "--version of ${bins[*]} under $(basename "$qemu") $("$qemu" --version | head -n 1 | awk '{print $3}'): $upstream ($((SECONDS - step)) s)"
if [ -n "$ran" ]; then
  (cd "$root" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sed "s|  \./|  $arch/|" >>"$ran"
fi

# --- the round ---------------------------------------------------------------------------------
step=$SECONDS
# A private bus shaped as the system bus, enforcing the package's own policy files.
policy=$root/usr/share/dbus-1/system.d
cat >"$tmp/bus.conf" <<EOT
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$tmp/bus.socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <includedir>$policy</includedir>
</busconfig>
EOT
dbus-daemon --config-file="$tmp/bus.conf" --nofork --nosyslog --print-address=3 3>"$tmp/bus.address" \
  2>"$tmp/bus.log" </dev/null &
pids+=($!)
wait_for 10 "the bus" test -s "$tmp/bus.address" || fail "dbus-daemon did not start: $(cat "$tmp/bus.log")"
address=$(head -n 1 "$tmp/bus.address")
! grep -q "Encountered error" "$tmp/bus.log" || fail "dbus-daemon rejected the package's policy: $(cat "$tmp/bus.log")"

state=$tmp/state live=$tmp/live
mkdir -p "$state" "$live"
start_daemon() {
  foreign_cmd chessclockd
  CHESSCLOCKD_LIVE_DIR=$live "${cmd[@]}" --address "$address" --state-dir "$state" \
    --config "$root/etc/chessclockd/chessclockd.toml" >>"$tmp/daemon.log" 2>&1 &
  daemon_pid=$!
  pids+=("$daemon_pid")
  wait_for 60 "the daemon" ctl list || fail "the daemon is not on the bus: $(cat "$tmp/daemon.log")"
}
start_daemon
ok "the daemon serves the bus under the package's policy ($((SECONDS - step)) s)"

# The packaged emulator on a pty, driven through its standard input.
mkfifo "$tmp/emu.in"
foreign_cmd chessclock-emu
"${cmd[@]}" --json <"$tmp/emu.in" >"$tmp/emu.out" 2>&1 &
pids+=($!)
exec 7>"$tmp/emu.in"
emu() { echo "$*" >&7; }
wait_for 30 "the emulator" grep -q '"event":"path"' "$tmp/emu.out" || fail "chessclock-emu printed no path: $(cat "$tmp/emu.out")"
read -r pty serial < <(python3 -c 'import json,sys; l=json.loads(open(sys.argv[1]).readline()); print(l["path"], l["board_serial"])' "$tmp/emu.out")
ctl attach "$pty" >/dev/null || fail "chessclockctl attach $pty"

# One clock's status as JSON in $tmp/status.json; field checks in python.
status() { ctl status 0 --json >"$tmp/status.json" 2>/dev/null; }
status_is() { status && python3 -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$tmp/status.json"; }
wait_for 30 "the board" status_is "s['board_serial'] == '$serial' and s['device_state'] == 'ready'" ||
  fail "the emulator's board $serial is not ready: $(cat "$tmp/status.json") $(tail -n 5 "$tmp/daemon.log")"
ctl set 0 "G/15+10" >/dev/null || fail "chessclockctl set 0 G/15+10"
# The PGN's Date is the game's start (UTC), on the round's wall clock.
expect_date=$(date -u -d "@$(($(date +%s) + shift_s))" +%Y.%m.%d)
ctl start 0 >/dev/null || fail "chessclockctl start 0"
# A move on the pieces, then the mover's lever: wait until the daemon has both.
play() {
  local uci=$1 moves=$2 running=$3
  emu move "$uci"
  emu lever
  wait_for 30 "$uci" status_is "len(s['moves_san']) == $moves and s['running'] == '$running'" ||
    fail "after $uci: $(cat "$tmp/status.json")"
}
play e2e4 1 black
play e7e5 2 white
python3 - "$tmp/status.json" "$serial" <<'PY' || fail "status after 1. e4 e5: $(cat "$tmp/status.json")"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["moves_san"] == ["e4", "e5"], s["moves_san"]
assert s["board_serial"] == sys.argv[2] and s["connected"], s
assert s["time_control"] == "G/15 inc/10" and s["status"] == "running", s
# 15 minutes and 10 s a move (the first given at the start): each side has played one move
# in well under a minute.
for side in ("white_ms", "black_ms"):
    assert 860_000 < s[side] <= 920_000, (side, s[side])
PY
# What the daemon pushed reached the emulated DGT 3000: it counts White's time down.
python3 - "$tmp/emu.out" <<'PY' || fail "the emulated clock does not run the daemon's times: $(tail -n 3 "$tmp/emu.out")"
import json, sys
shown = [e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "display"]
assert any(e["running"] == "left" and e["left"].startswith("15:") for e in shown), shown[-3:]
PY
ok "the emulator attached as board $serial, G/15+10 set, 1. e4 e5 played on its pieces and lever, its clock running the daemon's times"

# The status' monotonic stamp is this namespace's clock (armhf: past 2^32 ms).
python3 - "$tmp/status.json" "$arch" <<PY || fail "the status' monotonic stamp: $(cat "$tmp/status.json")"
import json, sys, subprocess
s = json.load(open(sys.argv[1]))
here = float(subprocess.check_output([*"${prefix[*]}".split(), "python3", "-c", "import time; print(time.monotonic())"]))
assert abs(s["as_of_us"] / 1e6 - here) < 120, (s["as_of_us"], here)
if sys.argv[2] == "armhf":
    assert s["as_of_us"] > 2**32 * 1000, s["as_of_us"]
PY

# The live PGN, read by python-chess.
pgn=$live/round-1/game-1.pgn
wait_for 10 "the live PGN" grep -q 'e5 {' "$pgn" || fail "no live PGN with 1. e4 e5 at $pgn: $(find "$live")"
python3 scripts/pgn-read.py "$pgn" >"$tmp/live.json" || fail "python-chess cannot read $pgn"
python3 - "$tmp/live.json" "$expect_date" <<'PY' || fail "the live PGN: $(cat "$pgn")"
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
assert len(games) == 1, games
g = games[0]
assert g["uci"] == ["e2e4", "e7e5"], g["uci"]
assert all(c is not None and 860 < c <= 920 for c in g["clk"]), g["clk"]
assert g["headers"]["Date"] == sys.argv[2], (g["headers"]["Date"], sys.argv[2])
assert not g["errors"], g["errors"]
PY
ok "the live PGN: 1. e4 e5 with clock times, Date $expect_date, as python-chess reads it"

# The bridge on a free port: the packaged settings (every key commented out) with `listen`
# set. (In bridge.toml itself, not a drop-in: doctor reads only the file it is given.)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cp "$root/etc/chessclockd/bridge.toml" "$tmp/bridge.toml"
echo "listen = \"127.0.0.1:$port\"" >>"$tmp/bridge.toml"
foreign_cmd chessclock-bridge
"${cmd[@]}" --address "$address" --config "$tmp/bridge.toml" >"$tmp/bridge.log" 2>&1 &
pids+=($!)
clocks() {
  python3 - "$port" "$tmp/clocks.json" <<'PY'
import json, sys, urllib.request
with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/clocks", timeout=5) as r:
    body = json.load(r)
json.dump(body, open(sys.argv[2], "w"))
assert len(body) == 1 and body[0]["moves_san"] == ["e4", "e5"], body
PY
}
wait_for 60 "the bridge" clocks || fail "the bridge does not serve the clock at /api/v1/clocks: $(cat "$tmp/bridge.log")"
ok "the bridge serves the clock at http://127.0.0.1:$port/api/v1/clocks"

# The settings, as the foreign programs check them (doctor's `config` and `bridge_config`
# run the same as its child processes).
foreign chessclockd --check-config --config "$root/etc/chessclockd/chessclockd.toml" \
  >"$tmp/check.out" 2>&1 || fail "chessclockd --check-config: $(cat "$tmp/check.out")"
foreign chessclock-bridge --check-config --config "$tmp/bridge.toml" >"$tmp/check.out" 2>&1 ||
  fail "chessclock-bridge --check-config: $(cat "$tmp/check.out")"
ok "chessclockd and chessclock-bridge --check-config accept the packaged settings"
# doctor: every check passes or is skipped with its reason (no systemd here: time). The
# daemon's settings are the package's file (not this machine's /etc). Its `config` and
# `bridge_config` start the programs above as its own children; a foreign child started from
# a program under qemu-user (no binfmt_misc here or in CI) sometimes dies before it says
# anything (seen in 2 runs of 3 here), so those two may fail, but only with an empty error:
# the programs' own checks ran under qemu just above.
set +e
ctl doctor -J --config "$root/etc/chessclockd/chessclockd.toml" --state-dir "$state" \
  --bridge-config "$tmp/bridge.toml" --udev-dir "$root/usr/lib/udev/rules.d" \
  >"$tmp/doctor.json" 2>"$tmp/doctor.err"
doctor_status=$?
set -e
[ "$doctor_status" -le 1 ] ||
  fail "chessclockctl doctor: exit $doctor_status: $(cat "$tmp/doctor.json" "$tmp/doctor.err")"
python3 - "$tmp/doctor.json" "$doctor_status" <<'PY' || fail "doctor: $(cat "$tmp/doctor.json")"
import json, sys
checks = {c["check"]: c for c in json.load(open(sys.argv[1]))}
failed = [c for c in checks.values() if not c["ok"]]
for c in failed:
    assert c["check"] in ("config", "bridge_config") and c["detail"].startswith("; "), c
assert (int(sys.argv[2]) == 1) == bool(failed), (sys.argv[2], failed)
for name in ("daemon", "permission", "boards", "config", "bridge_config", "udev", "state", "bridge"):
    assert not checks[name]["skipped"], checks[name]
PY
ok "doctor: $(python3 -c 'import json,sys; print(", ".join(c["check"] + (" skipped" if c["skipped"] else " ok" if c["ok"] else " (its child said nothing under qemu)") for c in json.load(open(sys.argv[1]))))' "$tmp/doctor.json")"

# --- a crash: the daemon killed with the game under way, started again -------------------------
status
cp "$tmp/status.json" "$tmp/before.json"
kill -9 "$daemon_pid"
wait "$daemon_pid" 2>/dev/null || true
start_daemon
wait_for 60 "the resumed game" status_is "s['moves_san'] == ['e4', 'e5'] and s['device_state'] == 'ready'" ||
  fail "the game did not resume after SIGKILL: $(cat "$tmp/status.json") $(tail -n 5 "$tmp/daemon.log")"
python3 - "$tmp/before.json" "$tmp/status.json" <<'PY' || fail "the resumed game: $(cat "$tmp/before.json") -> $(cat "$tmp/status.json")"
import json, sys
before, after = (json.load(open(f)) for f in sys.argv[1:3])
assert before["running"] == after["running"] == "white", (before["running"], after["running"])
assert after["black_ms"] == before["black_ms"], ("the waiting clock moved", before["black_ms"], after["black_ms"])
# The running clock lost what passed between the two reads (on the boot clock), to the
# engine's rounding: not nothing, and not a wrapped counter's worth.
passed_ms = (after["as_of_us"] - before["as_of_us"]) / 1000
lost_ms = before["white_ms"] - after["white_ms"]
assert passed_ms > 0 and abs(lost_ms - passed_ms) < 1000, (lost_ms, passed_ms)
PY
ok "after SIGKILL the game resumed: Black's clock unchanged, White's charged the $(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(round((b["as_of_us"]-a["as_of_us"])/1e6, 1))' "$tmp/before.json" "$tmp/status.json") s that passed"
play g1f3 3 black
play b8c6 4 white

# The journal as written (before the result closes the game): every line's CRC-32, and on
# armhf every wall stamp past 2038 and every boot stamp past 2^32 ms.
journal=$(python3 - "$state" "$arch" 2>&1 <<'PY'
import glob, json, sys, zlib
files = glob.glob(sys.argv[1] + "/clock-*.journal")
assert len(files) == 1, files
lines = open(files[0], "rb").read().splitlines()
assert len(lines) > 10, lines
walls, boots = [], []
for line in lines:
    seq, crc, body = line.split(b" ", 2)
    assert int(crc, 16) == zlib.crc32(seq + b" " + body), line
    rec = json.loads(body)
    walls.append(rec["wall_ms"])
    boots.append(rec["boot"]["ms"])
if sys.argv[2] == "armhf":
    assert min(walls) > 2**31 * 1000, ("a wall stamp before 2038", min(walls))
    assert min(boots) > 2**32, ("a boot stamp below 2^32 ms", min(boots))
print(f"{len(lines)} records, every CRC-32 right, wall clock {min(walls)}..{max(walls)} ms, boot clock {min(boots)}..{max(boots)} ms")
PY
) || fail "the journal: $journal"
ok "the journal: $journal"
ctl result 0 1/2-1/2 >/dev/null || fail "chessclockctl result 0 1/2-1/2"
archived() { [ -n "$(find "$state/games" -name '*.pgn' 2>/dev/null)" ]; }
wait_for 30 "the archived record" archived || fail "no archived game in $state/games: $(find "$state")"
record=$(find "$state/games" -name '*.pgn' | head -n 1)
python3 scripts/pgn-read.py "$record" >"$tmp/record.json" || fail "python-chess cannot read $record"
python3 - "$tmp/record.json" "$expect_date" <<'PY' || fail "the archived record: $(cat "$record")"
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
assert len(games) == 1, games
g = games[0]
assert g["uci"] == ["e2e4", "e7e5", "g1f3", "b8c6"], g["uci"]
assert all(c is not None for c in g["clk"]), g["clk"]
assert g["headers"]["Result"] == "1/2-1/2" and g["result"] == "1/2-1/2", g["headers"]
assert g["headers"]["Date"] == sys.argv[2], (g["headers"]["Date"], sys.argv[2])
assert not g["errors"], g["errors"]
PY
# The record's event log: its stamps, and the file's name (the game's start, UTC).
python3 - "${record%.pgn}.json" "$arch" "${expect_date//./}" <<'PY' || fail "the archived event log: $(head -c 2000 "${record%.pgn}.json")"
import json, os, sys
log = json.load(open(sys.argv[1]))
assert log["result"] == "1/2-1/2", log["result"]
walls = [log["started_wall_ms"]] + [e["wall_ms"] for e in log["events"]]
assert walls == sorted(walls), walls
assert [e["san"] for e in log["events"] if e["event"] == "move"] == ["e4", "e5", "Nf3", "Nc6"], log["events"]
if sys.argv[2] == "armhf":
    assert min(walls) > 2**31 * 1000, ("a stamp before 2038", min(walls))
assert os.path.basename(sys.argv[1]).startswith(sys.argv[3] + "T"), (sys.argv[1], sys.argv[3])
PY
ok "1. e4 e5 2. Nf3 Nc6 1/2-1/2 archived as $(basename "$record"), Date $expect_date, as python-chess reads it"

cp "$record" "${record%.pgn}.json" "$tmp/"   # kept for a look when a check below fails

# A clean stop: the daemon exits 0 on SIGTERM.
kill -TERM "$daemon_pid"
code=0
wait "$daemon_pid" || code=$?
[ "$code" = 0 ] || fail "the daemon exited $code on SIGTERM: $(tail -n 5 "$tmp/daemon.log")"
emu quit
ok "the round took $((SECONDS - step)) s; all of it $((SECONDS - began)) s"
