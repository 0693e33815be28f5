#!/bin/sh
# vm-kernels: learn
# Guest suite "learn_newcomer": `ringfence learn` as a newcomer tries it
# first, under BPF-LSM (tests/host/test_learn_newcomer.c does the same on
# the host, under Landlock): a bare `ringfence learn --out P --verify --
# CMD` in a work directory, with the caller's environment, on gcc compiling
# and linking, `git commit`, python3 importing json, sqlite3 and email,
# make (compile, link, run) and tar. For each: learn exits 0 and says the
# command exited 0 while learning and under --verify with 0 denials; the
# policy enforces and confines every class and passes check; `ringfence
# run -p P -- CMD` exits 0 and prints what the command printed while
# learning (commit ids aside); what the command made is there. A learning
# run that fails (gcc on a missing file) fails learn, loudly.
# Not in make test's VM run (about two minutes of emulated compiling):
# `tests/vm/run.sh build learn_newcomer`.
# vm-needs: workloads bench-workloads
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/learnnew.XXXXXX)
chmod 755 "$W"
export HOME=/root PATH=/usr/bin:/bin LANG=C
"$RINGFENCE" probe > "$W/probe.json" 2> /dev/null || true
note "files and exec decided by $([ "$(probe_field "$W/probe.json" bpf-lsm ok)" = true ] &&
	echo bpf-lsm || echo landlock)"

# Commit ids (hex runs of 7 or more) as H: all that differs between runs.
norm() { sed -E 's/[0-9a-f]{7,}/H/g' "$1"; }

# newcomer TAG DIR CMD...: learn --out, --verify, in DIR; then run -p
# (both with --user $AS when AS is set).
newcomer() {
	tag=$1 dir=$2
	shift 2
	pol=$W/$tag.json
	rc=0
	t0=$(date +%s)
	(cd "$dir" && "$RINGFENCE" learn --out "$pol" --verify ${AS:+--user "$AS"} -- "$@") \
		> "$W/$tag.learn.out" 2> "$W/$tag.learn.err" || rc=$?
	note "$tag: learn --verify took $(($(date +%s) - t0)) s"
	if [ "$rc" = 0 ] &&
		grep -q 'learn: the command exited 0 while learning' "$W/$tag.learn.err" &&
		grep -q 'learn --verify: 0 denials under the learned policy, and the command exited 0 as while learning' \
			"$W/$tag.learn.err" && ! grep -q 'error:' "$W/$tag.learn.err"; then
		pass "$tag: learn exits 0; the command exited 0 while learning and under --verify, 0 denials"
	else
		fail "$tag: learn exits 0; the command exited 0 while learning and under --verify" "exit $rc"
		show "$W/$tag.learn.out"
		show "$W/$tag.learn.err"
		return 0
	fi
	if grep -q '"mode": *"audit"\|"unrestricted"' "$pol" || ! grep -q '"PATH"' "$pol"; then
		fail "$tag: the learned policy enforces, confines every class, passes PATH" "it does not:"
		show "$pol"
	else
		pass "$tag: the learned policy enforces, confines every class, passes PATH"
	fi
	rc=0
	"$RINGFENCE" check --policy "$pol" > "$W/$tag.check" 2>&1 || rc=$?
	[ "$rc" = 0 ] && pass "$tag: the learned policy passes check" ||
		{ fail "$tag: the learned policy passes check" "exit $rc"; show "$W/$tag.check"; }
	rc=0
	(cd "$dir" && "$RINGFENCE" run -q -p "$pol" ${AS:+--user "$AS"} -- "$@") > "$W/$tag.run.out" \
		2> "$W/$tag.run.err" || rc=$?
	# learn's stdout: the learning run's output, then --verify's
	norm "$W/$tag.run.out" > "$W/$tag.run.n"
	norm "$W/$tag.learn.out" > "$W/$tag.learn.n"
	cat "$W/$tag.run.n" "$W/$tag.run.n" > "$W/$tag.twice.n"
	if [ "$rc" = 0 ] && cmp -s "$W/$tag.twice.n" "$W/$tag.learn.n"; then
		pass "$tag: runs under the learned policy: exit 0, the output it had while learning"
	else
		fail "$tag: runs under the learned policy: exit 0, the output it had while learning" \
			"exit $rc; enforced run, then learn's output:"
		show "$W/$tag.run.out"
		show "$W/$tag.run.err"
		show "$W/$tag.learn.out"
	fi
}

# made TAG WHAT EXPECTED ACTUAL: what the enforced command made.
made() {
	[ "$3" = "$4" ] && pass "$1: $2" || fail "$1: $2" "got '$4', want '$3'"
}

# ---- gcc: compile and link (the reported case) ----
mkdir -p "$W/cc/out"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' > "$W/cc/h.c"
newcomer gcc "$W/cc" gcc -O2 -o out/h h.c
made gcc "the enforced build linked a program that runs" hi "$("$W/cc/out/h" 2>&1)"

# ---- git commit (--allow-empty: each run makes one) ----
mkdir -p "$W/git"
(cd "$W/git" && git init -q . && git config user.name Newcomer &&
	git config user.email new@example.org && echo a > a && git add a &&
	git commit -q -m first) > "$W/git.setup" 2>&1 || { note "git setup:"; show "$W/git.setup"; }
# As root: a plain run gives the command a dynamic uid (issue 21), and git
# refuses a work tree another uid owns (safe.directory): uid 0 asked for.
AS=root
newcomer git "$W/git" git commit --allow-empty -m learned
AS=
made git "one commit each: the first, learning, --verify, the enforced run" 4 \
	"$(cd "$W/git" && git rev-list --count HEAD 2>&1)"

# ---- python3 imports ----
mkdir -p "$W/py"
newcomer python3 "$W/py" python3 -c "import json, sqlite3, email
print(json.dumps({'sqlite': sqlite3.sqlite_version_info[0] >= 3, 'email': email.__name__}))"

# ---- make: compile, link, run (phony: every run does the work) ----
mkdir -p "$W/mk"
printf '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n' > "$W/mk/hello.c"
printf '.PHONY: all\nall:\n\tcc -O2 -o hello hello.c\n\t./hello\n' > "$W/mk/Makefile"
command -v cc > /dev/null || ln -s "$(command -v gcc)" /usr/bin/cc
newcomer make "$W/mk" make

# ---- tar ----
mkdir -p "$W/tar/src"
echo one > "$W/tar/src/a"
echo two > "$W/tar/src/b"
newcomer tar "$W/tar" tar -cvf src.tar src
made tar "the enforced run wrote the archive" "src/ src/a src/b" \
	"$(cd "$W/tar" && tar -tf src.tar 2>&1 | sort | tr '\n' ' ' | sed 's/ $//')"

# ---- a learning run that fails fails learn, loudly ----
rc=0
(cd "$W/cc" && "$RINGFENCE" learn --out "$W/bad.json" --verify -- gcc -O2 -o out/h no-such.c) \
	> "$W/bad.out" 2> "$W/bad.err" || rc=$?
if [ "$rc" = 1 ] && grep -q 'ringfence: error: learn: the command exited 1 while learning' "$W/bad.err" &&
	! grep -q 'learn --verify' "$W/bad.err"; then
	pass "gcc on a missing file: learn exits 1, says the learning run failed, verifies nothing"
else
	fail "gcc on a missing file: learn exits 1, says the learning run failed" "exit $rc"
	show "$W/bad.err"
fi

finish
