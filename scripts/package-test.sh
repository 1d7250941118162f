#!/usr/bin/env bash
# The packaging check (scripts/test.sh runs it): build the amd64, arm64 and armhf packages,
# run lintian on them, check each one's Depends against what its binaries link and run the
# Raspberry Pi packages' own binaries under qemu-user ("the Pi's own binaries" below), then
# install the amd64 package on this machine for real, check that every file is where the
# units, the bus and udev expect it (and every doc page a message, a man page or the README
# names), verify the installed units; then a newcomer's first hour without
# systemd and without a board: the installed install.md's "Without systemd" and "A round
# without a board" lines run as written, the live PGN read with python-chess, `doctor` passing
# with its skips named, the packaged emulator attached; then upgrade, remove and purge it, and
# check that nothing is lost before purge and nothing left after.
#
# Steps that need the services running use start_services / stop_services and the clocks that
# round_without_board leaves (below): a new step (an upgrade in the middle of a round, say)
# calls them rather than repeating the commands.
#
# It installs and purges package chessclockd on this machine, so outside CI it refuses to run
# where chessclockd is installed already. Needs root (or sudo) for dpkg.
# PROFILE (default package-check: release code without LTO, to keep CI short) is passed on
# to scripts/package.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

export PROFILE=${PROFILE:-package-check}
debs=${CARGO_TARGET_DIR:-target}/debian
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "package-test.sh: need root to run: $*" >&2; return 1; fi; }
fail() { echo "package-test.sh: FAIL: $*" >&2; exit 1; }
pass=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }

if dpkg-query -W -f='${Status}' chessclockd 2>/dev/null | grep -q "ok installed" && [ "${CI:-}" != true ]; then
  echo "package-test.sh: chessclockd is installed on this machine; this check installs and purges" \
    "it. Remove it first (apt purge chessclockd), or run with CI=true." >&2
  exit 1
fi

