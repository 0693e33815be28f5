#!/bin/sh
# Guest suite "lsm": the BPF-LSM enforcement of files, exec, network.unix and
# the process boundary, each a real attempt from inside a sandbox whose
# command is root and keeps every capability (no seccomp, no Landlock): what
# is refused, the BPF-LSM refused.
#
# Runner: `ringfence run --keep-caps` when this build plans bpf-lsm for the
# policy below; otherwise tests/vm/tools/rf-lsmctl (the same enforcer,
# sbmaps and LSM object, without the planner). LSM_RUNNER=ringfence|lsmctl
# forces one.
. "$GUEST/lib/tap.sh"

T=$VMTOOLS/rf-lsm
if [ ! -x "$T" ] || [ ! -x "$VMTOOLS/rf-lsmctl" ]; then
	# Built by the Makefile's VM tools rule (tests/vm/tools/*.c -> BUILD/tests/vm/).
	fail "lsm: the VM tools are built" "$T or $VMTOOLS/rf-lsmctl is missing"
	finish
fi
W=$(mktemp -d /tmp/lsm.XXXXXX)
LDSO=/lib64/ld-linux-x86-64.so.2
BG=
cleanup() {
	for p in $BG; do kill "$p" 2> /dev/null; done
	umount /tmp/lsm-mnt 2> /dev/null
	rmdir /sys/fs/cgroup/lsm-other 2> /dev/null
}
trap cleanup EXIT

# ---- the world the sandbox sees ----
mkdir -p /data /dataset /secret /w /x /denied /tmp/lsm-mnt /sys/fs/cgroup/lsm-other \
	/tmp/lsm-w/d /tmp/lsm-w/sub
echo a > /data/a
echo b > /dataset/b
echo s > /secret/s
echo d > /data/victim
ln -sf /dataset/b /data/link-out
cp /usr/bin/busybox /denied/sh
cp "$T" /denied/rf-lsm
cp "$T" /data/rf-lsm   # readable, not executable
printf '#!/denied/sh\necho ran\n' > /x/bad-interp
printf '#!/bin/sh\nexit 0\n' > /x/good-script
chmod 755 /denied/sh /denied/rf-lsm /x/bad-interp /x/good-script
# A path longer than the matcher holds (247 bytes), inside /w/.
LONG=/w/long
for part in aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa \
	bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb \
	cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc; do
	LONG=$LONG/$part
done
mkdir -p "$LONG"
LONG=$LONG/file
echo long > "$LONG"
# Yama (also active here) would refuse ptrace first: leave it to the BPF-LSM.
echo 0 > /proc/sys/kernel/yama/ptrace_scope 2> /dev/null

# A process outside every sandbox, the target of kill/ptrace/procmem.
sleep 1000 &
OUTSIDE=$!
BG="$BG $OUTSIDE"

# Unix listeners outside the sandbox.
"$T" listen /tmp/lsm-ok.sock listen /tmp/lsm-no.sock listen_abstract lsm-okabs \
	listen_abstract lsm-noabs dgram_bind /tmp/lsm-okd.sock dgram_bind /tmp/lsm-nod.sock \
	listen /tmp/lsm-w/d/srv.sock > "$W/listen.out" 2>&1
ln -sf /tmp/lsm-no.sock /tmp/lsm-lnk.sock
for p in $(pgrep -f "$T listen" 2> /dev/null); do BG="$BG $p"; done

policy() { # FILE MODE
	cat > "$1" << EOF
{
  "version": 1,
  "id": "vm-lsm",
  "mode": "$2",
  "files": {
    "read": ["/data/", "/usr/", "/rf/", "/etc/", "/proc/", "/dev/", "/x/"],
    "write": ["/w/", "/tmp/lsm-w/"]
  },
  "exec": ["/usr/", "/rf/", "/x/"],
  "network": {"connect": [], "unix": ["/tmp/lsm-ok.sock", "/tmp/lsm-okd.sock", "/tmp/lsm-lnk.sock", "@lsm-okabs",
              "/tmp/lsm-w/d/srv.sock", "/tmp/lsm-w/sub/"]}
}
EOF
}
policy "$W/enforce.json" enforce
policy "$W/audit.json" audit

