#!/bin/sh
# Guest suite "smoke": on the VM's kernel (Debian cloud 6.1, BPF-LSM built in,
# no cgroup unix socket hooks), the backends load for real, a sandbox's
# network policy is enforced by the kernel, and a policy confining unix
# sockets is refused.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/smoke.XXXXXX)
ALLOWED=18180 OTHER=18181
LISTENER=
cleanup() { [ -z "$LISTENER" ] || kill "$LISTENER" 2> /dev/null; }
trap cleanup EXIT

# ---- the kernel ----
lsm=$(cat /sys/kernel/security/lsm 2> /dev/null)
case ",$lsm," in
	*,bpf,*) pass "lsm: bpf is an active LSM ($lsm)" ;;
	*) fail "lsm: bpf is an active LSM" "/sys/kernel/security/lsm is '$lsm'" ;;
esac

# ---- ringfence probe ----
rc=0
"$RINGFENCE" probe > "$W/probe.json" 2> "$W/probe.err" || rc=$?
if [ "$rc" = 0 ] && [ -n "$(probe_field "$W/probe.json" cgroup-v2 ok)" ]; then
	pass "probe: exits 0 with a backends report"
else
	fail "probe: exits 0 with a backends report" "exit $rc"
	show "$W/probe.err"
	show "$W/probe.json"
fi
# want_backend NAME true|false
want_backend() {
	ok=$(probe_field "$W/probe.json" "$1" ok)
	detail=$(probe_field "$W/probe.json" "$1" detail)
	if [ "$ok" = "$2" ]; then
		pass "probe: $1 ok is $2 ($detail)"
	else
		fail "probe: $1 ok is $2" "ok is '${ok:-missing}', detail $detail"
	fi
}
# The kernel loads and attaches lsm/ programs even when "bpf" is not an
# active LSM (booted with lsm=... without it); they then never run. So the
# probe's "ok" counts only together with the active LSM list.
ok=$(probe_field "$W/probe.json" bpf-lsm ok)
detail=$(probe_field "$W/probe.json" bpf-lsm detail)
case "$ok:,$lsm," in
	true:*,bpf,*) pass "probe: bpf-lsm ok is true ($detail) and bpf is an active LSM" ;;
	true:*) fail "probe: bpf-lsm ok is true and bpf is an active LSM" "the probe says ok ($detail) but bpf is not an active LSM ($lsm): its programs never run" ;;
	*) fail "probe: bpf-lsm ok is true and bpf is an active LSM" "ok is '${ok:-missing}', detail $detail" ;;
esac
want_backend cgroup-v2 true
want_backend cgroup-sock-addr true
# connect_unix/sendmsg_unix arrived in 6.7: 6.1 must refuse them, and the
# probe must say why (the planner then gives unix sockets to bpf-lsm).
want_backend cgroup-sock-addr-unix false
detail=$(probe_field "$W/probe.json" cgroup-sock-addr-unix detail)
case $detail in
	'"'?*'"') pass "probe: cgroup-sock-addr-unix has a detail ($detail)" ;;
	*) fail "probe: cgroup-sock-addr-unix has a detail" "detail is '${detail:-missing}'" ;;
esac

# ---- a sandbox's network policy, enforced by this kernel ----
cat > "$W/net.json" << EOF
{
  "version": 1,
  "id": "vm-smoke",
  "files": "unrestricted",
  "exec": "unrestricted",
  "network": {"connect": ["127.0.0.1:$ALLOWED"], "unix": "unrestricted"}
}
EOF
# A persistent listener: -ll keeps accepting, -e runs true for each client.
nc -ll -p "$ALLOWED" -e /bin/true &
LISTENER=$!
up=
for _ in $(seq 50); do
	[ "$("$TOOLS/rf-net" tcp 127.0.0.1 "$ALLOWED")" = "tcp 127.0.0.1:$ALLOWED ok" ] && { up=1; break; }
	sleep 0.1
done
[ -n "$up" ] || note "the listener on 127.0.0.1:$ALLOWED did not come up"

# Control, outside any sandbox: the allowed port answers, the other one is
# closed (ECONNREFUSED), so an EPERM below can only come from the sandbox.
"$TOOLS/rf-net" tcp 127.0.0.1 "$ALLOWED" tcp 127.0.0.1 "$OTHER" > "$W/control.out" 2>&1
printf 'tcp 127.0.0.1:%s ok\ntcp 127.0.0.1:%s ECONNREFUSED\n' "$ALLOWED" "$OTHER" > "$W/control.want"
if cmp -s "$W/control.out" "$W/control.want"; then
	pass "net: without a sandbox :$ALLOWED connects and :$OTHER is refused (ECONNREFUSED)"
