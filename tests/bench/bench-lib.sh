#!/bin/sh
# Not a suite: sourced by the benches that share its parts (POSIX sh: the
# VM guest's busybox runs it too; tests/vm/run.sh copies every *.sh of
# tests/bench into the guest, so this file is there beside them).
#   wl_sources W NFILES   the workload benches' C sources under W: c/h.c (one
#                         file for gcc -c) and proj/ with NFILES copies of it
#                         as functions, main.c and a Makefile linking them
#                         (tests/bench/workloads.sh, vm-workloads.sh)
#   wl_repo DIR           the VM benches' git repository: 300 files in 10
#                         directories, 10 commits (git's author from the
#                         environment); non-zero when git failed
#                         (tests/bench/vm-workloads.sh, vm-profile.sh)
#   vm_bench_boot BUILD SUITE TIMEOUT ARGS
#                         on the host: boot the test VM once per kernel of
#                         VM_KERNELS (default "6.1 7.3"; 7.3 with the bpf
#                         LSM, 7.3f without it) with tests/bench/SUITE.sh as its suite, guest
#                         time from instruction counts, ARGS on the kernel
#                         command line; prints the guest's notes
#                         (tests/bench/vm-lsm.sh, vm-workloads.sh)

wl_sources() {
	mkdir -p "$1/c" "$1/proj"
	cat > "$1/c/h.c" << 'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
struct kv { char k[32]; double v; };
static int cmp(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;
	return x->v < y->v ? -1 : x->v > y->v;
}
int main(int argc, char **argv)
{
	struct kv t[64];
	int i;
	for (i = 0; i < 64; i++) {
		snprintf(t[i].k, sizeof(t[i].k), "k%d", i);
		t[i].v = sin(i * (argc + 1.0));
	}
	qsort(t, 64, sizeof(t[0]), cmp);
	printf("%s %s %f\n", argv[0], t[0].k, t[63].v);
	return 0;
}
EOF
	objs="main.o"
	i=1
	while [ $i -le "$2" ]; do
		sed "s/int main(int argc, char \*\*argv)/int f$i(int argc, char **argv)/" \
			"$1/c/h.c" > "$1/proj/f$i.c"
		objs="$objs f$i.o"
		i=$((i + 1))
	done
	printf 'int main(void) { return 0; }\n' > "$1/proj/main.c"
	printf 'OBJS := %s\nprog: $(OBJS)\n\tgcc -o $@ $(OBJS) -lm\n%%.o: %%.c\n\tgcc -O2 -c -o $@ $<\nclean:\n\trm -f prog $(OBJS)\n' \
		"$objs" > "$1/proj/Makefile"
}

wl_repo() {
	d=0
	while [ $d -lt 10 ]; do
		mkdir -p "$1/d$d"
		f=0
		while [ $f -lt 30 ]; do
			echo "file $d $f" > "$1/d$d/f$f.txt"
			f=$((f + 1))
		done
		d=$((d + 1))
	done
	(
		cd "$1" && git init -q . && git add -A && git commit -qm init &&
			for i in 1 2 3 4 5 6 7 8 9; do
				echo "change $i" >> "d$i/f$i.txt" && git commit -qam "change $i"
			done
	)
}

vm_bench_boot() {
	_root=$(cd "$(dirname "$0")/../.." && pwd)
	# Guest time from the instructions the guest ran (2^0 ns each), not
	# the host's clock: other load on the host then slows the run but
	# moves no figure. A cost is then the instructions it runs (TCG models
	# no caches); VM_QEMU_OPTS= measures wall time instead.
	_icount="-icount shift=0,sleep=off"
	for _k in ${VM_KERNELS:-6.1 7.3}; do
		if [ "$_k" = 7.3 ]; then
			set -- "$1" "$2" "$3" "$4" env VM_KERNEL=7.3 VM_CACHE="${VM_CACHE73:-$1/vm73}" \
				VM_APPEND="lsm=lockdown,capability,landlock,yama,bpf $4"
		elif [ "$_k" = 7.3f ]; then
			# 7.3 without the bpf LSM: the fallback backends
			set -- "$1" "$2" "$3" "$4" env VM_KERNEL=7.3 VM_CACHE="${VM_CACHE73:-$1/vm73}" \
				VM_APPEND="lsm=lockdown,capability,landlock,yama $4"
		else
			set -- "$1" "$2" "$3" "$4" env VM_KERNEL= VM_CACHE="${VM_CACHE:-$1/vm}" VM_APPEND="$4"
		fi
		_b=$1 _s=$2 _t=$3 _a=$4
		shift 4
		"$@" VM_SUITE_DIR="$_root/tests/bench" VM_TIMEOUT="${VM_TIMEOUT:-$_t}" \
			VM_QEMU_OPTS="${VM_QEMU_OPTS-$_icount}" \
			"$_root/tests/vm/run.sh" "$_b" "$_s" |
			sed -n 's/^# //p; /^vm: /p; /^not ok/p' || true
		set -- "$_b" "$_s" "$_t" "$_a"
	done
}
