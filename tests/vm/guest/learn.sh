#!/bin/sh
# Guest suite "learn": `ringfence learn` under BPF-LSM, where files and exec
# are recorded in audit mode. A shell workload reads a data directory and
# writes an output directory; the learned policy passes check, the --verify
# rerun under it in enforce mode has zero denials, and an extra read of
# /etc/shadow under it is denied by the kernel.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/learn.XXXXXX)
mkdir -p /srv/in /srv/out
for f in a b c d e; do echo "data $f" > /srv/in/$f; done
echo 'root:*:19000:0:99999:7:::' > /etc/shadow
chmod 644 /etc/shadow   # DAC allows it: a refusal is the policy's
# Reads every file of /srv/in (a glob: the directory is listed), writes five
# files into /srv/out and a temporary one it removes again.
WORK='for f in /srv/in/*; do cat "$f"; done > /srv/out/all
for f in a b c d; do cp /srv/in/$f /srv/out/$f.copy; done
t=/srv/out/tmp.$$; echo x > $t; rm $t; echo work-done'

rc=0
"$RINGFENCE" learn --out "$W/learned.json" --verify -- /bin/sh -c "$WORK" \
	> "$W/learn.out" 2> "$W/learn.err" || rc=$?
if [ "$rc" = 0 ] && grep -q 'learn --verify: 0 denials under the learned policy' "$W/learn.err"; then
	pass "learn: exits 0 and the --verify rerun has zero denials"
else
	fail "learn: exits 0 and the --verify rerun has zero denials" "exit $rc"
	show "$W/learn.err"
	show "$W/learned.json"
fi
if grep -q 'file: not learned here\|exec: not learned here' "$W/learn.err"; then
	fail "learn: files and exec are learned under bpf-lsm" "it says it could not:"
	show "$W/learn.err"
else
	pass "learn: files and exec are learned under bpf-lsm"
fi

note "learned policy:"
show "$W/learned.json"
show "$W/learn.err"

# has ENTRY: the learned policy lists it (one entry a line, sorted keys).
has() {
	if grep -qF "\"$1\"" "$W/learned.json"; then
		pass "learned policy: has $1 ($2)"
	else
		fail "learned policy: has $1 ($2)" "not in it:"
		show "$W/learned.json"
	fi
}
has /srv/in/ "five files read there, and the directory listed"
has /srv/out/ "five files written there, one of them temporary"
has /usr/bin/busybox "the shell and cat"
for wide in '"/"' '"/srv/"' '"/etc/"' '"/etc/shadow"' '"unrestricted"'; do
	if grep -qF "$wide" "$W/learned.json"; then
		fail "learned policy: nothing as wide as $wide" "it is there:"
		show "$W/learned.json"
	else
		pass "learned policy: nothing as wide as $wide"
	fi
done

rc=0
"$RINGFENCE" check --policy "$W/learned.json" > "$W/check.out" 2> "$W/check.err" || rc=$?
if [ "$rc" = 0 ]; then
	pass "learned policy: passes check"
else
	fail "learned policy: passes check" "exit $rc"
	show "$W/check.err"
fi

# The same work plus one read it never did, enforced.
rc=0
"$RINGFENCE" run -q --policy "$W/learned.json" --trace "$W/extra.trace" -- \
	/bin/sh -c "$WORK; cat /etc/shadow" > "$W/extra.out" 2>&1 || rc=$?
if grep -qx 'work-done' "$W/extra.out" && ! grep -q 'root:' "$W/extra.out" &&
	grep -q 'Operation not permitted' "$W/extra.out"; then
	pass "learned policy: the work runs, /etc/shadow is refused (EPERM)"
else
	fail "learned policy: the work runs, /etc/shadow is refused (EPERM)" "exit $rc:"
	show "$W/extra.out"
fi
if grep '"event":"kernel.deny"' "$W/extra.trace" | grep '"verdict":"denied"' |
	grep -q '"path":"/etc/shadow"'; then
	pass "learned policy: the kernel's denial of /etc/shadow is in the trace"
else
	fail "learned policy: the kernel's denial of /etc/shadow is in the trace" "trace:"
	show "$W/extra.trace"
fi

# ---- file modes, not the policy: root learns as uid 0, a plain run of the
# learned policy gives the command a dynamic uid (issue 21) ----
mkdir -p /srv/modes && chmod 755 /srv/modes
echo s3cret > /srv/modes/secret && chmod 600 /srv/modes/secret
echo open > /srv/modes/open && chmod 644 /srv/modes/open
learn_modes() { # NAME FILE [OPTION...]
	name=$1 file=$2
	shift 2
	rc=0
	"$RINGFENCE" learn --out "$W/$name.json" --verify "$@" -- /bin/cat "$file" \
		> "$W/$name.out" 2> "$W/$name.err" || rc=$?
}
learn_modes modes /srv/modes/secret
if [ "$rc" = 1 ] && grep -q 'file modes (not the policy): a dynamic uid may not read /srv/modes/secret (/srv/modes/secret is 0600, uid 0)' "$W/modes.err" &&
	grep -q 'file modes refuse the dynamic uid what it did' "$W/modes.err" &&
	! grep -q 'learn: denied while learning' "$W/modes.err"; then
	pass "learn: a root-0600 file read while learning is said as file modes, and --verify (as a plain run: a dynamic uid) fails on it"
else
	fail "learn: a root-0600 file is said as file modes, --verify fails on it" "exit $rc:"
	show "$W/modes.err"
fi
learn_modes modesopen /srv/modes/open
if [ "$rc" = 0 ] && ! grep -q 'file modes' "$W/modesopen.err" &&
	grep -q 'learn --verify: 0 denials under the learned policy' "$W/modesopen.err"; then
	pass "learn: its 0644 twin learns and verifies under the dynamic uid, no file modes said"
else
	fail "learn: the 0644 twin learns and verifies" "exit $rc:"
	show "$W/modesopen.err"
fi
learn_modes modesroot /srv/modes/secret --user root
if [ "$rc" = 0 ] && ! grep -q 'file modes' "$W/modesroot.err"; then
	pass "learn: --user root learns and verifies the 0600 read as uid 0"
else
	fail "learn: --user root learns and verifies the 0600 read" "exit $rc:"
	show "$W/modesroot.err"
fi
finish
