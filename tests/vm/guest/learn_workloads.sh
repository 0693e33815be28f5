#!/bin/sh
# Guest suite "learn_workloads": `ringfence learn` on real workloads under
# BPF-LSM (files, exec, unix and the process boundary decided and recorded
# by the LSM programs in audit mode; on a kernel booted without BPF-LSM,
# Landlock and the observed syscalls instead): python3 reading a data directory and
# writing an output directory, gcc compiling a C file, make compiling and
# linking three files (learned from one run: a rerun finds the work done),
# python3 fetching a
# page from a loopback HTTP server (busybox httpd). For each: learn
# --verify exits 0 with zero denials under the learned policy, the policy
# passes check, and a deliberately extra action under it (reading
# /etc/shadow, fetching from another port) is refused by the kernel with a
# kernel.deny in the trace. The benign reruns under their learned policies,
# with a live ringfence-monitor, raise no alert; a control sandbox's denied
# connects do.
# Not on 7.3's default boot (Landlock) yet: gcc's learned policy names the
# object file it wrote, and Landlock refuses a rule for a path that does
# not exist when the sandbox starts (the rerun after removing it: 126).
# vm-needs: workloads
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/learnwl.XXXXXX)
MON=/rf/ringfence-monitor
# What refuses a file: BPF-LSM (EPERM, its own record) or, without it,
# Landlock (EACCES; the record inferred from the syscall, or Landlock's
# own where the kernel's audit log is on).
"$RINGFENCE" probe > "$W/probe.json" 2> /dev/null || true
if [ "$(probe_field "$W/probe.json" bpf-lsm ok)" = true ]; then
	FILE_ERRNO=1 FILE_ATTR='"attribution":"kernel"' FILES_BY=bpf-lsm
else
	FILE_ERRNO=13 FILE_ATTR='"attribution":"' FILES_BY=landlock
fi
note "files and exec decided by $FILES_BY"
echo 'root:*:19000:0:99999:7:::' > /etc/shadow
chmod 644 /etc/shadow   # DAC allows it: a refusal is the policy's

# ---- the monitor, live for the whole suite ----
# --cpu-percent 0: this guest has one CPU, and a compiler under emulation
# keeps it busy for seconds; the CPU rule (default 90% of the CPUs) cannot
# tell that from a runaway here. The host suite keeps it on (2 CPUs, 180%).
"$MON" -q --output "$W/alerts.ndjson" --status "$W/status.json" --state "" \
	--interval 500 --linger-ms 1000 --cpu-percent 0 2> "$W/monitor.err" &
MON_PID=$!
i=0
while [ ! -s "$W/status.json" ] && [ $i -lt 300 ] && kill -0 $MON_PID 2> /dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if [ -s "$W/status.json" ]; then
	pass "monitor: ringfence-monitor runs (its sensors loaded)"
else
	fail "monitor: ringfence-monitor runs (its sensors loaded)" "no status after 30 s:"
	show "$W/monitor.err"
fi

# learn TAG BASE_JSON EXPECT CMD...: learn --verify into $W/TAG.json; the
# command printed the line EXPECT while learning (it did its work; "": it
# prints nothing).
learn() {
	tag=$1
	echo "$2" > "$W/$tag.base.json"
	expect=$3
	shift 3
	rc=0
	t0=$(date +%s)
	"$RINGFENCE" learn --policy "$W/$tag.base.json" --out "$W/$tag.json" --verify -- "$@" \
		> "$W/$tag.learn.out" 2> "$W/$tag.learn.err" || rc=$?
	note "$tag: learn --verify took $(($(date +%s) - t0)) s"
	if [ "$rc" = 0 ] && { [ -z "$expect" ] || grep -qx "$expect" "$W/$tag.learn.out"; } &&
		grep -q 'learn --verify: 0 denials under the learned policy' "$W/$tag.learn.err"; then
		pass "$tag: learn exits 0 and the --verify rerun has zero denials"
	else
		fail "$tag: learn exits 0 and the --verify rerun has zero denials" "exit $rc"
		show "$W/$tag.learn.out"
		show "$W/$tag.learn.err"
		show "$W/$tag.json"
	fi
	if grep -q '"mode": *"audit"\|"unrestricted"' "$W/$tag.json"; then
		fail "$tag: the learned policy enforces and confines every class" "it does not:"
		show "$W/$tag.json"
	else
		pass "$tag: the learned policy enforces and confines every class"
	fi
	rc=0
	"$RINGFENCE" check --policy "$W/$tag.json" > "$W/$tag.check" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		pass "$tag: the learned policy passes check"
	else
		fail "$tag: the learned policy passes check" "exit $rc"
		show "$W/$tag.check"
	fi
}

