#!/usr/bin/env bash
# ringfence demo: one command in a sandbox whose network policy allows
# exactly one loopback port. Run as root: `make demo` (or tests/demo.sh build).
#
# Everything it connects to is on this machine: two TCP listeners on
# 127.0.0.1 and a unix socket, started here with perl (part of every
# Debian system). The one outside address it names, the cloud metadata
# address 169.254.169.254, is tried only inside the sandbox, only after a
# safety check has shown that the kernel denies what the policy does not
# allow; the kernel then refuses it before any packet is sent.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 BUILD_DIR   (e.g. tests/demo.sh build; or: make demo)" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "demo: must run as root: ringfence loads BPF programs and creates cgroups." >&2
	exit 1
fi
BUILD=$(cd "$1" && pwd)
RF=$BUILD/ringfence
NET=$BUILD/tests/tools/rf-net
for f in "$RF" "$NET"; do
	if [ ! -x "$f" ]; then
		echo "demo: $f is missing; build it with: make build $1/tests/tools/rf-net" >&2
		exit 1
	fi
done

WORK=$(mktemp -d /tmp/ringfence-demo.XXXXXX)
SOCKDIR=$(mktemp -d /run/ringfence-demo.XXXXXX)
SOCK=$SOCKDIR/demo.sock
LISTENER_PID=
cleanup() {
	if [ -n "$LISTENER_PID" ]; then
		kill "$LISTENER_PID" 2>/dev/null || true
		wait "$LISTENER_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK" "$SOCKDIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say()   { printf '%s\n' "$*"; }
title() { printf '\n== %s\n\n' "$*"; }

# ---- listeners, outside any sandbox ----
perl -e '
	use strict;
	use IO::Socket::INET;
	use IO::Socket::UNIX;
	use IO::Select;
	my ($portfile, $path) = @ARGV;
	my @l;
	for (1 .. 2) {
		push @l, IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0,
			Proto => "tcp", Listen => 16, ReuseAddr => 1) or die "demo: listen: $!\n";
	}
	push @l, IO::Socket::UNIX->new(Local => $path, Listen => 16)
		or die "demo: listen $path: $!\n";
	open(my $f, ">", "$portfile.tmp") or die "demo: $portfile: $!\n";
	print $f $l[0]->sockport, " ", $l[1]->sockport, "\n";
	close $f;
	rename("$portfile.tmp", $portfile) or die "demo: $portfile: $!\n";
	my $sel = IO::Select->new(@l);
	while (1) {
		for my $s ($sel->can_read) {
			my $c = $s->accept;
			close $c if $c;
		}
	}
' "$WORK/ports" "$SOCK" &
LISTENER_PID=$!
for _ in $(seq 50); do
	[ -s "$WORK/ports" ] && break
	kill -0 "$LISTENER_PID" 2>/dev/null || { echo "demo: the listener did not start" >&2; exit 1; }
	sleep 0.1
done
[ -s "$WORK/ports" ] || { echo "demo: the listener did not start" >&2; exit 1; }
read -r PORT_A PORT_B < "$WORK/ports"

# ---- the policy ----
# Unix sockets are confined by the connect_unix/sendmsg_unix hooks of
# Linux 6.7+. Without them the demo leaves unix sockets unrestricted,
# because ringfence would (rightly) refuse to confine them.
UNIX_HOOKS=1
"$RF" probe 2>/dev/null | grep -A1 '"cgroup-sock-addr-unix"' | grep '"ok": true' >/dev/null || UNIX_HOOKS=0
if [ "$UNIX_HOOKS" = 1 ]; then UNIX_RULE='[]'; else UNIX_RULE='"unrestricted"'; fi
POLICY=$WORK/demo-policy.json
cat > "$POLICY" <<EOF
{
  "version": 1,
  "id": "demo",
  "files": "unrestricted",
  "exec": "unrestricted",
  "network": {
    "connect": ["127.0.0.1:$PORT_A"],
    "unix": $UNIX_RULE
  }
}
EOF

title "Setup"
say "Listening outside the sandbox: TCP 127.0.0.1:$PORT_A (A), TCP 127.0.0.1:$PORT_B (B),"
say "and a unix socket $SOCK."
say
say "Policy ($POLICY):"
sed 's/^/    /' "$POLICY"
say
if [ "$UNIX_HOOKS" = 1 ]; then
	say "network.connect allows only 127.0.0.1:$PORT_A; \"unix\": [] allows no unix socket."
