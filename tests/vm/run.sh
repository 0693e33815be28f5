#!/bin/bash
# tests/vm/run.sh BUILD_DIR [SUITE...]: run the guest suites tests/vm/guest/*.sh
# (or only the SUITEs named, e.g. "smoke") in a VM that boots Debian's cloud
# kernel, which has BPF-LSM (the development host refuses BPF-LSM programs).
#
# The VM runs under qemu TCG (software emulation: KVM hangs here, nested).
# Its initramfs holds a static busybox, BUILD_DIR/ringfence (and
# ringfence-monitor), BUILD_DIR/tests/tools/*, BUILD_DIR/tests/vm/* (test
# binaries, if any), python3 and gcc with what they use when a suite has a
# "# vm-needs: workloads" line (tests/vm/workload-files.sh),
# tests/vm/guest/, schemas/examples/, the shared libraries all those need,
# and the kernel modules named in VM_MODULES (default: veth).
#
# Prints the guest's "ok - " / "not ok - " / "# " lines and its closing
# "ringfence-vm: N passed, M failed" line. Exits non-zero if the guest did
# not boot, timed out, printed no closing line, or reported any failure.
# The whole serial console is kept in BUILD_DIR/vm-console.log.
#
# Environment:
#   VM_TIMEOUT  seconds for the whole VM run (default 420); qemu is killed after
#   VM_KERNEL   6.1 (default: the host suite's cloud kernel) or 7.3 (trixie-
#               backports': Landlock ABI 7 and kernel audit; see fetch.sh)
#   VM_CACHE    kernel cache directory (default BUILD_DIR/vm, BUILD_DIR/vm73
#               for VM_KERNEL=7.3; see fetch.sh)
#   VM_MODULES  kernel modules to pack (default "veth", none for 7.3; "" for none)
#   VM_APPEND   extra kernel command line arguments (7.3's default:
#               lsm=lockdown,capability,landlock,yama, a host without BPF-LSM)
#   VM_QEMU_OPTS  extra qemu options, split on spaces (the benchmark's
#               "-icount shift=0,sleep=off": guest time from instructions run)
#   VM_SYSTEMD  1: boot the host's systemd as PID 1 (rdinit=), which runs /init's
#               suites as rf-suites.service; with no SUITE named, the suites
#               whose vm-kernels line says "systemd" (tests/vm/guest/systemd.sh,
#               monitor_unit.sh)
#   VM_VERBOSE  1: print the whole console, not only the test lines
#   ATTACK_SET  smoke: the guest suite "attack" runs only tests/attack/smoke
#   (a suite's "# vm-bins: PATH..." line: host programs it needs, packed with
#   their libraries, e.g. oci.sh's podman, conmon, crun and dnsmasq)
#   VM_SUITE_DIR  where the suites are (default tests/vm/guest); its *.sh are
#               copied next to tests/vm/guest/ in the guest (the benchmark,
#               tests/bench/vm-lsm.sh, runs this way)
set -euo pipefail
# set -e ends the script at a failed command without a word: say which
trap 'echo "vm: $0: line $LINENO: a command failed (exit $?)" >&2' ERR

usage() { echo "usage: $0 BUILD_DIR [SUITE...]   (e.g. tests/vm/run.sh build smoke)" >&2; exit 2; }
die() { echo "vm: $*" >&2; exit 1; }
[ $# -ge 1 ] || usage
[ -d "$1" ] || die "$1 is not a directory (build first: make build)"
BUILD=$(cd "$1" && pwd)
shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMDIR=$ROOT/tests/vm
VM_TIMEOUT=${VM_TIMEOUT:-420}
export VM_KERNEL=${VM_KERNEL:-}
if [ "$VM_KERNEL" = 7.3 ]; then
	VM_CACHE=${VM_CACHE:-$BUILD/vm73}
	VM_MODULES=${VM_MODULES-}
	# A fallback host: every LSM but bpf (Landlock + seccomp backends).
	VM_APPEND=${VM_APPEND:-lsm=lockdown,capability,landlock,yama}
else
	VM_CACHE=${VM_CACHE:-$BUILD/vm}
	VM_MODULES=${VM_MODULES-veth}
fi
VM_APPEND=${VM_APPEND:-}
VM_SYSTEMD=${VM_SYSTEMD:-0}
VM_VERBOSE=${VM_VERBOSE:-0}
VM_EXTRA_BINS=${VM_EXTRA_BINS:-}
VM_SUITE_DIR=${VM_SUITE_DIR:-$VMDIR/guest}
LOG=${VM_LOG:-$BUILD/vm-console.log}
case $VM_TIMEOUT in '' | *[!0-9]*) die "VM_TIMEOUT must be a number of seconds" ;; esac

