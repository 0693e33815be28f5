#!/bin/sh
# vm-kernels: 6.1 7.3
# Guest suite "monitor_files": monitor.files on real kernels, with BPF-LSM
# (6.1; 7.3 booted with lsm=...,bpf) and without (7.3: Landlock judges
# files there). The policy
# confines files (read /usr/, /etc/, the work directory; write the work
# directory), so the opens below are judged by the files backend and
# watched by the supervisor's fanotify marks on the sandbox's mounts at
# once. A sandbox whose monitor.files lists /usr/ and its work directory
# reads a file of /etc/ (allowed): an unexpected-file alert naming the
# path, the access and the process; its twin reads only under the expected
# paths: no alert, and its trace shows the watch saw its opens;
# on_alert "kill" ends a sandbox before its mark.
. "$GUEST/lib/tap.sh"

W=/w/monfiles
mkdir -p "$W" /etc
echo "not for the task" > /etc/rf-files-secret
echo "expected" > "$W/in.txt"
MON=$RF/ringfence-monitor
if [ ! -x "$MON" ]; then
	fail "monitor_files: the monitor is in the guest" "no $MON"
	finish
fi
"$MON" -q --interval 200 --linger-ms 500 --update-ms 1000 --state "" \
	-o "$W/alerts.ndjson" 2> "$W/monitor.err" &
monpid=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -e /run/ringfence/monitor.lock ] && break
	sleep 0.5
done
sleep 1

pol() { # ID ON_ALERT
	printf '{"version":1,"id":"%s","files":{"read":["/usr/","/etc/","%s/"],"write":["%s/"]},"exec":"unrestricted","network":"unrestricted","monitor":{"files":["/usr/","%s/"],"on_alert":"%s"}}\n' \
		"$1" "$W" "$W" "$W" "$2" > "$W/$1.json"
}
# run ID CMD: exit status in $rc
run() {
	rc=0
	"$RINGFENCE" run --policy "$W/$1.json" --trace "$W/$1.jsonl" -- /bin/sh -c "$2" \
		> "$W/$1.out" 2> "$W/$1.err" || rc=$?
}
# the alert of policy ID for PATH whose record matches PATTERN: its line,
# waited for up to 10 s (the first record may say "open", a later one
# "read" too: the read comes after the open)
alert_of() {
	n=50
	while [ "$n" -gt 0 ]; do
		l=$(grep "\"policy_id\":\"$1\"" "$W/alerts.ndjson" 2> /dev/null |
			grep '"rule":"unexpected-file"' | grep -F "\"path\":\"$2\"" |
			grep -e "$3" | head -n 1)
		[ -n "$l" ] && { echo "$l"; return 0; }
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
exit_line() { grep '"event":"sandbox.exit"' "$W/$1.jsonl"; }

# BPF-LSM in this boot (6.1; 7.3 when booted with lsm=...,bpf): the plan
# gives files to it
if grep -qw bpf /sys/kernel/security/lsm 2> /dev/null; then
	pol mf-check alert
	"$RINGFENCE" check --policy "$W/mf-check.json" > "$W/check.out" 2>&1 || true
	# the file class's backend (the plan's JSON, one member a line)
	if awk '/"file": \{/ { f = 1 } f && /"backend"/ { print; exit }' "$W/check.out" |
	   grep -q '"bpf-lsm"'; then
		pass "check: files confined by bpf-lsm on $(uname -r) (BPF-LSM active)"
	else
		fail "check: files confined by bpf-lsm" "the plan:"
		show "$W/check.out"
	fi
fi

# ---- an allowed file outside monitor.files: an alert naming it ----
pol mf-read alert
run mf-read "cat /etc/rf-files-secret $W/in.txt"
a=$(alert_of mf-read /etc/rf-files-secret '"access":"read') || a=
if [ "$rc" = 0 ] && grep -q "not for the task" "$W/mf-read.out" &&
   echo "$a" | grep -q '"access":"read' && echo "$a" | grep -q '"parent_pid":[1-9]' &&
   echo "$a" | grep -q '(read) by [a-z]* (pid [0-9]*, parent '; then
	# busybox sh may run cat in-process: the process is sh or cat
	pass "unexpected-file: /etc/rf-files-secret read, named with its process and parent"
else
	fail "unexpected-file: /etc/rf-files-secret named" "exit $rc, alert: $a"
	show "$W/mf-read.err"
	show "$W/monitor.err"
fi

# ---- the twin: only expected paths ----
pol mf-twin alert
run mf-twin "cat $W/in.txt /usr/bin/busybox | wc -c; cat $W/in.txt"
ex=$(exit_line mf-twin)
sleep 1
if [ "$rc" = 0 ] && echo "$ex" | grep -q '"unexpected":0' &&
   echo "$ex" | grep -q '"events":[1-9]' &&
   ! grep '"policy_id":"mf-twin"' "$W/alerts.ndjson" | grep -q unexpected-file; then
	pass "twin: opens under /usr/ and its work directory only: watched, no alert"
else
	fail "twin: no alert" "exit $rc, exit line: $ex"
	grep '"policy_id":"mf-twin"' "$W/alerts.ndjson" | head -n 3 | sed 's/^/#   /'
fi

# ---- on_alert kill ----
pol mf-kill kill
rm -f "$W/mark"
run mf-kill "cat /etc/rf-files-secret; sleep 20; touch $W/mark"
a=$(alert_of mf-kill /etc/rf-files-secret '"phase":"open"') || a=
if [ "$rc" = 137 ] && [ ! -e "$W/mark" ] && echo "$a" | grep -q '"result":"killed"'; then
	pass "on_alert kill: the sandbox ended (137) before its mark, the alert says killed"
else
	fail "on_alert kill ends the sandbox" "exit $rc, mark $([ -e "$W/mark" ] && echo made || echo absent), alert: $a"
	show "$W/mf-kill.err"
fi

kill "$monpid" 2> /dev/null
wait "$monpid" 2> /dev/null
finish
