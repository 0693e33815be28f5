#!/bin/bash
# tests/sinks/run.sh BUILD: ringfence-monitor's alert sinks against real
# receivers on this host, through --replay (no BPF, no root needed, no
# host lock): a private rsyslogd (its own config, ports, socket and pid
# file in a temp dir) for RFC 5424 over UDP, TCP and a unix socket, and
# tests/sinks/receiver.py for OTLP/HTTP JSON (shape checked) and the
# webhook. TAP-style "ok - " / "not ok - " lines.
#   - bad addresses and a bad TRACEPARENT: one line naming the option, 125;
#     a receiver down at start is no error (spooled);
#   - every sink at once receives every record; counts exact; promtool;
#   - an HTTP receiver killed mid-stream and restarted loses nothing: the
#     spool drains, delivered == queued, nothing dropped;
#   - a receiver that never answers does not hold up the replay: every
#     record reaches --output and the spool;
#   - the spool's bound: what does not fit is dropped and counted exactly,
#     and the spool of a stopped monitor is delivered by the next one;
#   - --sink-activity: the activity records (Network Activity of the
#     ledger's flows, DNS Activity) reach rsyslog and the HTTP receiver
#     beside the findings, counted by kind.
set -uo pipefail
BUILD=$(cd "${1:-build}" && pwd)
MON=$BUILD/ringfence-monitor
HERE=$(cd "$(dirname "$0")" && pwd)
RECV=$HERE/receiver.py
tmp=$(mktemp -d /tmp/rf-sinks.XXXXXX)
pids=()
fail=0
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -f "$tmp/rs/pid" ] && kill "$(cat "$tmp/rs/pid")" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; fail=1; }
check() { # description command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else nok "$d"; fi
}

# A recording: N sandboxes, each one syscall outside its profile (an
# alert: an open and a close record each, 2N records).
gen() { # N file
	python3 - "$1" > "$2" <<'PY'
import json, sys
n = int(sys.argv[1])
print(json.dumps({"ringfence_monitor_record": 1, "version": "1",
                  "boot_to_real_ns": 1795000000000000000, "ticks": False, "tick_ms": 250,
                  "defaults": {"burst_count": 20, "burst_window_ms": 1000, "linger_ms": 1000}}))
t = 1000
for i in range(n):
    print(json.dumps({"t": t, "type": "sandbox", "cgroup_id": 100 + i, "sandbox": "sb-%d" % i,
                      "policy_id": "p", "cgroup_path": "/sys/fs/cgroup/ringfence/sb-%d" % i,
                      "syscalls": {"allow": ["read", "write"], "on_violation": "alert"}}))
    print(json.dumps({"t": t + 1000, "type": "syscall", "cgroup_id": 100 + i, "pid": 5, "uid": 0,
                      "comm": "sh", "nr": 101, "name": "ptrace"}))
    t += 2000
PY
}
metric() { # file name{labels}
	awk -v k="$2" '$1 == k {print $2}' "$1" | tail -1
}
sinkm() { # file sink outcome
	metric "$1" "ringfence_monitor_sink_records_total{sink=\"$2\",outcome=\"$3\"}"
}
promcheck() { # file
	if command -v promtool > /dev/null; then
		promtool check metrics < "$1" > "$tmp/promtool.out" 2>&1 || { cat "$tmp/promtool.out"; return 1; }
	fi
	return 0
}
free_ports() { # two: a UDP and a TCP port nothing listens on now
	python3 -c 'import socket
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); a.bind(("127.0.0.1", 0))
b = socket.socket(); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])'
}
recv_start() { # name args...: an HTTP receiver; its port in $tmp/NAME.port
	local name=$1
	shift
	rm -f "$tmp/$name.port"
	python3 "$RECV" --port-file "$tmp/$name.port" --out "$tmp/$name.out" "$@" &
	pids+=($!)
	eval "${name}_pid=$!"
	for _ in $(seq 100); do [ -s "$tmp/$name.port" ] && return 0; sleep 0.05; done
	echo "# receiver $name did not start"
	return 1
}
uids_of() { # ndjson: the records' metadata.uid, sorted
	python3 -c 'import json, sys
for l in open(sys.argv[1]): print(json.loads(l)["metadata"]["uid"])' "$1" | sort
}