need=()
command -v lintian >/dev/null || need+=(lintian)
command -v deb-systemd-helper >/dev/null || need+=(init-system-helpers)
command -v udevadm >/dev/null || need+=(udev)
command -v python3 >/dev/null || need+=(python3)
command -v start-stop-daemon >/dev/null || need+=(dpkg)
[ -x /etc/init.d/dbus ] || need+=(dbus)
command -v dbus-send >/dev/null || need+=(dbus-bin)
if [ ${#need[@]} -gt 0 ]; then
  echo "package-test.sh: installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# --- build ---------------------------------------------------------------------------------
rm -f "$debs"/chessclockd_*.deb
start=$(date +%s)
./scripts/package.sh amd64 arm64 armhf
echo "package-test.sh: the three packages built in $(($(date +%s) - start)) s ($PROFILE)"
amd64=$(ls "$debs"/chessclockd_*_amd64.deb)
arm64=$(ls "$debs"/chessclockd_*_arm64.deb)
armhf=$(ls "$debs"/chessclockd_*_armhf.deb)
version=$(dpkg-deb -f "$amd64" Version)

# The arm64 package holds AArch64 binaries (ELF e_machine 0xb7 at offset 18).
tmp=$(mktemp -d)
cleanup() {
  if [ -e /run/chessclockd.pid ] || [ -e /run/chessclock-bridge.pid ]; then
    stop_services >/dev/null 2>&1 || true
    for pidfile in /run/chessclock-bridge.pid /run/chessclockd.pid; do
      as_root start-stop-daemon --stop --quiet --oknodo --retry TERM/15/KILL/5 --pidfile "$pidfile" \
        --remove-pidfile >/dev/null 2>&1 || true
    done
  fi
  as_root rm -f /etc/chessclockd/chessclockd.toml.d/50-retries.toml /etc/default/chessclockd
  if dpkg-query -W -f='${Status}' chessclockd 2>/dev/null | grep -q installed; then
    as_root env CHESSCLOCKD_PURGE_STATE=yes dpkg --purge chessclockd >/dev/null || true
  fi
  if [ "$bus_before" = no ] && [ -S /run/dbus/system_bus_socket ] && [ -x /etc/init.d/dbus ]; then
    as_root /etc/init.d/dbus stop >/dev/null 2>&1 || true
    as_root rm -f /run/dbus/system_bus_socket   # the init script leaves it behind
  fi
  as_root rm -rf /var/log/chessclockd.log /var/log/chessclock-bridge.log /run/chessclockd \
    /run/chessclockd.pid /run/chessclock-bridge.pid
  rm -rf "$tmp"
}
trap cleanup EXIT
# Whether a system bus ran before this check (else the one started below is stopped at exit).
bus_before=no
dbus-send --system --dest=org.freedesktop.DBus --print-reply /org/freedesktop/DBus \
  org.freedesktop.DBus.GetId >/dev/null 2>&1 && bus_before=yes
dpkg-deb -x "$arm64" "$tmp/arm64"
for bin in chessclockd chessclockctl chessclock-bridge chessclock-emu; do
  machine=$(od -An -tx1 -j18 -N2 "$tmp/arm64/usr/bin/$bin" | tr -d ' ')
  [ "$machine" = b700 ] || fail "arm64 package: usr/bin/$bin is not an AArch64 binary ($machine)"
done
ok "arm64 package holds AArch64 binaries"
# Both packages hold the same files.
diff <(dpkg-deb -c "$amd64" | awk '{print $6}' | sort) <(dpkg-deb -c "$arm64" | awk '{print $6}' | sort) ||
  fail "amd64 and arm64 packages hold different files"
ok "amd64 and arm64 packages hold the same files"
diff <(dpkg-deb -c "$amd64" | awk '{print $6}' | sort) <(dpkg-deb -c "$armhf" | awk '{print $6}' | sort) ||
  fail "amd64 and armhf packages hold different files"
ok "amd64 and armhf packages hold the same files"

# --- lintian (reasons for kept tags: packaging/debian/lintian-overrides) ----------------------
lintian --fail-on error,warning --info "$amd64" "$arm64" "$armhf" || fail "lintian"
ok "lintian: no errors or warnings"

# --- the Pi's own binaries (docs/install.md "What runs where") -------------------------------
# Each package's Depends against what its binaries link; then the arm64 and armhf packages'
# binaries run under qemu-user: --version of each, and a round with them alone (a private
# bus, the packaged emulator on a pty, a game, status, the live PGN, the bridge, doctor, a
# SIGKILL and the game resumed; armhf on a clock past 2038 and 60 days of uptime). The
# checksums of the files that ran go to $tmp/pi-ran.sha256, for the apt repository's check.
pi_binaries() {
  ./scripts/deb-depends-check.sh "$amd64" "$arm64" "$armhf" || fail "a package's Depends (scripts/deb-depends-check.sh)"
  ok "every binary's loader and shared libraries are in its package's Depends (amd64, arm64, armhf)"
  local deb began
  for deb in "$arm64" "$armhf"; do
    began=$(date +%s)
    ./scripts/pi-binaries-test.sh "$deb" "$tmp/pi-ran.sha256" ||
      fail "the $(dpkg-deb -f "$deb" Architecture) package's binaries under qemu-user (scripts/pi-binaries-test.sh)"
    ok "the $(dpkg-deb -f "$deb" Architecture) package's binaries ran under qemu-user ($(($(date +%s) - began)) s)"
  done
}
pi_binaries

# --- install -------------------------------------------------------------------------------
# apt resolves the dependencies (systemd-sysusers, a system bus) as an operator's
# `apt install ./chessclockd_<version>_amd64.deb` does.
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "./$amd64" \
  >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "apt-get install ./$amd64"; }
[ "$(dpkg-query -W -f='${Version}' chessclockd)" = "$version" ] || fail "version $version not installed"
ok "installed $version"
if [ ! -d /run/systemd/system ]; then
  grep -q 'systemd is not running here and chessclockd and chessclock-bridge did not start' "$tmp/install.log" &&
    grep -q 'service chessclockd start; service chessclock-bridge start' "$tmp/install.log" &&
    grep -q 'install.md, "Without systemd")' "$tmp/install.log" ||
    fail "without systemd, the install did not say the services were not started: $(cat "$tmp/install.log")"
  ok "without systemd, the install says the services did not start and how to start them"
fi

# Every path the package promises (docs/install.md), and only files of this package there.
for path in \
  /usr/bin/chessclockd /usr/bin/chessclockctl \
  /usr/lib/systemd/system/chessclockd.service /usr/lib/systemd/system/chessclock-attach@.service \
  /usr/lib/sysusers.d/chessclockd.conf /usr/lib/udev/rules.d/70-chessclockd.rules \
  /usr/share/dbus-1/system.d/org.chessclockd.ChessClock1.conf \
  /usr/share/dbus-1/system.d/org.chessclockd.Bridge1.conf \
  /usr/share/dbus-1/system-services/org.chessclockd.ChessClock1.service \
  /usr/share/dbus-1/interfaces/org.chessclockd.ChessClock1.Manager.xml \
  /usr/share/dbus-1/interfaces/org.chessclockd.ChessClock1.Clock.xml \
  /etc/chessclockd/chessclockd.toml /etc/chessclockd/bridge.toml \
  /usr/bin/chessclock-bridge /usr/lib/systemd/system/chessclock-bridge.service \
  /usr/share/man/man8/chessclockd.8.gz /usr/share/man/man1/chessclockctl.1.gz \
  /usr/share/man/man8/chessclock-bridge.8.gz \
  /usr/share/man/man5/chessclockd.toml.5.gz /usr/share/man/man5/bridge.toml.5.gz \
  /usr/share/bash-completion/completions/chessclockctl \
  /usr/share/zsh/vendor-completions/_chessclockctl \
  /usr/share/fish/vendor_completions.d/chessclockctl.fish \
  /usr/bin/chessclock-emu /usr/share/man/man1/chessclock-emu.1.gz /usr/share/man/man7/chessclock-relay.7.gz \
  /usr/share/doc/chessclockd/copyright /usr/share/doc/chessclockd/install.md \
  /usr/share/doc/chessclockd/bridge.md /usr/share/doc/chessclockd/relay.md \
  /usr/share/doc/chessclockd/emulator.md /usr/share/doc/chessclockd/board-game.md \
  /usr/share/doc/chessclockd/README.md /usr/share/doc/chessclockd/schema/clock-status.json \
  /usr/share/doc/chessclockd/schema/clock-list.json /usr/share/doc/chessclockd/schema/event.json \
  /etc/init.d/chessclockd /etc/init.d/chessclock-bridge /usr/lib/chessclockd/init-common.sh \
  /etc/logrotate.d/chessclockd; do
  [ -f "$path" ] || fail "$path is missing"
  dpkg -S "$path" >/dev/null 2>&1 || fail "$path is not owned by the package"
done
ok "every promised file is installed"
for conf in /etc/chessclockd/chessclockd.toml /etc/chessclockd/bridge.toml /etc/init.d/chessclockd \
  /etc/init.d/chessclock-bridge /etc/logrotate.d/chessclockd; do
  dpkg-query -W -f='${Conffiles}\n' chessclockd | grep -q " $conf " || fail "$conf is not a conffile"
done
ok "the settings, the init scripts and the logrotate file are conffiles"
# The packaged settings are valid as shipped (everything commented out: the defaults).
/usr/bin/chessclockd --check-config >/dev/null || fail "chessclockd --check-config on the packaged file"
/usr/bin/chessclock-bridge --check-config >/dev/null || fail "chessclock-bridge --check-config on the packaged file"
ok "the packaged configurations pass --check-config"

# What the units, the bus and udev name exists at the installed paths.
for unit in chessclockd.service chessclock-attach@.service chessclock-bridge.service; do
  grep -E '^Exec(Start|Reload)=' "/usr/lib/systemd/system/$unit" | sed -E 's/^Exec(Start|Reload)=[-@!+:]*//' | awk '{print $1}' |
    while read -r exe; do [ -x "$exe" ] || fail "$unit: Exec $exe is not installed"; done
  grep -E '^Documentation=file://' "/usr/lib/systemd/system/$unit" | sed 's|^Documentation=file://||' |
    while read -r doc; do [ -f "$doc" ] || fail "$unit: Documentation $doc is not installed"; done
done
activation=/usr/share/dbus-1/system-services/org.chessclockd.ChessClock1.service
wanted=$(sed -n 's/^SystemdService=//p' "$activation")
[ -f "/usr/lib/systemd/system/$wanted" ] || fail "$activation wants $wanted, which is not installed"
grep -q 'SYSTEMD_WANTS}+="chessclock-attach@%k.service"' /usr/lib/udev/rules.d/70-chessclockd.rules ||
  fail "the udev rule does not want the attach template"
ok "units, activation file and udev rule point at installed files"

# The Bluetooth binder: installed, not enabled (one instance per board), and verified.
[ -f /usr/lib/systemd/system/chessclock-rfcomm@.service ] || fail "the rfcomm template is missing"
[ -x /usr/lib/chessclockd/rfcomm-bind ] || fail "/usr/lib/chessclockd/rfcomm-bind is missing"
ls /etc/systemd/system/multi-user.target.wants/ | grep -q chessclock-rfcomm &&
  fail "an rfcomm instance was enabled by the package"
cp /usr/lib/systemd/system/chessclock-rfcomm@.service "$tmp/chessclock-rfcomm@0.service"
err=$(systemd-analyze verify --man=no "$tmp/chessclock-rfcomm@0.service" 2>&1) || fail "verify rfcomm@0: $err"
[ -z "$err" ] || fail "systemd-analyze verify chessclock-rfcomm@0: $err"
ok "the rfcomm template and its script are installed, not enabled, and verify"

for xml in /usr/share/dbus-1/interfaces/*chessclockd*.xml; do
  python3 - "$xml" <<'EOF' || fail "$xml is not an introspection <node> document"
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
root = doc.documentElement
assert root.tagName == "node", root.tagName
assert doc.doctype is not None and "Introspection" in doc.doctype.publicId
assert root.getElementsByTagName("interface"), "no interface"
EOF
done
ok "introspection files are <node> documents"

for page in chessclockd.8 chessclockctl.1 chessclockctl-status.1 chessclockctl-timecontrol-parse.1 chessclockd.toml.5 chessclock-bridge.8 bridge.toml.5 chessclock-emu.1 chessclock-relay.7; do
  zcat "/usr/share/man/man${page##*.}/$page.gz" | grep -q '^\.TH' || fail "$page is not a man page"
done
/usr/bin/chessclockd --version >/dev/null && /usr/bin/chessclockctl --version >/dev/null &&
  /usr/bin/chessclock-emu --version >/dev/null || fail "the installed binaries do not run"
ok "man pages and binaries"

# Every doc page that the programs' messages (read from the installed binaries), the installed
# man pages, the units, the init scripts or the README name (docs/NAME.md, or its installed
# path; the installed README, which sits beside them, names them as NAME.md) is installed.
named=$( { { cat /usr/bin/chessclockd /usr/bin/chessclockctl /usr/bin/chessclock-bridge /usr/bin/chessclock-emu
  zcat /usr/share/man/man*/chessclock*.gz /usr/share/man/man5/bridge.toml.5.gz | sed 's/\\-/-/g'
  cat /usr/lib/systemd/system/chessclock*.service /etc/init.d/chessclock* /usr/lib/chessclockd/init-common.sh; } |
  grep -aoE '(docs|/usr/share/doc/chessclockd)/[A-Za-z0-9_-]+\.md'
  grep -oE '[A-Za-z0-9_-]+\.md' /usr/share/doc/chessclockd/README.md; } | sed 's|.*/||' | sort -u)
