#!/bin/sh
# Guest suite "examples": the shipped examples the host suite
# (tests/host/test_examples.sh) cannot pass there, checked where their
# backends exist. agent-tool.json needs the memory, pids and cpu cgroup v2
# controllers (this VM's fresh cgroup2 has them all; the development host's
# has none): `ringfence check` passes it, with every limit enforced by its
# cgroup backend and files/exec by bpf-lsm. Every example passes check here
# too. (No Python or git in the guest: the job itself runs on the host.)
. "$GUEST/lib/tap.sh"

# The guest has no DNS: a hosts entry (TEST-NET-3) stands in for the
# mirror ci-job.json names, which the supervisor resolves at check time.
grep -q ' deb.debian.org$' /etc/hosts 2> /dev/null || echo '203.0.113.80 deb.debian.org' >> /etc/hosts
# Not under /tmp: the examples give the command a scratch /tmp, and a
# command started below a scratch path is refused.
mkdir -p /srv
W=$(mktemp -d /srv/examples.XXXXXX)
mkdir -p "$W/out"
cd "$W" || exit 1
for f in "$EXAMPLES"/*.json; do
	name=$(basename "$f" .json)
	rc=0
	"$RINGFENCE" check --policy "$f" > "$W/$name.plan" 2> "$W/$name.err" || rc=$?
	if [ "$rc" = 0 ]; then
		pass "check $name passes (BPF-LSM, every cgroup controller)"
	else
		fail "check $name passes (BPF-LSM, every cgroup controller)" "exit $rc"
		show "$W/$name.err"
	fi
done
if grep -q '"backend": "cgroup-v2-memory, cgroup-v2-pids, cgroup-v2-cpu, supervisor, tmpfs"' "$W/agent-tool.plan" &&
   grep -q '"backend": "bpf-lsm' "$W/agent-tool.plan"; then
	pass "agent-tool: limits by cgroup-v2-memory/-pids/-cpu, files and exec by bpf-lsm"
else
	fail "agent-tool: limits by cgroup v2, files and exec by bpf-lsm" "plan:"
	show "$W/agent-tool.plan"
fi
finish
