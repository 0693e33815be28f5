#!/bin/sh
# vm-kernels: 6.1 7.3
# Guest suite "dynuser" (issue 21): root without --user runs the command as
# a dynamic uid, not uid 0, on this kernel's backend for files (BPF-LSM on
# 6.1, Landlock on 7.3 without it). Each refusal is tried inside next to
# its allowed twin: a root-0600 file the policy lets it read is refused
# (--user root reads it); files "unrestricted" runs as uid 0, said; a 1777
# directory outside its write areas takes no file; the scratch takes its writes. A
# write area on a fresh tmpfs is id-mapped where tmpfs can be (6.3+: the
# writes go, root's on disk) and otherwise (6.1) the run falls back to uid
# 0, said in the plan (root-fallback, gap process.root); on ramfs it falls
# back everywhere, and --strict refuses that.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/dynuser.XXXXXX)
chmod 755 "$W"
dirs() { for d in "$@"; do [ -L "$d" ] || [ ! -d "$d" ] || printf '"%s/",' "$d"; done; }
READ=$(dirs /bin /sbin /usr /lib /lib64 /etc /proc /dev /rf)
EXEC=$(dirs /bin /sbin /usr /lib /lib64 /rf)
pol() { # NAME READ-EXTRA WRITE-EXTRA [LIMITS]
	printf '{"version":1,"id":"dynuser-%s","files":{"read":[%s%s],"write":["/dev/null"%s]},"exec":[%s],"network":{"connect":[],"unix":[]}%s}\n' \
		"$1" "${READ%,}" "${2:+,$2}" "${3:+,$3}" "${EXEC%,}" "${4:+,\"limits\":$4}" > "$W/$1.json"
}
# run NAME POLICY SCRIPT [OPTION...]: exit status in $rc, trace NAME.jsonl, output NAME.out/.err
run() {
	name=$1 policy=$2 script=$3
	shift 3
	rc=0
	"$RINGFENCE" run -q --policy "$W/$policy.json" --trace "$W/$name.jsonl" "$@" -- \
		/bin/sh -c "$script" > "$W/$name.out" 2> "$W/$name.err" || rc=$?
}
has() { grep -qx "$2" "$W/$1.out"; }
why() { sed -n 's/.*"user":{[^}]*"why":"\([a-z-]*\)".*/\1/p' "$W/$1.jsonl" | sed -n 1p; }
uid_of() { sed -n 's/.*"user":{"uid":\([0-9]*\).*/\1/p' "$W/$1.jsonl" | sed -n 1p; }
in_range() { [ -n "$1" ] && [ "$1" -ge 1879048192 ] && [ "$1" -lt 1879113728 ]; }

# ---- the ids: a dynamic uid, --user root, --user 65534 ----
pol plain '' ''
run ids plain 'echo u=$(id -u) g=$(id -g) G=$(id -G)'
u=$(uid_of ids)
if [ "$rc" = 0 ] && [ "$(why ids)" = dynamic ] && in_range "$u" && has ids "u=$u g=$u G=$u"; then
	pass "ids: root without --user runs the command as dynamic uid $u (gid the same, no other group)"
else
	fail "ids: root without --user runs the command as a dynamic uid" \
		"exit $rc, why '$(why ids)' uid '$u': $(tr '\n' ' ' < "$W/ids.out")"
	show "$W/ids.err"
fi
run idsroot plain 'id -u' --user root
if [ "$rc" = 0 ] && [ "$(why idsroot)" = root ] && has idsroot 0; then
	pass "ids: --user root runs it as uid 0, said so (why root)"
else
	fail "ids: --user root runs it as uid 0" "exit $rc, why '$(why idsroot)'"
fi

