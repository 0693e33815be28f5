#!/bin/sh
# Guest suite "dns": the DNS gate's steering on the VM's kernel (the cgroup
# connect4/6, sendmsg4/6 rewrite and the recvmsg4/6 source restore, and the
# rf_dns_note syscall program load there). No DNS server in the guest: the
# gate answers refused names itself, and an allowed name whose upstream is
# silent gets SERVFAIL (fail closed).
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/dns.XXXXXX)
cat > "$W/gate.json" << EOF2
{"version": 1, "id": "vm-dns", "files": "unrestricted", "exec": "unrestricted",
 "network": {"connect": ["allowed.test:9"], "unix": "unrestricted",
             "dns": {"upstream": ["127.0.0.1:1"]}}}
EOF2
rc=0
"$RINGFENCE" run -q --policy "$W/gate.json" -- "$TOOLS/rf-dns" \
	udp 192.0.2.53 53 other.test udpconn 192.0.2.53 53 other.test \
	tcp 192.0.2.53 53 other.test udp ::ffff:192.0.2.53 53 other.test \
	udp 127.0.0.1 1 other.test udp 192.0.2.53 53 allowed.test \
	> "$W/gate.out" 2> "$W/gate.err" || rc=$?
cat > "$W/gate.want" << EOF2
udp other.test REFUSED -
udpconn other.test REFUSED -
tcp other.test REFUSED -
udp other.test REFUSED -
udp other.test EPERM
udp allowed.test SERVFAIL -
EOF2
if [ "$rc" = 0 ] && cmp -s "$W/gate.out" "$W/gate.want"; then
	pass "dns: steered to the gate (UDP sendto, connected UDP, TCP, v4-mapped), refused names REFUSED, a silent upstream SERVFAIL"
else
	fail "dns: steered to the gate" "exit $rc, output:"
	show "$W/gate.out"
	show "$W/gate.err"
fi
finish
