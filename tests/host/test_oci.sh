#!/usr/bin/env bash
# `ringfence oci-hook` with Debian's podman and crun, on a root filesystem
# built here from busybox-static (podman --rootfs: no image, no registry).
# The hook is installed as a hooks.d file (the shape of dist/oci/, its path
# this build's binary) in a hooks directory of the test's own. Each check
# runs inside the container:
#   - a container under a policy reaches the allowed loopback port and is
#     refused (EPERM) the other one; its name-based egress goes through the
#     DNS gate (dnsmasq here: an allowed name reaches its port, a name not
#     in the policy gets no answer and its address stays closed);
#   - while it runs, the registry names it oci-<container id> with its
#     cgroup id and the label container.id=<short id>; the monitor's alert
#     for its denied connect names that sandbox (OCSF container.uid);
#   - when it stops, its registry file, map entries and cgroup go;
#   - a container whose policy cannot be enforced here does not start
#     (files rules without BPF-LSM; a container holding CAP_SYS_ADMIN where
#     no BPF-LSM guards the boundary), and the hook says why on stderr;
#   - a cgroup someone else made (a runtime's, with cgroupsPath set) is
#     adopted as it is: the programs are attached to it and the maps keyed
#     by its id (the hook called directly with a state on stdin).
# On a hybrid host (cgroup2 at /sys/fs/cgroup/unified with a controller)
# crun refuses to run at all ("cgroups in hybrid mode not supported"): the
# containers then run in a private mount namespace in which cgroup2 is
# mounted elsewhere (the same hierarchy, the same ids), crun sees cgroup v1
# only and podman runs them with --cgroups=disabled; the hook gives each a
# cgroup of its own under <cgroup2>/ringfence. No host setting changes.
# Needs root; hold /work/host.lock on a shared host.
# Usage: tests/host/test_oci.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
MON=$BUILD/ringfence-monitor
SRC=$(pwd)
fail=0
ok()     { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }
show()   { sed 's/^/#   /' "$1" | head -"${2:-12}"; }

if [ "$(id -u)" != 0 ]; then
	echo "ok - skipped: not root"
	exit 0
fi
for b in podman crun /bin/busybox /usr/sbin/dnsmasq python3; do
	command -v "$b" >/dev/null || { echo "not ok - $b missing (make deps)"; exit 1; }
done

# The hybrid host: run the rest in a private mount namespace.
if [ "${1:-}" != "--inner" ] && [ "${2:-}" != "--inner" ]; then
	if grep -qs ' /sys/fs/cgroup/unified cgroup2 ' /proc/mounts &&
	   grep -q . /sys/fs/cgroup/unified/cgroup.controllers; then
		exec unshare -m --propagation private "$0" "$BUILD" --inner
	fi
fi
W=$(mktemp -d /var/tmp/rf-oci-XXXXXX)
chmod 755 "$W"
PODMAN_OPTS=(--root "$W/store" --runroot "$W/run" --cgroup-manager=cgroupfs --runtime crun
	     --hooks-dir "$W/hooks")
# podman's default rlimits exceed what this root may set (no CAP_SYS_RESOURCE)
BG_OPTS=(--network=host --ulimit "nofile=1024:1024" --ulimit "nproc=1000:1000")
if [ "${2:-}" = "--inner" ]; then
	umount /sys/fs/cgroup/unified
	mkdir -p "$W/cg2" && mount -t cgroup2 none "$W/cg2"
	BG_OPTS+=(--cgroups=disabled)
fi
RUN_OPTS=(--rm "${BG_OPTS[@]}")
CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	podman "${PODMAN_OPTS[@]}" rm -a -f >/dev/null 2>&1
	[ -n "${ADOPT:-}" ] && { echo 1 > "$ADOPT/cgroup.kill"; sleep 0.1; rmdir "$ADOPT" "$(dirname "$ADOPT")"; } 2>/dev/null
	# podman's storage mounts (host namespace on a pure cgroup v2 host), cg2
	awk -v w="$W/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r | xargs -r umount
	rm -rf "$W"
}
trap cleanup EXIT

# The root filesystem: busybox-static and its applets.
mkdir -p "$W/rootfs/bin" "$W/rootfs/proc" "$W/rootfs/sys" "$W/rootfs/dev" "$W/rootfs/etc" \
	 "$W/rootfs/tmp" "$W/hooks"