else
	fail "net: without a sandbox :$ALLOWED connects and :$OTHER is refused" "rf-net printed:"
	show "$W/control.out"
fi

rc=0
"$RINGFENCE" run --policy "$W/net.json" -- "$TOOLS/rf-net" tcp 127.0.0.1 "$ALLOWED" tcp 127.0.0.1 "$OTHER" \
	> "$W/net.out" 2> "$W/net.err" || rc=$?
printf 'tcp 127.0.0.1:%s ok\ntcp 127.0.0.1:%s EPERM\n' "$ALLOWED" "$OTHER" > "$W/net.want"
if [ "$rc" = 0 ] && cmp -s "$W/net.out" "$W/net.want"; then
	pass "net: in a sandbox :$ALLOWED connects and :$OTHER is denied (EPERM)"
else
	fail "net: in a sandbox :$ALLOWED connects and :$OTHER is denied" "exit $rc, output:"
	show "$W/net.out"
	show "$W/net.err"
fi
if grep -q 'kernel denials: 1 (network 1, unix 0, file 0, exec 0, process 0)' "$W/net.err"; then
	pass "net: the supervisor counted the kernel's one denial"
else
	fail "net: the supervisor counted the kernel's one denial" "stderr:"
	show "$W/net.err"
fi

# The command runs in the sandbox's own cgroup under <cgroup2>/ringfence.
rc=0
"$RINGFENCE" run -q --policy "$W/net.json" -- "$TOOLS/rf-inspect" > "$W/inspect.out" 2> "$W/inspect.err" || rc=$?
cg=$(sed -n 's/^cgroup=//p' "$W/inspect.out")
case "$rc:$cg" in
	0:0::/ringfence/vm-smoke-*) pass "net: the command runs in its sandbox cgroup ($cg)" ;;
	*)
		fail "net: the command runs in its sandbox cgroup" "exit $rc, cgroup '$cg'"
		show "$W/inspect.err"
		;;
esac

# ---- confining unix sockets: bpf-lsm takes the class on this kernel ----
# (the cgroup unix hooks are missing here; the lsm suite proves the denials)
sed 's/"unix": "unrestricted"/"unix": []/' "$W/net.json" > "$W/unix.json"
grep -q '"unix": \[\]' "$W/unix.json" || note "could not write the unix policy"
rc=0
"$RINGFENCE" check --policy "$W/unix.json" > "$W/unix.plan" 2> "$W/unix.err" || rc=$?
backend=$(tr -d ' \n' < "$W/unix.plan" | grep -o '"unix":{[^}]*' | grep -o '"backend":"[^"]*"')
if [ "$rc" = 0 ] && [ "$backend" = '"backend":"bpf-lsm"' ]; then
	pass "unix: a policy confining unix sockets is planned on bpf-lsm here ($backend)"
else
	fail "unix: a policy confining unix sockets is planned on bpf-lsm here" \
		"check exit $rc (want 0), unix $backend"
	show "$W/unix.err"
fi
# Control: the same command under the unix-unrestricted policy does run.
# It says so on its output (whichever uid runs it, it needs no file).
rc=0
"$RINGFENCE" run -q --policy "$W/net.json" -- "$TOOLS/rf-net" tcp 127.0.0.1 "$ALLOWED" \
	> "$W/ran.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && [ "$(cat "$W/ran.out")" = "tcp 127.0.0.1:$ALLOWED ok" ]; then
	pass "unix: the same command runs when unix is unrestricted"
else
	fail "unix: the same command runs when unix is unrestricted" "exit $rc"
	show "$W/ran.out"
fi


# ---- the seccomp boundary kills i386 syscalls ----
# The development host has no IA32 emulation; this kernel has, so here the
# filter's architecture check meets a real int 0x80.
rc=0
"$TOOLS/rf-sys" i386_getpid > "$W/i386.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && grep -qx "i386_getpid ok" "$W/i386.out"; then
	pass "seccomp: an i386 syscall (int 0x80) works outside a sandbox"
	rc=0
	"$RINGFENCE" run -q --policy "$W/net.json" -- "$TOOLS/rf-sys" i386_getpid \
		> "$W/i386s.out" 2>&1 || rc=$?
	if [ "$rc" = 159 ] && ! grep -q "i386_getpid ok" "$W/i386s.out"; then
		pass "seccomp: the same call kills the sandboxed process (SIGSYS, exit 159)"
	else
		fail "seccomp: the same call kills the sandboxed process" "exit $rc (want 159)"
		show "$W/i386s.out"
	fi
else
	fail "seccomp: an i386 syscall (int 0x80) works outside a sandbox" "exit $rc"
	show "$W/i386.out"
fi

finish
