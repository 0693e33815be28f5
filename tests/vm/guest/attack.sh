#!/bin/sh
# vm-kernels: 6.1 7.3
# Guest suite "attack": the attack suite (tests/attack/run.sh) on this
# kernel's backends: BPF-LSM where it is in lsm=, else Landlock + seccomp on
# a full cgroup2 hierarchy. Every attempt must escape exactly when the plan
# lists its gap. "rf.attack=smoke" on the kernel command line (tests/vm/run.sh
# passes ATTACK_SET) runs only the smoke set.
. "$GUEST/lib/tap.sh"

set_=full
for w in $(cat /proc/cmdline); do
	case $w in rf.attack=*) set_=${w#rf.attack=} ;; esac
done
lsm=$(cat /sys/kernel/security/lsm 2> /dev/null)
case ",$lsm," in *,bpf,*) label="$(uname -r) bpf-lsm" ;; *) label="$(uname -r) no bpf-lsm" ;; esac
if [ ! -x "$RF/attack/run.sh" ]; then
	fail "attack: the suite is packed" "$RF/attack/run.sh is missing"
	finish
fi
ATTACK_SET=$set_ ATTACK_LABEL=$label sh "$RF/attack/run.sh"