[ -x "$MON" ] || { nok "$MON built"; exit 1; }

# ---- usage ---------------------------------------------------------------------
usage() { # description expected-word args... (env via env)
	local d=$1 word=$2 rc
	shift 2
	"$@" > "$tmp/u.out" 2> "$tmp/u.err"
	rc=$?
	if [ "$rc" = 125 ] && [ "$(wc -l < "$tmp/u.err")" = 1 ] && grep -q -- "$word" "$tmp/u.err"; then
		ok "usage: $d: exit 125, one line naming $word"
	else
		nok "usage: $d: exit $rc, said: $(head -c 300 "$tmp/u.err")"
	fi
}
gen 1 "$tmp/one.rec"
R=(--replay "$tmp/one.rec" --output "$tmp/u.ndjson" --spool-dir "$tmp/spool-u" --sink-drain-ms 0)
usage "unknown syslog scheme" --syslog "$MON" "${R[@]}" --syslog foo://127.0.0.1:514
usage "syslog without a port" --syslog "$MON" "${R[@]}" --syslog udp://127.0.0.1
usage "syslog port out of range" --syslog "$MON" "${R[@]}" --syslog tcp://127.0.0.1:70000
usage "syslog relative unix path" --syslog "$MON" "${R[@]}" --syslog unix:log.sock
usage "otlp not http" --otlp "$MON" "${R[@]}" --otlp ftp://127.0.0.1/v1/logs
usage "webhook without a host" --webhook "$MON" "${R[@]}" --webhook http:///hook
usage "webhook with a space" --webhook "$MON" "${R[@]}" --webhook "http://a b/"
usage "invalid TRACEPARENT with --otlp" TRACEPARENT env TRACEPARENT=00-zz-00 "$MON" "${R[@]}" \
	--otlp http://127.0.0.1:1/
usage "all-zero trace id" TRACEPARENT env \
	TRACEPARENT=00-00000000000000000000000000000000-00f067aa0ba902b7-01 "$MON" "${R[@]}" \
	--otlp http://127.0.0.1:1/
usage "spool bound 0" --spool-mb "$MON" "${R[@]}" --webhook http://127.0.0.1:1/ --spool-mb 0
usage "sinks with --top" --top "$MON" --top --journal
usage "--sink-activity without a sink" --sink-activity "$MON" "${R[@]}" --sink-activity
read -r DEADU DEADT < <(free_ports)
"$MON" "${R[@]}" --syslog "tcp://127.0.0.1:$DEADT" --webhook "http://127.0.0.1:$DEADT/" \
	--otlp "http://127.0.0.1:$DEADT" --metrics-file "$tmp/u.prom" 2> "$tmp/u.err"
rc=$?
check "receivers down at start are no error: exit $rc, every record spooled" \
	test "$rc" = 0 -a "$(sinkm "$tmp/u.prom" webhook spooled)" = 2 \
	-a "$(sinkm "$tmp/u.prom" otlp spooled)" = 2 -a "$(sinkm "$tmp/u.prom" syslog spooled)" = 2

# ---- every sink at once ----------------------------------------------------------
N=50            # sandboxes: 100 records
gen "$N" "$tmp/all.rec"
read -r UDP TCP < <(free_ports)
mkdir -p "$tmp/rs/work"
cat > "$tmp/rs/rsyslog.conf" <<EOF
global(workDirectory="$tmp/rs/work" maxMessageSize="64k")
module(load="imudp")
module(load="imtcp")
module(load="imuxsock" SysSock.Use="off")
input(type="imudp" address="127.0.0.1" port="$UDP" rcvbufSize="8m")
input(type="imtcp" address="127.0.0.1" port="$TCP")
input(type="imuxsock" Socket="$tmp/rs/log.sock" UseSpecialParser="off" ParseHostname="on"
      RateLimit.Interval="0")
