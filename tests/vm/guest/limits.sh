#!/bin/sh
# Guest suite "limits": on the VM's fresh cgroup2 hierarchy (every controller
# enabled for children by /init) the cgroup limits are enforced: a memory hog
# is OOM-killed at memory_mb and the trace says so, a fork loop stops at pids
# and ends the run, a CPU spinner at cpu_percent 20 is throttled (cpu.stat),
# each next to a twin inside its limit that runs to its end. The wall clock,
# the output budget and the scratch tmpfs are checked here too.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/limits.XXXXXX)
pol() { # NAME LIMITS-JSON
	printf '{"version":1,"id":"lim-%s","files":"unrestricted","exec":"unrestricted","network":"unrestricted","limits":%s}\n' \
		"$1" "$2" > "$W/$1.json"
}
# run NAME POLICY CMD...: exit status in $rc, trace $W/NAME.jsonl, output $W/NAME.out/.err
run() {
	name=$1 policy=$2
	shift 2
	rc=0
	"$RINGFENCE" run --policy "$W/$policy.json" --trace "$W/$name.jsonl" -- "$@" \
		> "$W/$name.out" 2> "$W/$name.err" || rc=$?
}
# The sandbox's own cgroup directory, as its processes see it.
CG='/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)'

# A live ringfence-monitor watches every run below: each cap that holds
# must come out as a resource alert naming the limit (checked at the end).
MON=$RF/ringfence-monitor
monpid=
if [ -x "$MON" ]; then
	"$MON" -q --interval 200 --linger-ms 500 --update-ms 1000 --state "" \
		-o "$W/alerts.ndjson" 2> "$W/monitor.err" &
	monpid=$!
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ -e /run/ringfence/monitor.lock ] && break
		sleep 0.5
	done
	sleep 1
fi

# ---- the plan: every cgroup limit has its controller here ----
pol all '{"memory_mb":64,"pids":16,"cpu_percent":50,"wall_seconds":30,"output_bytes":100000}'
rc=0
"$RINGFENCE" check --policy "$W/all.json" > "$W/check.json" 2> "$W/check.err" || rc=$?
if [ "$rc" = 0 ] && [ "$(grep -c '"enforced": true' "$W/check.json")" -ge 6 ] &&
   grep -q '"backend": "cgroup-v2-memory, cgroup-v2-pids, cgroup-v2-cpu, supervisor"' "$W/check.json"; then
	pass "check: memory_mb, pids and cpu_percent enforced by cgroup-v2-memory/-pids/-cpu"
else
	fail "check: memory_mb, pids and cpu_percent enforced by cgroup v2" "exit $rc"
	show "$W/check.err"
	show "$W/check.json"
fi

# ---- memory_mb ----
pol mem '{"memory_mb":32}'
run memfiles mem /bin/sh -c "cd $CG && cat memory.max memory.swap.max memory.oom.group"
if [ "$rc" = 0 ] && [ "$(tr '\n' ' ' < "$W/memfiles.out")" = "33554432 0 1 " ]; then
	pass "memory_mb 32: memory.max 33554432, memory.swap.max 0, memory.oom.group 1"
else
	fail "memory_mb 32: the cgroup files" "exit $rc, read: $(tr '\n' ' ' < "$W/memfiles.out")"
	show "$W/memfiles.err"
fi
# dd fills a buffer of bs bytes: 8 MiB fits, 128 MiB does not.
run memok mem dd if=/dev/zero of=/dev/null bs=8M count=2
if [ "$rc" = 0 ] && ! grep -q "\"event\":\"limit.exceeded\"" "$W/memok.jsonl"; then
	pass "memory_mb 32: an 8 MiB buffer runs to its end"
else
	fail "memory_mb 32: an 8 MiB buffer runs to its end" "exit $rc"
	show "$W/memok.err"
fi
run memhog mem dd if=/dev/zero of=/dev/null bs=128M count=1
if [ "$rc" = 137 ] && grep -q '"limit":"memory_mb".*"threshold":32' "$W/memhog.jsonl" &&
   grep '"event":"limit.exceeded"' "$W/memhog.jsonl" | grep -q '"oom_kills":[1-9]' &&
   grep '"event":"sandbox.exit"' "$W/memhog.jsonl" | grep -q '"limit":"memory_mb"' &&
   grep -q 'limit memory_mb=32 reached' "$W/memhog.err"; then
	pass "memory_mb 32: a 128 MiB hog is OOM-killed (137) and the trace says memory_mb"
