#!/bin/sh
# vm-kernels: 6.1 7.3
# Guest suite "ledger_unix": unix peers in the connection ledger on real
# kernels. With the cgroup unix hooks (7.3, with and without BPF-LSM) a
# sandbox connecting five times to an allowed socket served outside, the
# last connection writing 4321 bytes, has one network.flow of proto unix
# with five connections (what the server accepted) and 4321 bytes sent,
# 0 received (the socket length tracepoints, 6.3+: what the server read);
# a name the policy refuses is a denial and no flow (under BPF-LSM too,
# which judges the resolved peer after the hook). 6.1 has no unix hook of
# the cgroup backend: no unix flow is written there, and the plan's gap
# limits.egress-unix (listed: the policy has an egress_bytes budget) says
# why; the IP ledger still counts.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/ledger_unix.XXXXXX)
S=$W/srv.sock
N=$W/no.sock
printf '{"version":1,"id":"ledger-unix","files":"unrestricted","exec":"unrestricted","network":{"connect":[],"unix":["%s"]},"limits":{"egress_bytes":100000000}}\n' \
	"$S" > "$W/pol.json"
"$TOOLS/rf-net" usink "$S" 5 > "$W/srv.out" &
srv=$!
"$TOOLS/rf-net" userve "$N" 1 > /dev/null &
nosrv=$!
for i in 1 2 3 4 5 6 7 8 9 10; do [ -S "$S" ] && [ -S "$N" ] && break; sleep 0.2; done
rc=0
"$RINGFENCE" run -q --policy "$W/pol.json" --trace "$W/t.jsonl" -- "$TOOLS/rf-net" \
	unix "$S" unix "$S" unix "$S" unix "$S" unixio "$S" 4321 0 unix "$N" \
	> "$W/out" 2> "$W/err" || rc=$?
flow=$(grep '"event":"network.flow"' "$W/t.jsonl" | grep "\"dst\":\"$S\"")
noflow=$(grep '"event":"network.flow"' "$W/t.jsonl" | grep "\"dst\":\"$N\"")
if [ "$(uname -r | cut -d. -f1)" -ge 7 ]; then
	wait "$srv"
	if [ "$rc" = 0 ] && [ "$(grep -c "unix $S ok" "$W/out")" = 4 ] &&
	   grep -q "unixio $S ok sent=4321 received=0" "$W/out" &&
	   grep -q "unix $N EPERM" "$W/out" &&
	   [ "$(cat "$W/srv.out")" = "usink $S 5 4321" ] &&
	   echo "$flow" | grep -q '"proto":"unix","connections":5,"bytes_sent":4321,"bytes_received":0' &&
	   echo "$flow" | grep -q '"unix":{"socket_type":"stream","abstract":false}' &&
	   [ -z "$noflow" ]; then
		pass "unix ledger ($(uname -r), $(cat /sys/kernel/security/lsm)): 5 connects = 5 accepted, one flow, 4321 bytes sent = what the server read; the refused name no flow"
	else
		fail "unix ledger: 5 connects counted" "exit $rc; flow: $flow; refused: $noflow"
		show "$W/out"
		show "$W/err"
		show "$W/t.jsonl"
	fi
else
	# no hook: the connects happen (judged by BPF-LSM) and nothing counts them
	wait "$srv"
	if [ "$rc" = 0 ] && [ "$(grep -c "unix $S ok" "$W/out")" = 4 ] &&
	   grep -q "unixio $S ok sent=4321 received=0" "$W/out" && [ -z "$flow" ] &&
	   [ -z "$noflow" ] && grep '"event":"sandbox.exit"' "$W/t.jsonl" | grep -q '"flows":0,' &&
	   grep '"gap":"limits.egress-unix"' "$W/t.jsonl" | grep -q 'cgroup unix hooks (6.7+, none before)'; then
		pass "unix ledger ($(uname -r)): no cgroup unix hook, no unix flow, the plan's gap limits.egress-unix says why; the connects ran"
	else
		fail "unix ledger on 6.1: no unix flow" "exit $rc; flow: $flow"
		show "$W/out"
		show "$W/t.jsonl"
	fi
fi
kill "$nosrv" 2> /dev/null
wait "$nosrv" 2> /dev/null
rm -rf "$W"
finish
