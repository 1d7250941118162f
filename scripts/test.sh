#!/usr/bin/env bash
# The project's one test command (README "Run the tests"; CI runs exactly this).
# Installs what a fresh Debian machine lacks, then checks formatting, lints and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "test.sh: need root to run: $*" >&2; return 1; fi; }

# System packages the tests use: a real dbus-daemon (private buses with the real policy),
# setpriv/useradd (run clients as unprivileged users), systemd-analyze (unit checks), kill.
need=()
command -v dbus-daemon >/dev/null || need+=(dbus-daemon)
command -v dbus-send >/dev/null || need+=(dbus-bin)
command -v setpriv >/dev/null || need+=(util-linux)
command -v useradd >/dev/null || need+=(passwd)
command -v python3 >/dev/null || need+=(python3)
command -v systemd-analyze >/dev/null || need+=(systemd)
# The tests send signals with the kill program (bash's builtin does not count).
[ -x /usr/bin/kill ] || [ -x /bin/kill ] || need+=(procps)
# The bridge's tests: its pages in a headless browser, its MQTT output on a real broker.
command -v chromium >/dev/null || need+=(chromium)
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v mosquitto_sub >/dev/null || need+=(mosquitto-clients)
# The bridge's MQTT over TLS: a test CA made with openssl (tests/tests/e2e/bridge_mqtt_tls.rs).
command -v openssl >/dev/null || need+=(openssl)
command -v tmux >/dev/null || need+=(tmux)
# The manual pages are read by groff in the CLI's tests (warnings fail them).
command -v groff >/dev/null || need+=(groff-base)
if [ ${#need[@]} -gt 0 ]; then
  echo "test.sh: installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# python-chess: the independent PGN reader of game/tests/it/pgn_python.rs (scripts/pgn-read.py).
if ! python3 -c 'import chess' 2>/dev/null; then
  echo "test.sh: installing python-chess"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3-pip
  fi
  # Debian's system Python refuses plain pip installs (PEP 668); then say so explicitly.
  python3 -m pip install --quiet chess || python3 -m pip install --quiet --break-system-packages chess
fi
# jsonschema: the independent validator of docs/schema/ (tests/tests/e2e/schemas.rs).
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  echo "test.sh: installing jsonschema"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3-pip
  fi
  python3 -m pip install --quiet jsonschema ||
    python3 -m pip install --quiet --break-system-packages jsonschema
fi

# Rust components for the checks below.
if command -v rustup >/dev/null; then
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== fuzz (briefly, where a nightly toolchain is present)"
if cargo +nightly --version >/dev/null 2>&1 && ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked --quiet
fi
./scripts/fuzz.sh 30
echo "== cargo test"
cargo build --workspace --bins --locked
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --workspace --locked --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# The Debian packages: build amd64, arm64 and armhf, lintian, each one's Depends against what
# it links, the arm64 and armhf binaries run under qemu-user, install, upgrade and purge on
# this machine (docs/install.md). package-test.sh and the scripts it runs install what they
# need (cross gcc and libc, rustup targets, qemu-user). SKIP_PACKAGE_TEST=1 leaves it out on a
# developer machine; CI runs it.
package_status=0
if [ "${SKIP_PACKAGE_TEST:-}" = 1 ] && [ "${CI:-}" != true ]; then
  echo "== packaging: skipped (SKIP_PACKAGE_TEST=1)"
else
  echo "== packaging (scripts/package-test.sh)"
  ./scripts/package-test.sh || package_status=$?
fi
# One closing line for the whole suite (cargo prints one per test binary); a failed packaging
# check counts as one failure.
awk -v pkg="$package_status" '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } }
     END { if (pkg != 0) f += 1; printf "%d passed, %d failed\n", p, f }' "$log"
[ "$status" = 0 ] || exit "$status"
exit "$package_status"