# ---- a root-0600 file the policy reads: refused, --user root reads it ----
mkdir -m 755 "$W/rd"
echo s3cret > "$W/rd/secret" && chmod 600 "$W/rd/secret"
echo open > "$W/rd/open" && chmod 644 "$W/rd/open"
pol rd "\"$W/rd/\"" ''
script="cat $W/rd/secret 2> /dev/null || echo secret-refused; cat $W/rd/open"
run rd rd "$script"
if [ "$rc" = 0 ] && has rd secret-refused && has rd open && ! has rd s3cret; then
	pass "read: a root-0600 file the policy reads is refused to the dynamic uid, a 0644 one read"
else
	fail "read: a root-0600 file is refused to the dynamic uid" "exit $rc: $(tr '\n' ' ' < "$W/rd.out")"
	show "$W/rd.err"
fi
run rdroot rd "$script" --user root
if [ "$rc" = 0 ] && has rdroot s3cret && has rdroot open; then
	pass "read: --user root reads it (the twin)"
else
	fail "read: --user root reads it" "exit $rc: $(tr '\n' ' ' < "$W/rdroot.out")"
fi

# ---- files "unrestricted": uid 0, said (a dynamic uid could leave files in
# the host's world-writable places for the uid's next holder) ----
printf '{"version":1,"id":"dynuser-open","files":"unrestricted","exec":"unrestricted","network":{"connect":[],"unix":[]}}\n' > "$W/open.json"
run unres open 'id -u'
if [ "$rc" = 0 ] && has unres 0 && [ "$(why unres)" = root-fallback ] &&
	grep -q '"fallback":"files are unrestricted' "$W/unres.jsonl" &&
	grep -q '"gap":"process.root"' "$W/unres.jsonl"; then
	pass "unrestricted: files unrestricted runs as uid 0, said in the plan (root-fallback, gap process.root)"
else
	fail "unrestricted: files unrestricted runs as uid 0, said" "exit $rc, why '$(why unres)'"
	show "$W/unres.err"
fi

# ---- nothing of the host's is the dynamic uid's after the run: a 1777
# directory outside its write areas takes no file, what it makes in its
# write area is root's on disk (a write area on the initramfs falls back
# to uid 0 here, so the twin is its scratch: gone with the run) ----
P=/srv/dynuser-pub
mkdir -p -m 1777 "$P"
pol left "\"$P/\"" ''
run left left "touch $P/left 2> /dev/null && echo left || echo refused"
if [ "$rc" = 0 ] && has left refused && [ ! -e "$P/left" ] && [ "$(why left)" = dynamic ]; then
	pass "leftovers: the dynamic uid leaves no file in a host 1777 directory outside its write areas"
else
	fail "leftovers: the dynamic uid leaves no file in a host 1777 directory" "exit $rc, why '$(why left)': $(tr '\n' ' ' < "$W/left.out")"
	show "$W/left.err"
fi
rm -rf "$P"

# ---- the scratch is the dynamic uid's ----
mkdir -m 755 "$W/scr"
pol scr '' "\"$W/scr/\"" "{\"scratch\":{\"path\":\"$W/scr\",\"size_mb\":1}}"
run scr scr "echo hi > $W/scr/f && cat $W/scr/f && echo owner=\$(stat -c %u $W/scr)"
u=$(uid_of scr)
if [ "$rc" = 0 ] && has scr hi && has scr "owner=$u" && in_range "$u"; then
	pass "scratch: the dynamic uid writes its scratch, which it owns"
else
	fail "scratch: the dynamic uid writes its scratch" "exit $rc, uid '$u': $(tr '\n' ' ' < "$W/scr.out")"
	show "$W/scr.err"
fi