[ -n "$named" ] || fail "no doc page named in messages, man pages or the README: the search is broken"
for page in $named; do
  [ -f "/usr/share/doc/chessclockd/$page" ] ||
    fail "docs/$page is named in a message, a man page or the README but not installed in /usr/share/doc/chessclockd/"
done
ok "every doc page named in messages, man pages, units and the README is installed ($(wc -w <<<"$named") pages)"

# User, group and device access from sysusers.
getent passwd chessclockd >/dev/null || fail "user chessclockd was not created"
getent group chessclock >/dev/null || fail "group chessclock was not created"
id -nG chessclockd | tr ' ' '\n' | grep -qx dialout || fail "chessclockd is not in group dialout"
ok "user chessclockd (in dialout) and group chessclock exist"
[ -L /etc/systemd/system/multi-user.target.wants/chessclockd.service ] || fail "chessclockd.service is not enabled"
ok "chessclockd.service is enabled"
for script in chessclockd chessclock-bridge; do
  ls /etc/rc2.d/S[0-9][0-9]"$script" >/dev/null 2>&1 || fail "/etc/init.d/$script is not registered for runlevel 2"
  ls /etc/rc0.d/K[0-9][0-9]"$script" >/dev/null 2>&1 || fail "/etc/init.d/$script is not stopped in runlevel 0"
