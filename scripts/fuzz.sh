#!/usr/bin/env bash
# Run the chessclock-protocol decoder fuzz target briefly (default 30 s; pass seconds as $1).
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
