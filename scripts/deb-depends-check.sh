#!/usr/bin/env bash
# A package's Depends against what its binaries link (scripts/package-test.sh runs it on the
# amd64, arm64 and armhf packages): ./scripts/deb-depends-check.sh PACKAGE.deb...
#
# For every ELF file in the package (extracted with dpkg-deb -x):
#   - it is built for the package's architecture (ELF machine; on armhf the EABI 5
#     hard-float ABI that Raspberry Pi OS 32-bit runs);
#   - its program interpreter (the dynamic loader) is a file of Debian's libc6 for that
#     architecture;
#   - every shared library it names (readelf -d NEEDED) is found in Debian's C libraries for
#     that architecture (the host's for amd64; the cross ones in /usr/<triple>/lib, which
#     hold the same files as the target's own packages: libc6-arm64-cross is the arm64
#     libc6), and the package that holds it is in Depends;
#   - the newest glibc symbol version it needs (readelf -V, GLIBC_x.y) is at most the
#     version libc6 is required at in Depends, and at most the glibc the cross libraries are
#     (Debian 12 and Raspberry Pi OS 12: 2.36).
# So an install on a Pi never ends in "error while loading shared libraries" for a library
# apt did not pull. Exits 1 with what is missing and how to fix it.
set -euo pipefail

fail() { echo "deb-depends-check.sh: FAIL: $*" >&2; exit 1; }
[ $# -ge 1 ] || { echo "usage: deb-depends-check.sh PACKAGE.deb..." >&2; exit 2; }
command -v readelf >/dev/null || fail "readelf is missing (Debian package binutils)"

# Where Debian's libraries of each architecture are on this machine, the ELF machine
# (e_machine, little-endian hex) and the cross packages' name suffix.
host_arch=$(dpkg --print-architecture)
libdirs_of() {
  if [ "$1" = "$host_arch" ]; then
    local multiarch
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    echo "/lib/$multiarch /usr/lib/$multiarch /lib64 /lib"
    return
  fi
  case "$1" in
    arm64) echo /usr/aarch64-linux-gnu/lib ;;
    armhf) echo /usr/arm-linux-gnueabihf/lib ;;
    amd64) echo /usr/x86_64-linux-gnu/lib ;;
    *) fail "no C libraries known for architecture $1" ;;
  esac
}
machine_of() {
  case "$1" in
    amd64) echo 3e00 ;;
    arm64) echo b700 ;;
    armhf) echo 2800 ;;
    *) fail "no ELF machine known for architecture $1" ;;
  esac
}

# The Debian package (as named on the target) that holds FILE in one of DIRS.
owner_of() {
  local name=$1 dirs=$2 dir pkg
  for dir in $dirs; do
    [ -e "$dir/$name" ] || continue
    pkg=$(dpkg -S "$dir/$name" 2>/dev/null | head -n 1 | cut -d: -f1) || true
    [ -n "$pkg" ] || continue
    # libc6:amd64 -> libc6; libgcc-s1-arm64-cross -> libgcc-s1.
    echo "${pkg%-*-cross}"
    return 0
  done
  return 1
}

# The upstream version of the glibc in DIRS (2.36 for 2.36-9+deb12u4).
glibc_of() {
  local dir pkg
  for dir in $1; do
    [ -e "$dir/libc.so.6" ] || continue
    pkg=$(dpkg -S "$dir/libc.so.6" 2>/dev/null | head -n 1 | cut -d: -f1)
    dpkg-query -W -f='${Version}\n' "$pkg" | head -n 1 | sed 's/-.*//'
    return 0
  done
  echo 0
}

# Depends as "name version-or-empty" lines, one per alternative, for architecture ARCH: an
# arch-qualified name (libc6:arm64, as Debian's cross libraries' shlibs write it) counts for
# that architecture (or :any, :native) only.
depends_lines() {
  dpkg-deb -f "$1" Depends | tr ',' '\n' | tr '|' '\n' | sed -E 's/^ *//; s/ *$//' |
    sed -nE 's/^([a-z0-9][a-z0-9.+-]*)(:([a-z0-9-]+))?( *\(>= *([^)]*)\))?.*$/\1|\3|\5/p' |
    awk -F'|' -v arch="$2" '$2 == "" || $2 == arch || $2 == "any" || $2 == "native" { print $1, $3 }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for deb in "$@"; do
  [ -f "$deb" ] || fail "$deb does not exist"
  arch=$(dpkg-deb -f "$deb" Architecture)
  dirs=$(libdirs_of "$arch")
  want_machine=$(machine_of "$arch")
  root=$tmp/$arch
  rm -rf "$root"
  dpkg-deb -x "$deb" "$root"
  deps=$(depends_lines "$deb" "$arch")
  libc_at=$(awk '$1 == "libc6" { print $2 }' <<<"$deps" | head -n 1)
  checked=0 libs=()
  while IFS= read -r -d '' file; do
    [ "$(head -c 4 "$file" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
    rel=${file#"$root"}
    machine=$(od -An -tx1 -j18 -N2 "$file" | tr -d ' ')
    [ "$machine" = "$want_machine" ] || fail "$deb: $rel is not an $arch binary (ELF machine $machine)"
    if [ "$arch" = armhf ]; then
      readelf -h "$file" | grep -q 'Version5 EABI, hard-float ABI' ||
        fail "$deb: $rel is not an EABI 5 hard-float binary: $(readelf -h "$file" | grep Flags)"
    fi
    interp=$(readelf -l "$file" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
    if [ -n "$interp" ]; then
      owner=$(owner_of "$(basename "$interp")" "$dirs") ||
        fail "$deb: $rel asks for the loader $interp, which no $arch C library here provides"
      grep -qx "$owner .*" <<<"$deps" ||
        fail "$deb: $rel is loaded by $interp of package $owner, which is not in Depends: $(dpkg-deb -f "$deb" Depends)"
    fi
    while read -r lib; do
      owner=$(owner_of "$lib" "$dirs") ||
        fail "$deb: $rel needs $lib, which no Debian package of $arch on this machine holds" \
          "(look for it with apt-file search $lib, add the package to depends in daemon/Cargo.toml)"
      grep -qx "$owner .*" <<<"$deps" ||
        fail "$deb: $rel needs $lib of package $owner, which is not in Depends ($(dpkg-deb -f "$deb" Depends));" \
          "add it to depends in daemon/Cargo.toml"
      libs+=("$lib")
    done < <(readelf -d "$file" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p')
    glibc=$(readelf -V "$file" | grep -oE 'Name: GLIBC_[0-9.]+' | sed 's/.*GLIBC_//' | sort -V | tail -n 1)
    if [ -n "$glibc" ]; then
      [ -n "$libc_at" ] || fail "$deb: $rel needs glibc $glibc, but Depends names no libc6 (>= version)"
      dpkg --compare-versions "$libc_at" ge "$glibc" ||
        fail "$deb: $rel needs glibc $glibc, Depends asks only for libc6 (>= $libc_at)"
      dpkg --compare-versions "$(glibc_of "$dirs")" ge "$glibc" ||
        fail "$deb: $rel needs glibc $glibc, newer than the $arch C library it was linked against ($(glibc_of "$dirs"))"
    fi
    checked=$((checked + 1))
  done < <(find "$root" -type f -print0)
  [ "$checked" -gt 0 ] || fail "$deb holds no ELF file: the search is broken"
  echo "ok - $arch: $checked binaries link only $(printf '%s\n' "${libs[@]}" | sort -u | tr '\n' ' ')and their packages are in Depends ($(dpkg-deb -f "$deb" Depends))"
done