cp /bin/busybox "$W/rootfs/bin/busybox"
for a in sh cat nc ls sleep echo nslookup; do ln -s busybox "$W/rootfs/bin/$a"; done
# The hooks.d file as dist/oci/ringfence.json has it, this build's binary.
sed "s|/usr/bin/ringfence|$RF|" dist/oci/ringfence.json > "$W/hooks/ringfence.json"

P_OK=18411; P_NO=18412; DNS=5411
pol() { # id connect-list [extra members]
	printf '{"version":1,"id":"%s","files":"unrestricted","exec":"unrestricted","network":{"connect":[%s],"unix":[],"dns":{"upstream":["127.0.0.1:%s"],"rebind_allow":["127.77.0.0/16"]}}%s}\n' \
		"$1" "$2" "$DNS" "${3:-}" > "$W/$1.json"
}
pol net "\"127.0.0.1:$P_OK\",\"allowed.test:$P_OK\""
printf '{"version":1,"id":"files","files":{"read":["/bin/"]},"exec":"unrestricted"}\n' > "$W/files.json"
chmod 644 "$W/net.json" "$W/files.json"   # the hook takes only files root alone may write

# Listeners: the allowed port and another, on 127.0.0.1 and the test names'
# addresses; dnsmasq answers the names.
python3 - "$W/bound" "$P_OK" "$P_NO" <<'EOF' >"$W/listen.log" 2>&1 &
import selectors, socket, sys
sel = selectors.DefaultSelector()
for a in ("127.0.0.1", "127.77.0.1", "127.77.0.2"):
    for p in sys.argv[2:]:
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((a, int(p))); s.listen(64); sel.register(s, selectors.EVENT_READ)
open(sys.argv[1], "w").close()
while True:  # accept and close: busybox nc waits for the peer's close
    for k, _ in sel.select():
        k.fileobj.accept()[0].close()
EOF
pids+=($!)
/usr/sbin/dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
	--listen-address=127.0.0.1 -p "$DNS" --pid-file= --log-facility=/dev/null \
	--host-record=allowed.test,127.77.0.1,30 --host-record=other.test,127.77.0.2,30 &
pids+=($!)
# bound before any container asks (a fixed wait is too short on a loaded host)
for _ in $(seq 200); do grep -q "0100007F:$(printf %04X "$DNS") " /proc/net/udp && break; sleep 0.05; done
# The monitor, for the alert: JSON lines to a file.
"$MON" --output "$W/alerts.json" --state "" --burst-count 1 --linger-ms 200 >"$W/mon.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -e "$W/bound" ] && break; sleep 0.1; done
[ -e "$W/bound" ] || { echo "not ok - the test's listeners"; show "$W/listen.log"; exit 1; }

pod() { podman "${PODMAN_OPTS[@]}" "$@"; }
# crun passes a hook's stderr on only to the file this annotation names
ctr_run() { : > "$W/hook.err"; : > "$W/hook.out"; pod run "${RUN_OPTS[@]}" \
	--annotation "run.ringfence.policy=$1" --annotation "run.oci.hooks.stderr=$W/hook.err" \
	--annotation "run.oci.hooks.stdout=$W/hook.out" "${@:3}" \
	--rootfs "$W/rootfs" /bin/sh -c "$2" >"$W/out" 2>&1; }

# 1. allowed, denied, by name, registry: all from inside one container.
ctr_run "$W/net.json" "
	echo x | nc -w1 127.0.0.1 $P_OK && echo CONNECT-OK-ALLOWED
	echo x | nc -w1 127.0.0.1 $P_NO 2>&1; echo CONNECT-OTHER=\$?
	echo x | nc -w1 allowed.test $P_OK && echo NAME-OK-ALLOWED
	echo x | nc -w1 other.test $P_NO 2>&1; echo NAME-OTHER=\$?
	echo x | nc -w1 127.77.0.2 $P_NO 2>&1; echo ADDR-OTHER=\$?
	cat /proc/self/cgroup | grep '^0::'
	sleep 0.3"
rc=$?
if [ $rc = 0 ] && grep -q CONNECT-OK-ALLOWED "$W/out"; then
	ok "container: the allowed loopback port is reached"
else
	not_ok "container: allowed connect (exit $rc)"; show "$W/out" 30
fi
if grep -q 'Operation not permitted' "$W/out" && grep -q 'CONNECT-OTHER=1' "$W/out"; then
	ok "container: another port is refused with EPERM inside the container"
else
	not_ok "container: the denied connect was not refused with EPERM"; show "$W/out" 30
