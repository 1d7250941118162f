#!/usr/bin/env bash
# Run the chessclock-protocol fuzz targets briefly (the decoder for the given time, default 30 s,
# pass seconds as $1; the move-log decoder for a third of it).
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`); without them it says
# so and exits 0, so it is safe to call from anywhere. Corpus and crashes stay in fuzz/
# (ignored by git); a crash makes this script fail and prints the reproducer path.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-30}"
if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz.sh: skipped: no nightly toolchain (rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: skipped: cargo-fuzz is not installed (cargo install cargo-fuzz)"
  exit 0
fi
echo "fuzz.sh: fuzzing the decoder for ${secs}s"
cargo +nightly fuzz run --fuzz-dir fuzz decoder -- -max_total_time="$secs" -max_len=4096
ee_secs=$(( secs / 3 > 0 ? secs / 3 : 1 ))
echo "fuzz.sh: fuzzing the move-log decoder for ${ee_secs}s"
cargo +nightly fuzz run --fuzz-dir fuzz ee_log -- -max_total_time="$ee_secs" -max_len=8192