# ---- runner ----
RUNNER=${LSM_RUNNER:-}
if [ -z "$RUNNER" ]; then
	if RINGFENCE_TEST_KEEP_CAPS=1 "$RINGFENCE" run --keep-caps -q --policy "$W/enforce.json" -- "$T" read /data/a > "$W/probe.out" 2>&1 &&
		grep -q '^read /data/a ok$' "$W/probe.out"; then
		RUNNER=ringfence
	else
		RUNNER=lsmctl
		note "ringfence run --keep-caps does not run this policy yet; using rf-lsmctl:"
		show "$W/probe.out"
	fi
fi
note "runner: $RUNNER"
# The target inside: a ringfence sandbox has a PID namespace of its own,
# where the one process outside it that it can name is the namespace's
# init (PID 1, outside the sandbox's cgroup); rf-lsmctl's has none.
# There /proc/1 is not even listed (hidepid=ptraceable asks the same
# ptrace check the BPF-LSM refuses): procmem finds no file.
TGT=$OUTSIDE PROCMEM=EPERM
[ "$RUNNER" = ringfence ] && TGT=1 PROCMEM=ENOENT

# sbx NAME POLICY CMD...: run in a sandbox; output NAME.out, NAME.err,
# kernel decisions one per line in NAME.deny, their count in NAME.total.
sbx() {
	name=$1 pol=$2
	shift 2
	rc=0
	if [ "$RUNNER" = ringfence ]; then
		RINGFENCE_TEST_KEEP_CAPS=1 "$RINGFENCE" run --keep-caps -q --policy "$pol" --trace "$W/$name.trace" -- "$@" \
			> "$W/$name.out" 2> "$W/$name.err" || rc=$?
		grep '"event":"kernel.deny"' "$W/$name.trace" > "$W/$name.deny" 2> /dev/null
		sed -n 's/.*"denials_total":\([0-9]*\).*/\1/p' "$W/$name.trace" > "$W/$name.total"
	else
		"$VMTOOLS/rf-lsmctl" -t "$W/$name.deny" "$pol" -- "$@" \
			> "$W/$name.out" 2> "$W/$name.err" || rc=$?
		sed -n 's/^rf-lsmctl: denials \([0-9]*\) .*/\1/p' "$W/$name.err" > "$W/$name.total"
	fi
	[ -f "$W/$name.deny" ] || : > "$W/$name.deny"
	return $rc
}

# expect NAME LINE...: each LINE is in NAME.out.
expect() {
	name=$1
	shift
	for want in "$@"; do
		if grep -qxF "$want" "$W/$name.out"; then
			pass "$name: $want"
		else
			fail "$name: $want" "not in the output:"
			show "$W/$name.out"
			show "$W/$name.err"
		fi
	done
}

# recorded NAME VERDICT OP PATH-OR-EMPTY [REASON]: a decision with these.
recorded() {
	name=$1 verdict=$2 op=$3 path=$4 reason=${5:-}
	if grep "\"verdict\":\"$verdict\"" "$W/$name.deny" | grep "\"op\":\"$op\"" |
		grep -F "${path:+\"path\":\"$path\"}" | grep -q "${reason:+\"reason\":\"$reason\"}"; then
		pass "$name: recorded $verdict $op ${path:-}${reason:+ ($reason)}"
	else
		fail "$name: recorded $verdict $op ${path:-}${reason:+ ($reason)}" "decisions:"
		show "$W/$name.deny"
	fi
}

# ---- files ----
sbx files "$W/enforce.json" "$T" \
	read /data/a readdir /data create /w/created mkdir /w/dir rmdir /w/dir \
	read /dataset/b read /secret/s write /data/a \
	read /data/link-out read /data/../dataset/b read /dataset \
	link /secret/s /w/hard rename /secret/s /w/moved symlink /secret/s /w/sym read /w/sym \
	truncate /data/victim trunc_open /data/victim unlink /data/victim \
	chmod /data/victim chown /data/victim utimes /data/victim utimes /w/created \
	mkfifo /data/fifo mknod_sock /data/sock \
	mknod_dev /w/null procfd /secret/s read "$LONG"
expect files \
	"read /data/a ok" "readdir /data ok" "create /w/created ok" "mkdir /w/dir ok" "rmdir /w/dir ok" \
	"read /dataset/b EPERM" "read /secret/s EPERM" "write /data/a EPERM" \
	"read /data/link-out EPERM" "read /data/../dataset/b EPERM" "read /dataset EPERM" \
	"link /secret/s->/w/hard EPERM" "rename /secret/s->/w/moved EPERM" \
	"symlink /secret/s->/w/sym ok" "read /w/sym EPERM" \
	"truncate /data/victim EPERM" "trunc_open /data/victim EPERM" \
	"unlink /data/victim EPERM" "chmod /data/victim EPERM" "chown /data/victim EPERM" \
	"utimes /data/victim EPERM" "utimes /w/created ok" \
	"mkfifo /data/fifo EPERM" "mknod_sock /data/sock EPERM" "mknod_dev /w/null EPERM" \
	"procfd /secret/s EPERM" "read $LONG EPERM"
