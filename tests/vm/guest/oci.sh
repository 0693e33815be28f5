#!/bin/sh
# vm-kernels: 6.1 7.3
# vm-bins: /usr/bin/podman /usr/bin/conmon /usr/bin/crun /usr/sbin/dnsmasq
# Guest suite "oci": `ringfence oci-hook` under Debian's podman and crun in
# the VM, where cgroup2 is whole (every controller) and podman runs
# containers with its own cgroups (cgroup_manager cgroupfs: systemd is not
# PID 1 here): the hook adopts the cgroup crun made for the container
# (<cgroup2>/libpod_parent/libpod-<id>) and keys the policy by its id.
# The root filesystem: the guest's /usr and /rf bind-mounted into a
# directory of its own (busybox, the test tools and their libraries), plus
# /data, /secret and /denied. Each check runs inside the container:
#   - network: the allowed port is reached, another refused with EPERM;
#     a name in the policy resolves through the DNS gate (dnsmasq upstream)
#     and its address is reached, another name is refused and its address
#     stays closed;
#   - with BPF-LSM: a denied file open gets EPERM while its allowed twin
#     reads; a denied exec gets EPERM while an allowed one runs; a container
#     holding CAP_SYS_ADMIN (no seccomp profile) is refused mount(2), a user
#     namespace and chroot by the BPF-LSM while a read works; a container
#     whose cgroup podman made outside <cgroup2>/ringfence is refused;
#   - the monitor's alert for the denied connect names oci-<container id>,
#     and its allowed connect is a Network Activity (4001) record naming it;
#   - a container's connection to an allowed unix socket is a 4001 record
#     with its payload bytes counted (the keeper holds the programs);
#   - without BPF-LSM (7.3 booted with lsm= leaving out bpf): the files
#     policy is refused and the container does not start, the reason on
#     the hook's stderr; so is the CAP_SYS_ADMIN container.
. "$GUEST/lib/tap.sh"

for b in podman conmon crun dnsmasq; do
	command -v "$b" > /dev/null 2>&1 || {
		fail "oci: $b is in the guest" "missing (run.sh copies the suite's vm-bins from the host: make deps)"
		finish
	}
done
LSM=0
grep -q 'bpf' /sys/kernel/security/lsm && LSM=1
note "oci: BPF-LSM active: $LSM; $(podman --version 2>&1); $(crun --version 2>&1 | head -n1)"

W=/tmp/oci
R=$W/rootfs
mkdir -p "$W/hooks" "$W/store" "$W/run" "$W/tmp"
BG=
cleanup() {
	for p in $BG; do kill "$p" 2> /dev/null; done
	podman $POPTS rm -a -f > /dev/null 2>&1
	umount "$R/usr" "$R/rf" 2> /dev/null
	# the suites after this one see the guest's own resolv.conf (none)
	rm -f /etc/resolv.conf
	[ -e "$W/resolv.conf.orig" ] && cp "$W/resolv.conf.orig" /etc/resolv.conf
}
trap cleanup EXIT

# ---- the container's root filesystem ----
mkdir -p "$R/usr" "$R/rf" "$R/proc" "$R/sys" "$R/dev" "$R/etc" "$R/tmp" "$R/run" \
	"$R/data" "$R/secret" "$R/denied"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$R/$d"; done
mount --bind /usr "$R/usr" && mount --bind /rf "$R/rf" ||
	{ fail "oci: the root filesystem" "bind mounts of /usr and /rf failed"; finish; }
echo a > "$R/data/a"
echo s > "$R/secret/s"
cp /usr/bin/busybox "$R/denied/sh"
cp /etc/passwd /etc/group "$R/etc/"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$R/etc/nsswitch.conf"
# What podman gives the container as its resolv.conf (network=host): a
# server that is not there, so only the gate's steering can answer.
[ -e /etc/resolv.conf ] && cp /etc/resolv.conf "$W/resolv.conf.orig"
echo 'nameserver 192.0.2.53' > /etc/resolv.conf

# ---- podman: no systemd, no registry, no network backend ----
cat > "$W/containers.conf" << 'EOF'
[containers]
log_driver = "k8s-file"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "crun"
# the guest's / is the initramfs (rootfs), which pivot_root(2) cannot move
# away from: crun --no-pivot (chroot after moving the root mount)
no_pivot_root = true
EOF
export CONTAINERS_CONF=$W/containers.conf TMPDIR=$W/tmp
mkdir -p /etc/containers
echo '{"default":[{"type":"insecureAcceptAnything"}]}' > /etc/containers/policy.json
POPTS="--root $W/store --runroot $W/run --storage-driver vfs --hooks-dir $W/hooks"
sed 's|/usr/bin/ringfence|/rf/ringfence|' /rf/dist/oci/ringfence.json > "$W/hooks/ringfence.json"