else
	fail "memory_mb 32: a 128 MiB hog is OOM-killed" "exit $rc"
	show "$W/memhog.err"
	show "$W/memhog.jsonl"
fi

# ---- pids ----
pol pids '{"pids":8}'
run pidsok pids /bin/sh -c "cat $CG/pids.max; sleep 0.1 & sleep 0.1 & wait"
if [ "$rc" = 0 ] && [ "$(cat "$W/pidsok.out")" = 8 ]; then
	pass "pids 8: pids.max 8, a few processes run to their end"
else
	fail "pids 8: pids.max 8, a few processes run" "exit $rc, out $(cat "$W/pidsok.out")"
	show "$W/pidsok.err"
fi
t0=$(date +%s)
run bomb pids /bin/sh -c 'i=0; while [ $i -lt 64 ]; do sleep 30 & i=$((i + 1)); done; wait'
took=$(( $(date +%s) - t0 ))
if [ "$rc" = 137 ] && [ "$took" -lt 20 ] &&
   grep '"event":"limit.exceeded"' "$W/bomb.jsonl" | grep -q '"limit":"pids".*"threshold":8' &&
   grep '"event":"limit.exceeded"' "$W/bomb.jsonl" | grep -q '"forks_refused":[1-9]' &&
   ! pgrep -f 'sleep 30' > /dev/null; then
	pass "pids 8: a fork loop stops at pids.max, the run ends (137, ${took}s), nothing survives"
else
	fail "pids 8: a fork loop stops at pids.max" "exit $rc after ${took}s"
	show "$W/bomb.err"
	show "$W/bomb.jsonl"
fi

# ---- cpu_percent ----
pol cpu '{"cpu_percent":20}'
SPIN="cat $CG/cpu.max; sh -c 'while :; do :; done' & sleep 2; kill \$!; cat $CG/cpu.stat"
run cpu cpu /bin/sh -c "$SPIN"
usage=$(sed -n 's/^usage_usec //p' "$W/cpu.out")
thr=$(sed -n 's/^nr_throttled //p' "$W/cpu.out")
if [ "$rc" = 0 ] && head -n1 "$W/cpu.out" | grep -qx '20000 100000' &&
   [ "${thr:-0}" -gt 0 ] && [ "${usage:-9999999}" -lt 900000 ]; then
	pass "cpu_percent 20: cpu.max 20000 100000, a spinner is throttled ($thr times, ${usage}us in ~2s)"
else
	fail "cpu_percent 20: a spinner is throttled" "exit $rc, nr_throttled ${thr:-?}, usage_usec ${usage:-?}"
	show "$W/cpu.out"
	show "$W/cpu.err"
fi
pol cpufree '{"wall_seconds":60}'
run cpufree cpufree /bin/sh -c "sh -c 'while :; do :; done' & sleep 2; kill \$!; cat $CG/cpu.stat"
usage=$(sed -n 's/^usage_usec //p' "$W/cpufree.out")
if [ "$rc" = 0 ] && [ "${usage:-0}" -gt 1000000 ]; then
	pass "without cpu_percent the same spinner is not held back (${usage}us in ~2s)"
else
	fail "without cpu_percent the spinner runs freely" "exit $rc, usage_usec ${usage:-?}"
	show "$W/cpufree.out"
fi

# ---- wall_seconds, output_bytes, scratch ----
pol wall '{"wall_seconds":1}'
t0=$(date +%s)
run wall wall /bin/sh -c 'sleep 60 & sleep 60'
took=$(( $(date +%s) - t0 ))
if [ "$rc" = 137 ] && [ "$took" -lt 10 ] && grep -q '"limit":"wall_seconds"' "$W/wall.jsonl" &&
   ! pgrep -f 'sleep 60' > /dev/null; then
	pass "wall_seconds 1: sleep 60 ends after ${took}s (137) with its whole tree"
else
	fail "wall_seconds 1: sleep 60 ends in about a second" "exit $rc after ${took}s"
	show "$W/wall.err"
fi
pol out '{"output_bytes":1000}'
run out out yes
if [ "$rc" = 137 ] && [ "$(wc -c < "$W/out.out")" = 1000 ] &&
   grep -q '"limit":"output_bytes"' "$W/out.jsonl"; then
	pass "output_bytes 1000: yes delivers exactly 1000 bytes, then the run ends (137)"
else
	fail "output_bytes 1000: yes delivers exactly 1000 bytes" "exit $rc, $(wc -c < "$W/out.out") bytes"
