#!/usr/bin/env bash
# Build the Debian packages: ./scripts/package.sh [--repo DIR --key KEY] [amd64|arm64|armhf ...]
# (default: amd64; with --repo: all three).
# Writes target/debian/chessclockd_<version>_<arch>.deb. What goes into the package is listed
# in one place, [package.metadata.deb] in daemon/Cargo.toml; this script installs the tools
# (cargo-deb, the rustup target, Debian's cross linker) where missing, generates the man pages,
# shell completions and introspection documents into target/package-assets/, and runs cargo-deb.
# With --repo DIR, the packages also go into a signed apt repository in DIR, signed with the
# gpg key KEY (scripts/apt-repo.sh; docs/install.md "An apt repository").
#
# Environment:
#   PROFILE      cargo profile of the binaries (default: release; CI checks use package-check,
#                the same code without LTO, see Cargo.toml, and packed with cargo-deb's faster
#                compression: the same files in a larger .deb, some 35 s quicker per package)
#   DEB_VERSION  override the package version (e.g. 0.1.0-2 for an upgrade test)
#   NO_BUILD=1   package the binaries built by an earlier run as they are
set -euo pipefail
cd "$(dirname "$0")/.."

profile=${PROFILE:-release}
target_dir=${CARGO_TARGET_DIR:-target}
assets=target/package-assets
repo='' key=''
arches=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) [ $# -ge 2 ] || { echo "package.sh: --repo needs a folder" >&2; exit 2; }; repo=$2; shift 2 ;;
    --key) [ $# -ge 2 ] || { echo "package.sh: --key needs a gpg key id" >&2; exit 2; }; key=$2; shift 2 ;;
    -*) echo "package.sh: unknown option '$1'; use --repo DIR --key KEY and architectures" >&2; exit 2 ;;
    *) arches+=("$1"); shift ;;
  esac
done
if [ -n "$repo" ] && [ -z "$key" ]; then
  echo "package.sh: --repo needs --key KEY, the gpg key that signs the repository" \
    "(docs/install.md \"An apt repository\" says how to make one)" >&2
  exit 2
fi
[ -z "$key" ] || [ -n "$repo" ] || { echo "package.sh: --key goes with --repo DIR" >&2; exit 2; }
if [ ${#arches[@]} -eq 0 ]; then
  if [ -n "$repo" ]; then arches=(amd64 arm64 armhf); else arches=(amd64); fi
fi

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "package.sh: need root to run: $*" >&2; return 1; fi; }

triple_of() {
  case "$1" in
    amd64) echo x86_64-unknown-linux-gnu ;;
    arm64) echo aarch64-unknown-linux-gnu ;;
    armhf) echo armv7-unknown-linux-gnueabihf ;;
    *) echo "package.sh: unknown architecture '$1'; use amd64, arm64 or armhf" >&2; return 2 ;;
  esac
}
# Debian's cross gcc (the linker) for a foreign architecture, and its package names.
cross_gcc_of() {
  case "$1" in
    amd64) echo x86_64-linux-gnu-gcc ;;
    arm64) echo aarch64-linux-gnu-gcc ;;
    armhf) echo arm-linux-gnueabihf-gcc ;;
  esac
}
cross_pkgs_of() {
  case "$1" in
    amd64) echo gcc-x86-64-linux-gnu libc6-dev-amd64-cross ;;
    arm64) echo gcc-aarch64-linux-gnu libc6-dev-arm64-cross ;;
    armhf) echo gcc-arm-linux-gnueabihf libc6-dev-armhf-cross ;;
  esac
}

host_arch=$(dpkg --print-architecture)
for arch in "${arches[@]}"; do triple_of "$arch" >/dev/null; done

# Tools, installed only where missing.
if ! cargo deb --version >/dev/null 2>&1; then
  echo "package.sh: installing cargo-deb"
  cargo install cargo-deb --locked --quiet