template(name="t" type="list") {
  property(name="inputname") constant(value="\t") property(name="protocol-version")
  constant(value="\t") property(name="pri") constant(value="\t") property(name="app-name")
  constant(value="\t") property(name="msgid") constant(value="\t")
  property(name="structured-data") constant(value="\t") property(name="msg") constant(value="\n")
}
*.* action(type="omfile" file="$tmp/rs/out.log" template="t")
EOF
if ! command -v rsyslogd > /dev/null; then
	nok "rsyslogd installed (make deps)"
else
	rsyslogd -n -f "$tmp/rs/rsyslog.conf" -i "$tmp/rs/pid" 2> "$tmp/rs/err" &
	pids+=($!)
	for _ in $(seq 100); do [ -S "$tmp/rs/log.sock" ] && [ -s "$tmp/rs/pid" ] && break; sleep 0.05; done
	check "a private rsyslogd runs (UDP $UDP, TCP $TCP, $tmp/rs/log.sock)" test -S "$tmp/rs/log.sock"
fi
recv_start http || nok "HTTP receiver started"
HP=$(cat "$tmp/http.port")
TP=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
# The three syslog transports take three runs (one --syslog a monitor);
# the first has every other sink too.
n=0
for addr in "udp://127.0.0.1:$UDP" "tcp://127.0.0.1:$TCP" "unix:$tmp/rs/log.sock"; do
	n=$((n + 1))
	extra=()
	[ $n = 1 ] && extra=(--webhook "http://127.0.0.1:$HP/hook" --otlp "http://127.0.0.1:$HP")
	TRACEPARENT=$TP "$MON" --replay "$tmp/all.rec" --output "$tmp/all$n.ndjson" \
		--spool-dir "$tmp/spool-all$n" --metrics-file "$tmp/all$n.prom" --sink-drain-ms 10000 \
		--syslog "$addr" "${extra[@]}" 2> "$tmp/all$n.err"
	check "${addr%%:*} run: exit 0, 100 records out" test $? = 0 -a \
		"$(wc -l < "$tmp/all$n.ndjson")" = $((2 * N))
	check "${addr%%:*}: metrics pass promtool check metrics" promcheck "$tmp/all$n.prom"
	check "${addr%%:*}: syslog delivered $((2 * N)), nothing dropped or pending" test \
		"$(sinkm "$tmp/all$n.prom" syslog delivered)" = $((2 * N)) -a \
		"$(sinkm "$tmp/all$n.prom" syslog dropped)" = 0 -a \
		"$(metric "$tmp/all$n.prom" 'ringfence_monitor_sink_pending_records{sink="syslog"}')" = 0
done
# --sink-activity: tests/ocsf's recording (flows, DNS queries, findings)
# to syslog (UDP), the webhook and OTLP; each kind counted apart.
python3 "$HERE/../ocsf/recording.py" > "$tmp/act.rec"
recv_start act || nok "receiver (activity)"
"$MON" --replay "$tmp/act.rec" --output "$tmp/act-alerts.ndjson" --activity "$tmp/act.ndjson" \
	--sink-activity --spool-dir "$tmp/spool-act" --metrics-file "$tmp/act.prom" \
	--sink-drain-ms 10000 --syslog "udp://127.0.0.1:$UDP" \
	--webhook "http://127.0.0.1:$(cat "$tmp/act.port")/hook" \
	--otlp "http://127.0.0.1:$(cat "$tmp/act.port")" 2> "$tmp/act.err"
