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
W_ERR=/tmp/attack-route.err
lsm=$(cat /sys/kernel/security/lsm 2> /dev/null)
case ",$lsm," in *,bpf,*) label="$(uname -r) bpf-lsm" ;; *) label="$(uname -r) no bpf-lsm" ;; esac
if [ ! -x "$RF/attack/run.sh" ]; then
	fail "attack: the suite is packed" "$RF/attack/run.sh is missing"
	finish
fi
# The routing-header and source-route attempts send toward 100::1 and
# 192.0.2.1 (RFC 6666's discard prefix, TEST-NET-1): a VM without a NIC
# has no route there, so the kernel refuses them unconfined (ENETUNREACH:
# "not applicable") and a gap a plan lists (net.rthdr-cmsg without
# BPF-LSM) was never tried. Routed into lo, the packet leaves and is
# dropped (no forwarding), as on a networked host.
for r in 100::/64 192.0.2.0/24; do
	ip route add "$r" dev lo 2> "$W_ERR" ||
		fail "attack: route $r through lo for the routing-header attempts" "$(cat "$W_ERR")"
done
ATTACK_SET=$set_ ATTACK_LABEL=$label sh "$RF/attack/run.sh"
