#!/usr/bin/env bash
# Lay Debian packages out as a signed apt repository anyone can host (a web server's folder,
# a USB stick, `file:` on the Pi itself):
#
#   ./scripts/apt-repo.sh DIR KEY PACKAGE.deb...
#
# DIR/pool/main/ holds the packages (earlier ones already there are kept, as apt repositories
# keep their history), DIR/dists/stable/main/binary-<arch>/Packages{,.gz} list them for every
# architecture in the pool, DIR/dists/stable/{Release,InRelease,Release.gpg} are signed with
# the gpg key KEY (a key id, fingerprint or e-mail in the keyring of $GNUPGHOME, or ~/.gnupg),
# and DIR/chessclockd-archive-keyring.gpg is its public key for the clients' `Signed-By:`.
# scripts/package.sh --repo DIR --key KEY builds the packages and calls this; docs/install.md
# says how to make a key and point apt at the repository.
set -euo pipefail

[ $# -ge 3 ] || { echo "usage: apt-repo.sh DIR KEY PACKAGE.deb..." >&2; exit 2; }
dir=$1 key=$2
shift 2

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
  echo "apt-repo.sh: need root to run: $*" >&2; return 1; fi; }
need=()
command -v apt-ftparchive >/dev/null || need+=(apt-utils)
command -v gpg >/dev/null || need+=(gpg)
if [ ${#need[@]} -gt 0 ]; then
  echo "apt-repo.sh: installing ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
if ! gpg --batch --list-secret-keys "$key" >/dev/null 2>&1; then
  echo "apt-repo.sh: no secret gpg key '$key' in ${GNUPGHOME:-~/.gnupg}. Make one with" \
    "gpg --quick-gen-key 'Your Name <you@example.org>' ed25519 sign never, or name yours" \
    "(gpg --list-secret-keys)." >&2
  exit 2
fi

mkdir -p "$dir/pool/main"
for deb in "$@"; do
  dpkg-deb -f "$deb" Package >/dev/null 2>&1 || { echo "apt-repo.sh: $deb is not a Debian package" >&2; exit 2; }
  cp "$deb" "$dir/pool/main/"
done

cd "$dir"
mapfile -t arches < <(for deb in pool/main/*.deb; do dpkg-deb -f "$deb" Architecture; done | sort -u)
rm -rf dists/stable
for arch in "${arches[@]}"; do
  mkdir -p "dists/stable/main/binary-$arch"
  apt-ftparchive --arch "$arch" packages pool >"dists/stable/main/binary-$arch/Packages"
  gzip -9nk "dists/stable/main/binary-$arch/Packages"
done
apt-ftparchive \
  -o APT::FTPArchive::Release::Origin=chessclockd \
  -o APT::FTPArchive::Release::Label=chessclockd \
  -o APT::FTPArchive::Release::Suite=stable \
  -o APT::FTPArchive::Release::Codename=stable \
  -o "APT::FTPArchive::Release::Architectures=${arches[*]}" \
  -o APT::FTPArchive::Release::Components=main \
  -o APT::FTPArchive::Release::Description="chessclockd packages" \
  release dists/stable >dists/stable/Release.tmp
mv dists/stable/Release.tmp dists/stable/Release
gpg --batch --yes --local-user "$key" --clearsign -o dists/stable/InRelease dists/stable/Release
gpg --batch --yes --local-user "$key" --armor --detach-sign -o dists/stable/Release.gpg dists/stable/Release
gpg --batch --yes --export "$key" >chessclockd-archive-keyring.gpg
echo "apt-repo.sh: $(ls pool/main/*.deb | wc -l) package(s) for ${arches[*]} in $PWD, signed by $key"