fi
pol scratch '{"scratch":{"path":"/tmp","size_mb":2}}'
echo host > /tmp/limits-host-file
run scratch scratch /bin/sh -c 'test -e /tmp/limits-host-file && echo seen
	dd if=/dev/zero of=/tmp/big bs=1M count=4; echo dd=$?'
if [ "$rc" = 0 ] && grep -q 'dd=1' "$W/scratch.out" && ! grep -q seen "$W/scratch.out" &&
   grep -q 'No space left on device' "$W/scratch.err" && [ ! -e /tmp/big ] &&
   [ "$(cat /tmp/limits-host-file)" = host ]; then
	pass "scratch 2 MiB at /tmp: empty, writes past it fail with ENOSPC, the host's /tmp untouched"
else
	fail "scratch 2 MiB at /tmp" "exit $rc"
	show "$W/scratch.out"
	show "$W/scratch.err"
fi
rm -f /tmp/limits-host-file

# A cwd below the scratch path would be the host's hidden directory,
# writable through "." where files.write names the path: refused (126).
# At the path itself the command starts in the empty tmpfs. A host file
# under it handed in on stdin cannot be reopened for writing.
pol scwd '{"scratch":{"path":"/tmp","size_mb":2}}'
printf '{"version":1,"id":"lim-sfd","files":{"read":["/usr/","/etc/","/tmp/","/proc/","/dev/"],"write":["/tmp/"]},"exec":"unrestricted","network":"unrestricted","limits":{"scratch":{"path":"/tmp","size_mb":2}}}\n' > "$W/sfd.json"
mkdir -p /tmp/limits-job
rc=$(cd /tmp/limits-job && { "$RINGFENCE" run --policy "$W/scwd.json" -- /bin/sh -c 'echo x > ./escaped' > "$W/scwd-below.out" 2> "$W/scwd-below.err"; echo $?; })
if [ "$rc" = 126 ] && [ ! -e /tmp/limits-job/escaped ] &&
   grep -q 'lies inside the scratch path' "$W/scwd-below.err"; then
	pass "scratch: a command started below the scratch path is refused (126), nothing written"
else
	fail "scratch: cwd below the scratch path" "exit $rc"
	show "$W/scwd-below.err"
fi
rc=$(cd /tmp && { "$RINGFENCE" run --policy "$W/scwd.json" -- /bin/sh -c 'pwd; ls -A .; echo x > ./limits-cwd && cat /tmp/limits-cwd' > "$W/scwd-at.out" 2> "$W/scwd-at.err"; echo $?; })
if [ "$rc" = 0 ] && [ "$(cat "$W/scwd-at.out")" = "$(printf '/tmp\nx')" ] &&
   [ ! -e /tmp/limits-cwd ]; then
	pass "scratch: a command started at the scratch path starts in the empty tmpfs"
else
	fail "scratch: cwd at the scratch path" "exit $rc"
	show "$W/scwd-at.out"
	show "$W/scwd-at.err"
fi
# sfd_check LABEL [RUN-OPTION...]: under the plan's files backend, or one
# required (a SKIP note where it is refused).
sfd_check() {
	label=$1
	shift
	echo host > /tmp/limits-stdin
	rc=0
	(cd / && "$RINGFENCE" run "$@" --policy "$W/sfd.json" -- /bin/sh -c \
		'cat; echo twin > /tmp/t && cat /tmp/t; echo changed >> /proc/self/fd/0; echo rc=$?' \
		< /tmp/limits-stdin > "$W/scwd-fd.out" 2> "$W/scwd-fd.err") || rc=$?
	if [ "$rc" = 126 ] && grep -q 'refused' "$W/scwd-fd.err"; then
		note "SKIP: $label: $(grep -- 'refused\|  - ' "$W/scwd-fd.err" | tail -n 1)"
	elif [ "$rc" = 0 ] && [ "$(cat "$W/scwd-fd.out")" = "$(printf 'host\ntwin\nrc=1')" ] &&
	     [ "$(cat /tmp/limits-stdin)" = host ]; then
		pass "scratch ($label): a host file under the scratch path on stdin cannot be reopened for writing, the scratch twin is writable"
	else
		fail "scratch ($label): host file on stdin reopened for writing" "exit $rc"
		show "$W/scwd-fd.out"
		show "$W/scwd-fd.err"
	fi
}
sfd_check "plan's files backend"
sfd_check "bpf-lsm" --require bpf-lsm
rm -rf /tmp/limits-job /tmp/limits-stdin /tmp/limits-cwd