[ "$(id -u)" = 0 ] || die "must run as root (apt-get download, mknod)"
for t in qemu-system-x86_64 cpio gzip ldd timeout perl; do
	command -v "$t" > /dev/null || die "$t is missing (make deps installs qemu-system-x86, busybox-static, cpio)"
done
BUSYBOX=
for b in /bin/busybox /usr/bin/busybox; do
	# A static busybox: ldd says it is not dynamic.
	if [ -x "$b" ] && ! ldd "$b" > /dev/null 2>&1; then BUSYBOX=$b; break; fi
done
[ -n "$BUSYBOX" ] || die "no static busybox (install busybox-static)"
[ -x "$BUILD/ringfence" ] || die "$BUILD/ringfence is missing (make build)"
ls "$BUILD"/tests/tools/* > /dev/null 2>&1 ||
	die "$BUILD/tests/tools is empty (make $BUILD/tests/tools/rf-net ...)"

# ---- suites ----
# A suite names the kernels it is for in a "# vm-kernels: 7.3" line
# (none: the default kernel only); with no SUITE named, those of VM_KERNEL.
suite_kernels() { sed -n 's/^# vm-kernels: *//p' "$1" | sed -n 1p; }
SUITES=()
if [ $# -eq 0 ]; then
	for f in "$VM_SUITE_DIR"/*.sh; do
		[ -f "$f" ] || continue
		ks=$(suite_kernels "$f")
		want=${VM_KERNEL:-6.1}
		[ "$VM_SYSTEMD" = 1 ] && want=systemd
		case " ${ks:-6.1} " in *" $want "*) SUITES+=("$(basename "$f" .sh)") ;; esac
	done
else
	for s in "$@"; do
		s=${s%.sh}
		s=${s##*/}
		[ -f "$VM_SUITE_DIR/$s.sh" ] || die "no suite $s ($VM_SUITE_DIR/$s.sh)"
		SUITES+=("$s")
	done
