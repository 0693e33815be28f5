#!/bin/bash
# tests/vm/fetch.sh [CACHE_DIR]: fetch Debian's cloud kernel (it has
# CONFIG_BPF_LSM=y and "bpf" in its default LSM list) for the VM tests.
#
# Resolves the current package from the meta-package linux-image-cloud-amd64,
# downloads it with `apt-get download` and extracts into CACHE_DIR (default
# build/vm):
#   CACHE_DIR/vmlinuz               the kernel
#   CACHE_DIR/lib/modules/KVER/     its modules (veth is a module there)
#   CACHE_DIR/kernel.stamp          "PACKAGE VERSION KVER", written last
# Idempotent: when the stamp names the package and version apt resolves now
# and the files exist, nothing is downloaded. Runs `apt-get update` only if
# apt knows nothing about the meta-package. Prints the stamp line on success.
set -euo pipefail

META=linux-image-cloud-amd64
CACHE=${1:-build/vm}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
STAMP=$CACHE/kernel.stamp

die() { echo "vm-fetch: $*" >&2; exit 1; }
for t in apt-cache apt-get dpkg-deb flock; do
	command -v "$t" > /dev/null || die "$t is missing (this needs a Debian host)"
done

# One fetch at a time per cache directory.
exec 9> "$CACHE/.lock"
flock 9

cache_complete() { # PKG VERSION
	local pkg ver kver
	[ -s "$STAMP" ] || return 1
	read -r pkg ver kver < "$STAMP" || return 1
	[ -n "$kver" ] && [ -s "$CACHE/vmlinuz" ] && [ -s "$CACHE/lib/modules/$kver/modules.builtin" ] || return 1
	if [ $# -eq 2 ]; then
		[ "$pkg" = "$1" ] && [ "$ver" = "$2" ] || return 1
	fi
	return 0
}

resolve() { # prints "PACKAGE VERSION", or nothing
	local pkg ver
	pkg=$(apt-cache depends "$META" 2> /dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -n1)
	[ -n "$pkg" ] || return 0
	ver=$(apt-cache policy "$pkg" 2> /dev/null | sed -n 's/^ *Candidate: //p' | head -n1)
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || return 0
	echo "$pkg $ver"
}

want=$(resolve)
if [ -z "$want" ]; then
	if cache_complete; then
		# apt knows nothing (e.g. lists cleaned), but a kernel is cached.
		echo "vm-fetch: apt knows no $META; using the cached kernel" >&2
		cat "$STAMP"
		exit 0
	fi
	[ "$(id -u)" = 0 ] || die "apt knows no $META and apt-get update needs root"
	echo "vm-fetch: apt knows no $META: apt-get update" >&2
	apt-get update -qq || die "apt-get update failed"
	want=$(resolve)
	[ -n "$want" ] || die "apt-cache depends $META names no linux-image-*-cloud-amd64 package"
fi
read -r PKG VER <<< "$want"

if cache_complete "$PKG" "$VER"; then
	cat "$STAMP"
	exit 0
fi

echo "vm-fetch: downloading $PKG $VER into $CACHE" >&2
WORK=$(mktemp -d "$CACHE/.fetch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# apt-get download drops root to _apt for the transfer; let it write here.
chmod 0777 "$WORK"
if ! (cd "$WORK" && apt-get download -q=2 "$PKG=$VER"); then
	if cache_complete; then
		echo "vm-fetch: download failed; using the cached kernel $(cat "$STAMP")" >&2
		cat "$STAMP"
		exit 0
	fi
	die "apt-get download $PKG=$VER failed"
fi
deb=$(ls "$WORK"/*.deb 2> /dev/null | head -n1)
[ -n "$deb" ] || die "apt-get download left no .deb"
dpkg-deb -x "$deb" "$WORK/root" || die "dpkg-deb -x $deb failed"

vmlinuz=$(ls "$WORK"/root/boot/vmlinuz-* 2> /dev/null | head -n1)
[ -n "$vmlinuz" ] || die "$PKG has no boot/vmlinuz-*"
KVER=${vmlinuz##*/vmlinuz-}
moddir=$WORK/root/lib/modules/$KVER
[ -d "$moddir" ] || moddir=$WORK/root/usr/lib/modules/$KVER
[ -d "$moddir" ] || die "$PKG has no lib/modules/$KVER"
# The package ships no modules.dep (its postinst runs depmod): run.sh
# resolves the dependencies of the few modules it puts in the initramfs.
[ -s "$moddir/modules.builtin" ] || die "$PKG has no lib/modules/$KVER/modules.builtin"

# Replace the cache: stamp first out, in last.
rm -f "$STAMP"
rm -rf "${CACHE:?}/lib" "${CACHE:?}/vmlinuz"
mkdir -p "$CACHE/lib/modules"
mv "$moddir" "$CACHE/lib/modules/$KVER"
mv "$vmlinuz" "$CACHE/vmlinuz"
echo "$PKG $VER $KVER" > "$STAMP.tmp"
mv "$STAMP.tmp" "$STAMP"
cat "$STAMP"