fi
if grep -q NAME-OK-ALLOWED "$W/out" && grep -q 'NAME-OTHER=1' "$W/out" &&
   grep -q 'ADDR-OTHER=1' "$W/out"; then
	ok "container: a name in the policy is reached through the DNS gate; another name and its address are not"
else
	not_ok "container: name-based egress through the DNS gate"; show "$W/out" 30
fi
if python3 - "$W/hook.out" <<'EOF'
import json, sys
p = json.loads(open(sys.argv[1]).readline())
assert p["oci"]["landlock"].startswith("not applied: an OCI hook runs beside"), p["oci"]
assert p["oci"]["seccomp"].startswith("not applied"), p["oci"]
EOF
then
	ok "the hook's plan (stdout): Landlock and seccomp stated as not applied, and why"
else
	not_ok "the hook's plan on stdout"; show "$W/hook.out" 3
fi
sleep 0.3
if ls /run/ringfence/sandboxes/oci-* >/dev/null 2>&1; then
	not_ok "container stopped: its registry file stays"; ls /run/ringfence/sandboxes/ | sed 's/^/#   /'
else
	ok "container stopped: its registry file is gone"
fi
if ls -d "$CG2"/ringfence/oci-* >/dev/null 2>&1; then
	not_ok "container stopped: its cgroup under $CG2/ringfence stays"
else
	ok "container stopped: no cgroup of it left"
fi

# 2. while it runs: the registry and the monitor's alert carry its id.
pod run -d "${BG_OPTS[@]}" --annotation "run.ringfence.policy=$W/net.json" \
	--rootfs "$W/rootfs" /bin/sh -c "sleep 1; echo x | nc -w1 127.0.0.1 $P_NO; sleep 30" \
	>"$W/id" 2>"$W/err"
id=$(cat "$W/id")
if [ -n "$id" ] && [ -f "/run/ringfence/sandboxes/oci-$id.json" ] &&
   python3 - "/run/ringfence/sandboxes/oci-$id.json" "$id" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1])); i = sys.argv[2]
assert r["sandbox"] == "oci-" + i, r
assert r["labels"]["container.id"] == i[:12], r
assert r["cgroup_id"] > 0 and r["on_supervisor_exit"] == "keep-running", r
EOF
then
	ok "running container: registry oci-<id> with its cgroup id and container.id label"
else
	not_ok "running container: registry entry"; show "$W/err"; ls /run/ringfence/sandboxes | sed 's/^/#   /'
fi
for _ in $(seq 30); do grep -qs "oci-$id" "$W/alerts.json" && break; sleep 0.2; done
if grep -qs "\"uid\":\"oci-$id\"" "$W/alerts.json" || grep -qs "\"uid\": \"oci-$id\"" "$W/alerts.json"; then
	ok "monitor: the alert for the container's denied connect names oci-<container id>"
else
	not_ok "monitor: no alert naming oci-$id"; show "$W/alerts.json" 5; show "$W/mon.log" 5
fi
pod rm -f -t 0 "$id" >/dev/null 2>&1
for _ in $(seq 50); do [ -f "/run/ringfence/sandboxes/oci-$id.json" ] || break; sleep 0.1; done
if [ -f "/run/ringfence/sandboxes/oci-$id.json" ]; then
	not_ok "podman rm -f: the registry file stays"
else
	ok "podman rm -f: the registry file and the sandbox are released"
fi

# 3. refusals: the container does not start, the hook says why.
ctr_run "$W/files.json" "echo STARTED"
rc=$?
if [ $rc != 0 ] && ! grep -q STARTED "$W/out" && grep -q 'file: no backend' "$W/hook.err" &&
   grep -qi 'OCI hook runs beside' "$W/hook.err"; then
	ok "files rules without BPF-LSM: the container does not start (exit $rc), the reason shown"
else
	not_ok "files rules without BPF-LSM (exit $rc)"; show "$W/out" 20; show "$W/hook.err"
fi
ctr_run "$W/net.json" "echo STARTED" --cap-add SYS_ADMIN
rc=$?
if [ $rc != 0 ] && ! grep -q STARTED "$W/out" && grep -q 'CAP_SYS_ADMIN' "$W/hook.err"; then
	ok "CAP_SYS_ADMIN without BPF-LSM: the container does not start, the reason shown"
else
	not_ok "CAP_SYS_ADMIN container (exit $rc)"; show "$W/out" 20; show "$W/hook.err"