P_OK=18411 P_NO=18412 DNS=5411
# The BPF-LSM programs judge only tasks below <cgroup2>/ringfence: podman
# makes the container's cgroup there (the hook refuses one elsewhere while
# it plans BPF-LSM; checked last)
CGP=--cgroup-parent=/ringfence/containers
cat > "$W/net.json" << EOF
{"version": 1, "id": "vm-oci-net", "files": "unrestricted", "exec": "unrestricted",
 "network": {"connect": ["127.0.0.1:$P_OK", "allowed.test:$P_OK"], "unix": [],
             "dns": {"upstream": ["127.0.0.1:$DNS"], "rebind_allow": ["127.77.0.0/16"]}}}
EOF
cat > "$W/files.json" << EOF
{"version": 1, "id": "vm-oci-files",
 "files": {"read": ["/usr/", "/rf/", "/etc/", "/proc/", "/dev/", "/sys/", "/data/", "/tmp/", "/run/"],
           "write": ["/dev/", "/tmp/", "/run/", "/proc/"]},
 "exec": ["/usr/", "/rf/"],
 "network": {"connect": [], "unix": []}}
EOF
chmod 644 "$W/net.json" "$W/files.json"

# Listeners outside the container (it shares the VM's network: --network
# host) on every loopback address, a DNS server for the test names, and
# the monitor writing alerts as JSON lines.
for p in $P_OK $P_NO; do
	nc -ll -p "$p" -e /bin/true > /dev/null 2>&1 &
	BG="$BG $!"
done
dnsmasq -k --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
	--listen-address=127.0.0.1 -p "$DNS" --pid-file= --log-facility=/dev/null --user=root \
	--host-record=allowed.test,127.77.0.1,30 --host-record=other.test,127.77.0.2,30 \
	> "$W/dnsmasq.log" 2>&1 &
BG="$BG $!"
/rf/ringfence-monitor --output "$W/alerts.json" --activity "$W/activity.json" --interval 500 \
	--state "" --burst-count 1 --linger-ms 200 > "$W/mon.log" 2>&1 &
BG="$BG $!"
sleep 1
# dnsmasq bound before any container asks (TCG on a loaded host is slow)
for _ in $(seq 100); do grep -q "0100007F:$(printf %04X "$DNS") " /proc/net/udp && break; sleep 0.1; done

# ctr NAME POLICY [podman run options...] -- CMD...: NAME.out (both
# streams), NAME.hook (the hook's stdout: its plan), NAME.err (its stderr)
ctr() {
	name=$1 pol=$2
	shift 2
	opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	: > "$W/$name.hook"
	: > "$W/$name.err"
	rc=0
	podman $POPTS run --rm --network=host --security-opt apparmor=unconfined $CGP \
		--annotation "run.ringfence.policy=$pol" \
		--annotation "run.oci.hooks.stdout=$W/$name.hook" \
		--annotation "run.oci.hooks.stderr=$W/$name.err" $opts \
		--rootfs "$R" "$@" > "$W/$name.out" 2>&1 || rc=$?
}

# ---- 1. network, DNS gate, the cgroup ----
ctr net "$W/net.json" -- /rf/tests/tools/rf-dns \
	connect 127.0.0.1 $P_OK connect 127.0.0.1 $P_NO \
	gai allowed.test connect 127.77.0.1 $P_OK gai other.test connect 127.77.0.2 $P_NO
cat > "$W/net.want" << EOF
connect 127.0.0.1:$P_OK ok
connect 127.0.0.1:$P_NO EPERM
gai allowed.test ok 127.77.0.1
connect 127.77.0.1:$P_OK ok
gai other.test ERROR
connect 127.77.0.2:$P_NO EPERM
EOF
if [ "$rc" = 0 ] && cmp -s "$W/net.out" "$W/net.want"; then
	pass "oci: in a podman container the allowed port is reached, another refused (EPERM); a name in the policy resolves through the DNS gate and is reached, another name and its address are not"
else
	fail "oci: network policy in a podman container" "podman exit $rc, output:"
	show "$W/net.out"
	show "$W/net.err"
	tail -n 5 "$W/dnsmasq.log" | sed 's/^/#   /'
fi
# The plan the hook printed: the container's own cgroup, adopted.
if grep -q '"container"' "$W/net.hook" && grep -q '"syscalls_by_runtime_seccomp":false' "$W/net.hook"; then
	pass "oci: the hook printed its plan with the oci object"
else
	fail "oci: the hook's plan" "stdout:"
	show "$W/net.hook"
fi

