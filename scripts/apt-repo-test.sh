#!/usr/bin/env bash
# The apt repository check (scripts/package-test.sh runs it last): build the three
# architectures into a signed repository with the real command (./scripts/package.sh --repo
# DIR --key KEY, a key made for the test), check its layout and signature, then install
# chessclockd from it with apt-get through a `file:` source, as an operator's Pi would from a
# hosted copy, and purge it again. Needs root (or sudo) for apt; PROFILE is passed on.
#
# PI_BINARIES_RAN names the file where scripts/pi-binaries-test.sh wrote the checksums of
# every file of the arm64 and armhf packages whose binaries it ran (scripts/package-test.sh
# sets it): the repository's arm64 and armhf packages must hold exactly those files, so what
# a Pi installs from the repository is what ran. Without it that comparison is not made, and
# the check says so.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "apt-repo-test.sh: need root to run: $*" >&2; return 1; fi; }
fail() { echo "apt-repo-test.sh: FAIL: $*" >&2; exit 1; }
ok() { echo "ok - $*"; }

if dpkg-query -W -f='${Status}' chessclockd 2>/dev/null | grep -q "ok installed"; then
  fail "chessclockd is installed on this machine; this check installs and purges it"
fi
need=()
command -v gpg >/dev/null || need+=(gpg)
command -v gpgv >/dev/null || need+=(gpgv)
if [ ${#need[@]} -gt 0 ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# Readable by apt's sandbox user (_apt), as a hosted folder would be.
repo=$(mktemp -d /tmp/chessclockd-repo.XXXXXX)
gnupg=$(mktemp -d)
listed=$(mktemp -d)   # the repository's packages, extracted to compare with what ran
sources=/etc/apt/sources.list.d/chessclockd-repo-test.sources
cleanup() {
  if dpkg-query -W -f='${Status}' chessclockd 2>/dev/null | grep -q installed; then
    as_root env CHESSCLOCKD_PURGE_STATE=yes apt-get purge -y -qq chessclockd >/dev/null 2>&1 || true
  fi
  as_root rm -f "$sources"
  as_root find /var/lib/apt/lists -name '*chessclockd-repo*' -delete 2>/dev/null || true
  rm -rf "$repo" "$gnupg" "$listed"
}
trap cleanup EXIT
chmod 0755 "$repo"

export GNUPGHOME=$gnupg
gpg --batch --quiet --passphrase '' --quick-gen-key 'chessclockd test archive <archive@chessclockd.invalid>' ed25519 sign never
./scripts/package.sh --repo "$repo" --key archive@chessclockd.invalid
unset GNUPGHOME

for arch in amd64 arm64 armhf; do
  packages=$repo/dists/stable/main/binary-$arch/Packages
  grep -qx 'Package: chessclockd' "$packages" || fail "$packages does not list chessclockd"
  grep -qx "Architecture: $arch" "$packages" || fail "$packages does not list the $arch package"
  file=$(sed -n 's/^Filename: //p' "$packages")
  [ -f "$repo/$file" ] || fail "$packages names $file, which is not in the repository"
done
ok "the repository lists the amd64, arm64 and armhf packages"
# Each list's checksum is its package's, and the Pi packages are the ones whose binaries ran.
for arch in amd64 arm64 armhf; do
  packages=$repo/dists/stable/main/binary-$arch/Packages
  file=$(sed -n 's/^Filename: //p' "$packages")
  [ "$(sed -n 's/^SHA256: //p' "$packages")" = "$(sha256sum "$repo/$file" | cut -d' ' -f1)" ] ||
    fail "$packages gives a SHA256 that is not $file's"
done
if [ -n "${PI_BINARIES_RAN:-}" ]; then
  [ -s "$PI_BINARIES_RAN" ] || fail "PI_BINARIES_RAN=$PI_BINARIES_RAN holds no checksums"
  for arch in arm64 armhf; do
    file=$(sed -n 's/^Filename: //p' "$repo/dists/stable/main/binary-$arch/Packages")
    dpkg-deb -x "$repo/$file" "$listed/$arch"
    diff <(grep "  $arch/" "$PI_BINARIES_RAN" | sort -k2) \
      <(cd "$listed/$arch" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sed "s|  \./|  $arch/|" | sort -k2) ||
      fail "the repository's $arch package ($file) does not hold the files whose binaries ran (above: < ran, > listed)"
  done
  ok "the repository's arm64 and armhf packages hold the very files whose binaries ran under qemu ($(wc -l <"$PI_BINARIES_RAN") checksums)"
else
  echo "apt-repo-test.sh: PI_BINARIES_RAN is not set, so the repository's arm64 and armhf packages" \
    "were not compared with binaries that ran (scripts/package-test.sh sets it)"
fi
gpgv --keyring "$repo/chessclockd-archive-keyring.gpg" "$repo/dists/stable/InRelease" 2>/dev/null ||
  fail "InRelease is not signed by the repository's key"
gpgv --keyring "$repo/chessclockd-archive-keyring.gpg" "$repo/dists/stable/Release.gpg" \
  "$repo/dists/stable/Release" 2>/dev/null || fail "Release.gpg does not verify"
ok "InRelease and Release.gpg verify against chessclockd-archive-keyring.gpg"

# A `file:` source, as docs/install.md has the operators write for a hosted repository.
as_root tee "$sources" >/dev/null <<EOT
Types: deb
URIs: file:$repo
Suites: stable
Components: main
Signed-By: $repo/chessclockd-archive-keyring.gpg
EOT
as_root apt-get update -qq
apt-cache policy chessclockd | grep -q "file:$repo stable/main" ||
  fail "apt does not see chessclockd in the repository: $(apt-cache policy chessclockd)"
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chessclockd >/dev/null
/usr/bin/chessclockd --version >/dev/null || fail "the binary installed from the repository does not run"
ok "apt-get install chessclockd from the signed repository"
as_root env CHESSCLOCKD_PURGE_STATE=yes apt-get purge -y -qq chessclockd >/dev/null
[ ! -e /usr/bin/chessclockd ] || fail "purge left /usr/bin/chessclockd"
ok "apt-get purge chessclockd"

# A repository whose Release was changed after signing is refused.
echo "Tampered: yes" >>"$repo/dists/stable/Release"
gpgv --keyring "$repo/chessclockd-archive-keyring.gpg" "$repo/dists/stable/Release.gpg" \
  "$repo/dists/stable/Release" 2>/dev/null && fail "a tampered Release still verifies"
ok "a tampered Release does not verify"
echo "apt-repo-test.sh: all checks passed"