fi
ctr_run "$W/none.json" "echo STARTED"
rc=$?
if [ $rc != 0 ] && ! grep -q STARTED "$W/out" && grep -q 'none.json' "$W/hook.err"; then
	ok "a policy file that does not exist: the container does not start"
else
	not_ok "missing policy file (exit $rc)"; show "$W/out" 20; show "$W/hook.err"
fi

# 4. a cgroup someone else made: adopted, keyed by its id.
ADOPT=$CG2/rf-oci-test-$$/ctr
mkdir -p "$ADOPT"
mkdir -p "$W/bundle"
mkfifo "$W/go" "$W/go2"
printf '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"/rf-oci-test-%s/ctr"},"process":{"capabilities":{"bounding":["CAP_KILL"]}}}\n' $$ > "$W/bundle/config.json"
sh -c "echo \$\$ > $ADOPT/cgroup.procs; read _ < $W/go; echo x | busybox nc -w1 127.0.0.1 $P_NO 2>&1; echo ADOPT-OTHER=\$?; echo x | busybox nc -w1 127.0.0.1 $P_OK; echo ADOPT-OK=\$?; echo done > $W/done; read _ < $W/go2" >"$W/adopt.out" 2>&1 &
apid=$!
for _ in $(seq 50); do grep -qs "^$apid\$" "$ADOPT/cgroup.procs" && break; sleep 0.1; done
printf '{"ociVersion":"1.0.2","id":"adopt%s","status":"creating","pid":%s,"bundle":"%s","annotations":{"run.ringfence.policy":"%s"}}' \
	$$ "$apid" "$W/bundle" "$W/net.json" | "$RF" oci-hook >"$W/hook.out" 2>"$W/hook.err"
rc=$?
echo go > "$W/go"
for _ in $(seq 50); do [ -e "$W/done" ] && break; sleep 0.1; done
cgid=$(stat -c %i "$ADOPT")
if [ $rc = 0 ] && grep -q 'ADOPT-OTHER=1' "$W/adopt.out" && grep -q 'ADOPT-OK=0' "$W/adopt.out" &&
   python3 - "/run/ringfence/sandboxes/oci-adopt$$.json" "$cgid" "$ADOPT" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["cgroup_id"] == int(sys.argv[2]) and r["cgroup_path"] == sys.argv[3], r
assert r["cgroup_placement"] == "oci-runtime", r
EOF
then
	ok "a runtime's cgroup: adopted (programs attached, maps keyed by its id $cgid)"
else
	not_ok "a runtime's cgroup (hook exit $rc)"; show "$W/hook.err"; show "$W/adopt.out"
	cat "/run/ringfence/sandboxes/oci-adopt$$.json" 2>/dev/null | sed 's/^/#   /'
fi
# poststop while the cgroup still holds a process: the keeper is told
printf '{"ociVersion":"1.0.2","id":"adopt%s","status":"stopped","bundle":"%s"}' $$ "$W/bundle" |
	"$RF" oci-hook 2>>"$W/hook.err"
rc=$?
echo go > "$W/go2"
wait "$apid"
if [ $rc = 0 ] && [ ! -f "/run/ringfence/sandboxes/oci-adopt$$.json" ] && [ -d "$ADOPT" ]; then
	ok "poststop: the adopted sandbox is released, the runtime's cgroup left to the runtime"
else
	not_ok "poststop of the adopted cgroup (exit $rc)"; show "$W/hook.err"
fi

