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
#
# VM_KERNEL=7.3: Debian trixie-backports' cloud kernel (7.3.x: Landlock ABI 7,
# CONFIG_AUDIT, CONFIG_SECURITY_LANDLOCK_LOG) instead of the host suite's.
# The host's apt sources are not touched: apt reads a sources file and lists
# of its own under CACHE_DIR/apt. Only the linux-binary-* package (vmlinuz)
# is fetched; there are no modules (run.sh packs none for it).
set -euo pipefail

META=linux-image-cloud-amd64
VM_KERNEL=${VM_KERNEL:-}
CACHE=${1:-build/vm}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
STAMP=$CACHE/kernel.stamp
APT=()
case $VM_KERNEL in
	'' | 6.1) VM_KERNEL= ;;
	7.3)
		mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2> /dev/null | sed -n 1p)
		mirror=${mirror:-http://deb.debian.org/debian}
		mkdir -p "$CACHE/apt/lists/partial"
		echo "deb [trusted=yes] $mirror trixie-backports main" > "$CACHE/apt/sources.list"
		APT=(-o "Dir::Etc::sourcelist=$CACHE/apt/sources.list" -o Dir::Etc::sourceparts=-
			-o "Dir::State::Lists=$CACHE/apt/lists" -o "Dir::Cache=$CACHE/apt/cache")
		mkdir -p "$CACHE/apt/cache/archives/partial"
		;;
	*) echo "vm-fetch: VM_KERNEL must be 6.1 (default) or 7.3, not '$VM_KERNEL'" >&2; exit 2 ;;
esac

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
	[ -n "$kver" ] && [ -s "$CACHE/vmlinuz" ] || return 1
	# 7.3 is a linux-binary-* package, the default kernel a linux-image-*.
	case "${VM_KERNEL:-6.1}:$pkg" in 7.3:linux-binary-* | 6.1:linux-image-*) ;; *) return 1 ;; esac
	[ -n "$VM_KERNEL" ] || [ -s "$CACHE/lib/modules/$kver/modules.builtin" ] || return 1
	if [ $# -eq 2 ]; then
		[ "$pkg" = "$1" ] && [ "$ver" = "$2" ] || return 1
	fi
	return 0
}

resolve() { # prints "PACKAGE VERSION", or nothing
	local pkg ver
	pkg=$(apt-cache "${APT[@]}" depends "$META" 2> /dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | sed -n 1p)
	[ -n "$pkg" ] || return 0
	# 7.3's linux-image-* is a meta package too: the kernel is linux-binary-*.
	[ -z "$VM_KERNEL" ] || pkg=linux-binary-${pkg#linux-image-}
	ver=$(apt-cache "${APT[@]}" policy "$pkg" 2> /dev/null | sed -n 's/^ *Candidate: //p' | sed -n 1p)
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
	apt-get "${APT[@]}" update -qq || die "apt-get update failed"
	want=$(resolve)
	[ -n "$want" ] || die "apt-cache depends $META names no linux-image-*-cloud-amd64 package"
fi
read -r PKG VER <<< "$want"

if cache_complete "$PKG" "$VER"; then
	cat "$STAMP"
	exit 0
fi

# One cache directory per kernel: never replace the other kernel's.
if [ -s "$STAMP" ]; then
	read -r old_pkg _ < "$STAMP" || true
	case "${old_pkg:-}:$PKG" in
		linux-binary-*:linux-image-* | linux-image-*:linux-binary-*)
			die "$CACHE holds $old_pkg, another kernel: give VM_KERNEL=${VM_KERNEL:-6.1} its own VM_CACHE" ;;
	esac
fi
echo "vm-fetch: downloading $PKG $VER into $CACHE" >&2
WORK=$(mktemp -d "$CACHE/.fetch.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# apt-get download drops root to _apt for the transfer; let it write here.
chmod 0777 "$WORK"
if ! (cd "$WORK" && apt-get "${APT[@]}" download -q=2 "$PKG=$VER"); then
	if cache_complete; then
		echo "vm-fetch: download failed; using the cached kernel $(cat "$STAMP")" >&2
		cat "$STAMP"
		exit 0
	fi
	die "apt-get download $PKG=$VER failed"
fi
deb=$(ls "$WORK"/*.deb 2> /dev/null | sed -n 1p)
[ -n "$deb" ] || die "apt-get download left no .deb"
dpkg-deb -x "$deb" "$WORK/root" || die "dpkg-deb -x $deb failed"

if [ -n "$VM_KERNEL" ]; then
	vmlinuz=$(ls "$WORK"/root/usr/lib/modules/*/vmlinuz 2> /dev/null | sed -n 1p)
	[ -n "$vmlinuz" ] || die "$PKG has no usr/lib/modules/*/vmlinuz"
	KVER=$(basename "$(dirname "$vmlinuz")")
	rm -f "$STAMP"
	mv "$vmlinuz" "$CACHE/vmlinuz"
	echo "$PKG $VER $KVER" > "$STAMP.tmp"
	mv "$STAMP.tmp" "$STAMP"
	cat "$STAMP"
	exit 0
fi
vmlinuz=$(ls "$WORK"/root/boot/vmlinuz-* 2> /dev/null | sed -n 1p)
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