# ---- the monitor's resource alerts report each cap held ----
# cap_alert LIMIT SANDBOX-PREFIX THRESHOLD: an alert with resource
# LIMIT-cap, cap true and that threshold, for a sandbox of that policy.
# ---- the connection ledger's budgets (issue 22) ----
# egress_bytes: 20 datagrams of 100 bytes under a 1000-byte budget; the
# eleventh is refused (EPERM) and the run ends as the budget's. Its twin
# under 2000 bytes sends all 20.
printf '{"version":1,"id":"lim-egress","files":"unrestricted","exec":"unrestricted","network":{"connect":["127.0.0.1:9"]},"limits":{"egress_bytes":1000}}\n' > "$W/egress.json"
printf '{"version":1,"id":"lim-egress2","files":"unrestricted","exec":"unrestricted","network":{"connect":["127.0.0.1:9"]},"limits":{"egress_bytes":2000}}\n' > "$W/egress2.json"
run egress egress "$TOOLS/rf-net" udpsend 127.0.0.1 9 20 100
if [ "$rc" = 137 ] && grep -q '"limit":"egress_bytes"' "$W/egress.jsonl" &&
   grep '"event":"sandbox.exit"' "$W/egress.jsonl" | grep -q '"bytes_sent":1000,'; then
	pass "egress_bytes 1000: the run ends 137 with limit.exceeded, 1000 bytes sent"
else
	fail "egress_bytes 1000: the run ends 137 with limit.exceeded" "exit $rc"
	show "$W/egress.err"
	show "$W/egress.jsonl"
fi
run egress2 egress2 "$TOOLS/rf-net" udpsend 127.0.0.1 9 20 100
if [ "$rc" = 0 ] && grep -q 'udpsend 127.0.0.1:9 ok=20 ok' "$W/egress2.out" &&
   grep '"event":"network.flow"' "$W/egress2.jsonl" | grep -q '"bytes_sent":2000,'; then
	pass "egress_bytes 2000: the same 20 datagrams go, network.flow says 2000 bytes"
else
	fail "egress_bytes 2000: the twin runs to its end" "exit $rc"
	show "$W/egress2.err"
fi
# disk_write_mb: the io controller is here, so the plan holds it and
# sandbox.exit counts io.stat's write bytes (the guest's root is in RAM:
# no block device, so the count is whatever reached one, an integer).
pol disk '{"disk_write_mb":64}'
run disk disk /bin/sh -c 'echo x > /tmp/disk-write-test'
if [ "$rc" = 0 ] && grep '"event":"sandbox.exit"' "$W/disk.jsonl" | grep -q '"disk_write_bytes":[0-9]' &&
   grep '"event":"sandbox.plan"' "$W/disk.jsonl" | grep -q '"disk_write_mb":{"value":64,"backend":"supervisor","enforced":true}'; then
	pass "disk_write_mb: held by the supervisor with the io controller, disk_write_bytes in sandbox.exit"
else
	fail "disk_write_mb: held where the io controller is" "exit $rc"
	show "$W/disk.err"
fi

cap_alert() {
	grep "\"resource\":\"$1-cap\"" "$W/alerts.ndjson" 2> /dev/null |
		grep '"cap":true' | grep "\"policy_id\":\"$2\"" | grep -q "\"threshold\":$3[,}]"
}
if [ -z "$monpid" ]; then
	fail "monitor: cap alerts" "no $MON in the guest"
else
	sleep 2
	kill "$monpid" 2> /dev/null
	wait "$monpid" 2> /dev/null
	for want in "memory_mb lim-mem 32" "pids lim-pids 8" "wall_seconds lim-wall 1" "egress_bytes lim-egress 1000" \
		    "output_bytes lim-out 1000"; do
		set -- $want
		if cap_alert "$1" "$2" "$3"; then
			pass "monitor: a resource alert reports the $1 cap held (threshold $3, policy $2)"
		else
			fail "monitor: a resource alert reports the $1 cap held" "no such alert"
			show "$W/monitor.err"
			grep '"resource-spike"' "$W/alerts.ndjson" 2> /dev/null | sed 's/^/#   /' | head -n 20
		fi
	done
	# cpu.max 20000/100000: throttled, reported with the cap in percent
	if cap_alert cpu_percent lim-cpu 20; then
		pass "monitor: a resource alert reports the cpu_percent cap throttling (threshold 20)"
	else
		fail "monitor: a resource alert reports cpu_percent throttling" "no such alert"
	fi
fi

finish