# benign TAG CMD...: rerun under the learned policy, its id fp-TAG (the
# monitor's alerts name it); it succeeds with no kernel.deny.
benign() {
	tag=$1
	shift
	sed 's/^  "id": "[^"]*"/  "id": "fp-'"$tag"'"/' "$W/$tag.json" > "$W/$tag.fp.json"
	rc=0
	"$RINGFENCE" run -q --policy "$W/$tag.fp.json" --trace "$W/$tag.fp.trace" -- "$@" \
		> "$W/$tag.fp.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && grep -q '"id":"fp-'"$tag"'"\|"policy_id":"fp-'"$tag"'"' \
		"$W/$tag.fp.trace" && ! grep -q '"event":"kernel.deny"' "$W/$tag.fp.trace"; then
		pass "$tag: reruns under its learned policy (id fp-$tag) with no denial"
	else
		fail "$tag: reruns under its learned policy (id fp-$tag) with no denial" "exit $rc:"
		show "$W/$tag.fp.out"
		grep '"kernel.deny"\|"sandbox.plan"' "$W/$tag.fp.trace" | sed 's/^/#   /'
	fi
}

# denied_in_trace TAG WHAT ATTRIBUTION PATTERN: the extra run's trace has a
# kernel.deny (verdict denied, attributed as ATTRIBUTION) matching PATTERN.
denied_in_trace() {
	if grep '"event":"kernel.deny"' "$W/$1.extra.trace" | grep '"verdict":"denied"' |
		grep "$3" | grep -q "$4"; then
		pass "$1: $2 is refused by the kernel, a kernel.deny in the trace"
	else
		fail "$1: $2 is refused by the kernel, a kernel.deny in the trace" "trace:"
		show "$W/$1.extra.trace"
	fi
}

# ---- python3: a data directory in, an output directory out ----
mkdir -p /srv/py/data /srv/py/out
for n in 1 2 3 4 5 6; do echo "1 2 3" > /srv/py/data/part$n.txt; done
cat > /srv/py/job.py << 'EOF'
import os, sys
d = os.path.dirname(os.path.abspath(__file__))
total = 0
for n in sorted(os.listdir(d + '/data')):
    with open(d + '/data/' + n) as f:
        total += sum(int(x) for x in f.read().split())
with open(d + '/out/result.txt', 'w') as f:
    f.write(str(total))
print('total', total)
if 'shadow' in sys.argv:
    try:
        open('/etc/shadow').read()
        print('shadow ok')
    except PermissionError as e:
        print('shadow refused', e.errno)
EOF
learn py '{"version":1,"id":"learn-py"}' 'total 36' /usr/bin/python3 /srv/py/job.py
note "py: learned policy:"
show "$W/py.json"
benign py /usr/bin/python3 /srv/py/job.py
rc=0
"$RINGFENCE" run -q --policy "$W/py.json" --trace "$W/py.extra.trace" -- \
	/usr/bin/python3 /srv/py/job.py shadow > "$W/py.extra.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -qx 'total 36' "$W/py.extra.out" &&
	grep -qx "shadow refused $FILE_ERRNO" "$W/py.extra.out"; then
	pass "py: under the learned policy the job works and /etc/shadow fails (errno $FILE_ERRNO)"
else
	fail "py: under the learned policy the job works and /etc/shadow fails (errno $FILE_ERRNO)" "exit $rc:"
	show "$W/py.extra.out"
fi
denied_in_trace py "reading /etc/shadow" "$FILE_ATTR" '"path":"/etc/shadow"'

# ---- gcc: compile a file ----
mkdir -p /srv/cc/src /srv/cc/out
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > /srv/cc/src/hello.c
learn cc '{"version":1,"id":"learn-cc","env":{"pass":["PATH"]}}' '' \
	/usr/bin/gcc -c /srv/cc/src/hello.c -o /srv/cc/out/hello.o
if [ -s /srv/cc/out/hello.o ]; then
	pass "cc: learning, gcc wrote the object file"
else
	fail "cc: learning, gcc wrote the object file" "no /srv/cc/out/hello.o"
fi
rm -f /srv/cc/out/hello.o
benign cc /usr/bin/gcc -c /srv/cc/src/hello.c -o /srv/cc/out/hello.o
if [ -s /srv/cc/out/hello.o ]; then
	pass "cc: the rerun under the learned policy wrote the object file"
else
	fail "cc: the rerun under the learned policy wrote the object file" "no /srv/cc/out/hello.o"
fi
rc=0
"$RINGFENCE" run -q --policy "$W/cc.json" --trace "$W/cc.extra.trace" -- \
	/usr/bin/gcc -E -x c /etc/shadow > "$W/cc.extra.out" 2>&1 || rc=$?
if [ "$rc" != 0 ] && ! grep -q 'root:' "$W/cc.extra.out"; then
	pass "cc: gcc reading /etc/shadow under the learned policy fails"
else
	fail "cc: gcc reading /etc/shadow under the learned policy fails" "exit $rc:"
	show "$W/cc.extra.out"
fi
denied_in_trace cc "gcc reading /etc/shadow" "$FILE_ATTR" '"path":"/etc/shadow"'

# ---- make: three files compiled and linked, from clean ----
# More decisions than a run kept before audit mode kept 16,384: learned
# from one run, a rerun finds the work done and repeats none of them.
mkdir -p /srv/mk
for n in 1 2 3; do
	printf '#include <stdio.h>\nint f%d(void) { return puts("f%d"); }\n' $n $n > /srv/mk/f$n.c
