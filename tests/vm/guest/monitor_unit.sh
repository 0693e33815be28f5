#!/bin/sh
# vm-kernels: systemd
# Guest suite "monitor_unit" (VM_SYSTEMD=1 tests/vm/run.sh BUILD monitor_unit):
# ringfence-monitor under exactly the shipped unit, dist/systemd/
# ringfence-monitor.service, installed as `make install` places it (its
# ExecStart the built monitor): its capability bounding set, syscall filter,
# file-system view and UMask. A drop-in only says where alerts, metrics and
# the log go (as the unit's comment tells an operator to), shortens the
# detectors' windows and the watchdog period. Checked: READY (Type=notify)
# and the status line; the capabilities and seccomp in force; no "cgroup
# ids cannot be looked up" in its log; a sandbox that ended before the
# monitor started is looked up by cgroup id and found gone; a live
# sandbox's denials become an alert; the metrics file is 0644 under
# UMask=0077; `systemctl reload` reopens the alerts file (rotated away, new
# alerts land in the new file); watchdog pings keep it running; stop.
# --journal: the alert is in the journal with its native fields
# (journalctl -o json: MESSAGE_ID, PRIORITY, RINGFENCE_OCSF, ...), from
# the host's systemd-journald run for the test.
. "$GUEST/lib/tap.sh"

W=$(mktemp -d /tmp/monunit.XXXXXX)
UNIT=/usr/lib/systemd/system/ringfence-monitor.service
DROPIN=/etc/systemd/system/ringfence-monitor.service.d
ALERTS=/var/log/ringfence/alerts.ndjson
PROM=/var/lib/prometheus/node-exporter/ringfence.prom
LOG=/run/rf-monitor-unit.log
ALLOWED=18491
OTHER=18492

prop() { systemctl show -p "$1" --value ringfence-monitor.service 2> /dev/null; }
# wait_for SECONDS COMMAND...: until COMMAND succeeds
wait_for() {
	n=$(($1 * 5))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}
# a sandbox whose policy allows one port, denied the other five times
denied_run() { # ID
	printf '{"version":1,"id":"%s","files":"unrestricted","exec":"unrestricted","network":{"connect":["127.0.0.1:%s"],"unix":"unrestricted"}}\n' \
		"$1" "$ALLOWED" > "$W/$1.json"
	"$RINGFENCE" run -q --policy "$W/$1.json" -- "$TOOLS/rf-net" tcp 127.0.0.1 "$OTHER" \
		tcp 127.0.0.1 "$OTHER" tcp 127.0.0.1 "$OTHER" tcp 127.0.0.1 "$OTHER" \
		tcp 127.0.0.1 "$OTHER" > "$W/$1.out" 2> "$W/$1.err"
}
has_alert() { grep -q "\"policy_id\":\"$2\"" "$1" 2> /dev/null; }
metric() { sed -n "s/^$1 //p" "$PROM" 2> /dev/null; }
gone_seen() { [ "$(metric ringfence_monitor_cgroups_gone_total)" -ge 1 ] 2> /dev/null; }

if [ ! -x "$RF/ringfence-monitor" ] || [ ! -f /rf/dist/systemd/ringfence-monitor.service ]; then
	fail "the monitor and the shipped unit are in the guest" "no $RF/ringfence-monitor or /rf/dist"
	finish
fi

# ---- the unit as make install places it (SBINDIR: where the monitor is) ----
sed 's|/usr/sbin/ringfence-monitor|/rf/ringfence-monitor|' /rf/dist/systemd/ringfence-monitor.service > "$UNIT"
mkdir -p "$DROPIN" /var/lib/prometheus/node-exporter /run/systemd/system
printf '%s\n' '[Service]' 'ExecStart=' \
	"ExecStart=/rf/ringfence-monitor --output $ALERTS --metrics-file $PROM --interval 200 --linger-ms 500 --burst-count 3 --burst-window-ms 5000 --journal" \
	"StandardError=append:$LOG" 'WatchdogSec=4s' > "$DROPIN/test.conf"
if grep -qx 'ExecStart=/rf/ringfence-monitor' "$UNIT" && grep -q '^WatchdogSec=' "$UNIT" &&
   grep -qx 'Type=notify' "$UNIT"; then
	pass "unit: installed as make install places it (ExecStart=/rf/ringfence-monitor, Type=notify, WatchdogSec)"
else
	fail "unit: installed as make install places it" "$(grep -E '^(ExecStart|Type|WatchdogSec)=' "$UNIT" | tr '\n' ' ')"