rc=$?
check "--sink-activity run: exit $rc, activity records written" test "$rc" = 0 -a -s "$tmp/act.ndjson"
kindm() { # file sink kind outcome
	metric "$1" "ringfence_monitor_sink_records_by_kind_total{sink=\"$2\",kind=\"$3\",outcome=\"$4\"}"
}
n_fin=$(wc -l < "$tmp/act-alerts.ndjson")
n_net=$(grep -c '"class_uid":4001' "$tmp/act.ndjson")
n_dns=$(grep -c '"class_uid":4003' "$tmp/act.ndjson")
for k in syslog webhook otlp; do
	check "--sink-activity $k: delivered $n_fin findings, $n_net network and $n_dns DNS activity records, none dropped" \
		test "$(kindm "$tmp/act.prom" $k finding delivered)" = "$n_fin" -a \
		"$(kindm "$tmp/act.prom" $k network_activity delivered)" = "$n_net" -a \
		"$(kindm "$tmp/act.prom" $k dns_activity delivered)" = "$n_dns" -a \
		"$(sinkm "$tmp/act.prom" $k dropped)" = 0 -a "$n_net" -gt 0 -a "$n_dns" -gt 0
done
check "--sink-activity: metrics pass promtool" promcheck "$tmp/act.prom"
cat "$tmp/act-alerts.ndjson" "$tmp/act.ndjson" > "$tmp/act-all.ndjson"
uids_of "$tmp/act-all.ndjson" > "$tmp/act-want.uids"
for k in webhook otlp; do
	awk -v k=$k '$1 == k {print $2}' "$tmp/act.out" | sort -u > "$tmp/act-$k.uids"
	check "--sink-activity $k: the receiver has every record, activity included" \
		cmp -s "$tmp/act-want.uids" "$tmp/act-$k.uids"
done
check "--sink-activity: OTLP JSON shape valid (no INVALID line)" \
	bash -c '! grep -q "^INVALID" "$1"' _ "$tmp/act.out"
kill "$act_pid" 2>/dev/null; wait "$act_pid" 2>/dev/null
uids_of "$tmp/all1.ndjson" > "$tmp/want.uids"
for k in webhook otlp; do
	check "$k: delivered $((2 * N)) (metrics)" test "$(sinkm "$tmp/all1.prom" $k delivered)" = $((2 * N))
	awk -v k=$k '$1 == k {print $2}' "$tmp/http.out" | sort -u > "$tmp/$k.uids"
	check "$k: the receiver has every record" cmp -s "$tmp/want.uids" "$tmp/$k.uids"
done
check "OTLP JSON shape valid, webhook Content-Type (no INVALID line)" \
	bash -c '! grep -q "^INVALID" "$1"' _ "$tmp/http.out"
# the receiver checks trace and span ids against TRACEPARENT
kill "$http_pid" 2>/dev/null; wait "$http_pid" 2>/dev/null
recv_start trace --expect-trace 4bf92f3577b34da6a3ce929d0e0e4736:00f067aa0ba902b7 ||
	nok "trace receiver"
TRACEPARENT=$TP "$MON" --replay "$tmp/one.rec" --output "$tmp/tr.ndjson" --spool-dir "$tmp/spool-tr" \
	--metrics-file "$tmp/tr.prom" --otlp "http://127.0.0.1:$(cat "$tmp/trace.port")/" 2> /dev/null
check "OTLP records carry TRACEPARENT's trace and span ids" test \
	"$(grep -c '^otlp ' "$tmp/trace.out")" = 2 -a "$(grep -c '^INVALID' "$tmp/trace.out")" = 0