# ---- a write area on a fresh tmpfs: id-mapped where tmpfs can be (6.3+:
# the writes go, root's on disk), else (6.1) uid 0 said in the plan; on
# ramfs (never id-mapped) uid 0 said so on every kernel, --strict refuses.
# (The initramfs's own rootfs is never id-mapped: the other suites, whose
# write areas are there, run as uid 0 with the gap.)
mkdir -m 755 "$W/wr" "$W/ram"
mount -t tmpfs -o mode=755 dynuser-tmpfs "$W/wr"
mount -t ramfs -o mode=755 dynuser-ramfs "$W/ram"
echo old > "$W/wr/old" && chmod 644 "$W/wr/old"
pol wr '' "\"$W/wr/\""
pol ram '' "\"$W/ram/\""
fellback() { # NAME AREA: uid 0, said in the plan with the gap and the area
	[ "$rc" = 0 ] && [ "$(why "$1")" = root-fallback ] && has "$1" 0 &&
		grep -q '"gap":"process.root"' "$W/$1.jsonl" &&
		grep -q "\"fallback\":\"[^\"]*$2" "$W/$1.jsonl"
}
run wr wr "cd $W/wr && echo new > new && echo more >> old && id -u"
major=$(uname -r | cut -d. -f1) minor=$(uname -r | cut -d. -f2)
if [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 3 ]; }; then
	u=$(uid_of wr)
	if [ "$rc" = 0 ] && [ "$(why wr)" = dynamic ] && has wr "$u" &&
	   [ "$(stat -c %u:%g "$W/wr/new")" = 0:0 ] && [ "$(cat "$W/wr/old")" = "old
more" ]; then
		pass "write area: id-mapped tmpfs ($(uname -r)): the dynamic uid writes there, root's on disk"
	else
		fail "write area: id-mapped tmpfs" "exit $rc, why '$(why wr)': $(tr '\n' ' ' < "$W/wr.out")$(stat -c %u:%g "$W/wr/new" 2>&1)"
		show "$W/wr.err"
	fi
elif fellback wr "$W/wr"; then
	pass "write area: tmpfs cannot be id-mapped on $(uname -r): uid 0, said in the plan (root-fallback, gap process.root)"
else
	fail "write area: the fallback to uid 0 on tmpfs is said in the plan" "exit $rc, why '$(why wr)'"
	show "$W/wr.err"
fi
run ram ram 'id -u'
if fellback ram "$W/ram"; then
	pass "write area: ramfs cannot be id-mapped: uid 0, said in the plan (root-fallback, gap process.root)"
else
	fail "write area: the fallback to uid 0 on ramfs is said in the plan" "exit $rc, why '$(why ram)'"
	show "$W/ram.err"
fi
run ramstrict ram 'echo ran' --strict
if [ "$rc" != 0 ] && ! has ramstrict ran; then
	pass "write area: --strict refuses the fallback to uid 0 (exit $rc)"
else
	fail "write area: --strict refuses the fallback to uid 0" "exit $rc"
fi
# ---- no setuid or setgid file in a write area (it would be root's on the
# host, whoever runs it): refused on this backend too; the plain twins work ----
run suid wr ": > $W/wr/s; chmod 4755 $W/wr/s 2> /dev/null && echo suid-made; \
	chmod 2755 $W/wr/s 2> /dev/null && echo sgid-made; chmod 755 $W/wr/s && echo plain-ok; \
	mkdir -m 2775 $W/wr/g 2> /dev/null && echo sgid-dir-made; mkdir -m 775 $W/wr/g2 && echo dir-ok"
if [ "$rc" = 0 ] && has suid plain-ok && has suid dir-ok && ! has suid suid-made && \
   ! has suid sgid-made && [ "$(stat -c %a "$W/wr/s")" = 755 ] && \
   ! [ -u "$W/wr/s" ] && ! [ -g "$W/wr/g" ] 2> /dev/null; then
	pass "setuid: chmod u+s/g+s and mkdir -m 2775 refused in a write area, the plain twins work"
else
	fail "setuid: no setuid or setgid file in a write area" \
		"exit $rc: $(tr '\n' ' ' < "$W/suid.out") mode $(stat -c %a "$W/wr/s" 2>&1)"
	show "$W/suid.err"
fi
umount "$W/wr" "$W/ram"
rm -rf "$W"
finish