if [ -e /w/hard ] || [ -e /w/moved ] || [ -e /data/fifo ] || [ "$(cat /data/victim)" != d ] || [ ! -e /secret/s ]; then
	fail "files: the denied operations changed nothing" "$(ls -l /w /data /secret 2>&1 | tr '\n' ' ')"
else
	pass "files: the denied operations changed nothing (victim intact, no link, no move, no fifo)"
fi
recorded files denied open /secret/s no-rule
recorded files denied open /data/a access-not-allowed
recorded files denied open /dataset/b no-rule
recorded files denied link /secret/s
recorded files denied rename /secret/s
recorded files denied truncate /data/victim access-not-allowed
recorded files denied unlink /data/victim
recorded files denied chmod /data/victim
recorded files denied chown /data/victim
recorded files denied utimes /data/victim access-not-allowed
recorded files denied mknod /data/fifo
recorded files denied open "" too-long
if grep -q '"need":\["write"\],"rule":\["read"\]' "$W/files.deny"; then
	pass "files: a denial names the access needed and what the rule grants"
else
	fail "files: a denial names the access needed and what the rule grants" "decisions:"
	show "$W/files.deny"
fi

# ---- exec ----
sbx exec "$W/enforce.json" "$T" \
	exec /usr/bin/busybox exec /x/good-script exec /denied/sh exec /x/bad-interp \
	execveat_memfd /usr/bin/busybox fexecve /denied/rf-lsm fexecve /data/rf-lsm fexecve "$T" \
	ldso "$LDSO" /data/rf-lsm ldso "$LDSO" "$T" \
	mmap_exec /usr/bin/busybox mmap_exec /data/a mprotect_exec /data/a
expect exec \
	"exec /usr/bin/busybox exit=0" "exec /x/good-script exit=0" "exec /denied/sh EPERM" \
	"exec /x/bad-interp EPERM" "execveat_memfd /usr/bin/busybox EPERM" \
	"fexecve /denied/rf-lsm EPERM" "fexecve /data/rf-lsm EPERM" "fexecve $T exit=0" "ldso $T EPERM" \
	"mmap_exec /usr/bin/busybox ok" "mmap_exec /data/a EPERM" "mprotect_exec /data/a EPERM"
# The loader run as a program is refused (exec.loader), an allowed binary
# too: it is only ever the interpreter a program names (PT_INTERP).
if grep -q '^ldso /data/rf-lsm exit=0$' "$W/exec.out" || ! grep -q '^ldso /data/rf-lsm ' "$W/exec.out"; then
	fail "exec: ld.so /data/rf-lsm fails" "output:"
	show "$W/exec.out"
else
	pass "exec: ld.so /data/rf-lsm fails ($(grep '^ldso /data/rf-lsm ' "$W/exec.out"))"
fi
recorded exec denied exec /denied/sh no-rule
recorded exec denied exec "" unresolved-path
recorded exec denied exec /data/rf-lsm access-not-allowed
recorded exec denied exec "" dynamic-loader-as-program
recorded exec denied mmap_exec /data/a access-not-allowed
recorded exec denied mprotect_exec /data/a

# ---- network.unix ----
sbx unix "$W/enforce.json" "$T" \
	unix /tmp/lsm-ok.sock unix /tmp/lsm-no.sock unix /tmp/lsm-lnk.sock \
	unix_abstract lsm-okabs unix_abstract lsm-noabs \
	unixdgram /tmp/lsm-okd.sock unixdgram /tmp/lsm-nod.sock
expect unix \
	"unix /tmp/lsm-ok.sock ok" "unix /tmp/lsm-no.sock EPERM" "unix /tmp/lsm-lnk.sock EPERM" \
	"unix_abstract lsm-okabs ok" "unix_abstract lsm-noabs EPERM" \
	"unixdgram /tmp/lsm-okd.sock ok" "unixdgram /tmp/lsm-nod.sock EPERM"
recorded unix denied unix_stream_connect /tmp/lsm-no.sock no-rule
recorded unix denied unix_stream_connect @lsm-noabs no-rule
recorded unix denied unix_may_send /tmp/lsm-nod.sock no-rule