# 5. the policy's syscalls through the runtime's own seccomp field: the
# profile `ringfence oci-seccomp` writes from the policy (the supervisor's
# allowlist rules), installed by crun; the hook accepts the policy only
# for a container whose linux.seccomp holds it.
SYS='"read","write","open","openat","close","stat","fstat","lstat","newfstatat","statx","poll","ppoll","lseek","mmap","mprotect","munmap","brk","rt_sigaction","rt_sigprocmask","rt_sigreturn","ioctl","pread64","readv","writev","access","faccessat","faccessat2","pipe","pipe2","dup","dup2","dup3","nanosleep","clock_nanosleep","getpid","getppid","gettid","clone","fork","vfork","execve","wait4","waitid","kill","tgkill","uname","fcntl","getcwd","chdir","umask","clock_gettime","gettimeofday","getrlimit","prlimit64","getuid","geteuid","getgid","getegid","getgroups","setpgid","getpgrp","getpgid","setsid","arch_prctl","set_tid_address","set_robust_list","rseq","futex","getdents64","getrandom","sysinfo","sigaltstack","prctl","capget","close_range","exit","exit_group",'
# what crun calls after it has loaded the profile, before its execve (its
# start: waiting on the exec fifo with pselect6; the user, capabilities): the
# policy lists them (a runtime's, not the command's: stated in docs/fleet.md)
SYS+='"setresuid","setresgid","setgroups","capset","pselect6","select"'
printf '{"version":1,"id":"sys","files":"unrestricted","exec":"unrestricted","syscalls":{"allow":[%s]}}\n' "$SYS" > "$W/sys.json"
printf '{"version":1,"id":"sys2","files":"unrestricted","exec":"unrestricted","syscalls":{"allow":[%s,"mkdir","mkdirat"]}}\n' "$SYS" > "$W/sys2.json"
chmod 644 "$W/sys.json" "$W/sys2.json"
"$RF" oci-seccomp --policy "$W/sys.json" >"$W/sys.seccomp" 2>"$W/seccomp.err"
rc1=$?
"$RF" oci-seccomp --policy "$W/sys2.json" >"$W/sys2.seccomp" 2>>"$W/seccomp.err"
rc2=$?
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && python3 - "$W/sys.seccomp" "$W/sys2.seccomp" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["defaultAction"] == "SCMP_ACT_ERRNO" and a["defaultErrnoRet"] == 1, a
assert a["architectures"] == ["SCMP_ARCH_X86_64"], a
allow = lambda p: {n for e in p["syscalls"] if e["action"] == "SCMP_ACT_ALLOW" for n in e["names"]}
assert "mkdir" not in allow(a) and {"mkdir", "mkdirat"} <= allow(b), (allow(a), allow(b))
assert allow(b) - allow(a) == {"mkdir", "mkdirat"}, allow(b) - allow(a)
c3 = [e for e in a["syscalls"] if e["names"] == ["clone3"]]
assert c3 and c3[0]["action"] == "SCMP_ACT_ERRNO" and c3[0]["errnoRet"] == 38, c3
EOF
then
	ok "oci-seccomp: the policy's allowlist as an OCI profile (default EPERM, native arch, clone3 ENOSYS as run's filter)"
else
	not_ok "oci-seccomp (exit $rc1, $rc2)"; show "$W/seccomp.err"; show "$W/sys.seccomp"
fi
MK='mkdir /tmp/d 2>&1; echo MKDIR=$?; echo x > /tmp/f && echo WRITE-OK'
ctr_run "$W/sys.json" "$MK" --security-opt "seccomp=$W/sys.seccomp"
rc=$?
if [ $rc = 0 ] && grep -q 'Operation not permitted' "$W/out" && grep -q 'MKDIR=1' "$W/out" &&
   grep -q WRITE-OK "$W/out" && grep -q '"syscalls_by_runtime_seccomp":true' "$W/hook.out"; then
	ok "a container with the policy's profile: mkdir (not listed) gets EPERM, a listed write works; the hook names the runtime's profile as what holds the syscalls"
else
	not_ok "syscalls through the runtime's seccomp (exit $rc)"; show "$W/out" 20; show "$W/hook.err"; show "$W/hook.out" 2
fi
ctr_run "$W/sys2.json" "$MK" --security-opt "seccomp=$W/sys2.seccomp"
rc=$?
if [ $rc = 0 ] && grep -q 'MKDIR=0' "$W/out"; then
	ok "its twin, a policy listing mkdir: mkdir works in the container"
else
	not_ok "the twin profile (exit $rc)"; show "$W/out" 20; show "$W/hook.err"
fi
ctr_run "$W/sys.json" "echo STARTED"
rc=$?
if [ $rc != 0 ] && ! grep -q STARTED "$W/out" && grep -q 'does not hold the policy' "$W/hook.err"; then
	ok "a syscalls policy under podman's default profile (it allows more): the container does not start, the reason shown"
else
	not_ok "syscalls policy under the default profile (exit $rc)"; show "$W/out" 20; show "$W/hook.err"
fi
ctr_run "$W/sys.json" "echo STARTED" --security-opt "seccomp=$W/sys2.seccomp"
rc=$?
if [ $rc != 0 ] && ! grep -q STARTED "$W/out" && grep -q 'lets mkdir' "$W/hook.err"; then
	ok "a profile allowing a syscall the policy does not list (mkdir): refused, the syscall named"
else
	not_ok "a wider profile (exit $rc)"; show "$W/out" 20; show "$W/hook.err"
fi
exit $fail