done
printf 'int f1(void), f2(void), f3(void);\nint main(void) { return !(f1() > 0 && f2() > 0 && f3() > 0); }\n' \
	> /srv/mk/main.c
printf 'prog: main.o f1.o f2.o f3.o\n\tgcc -o $@ $^\n%%.o: %%.c\n\tgcc -c -o $@ $<\nclean:\n\trm -f prog *.o\n' \
	> /srv/mk/Makefile
cd /srv/mk
learn mk '{"version":1,"id":"learn-mk","env":{"pass":["PATH"]}}' '' /usr/bin/make -s
make -s clean
benign mk /usr/bin/make -s
if [ -x /srv/mk/prog ] && /srv/mk/prog > /dev/null; then
	pass "mk: from clean under the learned policy, make compiled and linked the program"
else
	fail "mk: from clean under the learned policy, make compiled and linked the program" "policy:"
	show "$W/mk.json"
fi
cd /

# ---- python3 fetching from a loopback HTTP server ----
mkdir -p /srv/www /srv/net
echo 'hello from httpd' > /srv/www/index.html
busybox httpd -f -p 127.0.0.1:18081 -h /srv/www &
HTTPD1=$!
busybox httpd -f -p 127.0.0.1:18082 -h /srv/www &
HTTPD2=$!
# An HTTP/1.0 GET over a plain socket: urllib would import half the
# standard library, and every import is slow under emulation.
cat > /srv/net/fetch.py << 'EOF'
import socket, sys
def fetch(port):
    with socket.create_connection(('127.0.0.1', int(port)), timeout=20) as s:
        s.sendall(b'GET /index.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n')
        data = b''
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    head, _, body = data.partition(b'\r\n\r\n')
    if not head.startswith(b'HTTP/1.') or b' 200 ' not in head.split(b'\r\n')[0]:
        raise RuntimeError('bad response: %r' % head[:80])
    return body.decode().strip()
print('got', fetch(sys.argv[1]))
if len(sys.argv) > 2:
    try:
        print('other got', fetch(sys.argv[2]))
    except PermissionError as e:
        print('other refused', e.errno)
EOF
sleep 0.5
learn net '{"version":1,"id":"learn-net"}' 'got hello from httpd' \
	/usr/bin/python3 /srv/net/fetch.py 18081
if grep -q '"127.0.0.1:18081"' "$W/net.json" && ! grep -q '18082' "$W/net.json"; then
	pass "net: the learned policy allows exactly the endpoint fetched from"
else
	fail "net: the learned policy allows exactly the endpoint fetched from" "policy:"
	show "$W/net.json"
fi
benign net /usr/bin/python3 /srv/net/fetch.py 18081
rc=0
"$RINGFENCE" run -q --policy "$W/net.json" --trace "$W/net.extra.trace" -- \
	/usr/bin/python3 /srv/net/fetch.py 18081 18082 > "$W/net.extra.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -qx 'got hello from httpd' "$W/net.extra.out" &&
	grep -qx 'other refused 1' "$W/net.extra.out"; then
	pass "net: under the learned policy the fetch works, another port fails EPERM"
else
	fail "net: under the learned policy the fetch works, another port fails EPERM" "exit $rc:"
	show "$W/net.extra.out"
fi
denied_in_trace net "connecting to 127.0.0.1:18082" '"attribution":"kernel"' '"port":18082'
kill $HTTPD1 $HTTPD2 2> /dev/null

# ---- no false positives ----
# The control: 30 denied connects in a sandbox of its own do alert, so the
# monitor, its output and this check see what they should.
set -- "$TOOLS/rf-net"
i=0
while [ $i -lt 30 ]; do
	set -- "$@" tcp 127.0.0.1 18439
	i=$((i + 1))
done
echo '{"version":1,"id":"ctl-burst","files":"unrestricted","exec":"unrestricted","network":{"connect":[],"unix":[]}}' \
	> "$W/ctl.json"
"$RINGFENCE" run -q --policy "$W/ctl.json" -- "$@" > /dev/null 2>&1
i=0
while ! grep -q '"policy_id":"ctl-burst"' "$W/alerts.ndjson" 2> /dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 2.5   # past the sample interval and the linger
if grep -q '"policy_id":"ctl-burst"' "$W/alerts.ndjson" 2> /dev/null; then
	pass "monitor: the control's denied connects raise an alert"
else
	fail "monitor: the control's denied connects raise an alert" "none:"
	show "$W/alerts.ndjson"
	show "$W/monitor.err"
fi
if kill -0 $MON_PID 2> /dev/null; then
	pass "monitor: ran throughout"
else
	fail "monitor: ran throughout" "it exited:"
	show "$W/monitor.err"
fi
if grep -q '"policy_id":"fp-' "$W/alerts.ndjson" 2> /dev/null; then
	fail "monitor: no alert for the benign reruns under their learned policies" "alerts:"
	grep '"policy_id":"fp-' "$W/alerts.ndjson" | sed 's/^/#   /'
else
	pass "monitor: no alert for the benign reruns under their learned policies"
fi
kill $MON_PID 2> /dev/null
wait $MON_PID 2> /dev/null
finish