done
ok "the init scripts are registered for the boot (update-rc.d)"

# systemd-analyze verify against the installed paths (a template is verified as an instance).
cp /usr/lib/systemd/system/chessclock-attach@.service "$tmp/chessclock-attach@ttyACM0.service"
for unit in /usr/lib/systemd/system/chessclockd.service /usr/lib/systemd/system/chessclock-bridge.service \
  "$tmp/chessclock-attach@ttyACM0.service"; do
  err=$(systemd-analyze verify --man=no "$unit" 2>&1) || fail "systemd-analyze verify $unit: $err"
  [ -z "$err" ] || fail "systemd-analyze verify $unit: $err"
done
ok "systemd-analyze verify passes on the installed units"
# Every man: entry of the units names a page the package installed (checked here rather
# than by verify's man(1) call, which needs man-db).
for unit in /usr/lib/systemd/system/chessclock*.service; do
  for page in $(sed -n 's/^Documentation=//p' "$unit" | tr ' ' '\n' | sed -n 's/^man:\(.*\)(\([0-9]\))$/\1.\2/p'); do
    [ -f "/usr/share/man/man${page##*.}/$page.gz" ] || fail "$unit names man:$page, which is not installed"
  done
done
ok "every man: page the units name is installed"

# --- the first hour: no systemd, no board --------------------------------------------------
# install.md's shell block after the line `<!-- package-test: MARKER`, from the installed page:
# the commands a newcomer reads are the commands run here.
doc_block() {
  awk -v marker="<!-- package-test: $1" '
    index($0, marker) == 1 { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' /usr/share/doc/chessclockd/install.md
}
# The daemon and the bridge started as install.md's "Without systemd" says (under systemd the
# units run them already), then waited for on the bus.
start_services() {
  if [ ! -d /run/systemd/system ]; then
    local block
    block=$(doc_block "start without systemd")
    [ -n "$block" ] || fail "install.md has no \"start without systemd\" block"
    as_root bash -euo pipefail -c "$block" || fail "install.md's \"Without systemd\" commands failed"
  fi
  for _ in $(seq 100); do
    chessclockctl list >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  fail "chessclockd is not on the system bus: $(cat /var/log/chessclockd.log 2>/dev/null)"
}
# install.md's stop commands (nothing to do under systemd).
stop_services() {
  [ -d /run/systemd/system ] && return 0
  local block
  block=$(doc_block "stop without systemd")
  [ -n "$block" ] || fail "install.md has no \"stop without systemd\" block"
  as_root bash -euo pipefail -c "$block"
}
# install.md's "A round without a board", run as written in a scratch folder, its output in
# $tmp/round.out. Leaves two virtual clocks, with a game under way on clock 0.
round_without_board() {
  local block
  block=$(doc_block "a round without a board")
  [ -n "$block" ] || fail "install.md has no \"a round without a board\" block"
  mkdir -p "$tmp/newcomer"
  (cd "$tmp/newcomer" && bash -euo pipefail -c "$block") >"$tmp/round.out" 2>&1 ||
    fail "install.md's \"A round without a board\" failed: $(cat "$tmp/round.out")"
}
# Start `chessclock-emu --json` (with a command in front, e.g. setpriv) reading $tmp/emu.in;
# sets emu_pid, emu_path and emu_serial from its first line. emu_quit stops it.
emu_start() {
  rm -f "$tmp/emu.in" "$tmp/emu.out"
  mkfifo "$tmp/emu.in"
  "$@" chessclock-emu --json <"$tmp/emu.in" >"$tmp/emu.out" 2>&1 &
  emu_pid=$!
  exec 7>"$tmp/emu.in"
  for _ in $(seq 100); do grep -q '"event":"path"' "$tmp/emu.out" 2>/dev/null && break; sleep 0.1; done
  emu_path=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["path"])' "$tmp/emu.out") ||
    fail "chessclock-emu printed no path: $(cat "$tmp/emu.out")"
  emu_serial=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["board_serial"])' "$tmp/emu.out")
}
emu_quit() {
  echo quit >&7
  exec 7>&-
  wait "$emu_pid" || true
}