fi
[ ${#SUITES[@]} -gt 0 ] || die "no suites in $VM_SUITE_DIR/"

# ---- kernel ----
read -r KPKG KVERSION KVER < <("$VMDIR/fetch.sh" "$VM_CACHE" | tail -n1) ||
	die "fetching the kernel failed"
[ -n "${KVER:-}" ] && [ -s "$VM_CACHE/vmlinuz" ] || die "fetch.sh left no kernel in $VM_CACHE"

# ---- initramfs ----
STAGE=$(mktemp -d /tmp/ringfence-vm.XXXXXX)
QEMU_PID=
cleanup() {
	[ -z "$QEMU_PID" ] || kill "$QEMU_PID" 2> /dev/null || true
	rm -rf "$STAGE" "$STAGE.img"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
R=$STAGE/root
# Debian 12 is merged-/usr: the loader's path /lib64/... must resolve.
mkdir -p "$R"/usr/{bin,sbin,lib,lib64} "$R"/{dev,proc,sys,tmp,run,root,etc,rf}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$R/$d"; done
mknod -m 600 "$R/dev/console" c 5 1
mknod -m 666 "$R/dev/null" c 1 3

cp "$BUSYBOX" "$R/usr/bin/busybox"
# One symlink per applet ("usr/bin/nc", "sbin/ip", ...), made by one process.
"$BUSYBOX" --list-full | (cd "$R" && perl -ne 'chomp;
	-e || -l || symlink("/usr/bin/busybox", $_) || die "symlink $_: $!\n"') ||
	die "could not link the busybox applets"

declare -A COPIED=()
copy_lib() { # absolute path on the host, copied to the same path
	local p=$1
	[ -z "${COPIED[$p]:-}" ] || return 0
	COPIED[$p]=1
	mkdir -p "$R$(dirname "$p")"
	rm -f "$R$p"  # never through a link of the guest's to the host
	cp -L "$p" "$R$p"
}
is_elf() { [ -f "$1" ] && [ "$(head -c4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }
copy_bin() { # SRC DEST (DEST inside the guest); pulls in its libraries
	local src=$1 dest=$2 lib
	mkdir -p "$R$(dirname "$dest")"
	# a busybox applet's link is absolute (/usr/bin/busybox): copied
	# through, the host's busybox would be overwritten
	rm -f "$R$dest"
	cp -L "$src" "$R$dest"
	is_elf "$src" || return 0
	# "name => /path (addr)", "/lib64/ld-linux-x86-64.so.2 (addr)"; a static
	# binary makes ldd fail, which is fine.
	for lib in $(ldd "$src" 2> /dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		copy_lib "$lib"
	done
}

copy_bin "$BUILD/ringfence" /rf/ringfence
# What ringfence loads with dlopen when a run needs it (supervisor/util/lazylib.h):
# not in its ldd output, so by soname, with the libraries each links.
for so in $(sed -n 's/^#define RF_LAZY_[A-Z]*_SONAME "\(.*\)"$/\1/p' "$ROOT"/supervisor/util/lazy_*.h); do
	# awk reads to the end: one that exits at the match lets ldconfig die of
	# SIGPIPE now and then, and pipefail with set -e then ends this script
	# without a word (seen: a 7.3 run that printed nothing)
	p=$(ldconfig -p | awk -v s="$so" '$1 == s && /x86-64/ && !p { p = $NF } END { print p }')
	[ -n "$p" ] && copy_bin "$p" "$p"
done
[ -x "$BUILD/ringfence-monitor" ] && copy_bin "$BUILD/ringfence-monitor" /rf/ringfence-monitor
ln -s /rf/ringfence "$R/usr/bin/ringfence"
for f in "$BUILD"/tests/tools/*; do
	[ -f "$f" ] && [ -x "$f" ] && copy_bin "$f" "/rf/tests/tools/${f##*/}"
done
for f in "$BUILD"/tests/vm/*; do
	[ -f "$f" ] && [ -x "$f" ] && is_elf "$f" && copy_bin "$f" "/rf/tests/vm/${f##*/}"
done
[ -x "$BUILD/ringfence-monitor" ] && copy_bin "$BUILD/ringfence-monitor" /rf/ringfence-monitor

# Real workloads (python3, gcc) for the suites that name them in a
# "# vm-needs: workloads" line: the files they use, at their host paths,
# symlinks kept as symlinks, times kept (see workload-files.sh).
copy_path() { # absolute host path, copied to the same path in the guest
	local p=$1 t
	[ -z "${COPIED[$p]:-}" ] || return 0
	if [ -L "$p" ]; then
		COPIED[$p]=1
		t=$(readlink "$p")
		mkdir -p "$R$(dirname "$p")"
		ln -sfn "$t" "$R$p"
		case $t in /*) ;; *) t=$(dirname "$p")/$t ;; esac
		copy_path "$t"
	else
		copy_bin "$p" "$p"
		touch -r "$p" "$R$p"
		COPIED[$p]=1
	fi
}
for s in "${SUITES[@]}"; do
	grep -q '^# vm-needs:.* workloads' "$VM_SUITE_DIR/$s.sh" || continue
	bench=0
	grep -q '^# vm-needs:.* bench-workloads' "$VM_SUITE_DIR/$s.sh" && bench=1
	WORKLOADS=$(RF_VM_BENCH_WORKLOADS=$bench "$VMDIR/workload-files.sh") ||
		die "listing the workloads' files failed"
	for f in /usr/bin/python3 /usr/bin/gcc /usr/bin/as $WORKLOADS; do copy_path "$f"; done
	break
done
# VM_EXTRA_BINS: host programs for a look inside (e.g. /usr/bin/strace),
# at their paths with their libraries.
for f in ${VM_EXTRA_BINS:-}; do copy_bin "$f" "$f"; done
# A suite's "# vm-bins: PATH..." line: host programs it runs (podman, crun,
# dnsmasq, ...), copied the same way; one missing is left out (the suite
# says so: make deps installs them).
for s in "${SUITES[@]}"; do
	for f in $(sed -n 's/^# vm-bins: *//p' "$VM_SUITE_DIR/$s.sh"); do
		if [ -x "$f" ]; then copy_bin "$f" "$f"; else echo "vm: $s wants $f, missing here" >&2; fi
	done
done
cp -r "$VMDIR/guest" "$R/rf/guest"
cp -r "$ROOT/tests/attack" "$R/rf/attack"
# the shipped unit and logrotate file (tests/vm/guest/monitor_unit.sh installs the unit)
cp -r "$ROOT/dist" "$R/rf/dist"
[ "$VM_SUITE_DIR" = "$VMDIR/guest" ] || cp "$VM_SUITE_DIR"/*.sh "$R/rf/guest/"
[ -d "$ROOT/schemas/examples" ] && cp -r "$ROOT/schemas/examples" "$R/rf/examples"
printf '%s\n' "${SUITES[@]}" > "$R/rf/suites"
cp "$VMDIR/init" "$R/init"
chmod 755 "$R/init"

# getpwnam() and friends: glibc's "files" service (built into libc since
# 2.34; the separate library, if any, is copied too).
for l in /lib/x86_64-linux-gnu/libnss_files.so.2 /lib/x86_64-linux-gnu/libnss_files-*.so; do
	[ -e "$l" ] && copy_lib "$l"
done
cat > "$R/etc/passwd" << 'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat > "$R/etc/group" << 'EOF'
root:x:0:
nogroup:x:65534:
nobody:x:65534:
EOF
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' > "$R/etc/hosts"
printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' > "$R/etc/nsswitch.conf"
echo ringfence-vm > "$R/etc/hostname"
ln -s /proc/self/mounts "$R/etc/mtab"

# Kernel modules and their dependencies (modules.dep via busybox depmod).
if [ -n "$VM_MODULES" ]; then
	KMOD=$VM_CACHE/lib/modules/$KVER
	declare -A MODS=()
	add_module() {
		local m=${1//-/_} f dep
		[ -z "${MODS[$m]:-}" ] || return 0
		f=$(find "$KMOD/kernel" \( -name "$m.ko" -o -name "${m//_/-}.ko" \) -print -quit)
		if [ -z "$f" ]; then
			grep -q "/${m}.ko\$\|/${m//_/-}.ko\$" "$KMOD/modules.builtin" && return 0
			die "no kernel module $m in $KPKG"
		fi
		MODS[$m]=$f
		mkdir -p "$R/lib/modules/$KVER/$(dirname "${f#"$KMOD/"}")"
		cp "$f" "$R/lib/modules/$KVER/${f#"$KMOD/"}"
		for dep in $(tr '\0' '\n' < "$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
			add_module "$dep"
		done
	}
	for m in $VM_MODULES; do add_module "$m"; done
	cp "$KMOD"/modules.builtin* "$KMOD/modules.order" "$R/lib/modules/$KVER/"
	"$BUSYBOX" depmod -b "$R" "$KVER" || die "depmod failed"
fi

# systemd as PID 1: the host's, its libraries, and one unit running /init.
if [ "$VM_SYSTEMD" = 1 ]; then
	for b in /usr/lib/systemd/systemd /usr/bin/systemctl; do
		[ -x "$b" ] || die "$b is missing (the systemd package)"
		copy_bin "$b" "$b"
	done
	# journald and journalctl for the monitor's --journal (monitor_unit.sh)
	for b in /usr/lib/systemd/systemd-journald /usr/bin/journalctl; do
		[ -x "$b" ] && copy_bin "$b" "$b"
	done
	# system.slice, -.slice and init.scope are built into systemd 252
	mkdir -p "$R/usr/lib/systemd/system" "$R/etc/systemd/system"
	printf '%s\n' '[Unit]' 'DefaultDependencies=no' '[Service]' 'Type=oneshot' \
		'ExecStart=/init' 'StandardOutput=tty' 'StandardError=tty' 'TTYPath=/dev/console' \
		> "$R/etc/systemd/system/rf-suites.service"
	: > "$R/etc/machine-id"
	VM_APPEND="$VM_APPEND rdinit=/usr/lib/systemd/systemd systemd.unit=rf-suites.service"
fi

(cd "$R" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) | gzip -1 > "$STAGE.img"

# ---- boot ----
echo "vm: $KPKG $KVERSION, initramfs $(( $(stat -c %s "$STAGE.img") / 1024 )) KiB, suites: ${SUITES[*]}, timeout ${VM_TIMEOUT}s"
: > "$LOG"
start=$(date +%s%N)
mkfifo "$STAGE/console"
# TCG only: /dev/kvm exists on the CI host but a nested KVM guest hangs.
# -nic none: the guest has loopback only. timeout passes a TERM on to qemu.
timeout -k 5 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \
	-nographic -no-reboot -nic none ${VM_QEMU_OPTS:-} \
	-kernel "$VM_CACHE/vmlinuz" -initrd "$STAGE.img" \
	-append "console=ttyS0 quiet panic=-1 $VM_APPEND${ATTACK_SET:+ rf.attack=$ATTACK_SET}" < /dev/null > "$STAGE/console" 2>&1 &
QEMU_PID=$!
# Stream the console while qemu runs.
while IFS= read -r line || [ -n "$line" ]; do
	line=${line%$'\r'}
	printf '%s\n' "$line" >> "$LOG"
	if [ "$VM_VERBOSE" = 1 ]; then
		printf '%s\n' "$line"
	else
		case $line in
			'ok - '* | 'not ok - '* | '# '* | 'ringfence-vm: '*) printf '%s\n' "$line" ;;
		esac
	fi
done < "$STAGE/console"
rc=0
wait "$QEMU_PID" || rc=$?
QEMU_PID=
ms=$(( ($(date +%s%N) - start) / 1000000 ))
elapsed=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))

# ---- verdict ----
fail() {
	echo "vm: FAILED: $*"
	echo "vm: last console lines ($LOG):"
	tail -n 30 "$LOG" | sed 's/^/    /'
	exit 1
}
[ "$rc" != 124 ] && [ "$rc" != 137 ] || fail "timed out after ${VM_TIMEOUT}s; qemu killed"
grep -q 'ringfence-vm: kernel ' "$LOG" || fail "the guest did not boot (qemu exit $rc)"
summary=$(grep -E '^ringfence-vm: [0-9]+ passed, [0-9]+ failed$' "$LOG" | tail -n1 || true)
[ -n "$summary" ] || fail "the guest printed no closing summary line (qemu exit $rc)"
[ "$rc" = 0 ] || fail "qemu exited $rc"
p=$(echo "$summary" | sed 's/^ringfence-vm: \([0-9]*\) passed.*/\1/')
f=$(echo "$summary" | sed 's/.* \([0-9]*\) failed$/\1/')
np=$(grep -c '^ok - ' "$LOG" || true)
nf=$(grep -c '^not ok - ' "$LOG" || true)
[ "$np" = "$p" ] && [ "$nf" = "$f" ] ||
	fail "the summary ($summary) does not match the console ($np ok, $nf not ok)"
echo "vm: guest run took ${elapsed}s"
[ "$f" = 0 ] || { echo "vm: FAILED: $f test(s) failed"; exit 1; }
[ "$p" -gt 0 ] || fail "no test passed"
echo "vm: all $p passed"