fi

# ---- a sandbox that ends before the monitor starts: its decisions wait in
# the pinned ring buffer, its cgroup is gone when the monitor reads them ----
denied_run mu-backlog
if grep -q "$OTHER EPERM" "$W/mu-backlog.out"; then
	pass "backlog: a sandbox denied :$OTHER and ended before the monitor started"
else
	fail "backlog: a sandbox denied :$OTHER" "rf-net printed:"
	show "$W/mu-backlog.out"
	show "$W/mu-backlog.err"
fi

# ---- journald for --journal: the host's, run directly (this initramfs has
# no socket units); it opens /run/systemd/journal/socket itself ----
JPID=
if [ ! -S /run/systemd/journal/socket ] && [ -x /usr/lib/systemd/systemd-journald ]; then
	/usr/lib/systemd/systemd-journald > "$W/journald.log" 2>&1 &
	JPID=$!
	wait_for 10 test -S /run/systemd/journal/socket
fi

# ---- start: READY ----
# The unit keeps systemd's default dependencies (sysinit.target, basic.target,
# shutdown.target), which this initramfs lacks: stand-ins, as a real system has.
for t in sysinit basic shutdown; do
	[ -e "/usr/lib/systemd/system/$t.target" ] ||
		printf '%s\n' '[Unit]' 'DefaultDependencies=no' > "/run/systemd/system/$t.target"
done
rc=0
{ systemctl daemon-reload && systemctl start ringfence-monitor.service; } 2> "$W/start.err" || rc=$?
pid=$(prop MainPID)
note "start: exit $rc, $(prop ActiveState)/$(prop SubState), Type=$(prop Type), MainPID $pid, status '$(prop StatusText)'"
if [ "$rc" = 0 ] && [ "$(prop ActiveState)" = active ] && [ "$(prop SubState)" = running ] &&
   [ "$(prop Type)" = notify ] && case "$(prop StatusText)" in watching*) true ;; *) false ;; esac; then
	pass "start: systemctl start returned on READY=1 (Type=notify, active/running, status '$(prop StatusText)')"
else
	fail "start: READY under the unit" "exit $rc, $(prop ActiveState)/$(prop SubState) $(prop Result)"
	show "$W/start.err"
	show "$LOG"
	systemctl status --no-pager ringfence-monitor.service > "$W/status.txt" 2>&1
	show "$W/status.txt"
fi

# ---- the unit's capabilities and syscall filter are what it runs under ----
# CAP_DAC_READ_SEARCH 2, CAP_SYS_PTRACE 19, CAP_SYS_NICE 23, CAP_PERFMON 38, CAP_BPF 39
want_bnd=$(printf '%016x' $(((1 << 2) | (1 << 19) | (1 << 23) | (1 << 38) | (1 << 39))))
bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' "/proc/$pid/status" 2> /dev/null)
sec=$(sed -n 's/^Seccomp:[[:space:]]*//p' "/proc/$pid/status" 2> /dev/null)
nnp=$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' "/proc/$pid/status" 2> /dev/null)
if [ "$bnd" = "$want_bnd" ] && [ "$sec" = 2 ] && [ "$nnp" = 1 ]; then
	pass "sandbox: CapBnd $bnd (BPF PERFMON SYS_PTRACE SYS_NICE DAC_READ_SEARCH), seccomp filter, no_new_privs"
else
	fail "sandbox: the unit's capabilities and filter in force" "CapBnd $bnd (want $want_bnd), Seccomp $sec, NoNewPrivs $nnp"
fi

# ---- cgroup ids are looked up ----
wait_for 20 test -s "$PROM"
if wait_for 20 gone_seen; then
	pass "lookup: the ended sandbox's cgroup id was looked up and found gone (cgroups_gone_total $(metric ringfence_monitor_cgroups_gone_total))"
else
	fail "lookup: the ended sandbox's cgroup id is looked up" "cgroups_gone_total '$(metric ringfence_monitor_cgroups_gone_total)'"
	show "$LOG"
fi
if grep -q 'watching' "$LOG" && ! grep -q 'cannot be looked up' "$LOG"; then
	pass "log: the monitor's log has no 'cgroup ids cannot be looked up'"
else
	fail "log: no 'cannot be looked up'" "log:"
	show "$LOG"
fi
mode=$(stat -c %a "$PROM" 2> /dev/null)
if [ "$mode" = 644 ]; then
	pass "metrics: $PROM is 0644 under UMask=0077 (node_exporter can read it)"
else
	fail "metrics: the file is 0644" "mode '$mode'"