kill "$trace_pid" 2>/dev/null; wait "$trace_pid" 2>/dev/null
if [ -f "$tmp/rs/pid" ]; then
	# rsyslog's file action writes asynchronously, later under load:
	# until its file stops growing for a second (at most 15 s)
	last=-1 same=0
	for _ in $(seq 150); do
		n=$(wc -l < "$tmp/rs/out.log" 2> /dev/null || echo 0)
		if [ "$n" = "$last" ]; then same=$((same + 1)); else same=0; fi
		[ "$same" -ge 10 ] && break
		last=$n
		sleep 0.1
	done
	kill "$(cat "$tmp/rs/pid")"
	for _ in $(seq 100); do [ -e "$tmp/rs/pid" ] || break; sleep 0.05; done
	python3 - "$tmp/rs/out.log" "$tmp/want.uids" "$tmp/act-want.uids" > "$tmp/rs/check" <<'PY'
import json, sys
want = set(open(sys.argv[2]).read().split())
act_want = set(open(sys.argv[3]).read().split())
got = {}
bad = []
for line in open(sys.argv[1]):
    inp, ver, pri, app, msgid, sd, msg = line.rstrip("\n").split("\t", 6)
    rec = json.loads(msg)
    uid = rec["metadata"]["uid"]
    if uid in act_want:
        # the --sink-activity run: findings by rule, activity by class name
        got.setdefault("act", set()).add(uid)
        if msgid != rec.get("unmapped", {}).get("rule", rec["class_name"].replace(" ", "")):
            bad.append(line[:200])
        continue
    if ver != "1" or app != "ringfence-monitor" or msgid != rec["unmapped"]["rule"] or \
            'uid="%s"' % uid not in sd or not sd.startswith("[ringfence@32473 ") or \
            int(pri) != 13 * 8 + {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}[rec["severity_id"]]:
        bad.append(line[:200])
    got.setdefault(inp, set()).add(uid)
for inp in ("imudp", "imtcp", "imuxsock"):
    print(inp, "all" if got.get(inp) == want else "missing %d" % len(want - got.get(inp, set())))
print("act", "all" if got.get("act") == act_want else "missing %d" % len(act_want - got.get("act", set())))
for b in bad[:3]:
    print("bad", b)
PY
	for inp in imudp imtcp imuxsock; do
		check "rsyslog $inp: every record, as RFC 5424 (version 1, PRI from severity, app-name, msgid, SD)" \
			grep -qx "$inp all" "$tmp/rs/check"
	done
	check "rsyslog (--sink-activity): every finding and activity record" \
		grep -qx "act all" "$tmp/rs/check"
	check "rsyslog: no malformed message" bash -c '! grep -q ^bad "$1"' _ "$tmp/rs/check"
fi

# ---- killed mid-stream, restarted -----------------------------------------------------
recv_start kill --die-after 40 || nok "receiver (dies after 40)"
KP=$(cat "$tmp/kill.port")
( # restart it on the same port once it died
	wait_dead() { while kill -0 "$1" 2>/dev/null; do sleep 0.05; done; }
	wait_dead "$kill_pid"
	sleep 0.5
	exec python3 "$RECV" --port "$KP" --port-file "$tmp/kill2.port" --out "$tmp/kill.out"
) &
pids+=($!)
"$MON" --replay "$tmp/all.rec" --output "$tmp/kill.ndjson" --spool-dir "$tmp/spool-kill" \
	--metrics-file "$tmp/kill.prom" --sink-drain-ms 60000 --webhook "http://127.0.0.1:$KP/hook" \
	2> "$tmp/kill.err"
check "killed mid-stream: the receiver died and was restarted" test -s "$tmp/kill2.port"
awk '$1 == "webhook" {print $2}' "$tmp/kill.out" | sort -u > "$tmp/kill.uids"
check "killed mid-stream: the receivers have every record (spool drained)" \
	cmp -s "$tmp/want.uids" "$tmp/kill.uids"
check "killed mid-stream: delivered $((2 * N)), spooled > 0, dropped 0, pending 0" test \
	"$(sinkm "$tmp/kill.prom" webhook delivered)" = $((2 * N)) -a \
	"$(sinkm "$tmp/kill.prom" webhook spooled)" -gt 0 -a \
	"$(sinkm "$tmp/kill.prom" webhook dropped)" = 0 -a \
	"$(metric "$tmp/kill.prom" 'ringfence_monitor_sink_pending_records{sink="webhook"}')" = 0