# ---- 2. while it runs: its cgroup, the registry, the monitor's alert ----
id=$(podman $POPTS run -d --network=host --security-opt apparmor=unconfined $CGP \
	--annotation "run.ringfence.policy=$W/net.json" --rootfs "$R" \
	/rf/tests/tools/rf-dns sleep 500 connect 127.0.0.1 $P_OK connect 127.0.0.1 $P_NO \
	sleep 60000 2> "$W/bg.err")
reg=/run/ringfence/sandboxes/oci-$id.json
cgpath=$(sed -n 's/.*"cgroup_path": *"\([^"]*\)".*/\1/p' "$reg" 2> /dev/null)
placement=$(sed -n 's/.*"cgroup_placement": *"\([^"]*\)".*/\1/p' "$reg" 2> /dev/null)
cgid=$(sed -n 's/.*"cgroup_id": *\([0-9]*\).*/\1/p' "$reg" 2> /dev/null)
pid=$(podman $POPTS inspect -f '{{.State.Pid}}' "$id" 2> /dev/null)
own=$(sed -n 's/^0:://p' "/proc/$pid/cgroup" 2> /dev/null)
case $cgpath in
	/sys/fs/cgroup/ringfence/containers/libpod-"$id") podcg=1 ;;
	*) podcg=0 ;;
esac
if [ -n "$id" ] && [ "$placement" = oci-runtime ] && [ "$podcg" = 1 ] &&
	[ "$cgpath" = "/sys/fs/cgroup$own" ] && [ "$cgid" = "$(stat -c %i "$cgpath")" ]; then
	pass "oci: the hook keyed the policy by the cgroup podman made ($own, id $cgid), adopted as the runtime's"
else
	fail "oci: the container's own cgroup" "id '$id', registry path '$cgpath' ($placement, id $cgid), the process's '$own'"
	show "$W/bg.err"
	show "$reg"
fi
i=0
while [ $i -lt 50 ] && ! grep -qs "oci-$id" "$W/alerts.json"; do sleep 0.2; i=$((i + 1)); done
if grep -qs "\"uid\": *\"oci-$id\"" "$W/alerts.json"; then
	pass "oci: the monitor's alert for the container's denied connect names oci-<container id>"
else
	fail "oci: the monitor's alert" "none naming oci-$id"
	show "$W/alerts.json"
	show "$W/mon.log"
fi
# its allowed connect in the ledger: a Network Activity record naming it
i=0
flow() { grep -s '"class_uid": *4001' "$W/activity.json" | grep "oci-$id" | grep -q "\"port\": *$P_OK"; }
while [ $i -lt 50 ] && ! flow; do sleep 0.2; i=$((i + 1)); done
if flow; then
	pass "oci: the container's allowed connect is in the ledger: a Network Activity (4001) record naming oci-<container id>"
else
	fail "oci: the container's flow at the monitor" "no 4001 record naming oci-$id and port $P_OK"
	head -c 3000 "$W/activity.json" | sed 's/^/#   /'
fi
podman $POPTS rm -f -t 0 "$id" > /dev/null 2>&1
i=0
while [ $i -lt 50 ] && [ -f "$reg" ]; do sleep 0.1; i=$((i + 1)); done
if [ -n "$id" ] && [ ! -f "$reg" ]; then
	pass "oci: podman rm -f releases the sandbox (its registry file goes)"
else
	fail "oci: podman rm -f" "$reg stays"
fi

# ---- 2b. its unix peer's bytes in the ledger ----
# The unix byte programs stay attached while the keeper holds the sandbox
# (the hook that attached them has exited): a connection to an allowed
# unix socket bound outside is at the monitor with its payload counted
# (not null). Allowed as the container names it and, for BPF-LSM, as the
# peer is bound outside.
mkdir -p "$R/sock"
cat > "$W/unix.json" << EOF
{"version": 1, "id": "vm-oci-unix", "files": "unrestricted", "exec": "unrestricted",
 "network": {"connect": [], "unix": ["/sock/u.sock", "$R/sock/u.sock"]}}
EOF
chmod 644 "$W/unix.json"
/rf/tests/tools/rf-net ureply "$R/sock/u.sock" 1 3000 700 > "$W/ureply.out" 2>&1 &
BG="$BG $!"
i=0
while [ $i -lt 50 ] && [ ! -S "$R/sock/u.sock" ]; do sleep 0.1; i=$((i + 1)); done
uid=$(podman $POPTS run -d --network=host --security-opt apparmor=unconfined $CGP \
	--annotation "run.ringfence.policy=$W/unix.json" --rootfs "$R" \
	/rf/tests/tools/rf-net unixio /sock/u.sock 3000 700 sleep 60000 2> "$W/ubg.err")