fi

# ---- a live sandbox is seen ----
denied_run mu-live
if wait_for 20 has_alert "$ALERTS" mu-live; then
	pass "alerts: the live sandbox's denials are an alert in $ALERTS"
else
	fail "alerts: the live sandbox's denials are an alert" "alerts:"
	show "$ALERTS"
	show "$LOG"
fi

# ---- the same alert in the journal, native fields ----
DENY_ID=a12ec64d68e1437ca97cee65d07c3c13
journal_has() {
	journalctl -o json --all "MESSAGE_ID=$DENY_ID" > "$W/journal.json" 2> "$W/journal.err"
	grep -q 'mu-live' "$W/journal.json"
}
if ! [ -S /run/systemd/journal/socket ]; then
	fail "journal: journald runs for --journal" "no /run/systemd/journal/socket"
	show "$W/journald.log"
elif wait_for 20 journal_has && grep -q '"PRIORITY":"4"' "$W/journal.json" &&
     grep -q '"SYSLOG_IDENTIFIER":"ringfence-monitor"' "$W/journal.json" &&
     grep -q '"RINGFENCE_RULE":"deny-burst"' "$W/journal.json" &&
     grep -q '"RINGFENCE_SANDBOX":"' "$W/journal.json" &&
     grep -q '"RINGFENCE_OCSF":"{\\"metadata\\"' "$W/journal.json" &&
     grep -q '"MESSAGE":"sandbox ' "$W/journal.json"; then
	pass "journal: journalctl -o json MESSAGE_ID=$DENY_ID has the alert: PRIORITY 4 (Medium), RINGFENCE_RULE, RINGFENCE_SANDBOX, RINGFENCE_OCSF, MESSAGE, SYSLOG_IDENTIFIER"
else
	fail "journal: the alert with its native fields" "journalctl -o json:"
	show "$W/journal.json"
	show "$W/journal.err"
	show "$LOG"
fi
delivered=$(metric 'ringfence_monitor_sink_records_total{sink="journal",outcome="delivered"}')
if [ "${delivered:-0}" -ge 1 ] 2> /dev/null; then
	pass "journal: the metrics count $delivered records delivered to the journal"
else
	fail "journal: delivered counted" "'$delivered'"
fi

# ---- reload reopens the output ----
mv "$ALERTS" "$ALERTS.1"
rc=0
systemctl reload ringfence-monitor.service || rc=$?
wait_for 10 grep -q "SIGHUP: $ALERTS reopened" "$LOG"
denied_run mu-after
if [ "$rc" = 0 ] && wait_for 20 has_alert "$ALERTS" mu-after && ! has_alert "$ALERTS.1" mu-after &&
   [ "$(prop MainPID)" = "$pid" ]; then
	pass "reload: systemctl reload reopened $ALERTS; the next alert is in the new file, not the rotated one"
else
	fail "reload: the output reopened" "exit $rc, MainPID $(prop MainPID) (was $pid), new file:"
	show "$ALERTS"
	show "$LOG"
fi

# ---- the watchdog ----
wd0=$(prop WatchdogTimestampMonotonic)
sleep 10
wd1=$(prop WatchdogTimestampMonotonic)
if [ "$(prop WatchdogUSec)" = 4s ] && [ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" = "$pid" ] &&
   [ "$(prop NRestarts)" = 0 ] && [ "${wd1:-0}" -gt "${wd0:-0}" ] &&
   grep -q 'watchdog: a ping every 2000 ms' "$LOG"; then
	pass "watchdog: WatchdogSec=4s, pinged (timestamp $wd0 -> $wd1), still the same process after 10 s"
else
	fail "watchdog" "WatchdogUSec $(prop WatchdogUSec), $(prop ActiveState), MainPID $(prop MainPID) (was $pid), NRestarts $(prop NRestarts), timestamps $wd0 $wd1"
	show "$LOG"
fi

# ---- stop ----
rc=0
systemctl stop ringfence-monitor.service || rc=$?
if [ "$rc" = 0 ] && [ "$(prop ActiveState)" = inactive ] && [ "$(prop Result)" = success ]; then
	pass "stop: inactive, result success"
else
	fail "stop" "exit $rc, $(prop ActiveState) $(prop Result)"
fi

[ -n "$JPID" ] && kill "$JPID" 2> /dev/null
rm -rf "$DROPIN" "$UNIT" /run/systemd/system/sysinit.target /run/systemd/system/basic.target \
	/run/systemd/system/shutdown.target
systemctl daemon-reload
finish
