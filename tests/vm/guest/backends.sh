#!/bin/sh
# vm-kernels: 6.1 7.3
# Guest suite "backends": the plan puts files and exec on the backend the
# booted kernel offers (bpf-lsm when "bpf" is an active LSM, else Landlock),
# and that backend refuses a write and, under BPF-LSM, a utimes (the
# inode_setattr program, whose mount walk differs between 6.1 and 6.8+) on
# a read-only file while the writable twin works. Short: `make test` runs it
# on 7.3 with BPF-LSM, where an LSM object that fails to load once made
# every run fall back to Landlock silently.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/backends.XXXXXX)
mkdir "$W/ro" "$W/rw"
echo r > "$W/ro/f"
echo w > "$W/rw/f"
lsm=$(cat /sys/kernel/security/lsm 2> /dev/null)
case ",$lsm," in
	*,bpf,*) want=bpf-lsm ;;
	*) want=landlock ;;
esac
note "active LSMs $lsm: files and exec want $want"

cat > "$W/p.json" <<JSON
{
  "version": 1,
  "id": "backends",
  "files": { "read": ["/usr/", "/etc/", "/rf/", "$W/ro/"], "write": ["$W/rw/"] },
  "exec": ["/usr/", "/rf/"],
  "network": "unrestricted"
}
JSON

# class_backend CLASS: the "backend" of .classes[CLASS] in check's
# pretty-printed JSON (one member a line), or nothing.
class_backend() {
	awk -v want="$1" '
		/^  "classes": \{$/ { inc = 1; next }
		inc && /^  \}/ { inc = 0 }
		inc && /^    "[^"]*": \{$/ { cur = $1; gsub(/[":]/, "", cur); next }
		inc && cur == want && index($0, "      \"backend\": ") == 1 {
			v = substr($0, length("      \"backend\": ") + 1)
			sub(/,$/, "", v)
			gsub(/"/, "", v)
			print v
		}' "$W/check.json"
}

rc=0
"$RINGFENCE" check --policy "$W/p.json" > "$W/check.json" 2> "$W/check.err" || rc=$?
for class in file exec; do
	got=$(class_backend "$class")
	# Landlock's backend names its ABI: "landlock-abi11".
	case "$rc:$got" in
		"0:$want" | "0:$want-abi"*) ok=1 ;;
		*) ok= ;;
	esac
	if [ -n "$ok" ]; then
		pass "plan: $class is enforced by $got"
	else
		fail "plan: $class is enforced by $want" "check exit $rc, backend '${got:-missing}'"
		show "$W/check.err"
	fi
done

rc=0
"$RINGFENCE" run -q --policy "$W/p.json" -- "$VMTOOLS/rf-lsm" \
	read "$W/ro/f" write "$W/ro/f" utimes "$W/ro/f" utimes "$W/rw/f" write "$W/rw/f" \
	> "$W/run.out" 2> "$W/run.err" || rc=$?
# Under Landlock, what no write rule covers is a read-only mount (the
# kernel's own refusal of utimes and chmod too, file.attr): EROFS.
if [ "$want" = bpf-lsm ]; then
	expect="read $W/ro/f ok|write $W/ro/f EPERM|utimes $W/ro/f EPERM|utimes $W/rw/f ok|write $W/rw/f ok"
else
	expect="read $W/ro/f ok|write $W/ro/f EROFS|utimes $W/ro/f EROFS|utimes $W/rw/f ok|write $W/rw/f ok"
fi
IFS='|'
for line in $expect; do
	if grep -qxF "$line" "$W/run.out"; then
		pass "$want: $line"
	else
		fail "$want: $line" "run exit $rc, output:"
		show "$W/run.out"
		show "$W/run.err"
	fi
done
unset IFS
[ "$(cat "$W/ro/f")" = r ] && pass "$want: the read-only file is unchanged" ||
	fail "$want: the read-only file is unchanged" "it holds '$(cat "$W/ro/f")'"
rm -rf "$W"
finish