# ---- network.unix: an allowed name is its server's (unix.rebind) ----
# /tmp/lsm-w/ is writable and holds the allowed name d/srv.sock (an outside
# server's) and the allowed subtree sub/. The sandbox may take the name
# away (listen unlinks first; d renamed away), but puts nothing there that
# answers a connect: no socket (bind, also as d/../d/srv.sock; mknod), no
# symlink, link or rename of its own socket, nor a directory or symlink on
# the way. Twins: the real server reached; sockets beside the name and of
# the same name elsewhere; a file renamed into place in the subtree.
sbx unixname "$W/enforce.json" "$T" \
	unix /tmp/lsm-w/d/srv.sock listen /tmp/lsm-w/d/other.sock listen /tmp/lsm-w/own.sock \
	mkdir /tmp/lsm-w/e listen /tmp/lsm-w/e/srv.sock \
	create /tmp/lsm-w/sub/f.tmp rename /tmp/lsm-w/sub/f.tmp /tmp/lsm-w/sub/f \
	listen /tmp/lsm-w/d/srv.sock mknod_sock /tmp/lsm-w/d/srv.sock \
	symlink /tmp/lsm-w/own.sock /tmp/lsm-w/d/srv.sock link /tmp/lsm-w/own.sock /tmp/lsm-w/d/srv.sock \
	rename /tmp/lsm-w/own.sock /tmp/lsm-w/d/srv.sock listen /tmp/lsm-w/d/../d/srv.sock \
	listen /tmp/lsm-w/sub/s.sock \
	rename /tmp/lsm-w/d /tmp/lsm-w/d.old rename /tmp/lsm-w/e /tmp/lsm-w/d \
	symlink /tmp/lsm-w/e /tmp/lsm-w/d mkdir /tmp/lsm-w/d
expect unixname \
	"unix /tmp/lsm-w/d/srv.sock ok" "listen /tmp/lsm-w/d/other.sock ok" "listen /tmp/lsm-w/own.sock ok" \
	"mkdir /tmp/lsm-w/e ok" "listen /tmp/lsm-w/e/srv.sock ok" "create /tmp/lsm-w/sub/f.tmp ok" \
	"rename /tmp/lsm-w/sub/f.tmp->/tmp/lsm-w/sub/f ok" \
	"listen /tmp/lsm-w/d/srv.sock EPERM" "mknod_sock /tmp/lsm-w/d/srv.sock EPERM" \
	"symlink /tmp/lsm-w/own.sock->/tmp/lsm-w/d/srv.sock EPERM" \
	"link /tmp/lsm-w/own.sock->/tmp/lsm-w/d/srv.sock EPERM" \
	"rename /tmp/lsm-w/own.sock->/tmp/lsm-w/d/srv.sock EPERM" \
	"listen /tmp/lsm-w/d/../d/srv.sock EPERM" "listen /tmp/lsm-w/sub/s.sock EPERM" \
	"rename /tmp/lsm-w/d->/tmp/lsm-w/d.old ok" "rename /tmp/lsm-w/e->/tmp/lsm-w/d EPERM" \
	"symlink /tmp/lsm-w/e->/tmp/lsm-w/d EPERM" "mkdir /tmp/lsm-w/d ok"
if [ -e /tmp/lsm-w/d/srv.sock ] || [ -L /tmp/lsm-w/d/srv.sock ] || [ -e /tmp/lsm-w/sub/s.sock ]; then
	fail "unixname: nothing was put at the allowed names" "$(ls -la /tmp/lsm-w/d /tmp/lsm-w/sub 2>&1 | tr '\n' ' ')"
else
	pass "unixname: nothing was put at the allowed names"
fi
recorded unixname denied mknod /tmp/lsm-w/d/srv.sock allowed-unix-name
recorded unixname denied symlink /tmp/lsm-w/d/srv.sock allowed-unix-name
recorded unixname denied link /tmp/lsm-w/d/srv.sock allowed-unix-name
recorded unixname denied rename /tmp/lsm-w/d/srv.sock allowed-unix-name
recorded unixname denied mknod /tmp/lsm-w/sub/s.sock allowed-unix-name
recorded unixname denied rename /tmp/lsm-w/d allowed-unix-name
recorded unixname denied symlink /tmp/lsm-w/d allowed-unix-name