# the counts of its latest 4001 record for /sock/u.sock once the bytes
# are in (an earlier interval's record may hold the connection alone)
ucounts() {
	grep -s '"class_uid": *4001' "$W/activity.json" | grep "oci-$uid" | grep '/sock/u.sock' |
		tail -n 1 | grep -o '"bytes_counted": *[a-z]*\|"bytes_sent_total": *[0-9]*\|"bytes_received_total": *[0-9]*' |
		tr -d ' ' | sort -u | tr '\n' ' '
}
want='"bytes_counted":true "bytes_received_total":700 "bytes_sent_total":3000 '
i=0
while [ $i -lt 75 ] && [ "$(ucounts)" != "$want" ]; do sleep 0.2; i=$((i + 1)); done
if [ -n "$uid" ] && [ "$(ucounts)" = "$want" ]; then
	pass "oci: the container's unix peer is in the ledger with its bytes counted (3000 sent, 700 received), the hook long gone"
else
	fail "oci: the container's unix bytes at the monitor" "want '$want', got '$(ucounts)'"
	show "$W/ubg.err"
	show "$W/ureply.out"
	grep -s "oci-$uid" "$W/activity.json" | head -c 3000 | sed 's/^/#   /'
fi
podman $POPTS rm -f -t 0 "$uid" > /dev/null 2>&1

# ---- 3. files, exec and the process boundary: BPF-LSM, or refused ----
if [ "$LSM" = 1 ]; then
	ctr files "$W/files.json" -- /rf/tests/tools/rf-fs \
		read /data/a read /secret/s exec /usr/bin/true exec /denied/sh
	cat > "$W/files.want" << EOF
read /data/a ok
read /secret/s EPERM
exec /usr/bin/true exit=0
exec /denied/sh EPERM
EOF
	if [ "$rc" = 0 ] && cmp -s "$W/files.out" "$W/files.want"; then
		pass "oci: BPF-LSM in a podman container: a denied open and a denied exec get EPERM, their allowed twins work"
	else
		fail "oci: BPF-LSM files and exec in a container" "podman exit $rc, output:"
		show "$W/files.out"
		show "$W/files.err"
	fi
	ctr boundary "$W/net.json" --cap-add SYS_ADMIN --security-opt seccomp=unconfined -- \
		/rf/tests/vm/rf-lsm mount /tmp unshare_user chroot /tmp read /data/a
	cat > "$W/boundary.want" << EOF
mount /tmp EPERM
unshare_user EPERM
chroot /tmp EPERM
read /data/a ok
EOF
	if [ "$rc" = 0 ] && cmp -s "$W/boundary.out" "$W/boundary.want"; then
		pass "oci: a container holding CAP_SYS_ADMIN (no seccomp) starts under BPF-LSM, which refuses mount, a user namespace and chroot (the process boundary); a read works"
	else
		fail "oci: the process boundary in a CAP_SYS_ADMIN container" "podman exit $rc, output:"
		show "$W/boundary.out"
		show "$W/boundary.err"
	fi
	CGP=
	ctr outside "$W/net.json" -- /usr/bin/busybox echo STARTED
	if [ "$rc" != 0 ] && ! grep -q STARTED "$W/outside.out" && grep -q 'is not below /sys/fs/cgroup/ringfence/containers/' "$W/outside.err"; then
		pass "oci: a container whose cgroup podman made outside <cgroup2>/ringfence (where the BPF-LSM programs do not look) does not start, the reason shown"
	else
		fail "oci: a container cgroup outside <cgroup2>/ringfence under BPF-LSM" "podman exit $rc"
		show "$W/outside.out"
		show "$W/outside.err"
	fi
else
	ctr files "$W/files.json" -- /usr/bin/busybox echo STARTED
	if [ "$rc" != 0 ] && ! grep -q STARTED "$W/files.out" && grep -q 'file: no backend' "$W/files.err"; then
		pass "oci: without BPF-LSM a files policy is refused: the container does not start (podman exit $rc), the reason on the hook's stderr"
	else
		fail "oci: files policy without BPF-LSM" "podman exit $rc"
		show "$W/files.out"
		show "$W/files.err"
	fi
	ctr boundary "$W/net.json" --cap-add SYS_ADMIN -- /usr/bin/busybox echo STARTED
	if [ "$rc" != 0 ] && ! grep -q STARTED "$W/boundary.out" && grep -q CAP_SYS_ADMIN "$W/boundary.err"; then
		pass "oci: without BPF-LSM a container holding CAP_SYS_ADMIN does not start"
	else
		fail "oci: CAP_SYS_ADMIN without BPF-LSM" "podman exit $rc"
		show "$W/boundary.out"
		show "$W/boundary.err"
	fi
fi
finish