else
	say "network.connect allows only 127.0.0.1:$PORT_A. This kernel has no cgroup unix"
	say "socket hooks (Linux 6.7+), so unix sockets are left \"unrestricted\" here."
fi
say "files and exec are \"unrestricted\" here to keep this first run about the"
say "network; the next part learns a policy that confines them too."

OPS=(tcp 127.0.0.1 "$PORT_A"
     tcp 127.0.0.1 "$PORT_B"
     udp 127.0.0.1 "$PORT_B"
     tcp ::ffff:127.0.0.1 "$PORT_B")
[ "$UNIX_HOOKS" = 0 ] || OPS+=(unix "$SOCK")

title "Without ringfence"
say "\$ rf-net ${OPS[*]}"
"$NET" "${OPS[@]}" | sed 's/^/    /'
say
say "All of these work from an ordinary process."

# Safety check: the metadata address below is tried only if the kernel
# really denies what the policy does not allow.
title "Safety check"
pre=$("$RF" run -q --policy "$POLICY" -- "$NET" tcp 127.0.0.1 "$PORT_B" 2>&1 || true)
if [ "$pre" != "tcp 127.0.0.1:$PORT_B EPERM" ]; then
	say "Expected the sandbox to get EPERM for 127.0.0.1:$PORT_B, got:"
	say "$pre" | sed 's/^/    /'
	say "Stopping here, without trying any non-loopback address."
	exit 1
fi
say "Inside a sandbox, 127.0.0.1:$PORT_B is denied (EPERM): enforcement works here."

# ---- the sandboxed run ----
TRACE=$WORK/trace.jsonl
RUN_OPS=("${OPS[@]}" tcp 169.254.169.254 80)
title "With ringfence"
say "\$ ringfence run --policy $POLICY --trace $TRACE -- \\"
say "      rf-net ${RUN_OPS[*]}"
say
rc=0
"$RF" run --policy "$POLICY" --trace "$TRACE" -- "$NET" "${RUN_OPS[@]}" \
	> "$WORK/run.out" 2> "$WORK/run.err" || rc=$?
sed 's/^/    /' "$WORK/run.out"
sed 's/^/    /' "$WORK/run.err"
say
say "ringfence exited $rc (the command's own exit status)."

title "What happened"
unexpected=0
# explain OP TARGET RESULT WANT: WANT is "allow" or "deny"
explain() {
	local op=$1 target=$2 res=$3 want=$4 what verdict
	case $op in
		tcp) what="TCP connect to $target" ;;
		udp) what="UDP sendto $target" ;;
		unix) what="unix connect to $target" ;;
		*) what="$op $target" ;;
	esac
	case $res in
		ok) verdict="ALLOWED: it went through" ;;
		ECONNREFUSED) verdict="ALLOWED by the policy (nothing was listening)" ;;
		EPERM) verdict="DENIED by the kernel (EPERM)" ;;
		EAFNOSUPPORT) verdict="not tried: this kernel has no IPv6 (EAFNOSUPPORT)" ;;
		*) verdict="failed with $res (not a ringfence decision)" ;;
	esac
	case "$want:$res" in
		allow:ok | allow:ECONNREFUSED | deny:EPERM | deny:EAFNOSUPPORT) ;;
		*) verdict="$verdict  <-- UNEXPECTED"; unexpected=1 ;;
	esac
	printf '  %-46s %s\n' "$what" "$verdict"
}
while read -r op target res; do
	case "$op $target" in
		"tcp 127.0.0.1:$PORT_A") explain "$op" "$target" "$res" allow ;;
		*) explain "$op" "$target" "$res" deny ;;
	esac
done < "$WORK/run.out"
say
say "Only the allowlisted 127.0.0.1:$PORT_A got through. 127.0.0.1:$PORT_B was refused"
say "for TCP, for UDP and when written as the IPv4-mapped IPv6 address."
[ "$UNIX_HOOKS" = 0 ] || say "The unix socket was refused although it exists and accepts connections."
say "169.254.169.254 (cloud metadata) was refused in the kernel, at connect(),"
say "before any packet was sent."
[ "$rc" = 0 ] || unexpected=1