# ---- the process boundary ----
# This build's pinned set (the only one here): /sys/fs/bpf/ringfence/<set>.
PINSET=$(ls -d /sys/fs/bpf/ringfence/*/ 2> /dev/null | head -n 1)
PINSET=${PINSET%/}
[ -n "$PINSET" ] || PINSET=/sys/fs/bpf/ringfence/none
sbx process "$W/enforce.json" /bin/sh -c \
	"$T bpf kill $TGT ptrace $TGT procmem $TGT mount /tmp/lsm-mnt unshare_user chroot /w \
	 clone_into_cgroup /sys/fs/cgroup/lsm-other unlink $PINSET/meta \
	 cgroup_write /sys/fs/cgroup/lsm-other/cgroup.procs; \
	 $T kill \$\$"
expect process \
	"bpf EPERM" "kill $TGT EPERM" "ptrace $TGT EPERM" "procmem $TGT $PROCMEM" \
	"mount /tmp/lsm-mnt EPERM" "unshare_user EPERM" "chroot /w EPERM" \
	"clone_into_cgroup /sys/fs/cgroup/lsm-other EPERM"
# cgroup2 is also read-only in ringfence's own mount namespace (EROFS first).
if grep -qx "cgroup_write /sys/fs/cgroup/lsm-other/cgroup.procs EPERM" "$W/process.out" ||
	{ [ "$RUNNER" = ringfence ] && grep -qx "cgroup_write /sys/fs/cgroup/lsm-other/cgroup.procs EROFS" "$W/process.out"; }; then
	pass "process: $(grep '^cgroup_write' "$W/process.out")"
else
	fail "process: cgroup_write refused" "output:"
	show "$W/process.out"
fi
# Unpinning would detach the enforcer. (ringfence's own mount namespace
# has no bpffs at all: ENOENT first.)
if { grep -qx "unlink $PINSET/meta EPERM" "$W/process.out" ||
	{ [ "$RUNNER" = ringfence ] && grep -qx "unlink $PINSET/meta ENOENT" "$W/process.out"; }; } &&
	[ -e "$PINSET/meta" ]; then
	pass "process: the pinned enforcer stays ($(grep '^unlink /sys/fs/bpf' "$W/process.out"))"
else
	fail "process: the pinned enforcer stays" "output:"
	show "$W/process.out"
fi
if grep -q "^kill [0-9]* ok$" "$W/process.out"; then
	pass "process: a signal inside the sandbox is allowed ($(grep '^kill [0-9]* ok$' "$W/process.out"))"
else
	fail "process: a signal inside the sandbox is allowed" "output:"
	show "$W/process.out"
fi
if [ -z "$(cat /sys/fs/cgroup/lsm-other/cgroup.procs)" ] && kill -0 "$OUTSIDE"; then
	pass "process: nothing moved into the other cgroup; the outside process lives"
else
	fail "process: nothing moved into the other cgroup; the outside process lives" \
		"procs: $(cat /sys/fs/cgroup/lsm-other/cgroup.procs)"
fi
for op in bpf kill ptrace mount userns_create chroot clone_into_cgroup; do
	recorded process denied $op "" process-boundary
done
# (the init's host pid: the BPF programs see host pids)
want_pid=$OUTSIDE
[ "$RUNNER" = ringfence ] && want_pid='[0-9]*'
if grep '"op":"kill"' "$W/process.deny" | grep '"target_pid":[0-9]' |
	grep -v '"target_pid":1[,}]' | grep -q "\"target_pid\":$want_pid"; then
	pass "process: the kill denial names the target's host pid"
else
	fail "process: the kill denial names the target pid" "decisions:"
	show "$W/process.deny"
fi

# ---- every denial is in the trace ----
for s in files exec unix unixname process; do
	n=$(wc -l < "$W/$s.deny")
	total=$(cat "$W/$s.total")
	if [ -n "$total" ] && [ "$n" = "$total" ] && [ "$n" -gt 0 ]; then
		pass "$s: every denial is in the trace ($n of $total)"
	else
		fail "$s: every denial is in the trace" "$n decisions recorded, the kernel counted '${total:-?}'"
	fi
done

# ---- outside the sandbox: unaffected, while a sandbox is live ----
sbx live "$W/enforce.json" "$T" sleep 5 &
LIVE=$!
sleep 1
"$T" read /secret/s write /data/a link /secret/s /w/outside-hard exec /denied/sh \
	mmap_exec /data/a unix /tmp/lsm-no.sock unix_abstract lsm-noabs bpf kill "$OUTSIDE" \
	> "$W/outside.out" 2>&1
cat > "$W/outside.want" << EOF
read /secret/s ok
write /data/a ok
link /secret/s->/w/outside-hard ok
exec /denied/sh exit=0
mmap_exec /data/a ok
unix /tmp/lsm-no.sock ok
unix_abstract lsm-noabs ok
bpf EINVAL
kill $OUTSIDE ok
EOF
if cmp -s "$W/outside.out" "$W/outside.want"; then
	pass "outside: a process outside the sandbox is unaffected while a sandbox is live"
else
	fail "outside: a process outside the sandbox is unaffected" "got:"
	show "$W/outside.out"
fi
wait "$LIVE"
echo d > /data/victim
rm -f /w/outside-hard

# ---- audit mode: the same attempts go through and are recorded ----
mkdir -p /tmp/lsm-w
sbx audit "$W/audit.json" /bin/sh -c \
	"$T read /secret/s write /data/a link /secret/s /w/hard exec /denied/sh execveat_memfd /usr/bin/busybox \
	 mmap_exec /data/a unix /tmp/lsm-no.sock unix_abstract lsm-noabs bpf kill $TGT \
	 unshare_user mount /tmp/lsm-mnt read $LONG"
expect audit \
	"read /secret/s ok" "write /data/a ok" "link /secret/s->/w/hard ok" "exec /denied/sh exit=0" \
	"execveat_memfd /usr/bin/busybox exit=0" "mmap_exec /data/a ok" "unix /tmp/lsm-no.sock ok" \
	"unix_abstract lsm-noabs ok" "bpf EINVAL" "kill $TGT ok" "unshare_user ok" "mount /tmp/lsm-mnt ok" \
	"read $LONG ok"
recorded audit audited open /secret/s no-rule
recorded audit audited open /data/a access-not-allowed
recorded audit audited link /secret/s
recorded audit audited exec /denied/sh
recorded audit audited exec "" unresolved-path
recorded audit audited mmap_exec /data/a
recorded audit audited unix_stream_connect /tmp/lsm-no.sock
recorded audit audited unix_stream_connect @lsm-noabs
recorded audit audited bpf ""
recorded audit audited kill ""
recorded audit audited userns_create ""
recorded audit audited mount ""
recorded audit audited open "" too-long
if grep -q '"verdict":"denied"' "$W/audit.deny"; then
	fail "audit: nothing is denied" "decisions:"
	show "$W/audit.deny"
else
	pass "audit: nothing is denied ($(wc -l < "$W/audit.deny") decisions, all audited)"
fi
rm -f /w/hard
echo d > /data/victim

# ---- a hook missing from the pinned set: the next sandbox has it again ----
# The enforcer takes a name in the set's directory as the LSM link attached
# (enforcer.c's pin_list: one directory read, not a look per link): the
# kernel cannot detach a pinned LSM link, only dropping its pin does.
L=$PINSET/lsm_rf_file_open
d=$("$VMTOOLS/rf-linkdetach" "$L" 2>&1)
if [ "$d" = EOPNOTSUPP ]; then
	pass "pinned set: an LSM link cannot be detached (BPF_LINK_DETACH: EOPNOTSUPP)"
else
	fail "pinned set: an LSM link cannot be detached (BPF_LINK_DETACH: EOPNOTSUPP)" "got: $d"
fi
if [ "$RUNNER" = ringfence ]; then
	rm -f "$L"
	sbx relinked "$W/enforce.json" "$T" read /data/a read /secret/s
	expect relinked "read /data/a ok" "read /secret/s EPERM"
	if [ -e "$L" ]; then
		pass "pinned set: a run after a link's pin was removed pinned it again"
	else
		fail "pinned set: a run after a link's pin was removed pinned it again" "$(ls "$PINSET" | tr '\n' ' ')"
	fi
fi

# ---- unload takes the LSM programs too ----
rc=0
"$RINGFENCE" unload > "$W/unload.out" 2>&1 || rc=$?
if [ "$rc" = 0 ] && ! ls /sys/fs/bpf/ringfence/*/lsm_* /sys/fs/bpf/ringfence/lsm_* > /dev/null 2>&1 &&
	[ ! -e "$PINSET/paths" ] && [ ! -e /sys/fs/bpf/ringfence ]; then
	pass "unload: the LSM links and rf_paths are unpinned"
else
	fail "unload: the LSM links and rf_paths are unpinned" "exit $rc: $(ls /sys/fs/bpf/ringfence 2>&1 | tr '\n' ' ')"
	show "$W/unload.out"
fi

finish