check "killed mid-stream: metrics pass promtool" promcheck "$tmp/kill.prom"

# ---- a receiver that never answers ---------------------------------------------------------
recv_start hang --hang || nok "receiver (hangs)"
timeout 120 "$MON" --replay "$tmp/all.rec" --output "$tmp/hang.ndjson" --spool-dir "$tmp/spool-hang" \
	--metrics-file "$tmp/hang.prom" --sink-drain-ms 0 \
	--webhook "http://127.0.0.1:$(cat "$tmp/hang.port")/hook" 2> "$tmp/hang.err"
rc=$?
check "a receiver that never answers: the replay ends (exit $rc), every record in --output" \
	test "$rc" = 0 -a "$(wc -l < "$tmp/hang.ndjson")" = $((2 * N))
check "a receiver that never answers: all $((2 * N)) queued, spooled, pending; none delivered or dropped" \
	test "$(metric "$tmp/hang.prom" 'ringfence_monitor_sink_records_queued_total{sink="webhook"}')" \
	= $((2 * N)) -a "$(sinkm "$tmp/hang.prom" webhook spooled)" = $((2 * N)) -a \
	"$(sinkm "$tmp/hang.prom" webhook delivered)" = 0 -a \
	"$(sinkm "$tmp/hang.prom" webhook dropped)" = 0 -a \
	"$(metric "$tmp/hang.prom" 'ringfence_monitor_sink_pending_records{sink="webhook"}')" = $((2 * N))
kill "$hang_pid" 2>/dev/null

# ---- the spool's bound, and a spool handed to the next start ---------------------------------
gen 400 "$tmp/big.rec"
"$MON" --replay "$tmp/big.rec" --output "$tmp/big.ndjson" --spool-dir "$tmp/spool-big" \
	--metrics-file "$tmp/big.prom" --sink-drain-ms 0 --spool-mb 1 \
	--webhook "http://127.0.0.1:$DEADT/hook" 2> "$tmp/big.err"
sp=$(sinkm "$tmp/big.prom" webhook spooled) dr=$(sinkm "$tmp/big.prom" webhook dropped)
check "spool bound 1 MiB: $sp spooled + $dr dropped = 800 queued, some dropped" \
	test "$((sp + dr))" = 800 -a "$dr" -gt 0 -a "$sp" -gt 0
check "spool bound 1 MiB: the spool file holds $sp records within 1 MiB" test \
	"$(wc -l < "$tmp/spool-big/webhook.ndjson")" = "$sp" -a \
	"$(stat -c %s "$tmp/spool-big/webhook.ndjson")" -le 1048576
recv_start next || nok "receiver (next start)"
gen 0 "$tmp/empty.rec"
"$MON" --replay "$tmp/empty.rec" --output "$tmp/next.ndjson" --spool-dir "$tmp/spool-big" \
	--metrics-file "$tmp/next.prom" --sink-drain-ms 60000 \
	--webhook "http://127.0.0.1:$(cat "$tmp/next.port")/hook" 2> "$tmp/next.err"
check "the next start delivers the $sp records spooled by the last one, in order" test \
	"$(sinkm "$tmp/next.prom" webhook delivered)" = "$sp" -a \
	"$(awk '$1 == "webhook"' "$tmp/next.out" | wc -l)" = "$sp" -a \
	"$(awk '$1 == "webhook" {print $2}' "$tmp/next.out" | head -1)" = "$(uids_of "$tmp/big.ndjson" | head -0; python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["metadata"]["uid"])' "$tmp/big.ndjson")"
check "the delivered spool is emptied" test "$(stat -c %s "$tmp/spool-big/webhook.ndjson")" = 0

exit $fail