fi
need=()
for arch in "${arches[@]}"; do
  [ "$arch" = "$host_arch" ] && continue
  gcc=$(cross_gcc_of "$arch")
  [ -n "$gcc" ] && ! command -v "$gcc" >/dev/null && read -ra pkgs <<<"$(cross_pkgs_of "$arch")" && need+=("${pkgs[@]}")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "package.sh: installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
if command -v rustup >/dev/null; then
  installed=$(rustup target list --installed)
  for arch in "${arches[@]}"; do
    triple=$(triple_of "$arch")
    grep -qx "$triple" <<<"$installed" || rustup target add "$triple"
  done
fi

# Generated assets, from host builds of the binaries (clap is the source of truth).
cargo build --locked --quiet -p chessclockd -p chessclockctl -p chessclock-bridge --bins
host_bin=$target_dir/debug
rm -rf "$assets"
mkdir -p "$assets/man" "$assets/completions" "$assets/interfaces"
"$host_bin/chessclockd" --man >"$assets/man/chessclockd.8"
"$host_bin/chessclock-bridge" --man >"$assets/man/chessclock-bridge.8"
"$host_bin/chessclockctl" man --dir "$assets/man"   # chessclockctl.1 and one page per subcommand
"$host_bin/chessclockctl" completions bash >"$assets/completions/chessclockctl.bash"
"$host_bin/chessclockctl" completions zsh >"$assets/completions/_chessclockctl"
"$host_bin/chessclockctl" completions fish >"$assets/completions/chessclockctl.fish"
# The committed XML holds one <interface> each (compared with what the daemon serves);
# /usr/share/dbus-1/interfaces/ wants complete introspection documents.
for xml in dbus/*.xml; do
  {
    echo '<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"'
    echo ' "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">'
    echo '<node>'
    cat "$xml"
    echo '</node>'
  } >"$assets/interfaces/$(basename "$xml")"
done

mkdir -p "$target_dir/debian"
for arch in "${arches[@]}"; do
  triple=$(triple_of "$arch")
  args=(-p chessclockd --locked --profile "$profile" --output "$target_dir/debian/")
  # Binaries are stripped by the linker (cargo's strip), so no per-architecture strip tool
  # is needed; cargo-deb is told not to strip again.
  args+=(--no-strip)
  [ "$arch" = "$host_arch" ] || args+=(--target "$triple")
  [ -n "${DEB_VERSION:-}" ] && args+=(--deb-version "$DEB_VERSION")
  [ "${NO_BUILD:-}" = 1 ] && args+=(--no-build)
  [ "$profile" = package-check ] && args+=(--fast)
  gcc=$(cross_gcc_of "$arch")
  env_linker=()
  if [ "$arch" != "$host_arch" ] && [ -n "$gcc" ]; then
    var=CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$triple")_LINKER
    # C parts of dependencies (ring, for the bridge's TLS) are built with the same compiler.
    env_linker=("$var=$gcc" "CC_${triple//-/_}=$gcc")
  fi
  strip_var=CARGO_PROFILE_$(tr 'a-z-' 'A-Z_' <<<"$profile")_STRIP
  start=$(date +%s)
  # cargo-deb warns about every asset outside target/release/ (the generated ones): noise.
  env "${env_linker[@]}" "$strip_var=symbols" cargo deb "${args[@]}" 2>&1 |
    { grep -v "are detected as Cargo target dir" || true; }
  echo "package.sh: $arch ($profile) took $(($(date +%s) - start)) s"
done
ls -l "$target_dir"/debian/*.deb
if [ -n "$repo" ]; then
  # The package of each architecture this run wrote: the newest of its name.
  debs=()
  for arch in "${arches[@]}"; do
    debs+=("$(ls -t "$target_dir"/debian/chessclockd_*_"$arch".deb | head -n 1)")
  done
  ./scripts/apt-repo.sh "$repo" "$key" "${debs[@]}"
fi