# What the init scripts made (logs, the run-time directory, pid files, boot links) is gone
# after purge; called after the purge, when the services had run by them.
purge_leaves_nothing_of_the_init_scripts() {
  [ -d /run/systemd/system ] && return 0
  local left
  left=$(ls -d /var/log/chessclock* /run/chessclockd /run/chessclockd.pid /run/chessclock-bridge.pid \
    /etc/rc?.d/*chessclock* 2>/dev/null || true)
  [ -z "$left" ] || fail "purge left what the init scripts made: $left"
  ok "purge removes the init scripts' logs, /run/chessclockd, pid files and boot links"
}

# The init scripts (no systemd here), with the services running: status as root and as
# anyone; stop; a bad drop-in that fails `start` with the daemon's own words (exit 1),
# `status` then 3, `doctor` naming the file and line; a start past START_TIMEOUT stopped; a
# good start after which the daemon answers at once (start waited for its bus name); a
# reload that refuses a bad file and keeps the daemon; restarts. Leaves both running.
init_scripts_check() {
  [ -d /run/systemd/system ] && return 0
  local out dropin=/etc/chessclockd/chessclockd.toml.d/50-retries.toml made_dir=no
  [ -d /etc/chessclockd/chessclockd.toml.d ] || made_dir=yes
  out=$(as_root service chessclockd status) || fail "service chessclockd status: $out"
  grep -q 'is running (pid [0-9]*) and owns org.chessclockd.ChessClock1' <<<"$out" || fail "status: $out"
  out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups /etc/init.d/chessclock-bridge status) ||
    fail "/etc/init.d/chessclock-bridge status as nobody: $out"
  grep -q 'owns org.chessclockd.Bridge1' <<<"$out" || fail "bridge status: $out"
  out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups /etc/init.d/chessclockd stop 2>&1) &&
    fail "nobody stopped chessclockd: $out"
  ok "init scripts: status says running and owning the bus name, for root and for anyone; only root stops"

  as_root service chessclockd stop >/dev/null || fail "service chessclockd stop"
  out=$(as_root service chessclockd status 2>&1) && fail "status after stop: $out"
  as_root service chessclockd status >/dev/null 2>&1 || [ $? = 3 ] || fail "status after stop is not 3: $out"
  [ ! -e /run/chessclockd ] || fail "stop left /run/chessclockd (RuntimeDirectory= is removed on stop)"
  ok "init scripts: stop (status 3 after it, /run/chessclockd removed)"

  as_root install -d /etc/chessclockd/chessclockd.toml.d
  echo 'command_retries = 99' | as_root tee "$dropin" >/dev/null
  out=$(as_root service chessclockd start 2>&1) && fail "start with a bad drop-in succeeded: $out"
  grep -q 'exited as it started' <<<"$out" && grep -q "command_retries: 99 is out of range" <<<"$out" &&
    grep -q "$dropin, line 1" <<<"$out" || fail "start with a bad drop-in does not say why: $out"
  as_root service chessclockd status >/dev/null 2>&1 || [ $? = 3 ] || fail "status after a failed start is not 3"
  chessclockctl doctor -J >"$tmp/doctor-bad.json" && fail "doctor passed with a bad drop-in"
  python3 - "$tmp/doctor-bad.json" "$dropin" <<'PY' || fail "doctor with a bad drop-in: $(cat "$tmp/doctor-bad.json")"
import json, sys
checks = {c["check"]: c for c in json.load(open(sys.argv[1]))}
c = checks["config"]
assert not c["ok"] and not c["skipped"], c
assert sys.argv[2] + ", line 1" in c["detail"] and "command_retries" in c["detail"], c
PY
  ok "init scripts: a bad drop-in fails start (exit 1) with: $(grep 'command_retries' <<<"$out" | head -n 1)"

  # A daemon that never takes its name on the system bus (here: DAEMON_ARGS puts it on a
  # private bus of its own) is stopped after START_TIMEOUT, with its last lines.
  printf 'DAEMON_ARGS=--demo\nSTART_TIMEOUT=2\n' | as_root tee /etc/default/chessclockd >/dev/null
  out=$(as_root service chessclockd start 2>&1) && fail "a start that never took the bus name succeeded: $out"
  as_root rm -f /etc/default/chessclockd
  grep -q 'did not take org.chessclockd.ChessClock1 on the system bus within 2 s, so it was stopped' <<<"$out" ||
    fail "a start past START_TIMEOUT does not say so: $out"
  ! pgrep -u chessclockd >/dev/null || fail "a start past START_TIMEOUT left $(pgrep -a -u chessclockd)"
  ok "init scripts: a daemon that does not take its bus name within START_TIMEOUT is stopped, and start says so"

  as_root rm -f "$dropin"
  out=$(as_root service chessclockd start 2>&1) || fail "start: $out"
  chessclockctl list >/dev/null || fail "chessclockctl list right after start: start did not wait for the daemon"
  [ "$(stat -c %U:%G:%a /run/chessclockd)" = chessclockd:chessclock:750 ] || fail "runtime directory: $(stat -c %U:%G:%a /run/chessclockd)"
  [ "$(stat -c %U:%G:%a /var/log/chessclockd.log)" = root:adm:640 ] || fail "log: $(stat -c %U:%G:%a /var/log/chessclockd.log)"
  ok "init scripts: start returns once the daemon answers; /run/chessclockd and the log as the unit's"

  echo 'command_retries = 99' | as_root tee "$dropin" >/dev/null
  out=$(as_root service chessclockd reload 2>&1) && fail "reload with a bad drop-in succeeded: $out"
  grep -q "$dropin, line 1" <<<"$out" || fail "reload does not name the file: $out"
  as_root service chessclockd status >/dev/null || fail "a refused reload stopped the daemon"
  as_root rm -f "$dropin"
  # The folder is the operator's (purge leaves it): gone again if this check made it.
  [ "$made_dir" = no ] || as_root rmdir /etc/chessclockd/chessclockd.toml.d
  as_root service chessclockd reload >/dev/null || fail "reload"
  as_root service chessclockd restart >/dev/null || fail "restart"
  as_root service chessclock-bridge restart >/dev/null || fail "bridge restart"
  out=$(as_root service chessclock-bridge reload 2>&1) && fail "the bridge reloaded: $out"
  chessclockctl list >/dev/null && as_root service chessclock-bridge status >/dev/null ||
    fail "not running after the restarts"
  ok "init scripts: reload refuses a bad file and keeps the daemon, reload, restart (the bridge: restart only)"
}

start_services
ok "the services run as install.md's \"Without systemd\" starts them"
if [ ! -d /run/systemd/system ]; then
  [ "$(stat -c %U:%G:%a /var/lib/chessclockd)" = chessclockd:chessclock:750 ] || fail "state directory: $(stat -c %U:%G:%a /var/lib/chessclockd)"
  [ "$(ps -o user= -p "$(cat /run/chessclockd.pid)")" = chessclockd ] || fail "chessclockd does not run as user chessclockd"
  [ "$(ps -o user= -p "$(cat /run/chessclock-bridge.pid)")" = chessclock-bridge ] || fail "the bridge does not run as user chessclock-bridge"
  ok "the daemon runs as chessclockd, the bridge as chessclock-bridge, the state directory is chessclockd:chessclock 0750"
fi
round_without_board
grep -q 'virtual:Table 2' "$tmp/round.out" || fail "list shows no second virtual clock: $(cat "$tmp/round.out")"
grep -q '\[White "Carlsen, Magnus"\]' "$tmp/round.out" || fail "the PGN has not the pairings' White: $(cat "$tmp/round.out")"
ok "install.md's round without a board: two virtual clocks, pairings loaded, moves played, doctor passed"

# The live PGN, from the live folder, read by python-chess (the independent reader).
live=/run/chessclockd/live/round-1/game-1.pgn
# The live writer writes a change within a quarter of a second (docs/relay.md): wait for Black's.
for _ in $(seq 50); do grep -q 'e5 {' "$live" 2>/dev/null && break; sleep 0.1; done
[ -f "$live" ] || fail "no live PGN at $live: $(ls -R /run/chessclockd 2>&1)"
python3 -c 'import chess' 2>/dev/null || fail "python-chess is missing (scripts/test.sh installs it: pip install chess)"
python3 scripts/pgn-read.py "$live" >"$tmp/live.json" || fail "python-chess cannot read $live"
python3 - "$tmp/live.json" <<'PY' || fail "the live PGN: $(cat "$live")"
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
assert len(games) == 1, games
g = games[0]
assert g["uci"] == ["e2e4", "e7e5"], g["uci"]
assert all(c is not None for c in g["clk"]), g["clk"]
assert g["headers"]["White"] == "Carlsen, Magnus", g["headers"]
assert g["headers"]["Black"] == "Caruana, Fabiano", g["headers"]
assert g["headers"]["Round"] == "1.1", g["headers"]
assert not g["errors"], g["errors"]
PY
ok "the live PGN $live: 1. e4 e5 with clock times and the pairings' players, as python-chess reads it"

# doctor: exit 0, what it cannot check here skipped and named.
chessclockctl doctor >"$tmp/doctor.txt" || fail "chessclockctl doctor failed: $(cat "$tmp/doctor.txt")"
chessclockctl doctor -J >"$tmp/doctor.json" || fail "chessclockctl doctor -J failed"
systemd=no
[ -d /run/systemd/system ] && systemd=yes
python3 - "$tmp/doctor.json" "$systemd" <<'PY' || fail "doctor: $(cat "$tmp/doctor.txt")"
import json, sys
checks = {c["check"]: c for c in json.load(open(sys.argv[1]))}
failed = [c for c in checks.values() if not c["ok"]]
assert not failed, failed
for name in ("daemon", "permission", "boards", "udev", "state", "bridge"):
    assert not checks[name]["skipped"], checks[name]
assert checks["mqtt"]["skipped"] and "mqtt" in checks["mqtt"]["detail"], checks["mqtt"]
if sys.argv[2] == "no":
    assert checks["time"]["skipped"], checks["time"]
    assert "systemd is not running" in checks["time"]["detail"], checks["time"]
PY
tail -n 1 "$tmp/doctor.txt" | grep -q '^skipped: .*mqtt.*(not failed)$' ||
  fail "doctor does not name its skips: $(cat "$tmp/doctor.txt")"
ok "doctor exits 0, the bridge answering, its skips named: $(tail -n 1 "$tmp/doctor.txt")"

# The packaged emulator: started as the daemon's user, attached by its pty and reporting its
# own serial (its pid's last five digits); started as root (0600), refused with the reason.
emu_start setpriv --reuid=chessclockd --regid=chessclock --init-groups --
[ "$emu_serial" = "$(printf %05d $((emu_pid % 100000)))" ] ||
  fail "the emulator's serial $emu_serial is not its pid's last five digits ($emu_pid)"
chessclockctl attach "$emu_path" >/dev/null || fail "chessclockctl attach $emu_path (an emulator of the daemon's user)"
for _ in $(seq 100); do
  chessclockctl status "$emu_path" --json 2>/dev/null | grep -q "\"board_serial\": *\"$emu_serial\"" && break
  sleep 0.1
done
chessclockctl status "$emu_path" --json | grep -q "\"board_serial\": *\"$emu_serial\"" ||
  fail "the attached emulator does not report its serial $emu_serial: $(chessclockctl status "$emu_path" 2>&1)"
chessclockctl detach "$emu_path" >/dev/null || fail "detach $emu_path"
emu_quit
ok "the packaged chessclock-emu, run as the daemon's user, attached as board $emu_serial"
emu_start env
chmod 0600 "$emu_path"
refused=$(chessclockctl attach "$emu_path" 2>&1) && fail "the pty of an emulator run as root (0600) was attached"
grep -q "owned by root:[a-z]* with mode 0600" <<<"$refused" &&
  grep -q "the daemon runs as chessclockd (groups " <<<"$refused" ||
  fail "the refusal does not name the pty's owner and mode and the daemon's groups: $refused"
emu_quit
ok "an emulator's pty of root (0600) is refused with: $refused"

# --- an upgrade in the middle of a round -----------------------------------------------------
# Clock 0's game (1. e4 e5, White's clock running) goes through the upgrade below: the service
# stops (the maintainer scripts stop and start it under systemd; here install.md's commands
# do), the newer package is installed, the service starts again and resumes the game.
chessclockctl status 0 --json >"$tmp/before-upgrade.json" || fail "status 0 before the upgrade"
stop_services
ok "the services stop as install.md says"

# --- upgrade: same version again, then a newer one; state and local edits survive ----------
as_root install -d -o chessclockd -g chessclockd -m 0750 /var/lib/chessclockd
echo "game record" | as_root tee /var/lib/chessclockd/marker.journal >/dev/null
echo "# local edit" | as_root tee -a /etc/chessclockd/chessclockd.toml >/dev/null
echo "# local edit" | as_root tee -a /etc/chessclockd/bridge.toml >/dev/null
as_root dpkg -i "$amd64" >/dev/null
newer="${version%-*}-$(( ${version##*-} + 1 ))"
# Keep the first package: packaging the newer version replaces it in target/debian/.
cp "$amd64" "$tmp/first.deb"
amd64=$tmp/first.deb
NO_BUILD=1 DEB_VERSION="$newer" ./scripts/package.sh amd64 >/dev/null
as_root dpkg -i --force-confold "$debs/chessclockd_${newer}_amd64.deb" >/dev/null
[ "$(dpkg-query -W -f='${Version}' chessclockd)" = "$newer" ] || fail "upgrade to $newer"
[ -f /var/lib/chessclockd/marker.journal ] || fail "upgrade lost /var/lib/chessclockd"
grep -q '^# local edit' /etc/chessclockd/chessclockd.toml || fail "upgrade lost the local configuration"
grep -q '^# local edit' /etc/chessclockd/bridge.toml || fail "upgrade lost the local bridge settings"
ok "reinstall and upgrade to $newer keep the state and the local configuration"

start_services
for _ in $(seq 100); do
  chessclockctl status 0 --json >"$tmp/after-upgrade.json" 2>/dev/null &&
    grep -q '"moves_san"' "$tmp/after-upgrade.json" && break
  sleep 0.1
done
python3 - "$tmp/before-upgrade.json" "$tmp/after-upgrade.json" <<'PY' ||
import json, sys
before, after = (json.load(open(f)) for f in sys.argv[1:3])
for key in ("moves_san", "moves", "status", "running", "name"):
    assert before.get(key) == after.get(key), (key, before.get(key), after.get(key))
assert before["moves_san"] == ["e4", "e5"], before["moves_san"]
# The waiting side's clock is as it was; the running side was charged the time that passed.
waiting = "black_ms" if before["running"] == "white" else "white_ms"
running = "white_ms" if waiting == "black_ms" else "black_ms"
assert after[waiting] == before[waiting], (waiting, before[waiting], after[waiting])
assert after[running] < before[running], (running, before[running], after[running])
PY
  fail "the game under way did not come through the upgrade: $(cat "$tmp/before-upgrade.json") -> $(cat "$tmp/after-upgrade.json")"
for _ in $(seq 100); do [ -f "$live" ] && break; sleep 0.1; done
python3 scripts/pgn-read.py "$live" >"$tmp/live-after.json" || fail "python-chess cannot read $live after the upgrade"
python3 - "$tmp/live-after.json" <<'PY' || fail "the live PGN after the upgrade: $(cat "$live")"
import json, sys
games = [json.loads(l) for l in open(sys.argv[1])]
assert len(games) == 1 and games[0]["uci"] == ["e2e4", "e7e5"], games
assert games[0]["headers"]["White"] == "Carlsen, Magnus", games[0]["headers"]
PY
ok "the game under way came through the upgrade: the same moves and players, the waiting clock unchanged, the live PGN written again"
init_scripts_check
stop_services

# --- remove, purge -------------------------------------------------------------------------
as_root dpkg --remove chessclockd >/dev/null
[ ! -e /usr/bin/chessclockd ] || fail "remove left /usr/bin/chessclockd"
[ -f /etc/chessclockd/chessclockd.toml ] || fail "remove deleted the configuration"
[ -f /etc/chessclockd/bridge.toml ] || fail "remove deleted the bridge settings"
[ -f /var/lib/chessclockd/marker.journal ] || fail "remove deleted the state"
ok "remove keeps configuration and state"
as_root dpkg --purge chessclockd >/dev/null 2>&1
[ ! -e /etc/chessclockd ] || fail "purge left /etc/chessclockd"
[ ! -e /etc/systemd/system/multi-user.target.wants/chessclockd.service ] || fail "purge left the enable link"
[ -f /var/lib/chessclockd/marker.journal ] || fail "purge deleted the state without being asked"
ok "purge removes the configuration and keeps the games unless asked"
as_root dpkg -i "$amd64" >/dev/null
as_root env CHESSCLOCKD_PURGE_STATE=yes dpkg --purge chessclockd >/dev/null 2>&1
[ ! -e /var/lib/chessclockd ] || fail "CHESSCLOCKD_PURGE_STATE=yes purge left /var/lib/chessclockd"
leftover=$(find /usr /etc -name '*chessclock*' -not -path '/usr/share/lintian/*' 2>/dev/null | grep -v "^$PWD" || true)
[ -z "$leftover" ] || fail "purge left: $leftover"
ok "purge with CHESSCLOCKD_PURGE_STATE=yes leaves nothing"
purge_leaves_nothing_of_the_init_scripts


# --- an apt repository with all three architectures, installed from with apt-get ------------
PI_BINARIES_RAN=$tmp/pi-ran.sha256 ./scripts/apt-repo-test.sh || fail "the apt repository (scripts/apt-repo-test.sh)"
ok "signed apt repository: built, verified, installed from, purged"

echo "package-test.sh: all $pass checks passed"