title "The trace ($TRACE, one JSON object a line)"
if command -v jq > /dev/null; then
	jq . "$TRACE"
elif command -v python3 > /dev/null; then
	while IFS= read -r line; do
		printf '%s\n' "$line" | python3 -m json.tool
	done < "$TRACE"
else
	cat "$TRACE"
fi
say
say "Schema: schemas/trace.schema.json. sandbox.exit has the exact totals; the"
say "kernel keeps the first 256 decisions of each sandbox as kernel.deny lines."

# ---- learn a policy from a run ----
LEARNED=$WORK/learned.json
title "Learn a policy, then enforce it"
say "ringfence learn runs the command once in audit mode (nothing denied,"
say "everything the policy would refuse recorded: by BPF-LSM where the kernel has"
say "it, else inferred from the syscalls Landlock and seccomp would refuse) and"
say "writes the smallest policy that allows what it did. --verify reruns it"
say "under that policy, enforced."
say
say "\$ ringfence learn --out $LEARNED --verify -- rf-net tcp 127.0.0.1 $PORT_A"
lrc=0
"$RF" learn --out "$LEARNED" --verify -- "$NET" tcp 127.0.0.1 "$PORT_A" \
	> "$WORK/learn.out" 2> "$WORK/learn.err" || lrc=$?
grep -E 'learn( --verify)?: ' "$WORK/learn.err" | sed 's/^/    /'
say
sed 's/^/    /' "$LEARNED"
say
if [ "$lrc" != 0 ]; then
	say "demo: learn exited $lrc" >&2
	exit 1
fi
say "Files, exec (the binary and the ELF loader the kernel opens for it) and the"
say "one endpoint. Under this policy anything else is refused; here port B:"
say
say "\$ ringfence run --policy $LEARNED -- rf-net tcp 127.0.0.1 $PORT_B"
"$RF" run --policy "$LEARNED" -- "$NET" tcp 127.0.0.1 "$PORT_B" 2>&1 | sed 's/^/    /' || true

# ---- fail closed ----
STRICT=$WORK/limits-policy.json
cat > "$STRICT" <<EOF
{
  "version": 1,
  "id": "with-limits",
  "files": "unrestricted",
  "exec": "unrestricted",
  "network": { "connect": ["127.0.0.1:$PORT_A"], "unix": $UNIX_RULE },
  "limits": { "pids": 64, "memory_mb": 512 }
}
EOF
title "Fail closed"
# memory_mb and pids need those cgroup v2 controllers in the cgroup2
# hierarchy; a hybrid host's cgroup2 mount often has neither.
CG2=$(findmnt -n -o TARGET -t cgroup2 | sed -n 1p)
HAVE_CTRL=0
grep -qw memory "$CG2/cgroup.controllers" 2> /dev/null &&
	grep -qw pids "$CG2/cgroup.controllers" 2> /dev/null && HAVE_CTRL=1
if [ "$HAVE_CTRL" = 1 ]; then
	say "This policy asks for resource limits (\"limits\"). This host's cgroup2"
	say "hierarchy has the memory and pids controllers, so they are enforced:"
else
	say "This policy asks for resource limits (\"limits\"). This host's cgroup2"
	say "hierarchy lacks the memory and pids controllers that would hold them, so"
	say "ringfence will not pretend to:"
fi
say
sed 's/^/    /' "$STRICT"
say
say "\$ ringfence check --policy $STRICT"
crc=0
"$RF" check --policy "$STRICT" > "$WORK/check.out" 2> "$WORK/check.err" || crc=$?
sed 's/^/    /' "$WORK/check.err"
say
if [ "$HAVE_CTRL" = 1 ]; then
	say "Exit status $crc (0: every limit has a working backend)."
	[ "$crc" = 0 ] || unexpected=1
else
	say "Exit status $crc (126: refused, nothing was started). The full plan, as JSON,"
	say "is on standard output of \`ringfence check\`; \`ringfence run\` with this policy"
	say "refuses the same way, before the sandbox exists or the command starts."
	[ "$crc" = 126 ] || unexpected=1
fi

say
if [ "$unexpected" != 0 ]; then
	say "demo: something did not behave as described above (see UNEXPECTED)."
	exit 1
fi
say "demo: done."
