#!/usr/bin/env bash
# Packaging test: what a person who installs ringfence gets.
#   - `make install` with PREFIX and DESTDIR puts every file where it
#     belongs, `make uninstall` takes every one away again;
#   - the Debian package: `dpkg-buildpackage -us -uc -b` builds it from a
#     copy of this tree (tracked and new files, not build/), `lintian`
#     reports no error and no warning, it holds the expected files;
#   - installed into a scratch root (dpkg-deb -x): the man pages render
#     without warnings, the bash completion completes commands, options and
#     backends and offers every long option --help lists, the zsh and fish
#     completions are there (tests/build/check_cli_docs.py checks what they
#     offer), the unit passes
#     `systemd-analyze verify` and its exposure is at most 3.0;
#   - from the installed paths (needs root; hold the host lock, e.g.
#     RF_HOST_LOCK=/tmp/rf-host.lock, for these steps only): `ringfence
#     probe` answers, a sandboxed command is denied a port its policy does
#     not list and reaches the one it does, and ringfence-monitor, run with
#     only the capabilities the unit grants (its CapabilityBoundingSet,
#     no_new_privs), raises a deny-burst alert for that sandbox and stops
#     cleanly on SIGTERM, having looked cgroup ids up (CAP_DAC_READ_SEARCH);
#   - the logrotate file: a conffile, it rotates what the unit writes and
#     reloads the monitor after; `logrotate -d` parses it where logrotate is
#     installed;
#   - the postrm's purge (root, in a mount namespace of its own with a
#     private bpffs and /run/ringfence, so without the host lock): pins
#     removed, tolerant when none, kept while a sandbox is live.
# Usage: tests/pkg/run.sh BUILD_DIR      (BUILD_DIR: for make install)
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
SRC=$(pwd)
# make's variables split at spaces: it gets BUILD_DIR relative to the tree
# (whose path may have spaces), e.g. "build".
MKBUILD=$(realpath --relative-to="$SRC" "$BUILD")
fail=0
ok()     { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fail=1; }
show()   { sed 's/^/#   /' "$1" | head -"${2:-15}"; }
hostlock() { if [ -n "${RF_HOST_LOCK:-}" ]; then flock "$RF_HOST_LOCK" "$@"; else "$@"; fi; }
W=$(mktemp -d /var/tmp/rf-pkg-XXXXXX)
chmod 755 "$W"
mon_pid=
cleanup() { [ -n "$mon_pid" ] && kill "$mon_pid" 2> /dev/null; rm -rf "$W"; }
trap cleanup EXIT
t0=$(date +%s)

# ---- make install / uninstall ----
EXPECT="usr/bin/ringfence usr/sbin/ringfence-monitor lib/systemd/system/ringfence-monitor.service
etc/logrotate.d/ringfence-monitor
usr/share/man/man1/ringfence.1 usr/share/man/man5/ringfence.policy.5 usr/share/man/man8/ringfence-monitor.8
usr/share/bash-completion/completions/ringfence usr/share/bash-completion/completions/ringfence-monitor
usr/share/zsh/vendor-completions/_ringfence usr/share/zsh/vendor-completions/_ringfence-monitor
usr/share/fish/vendor_completions.d/ringfence.fish usr/share/fish/vendor_completions.d/ringfence-monitor.fish
usr/share/ringfence/schemas/policy.schema.json usr/share/ringfence/schemas/trace.schema.json
usr/share/ringfence/schemas/alert.schema.json usr/share/ringfence/schemas/registry.schema.json
usr/share/ringfence/examples/README.md usr/share/containers/oci/hooks.d/ringfence.json"
for f in schemas/examples/*.json; do EXPECT+=" usr/share/ringfence/examples/$(basename "$f")"; done
missing() { # ROOT SUFFIX: expected files absent under ROOT (SUFFIX: .gz for man pages)
	local f
	for f in $EXPECT; do
		case $f in usr/share/man/*) [ -f "$1/$f$2" ] || echo "$f$2" ;; *) [ -f "$1/$f" ] || echo "$f" ;; esac
	done
}
if make -s install BUILD="$MKBUILD" DESTDIR="$W/staged" PREFIX=/usr > "$W/install.log" 2>&1 &&
   [ -z "$(missing "$W/staged" "")" ] && [ "$(find "$W/staged" -type f | wc -l)" = "$(echo $EXPECT | wc -w)" ]; then
	ok "make install DESTDIR PREFIX=/usr: $(echo $EXPECT | wc -w) files, each where it belongs"
else
	not_ok "make install DESTDIR PREFIX=/usr (missing: $(missing "$W/staged" "" | tr '\n' ' '))"; show "$W/install.log"
fi
make -s uninstall BUILD="$MKBUILD" DESTDIR="$W/staged" PREFIX=/usr > /dev/null 2>&1
left=$(find "$W/staged" -type f | wc -l)
if [ "$left" = 0 ]; then ok "make uninstall removes every installed file"
else not_ok "make uninstall left $left files"; find "$W/staged" -type f | head -5; fi
if make -s install BUILD="$MKBUILD" DESTDIR="$W/local" > /dev/null 2>&1 &&
   [ -x "$W/local/usr/local/bin/ringfence" ] &&
   grep -q '^ExecStart=/usr/local/sbin/ringfence-monitor$' "$W/local/usr/local/lib/systemd/system/ringfence-monitor.service"; then
	ok "make install (default PREFIX=/usr/local): the unit starts /usr/local/sbin/ringfence-monitor"
else
	not_ok "make install with the default PREFIX"
fi

# ---- the Debian package ----
mkdir -p "$W/src"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$W/src"
if (cd "$W/src" && unset BUILD && DEB_BUILD_OPTIONS=noddebs dpkg-buildpackage -us -uc -b -j2) > "$W/dpkg.log" 2>&1; then
	ok "dpkg-buildpackage -us -uc -b builds ringfence_*.deb"
else
	not_ok "dpkg-buildpackage -us -uc -b"; tail -20 "$W/dpkg.log" | show /dev/stdin 20
	exit 1
fi
DEB=$(ls "$W"/ringfence_*.deb)
lintian --pedantic "$W"/ringfence_*.changes > "$W/lintian.log" 2>&1
if ! grep -qE '^[EW]: ' "$W/lintian.log"; then
	ok "lintian: no error, no warning ($(grep -cE '^[IPX]: ' "$W/lintian.log") info/pedantic tags)"
else
	not_ok "lintian reports errors or warnings"; grep -E '^[EW]: ' "$W/lintian.log" | show /dev/stdin
fi
R=$W/root
dpkg-deb -x "$DEB" "$R"
if [ -z "$(missing "$R" .gz)" ] && [ -f "$R/usr/share/doc/ringfence/copyright" ]; then
	ok "the package holds the binaries, man pages, bash/zsh/fish completions, unit, schemas and examples"
else
	not_ok "the package lacks: $(missing "$R" .gz | tr '\n' ' ')"
fi

# ---- installed: man pages, completion, unit ----
manwarn=0
for m in "$R"/usr/share/man/man*/*.gz; do
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l "$m" > /dev/null 2> "$W/man.err"
	[ -s "$W/man.err" ] && { manwarn=1; echo "# $(basename "$m"):"; show "$W/man.err"; }
done
[ $manwarn = 0 ] && ok "man pages render without groff warnings" || not_ok "man pages render without groff warnings"

# complete WORDS...: the completion of the last word, one a line.
# Its readers use grep without -q: under pipefail a grep -q that stops at the
# first match makes the writer die of SIGPIPE now and then, failing the pipe.
complete_words() {
	bash -c '. /usr/share/bash-completion/bash_completion
		. "$1/usr/share/bash-completion/completions/ringfence"
		. "$1/usr/share/bash-completion/completions/ringfence-monitor"
		shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		f=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/"); $f "$1" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$R" "$@"
}
if [ "$(complete_words ringfence ch)" = check ] &&
   complete_words ringfence run --req | grep -x -- --require >/dev/null &&
   complete_words ringfence run --require bpf | grep -x bpf-lsm >/dev/null &&
   complete_words ringfence-monitor --met | grep -x -- --metrics-file >/dev/null; then
	ok "bash completion: commands, options, backends"
else
	not_ok "bash completion: commands, options, backends"
fi
# The long options of a --help text's option list (not the prose after it).
help_opts() { sed -n '/^Options:/,/^$/p; /^  -o, --output/,/^$/p' | grep -oE -- '^ +(-[a-z], )?--[a-z][a-z-]+' |
	sed 's/.*--/--/' | sort -u; }
gap=""
for cmd in run check learn probe status gc unload; do
	for o in $("$R/usr/bin/ringfence" "$cmd" --help 2>&1 | help_opts); do
		complete_words ringfence "$cmd" "$o" | grep -x -- "$o" >/dev/null || gap+=" $cmd:$o"
	done
done
for o in $("$R/usr/sbin/ringfence-monitor" --help 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
	complete_words ringfence-monitor "$o" | grep -x -- "$o" >/dev/null || gap+=" monitor:$o"
done
[ -z "$gap" ] && ok "bash completion offers every long option --help lists" || {
	not_ok "bash completion lacks:$gap"
	# what was offered instead, and where --help names it
	for g in $gap; do
		o=${g#*:}
		echo "# $g: offered: $(case $g in monitor:*) complete_words ringfence-monitor "$o" ;;
			*) complete_words ringfence "${g%%:*}" "$o" ;; esac | tr '\n' ' ')"
	done
	"$R/usr/sbin/ringfence-monitor" --help 2>&1 | grep -n -- "--metrics" | sed 's/^/#   /'
}

# ---- the logrotate file ----
LR=$R/etc/logrotate.d/ringfence-monitor
mkdir -p "$W/ctl"
dpkg-deb -e "$DEB" "$W/ctl"
logdir=$(sed -n 's/^LogsDirectory=//p' "$R/lib/systemd/system/ringfence-monitor.service")
if grep -qx /etc/logrotate.d/ringfence-monitor "$W/ctl/conffiles" 2> /dev/null &&
   grep -q "^/var/log/$logdir/\*\.ndjson {" "$LR" &&
   sed -n '/postrotate/,/endscript/p' "$LR" | grep -q 'systemctl reload ringfence-monitor.service' &&
   ! grep -q '^[[:space:]]*copytruncate' "$LR"; then
	ok "logrotate: a conffile rotating /var/log/$logdir/*.ndjson (the unit's LogsDirectory), postrotate reloads the monitor, no copytruncate"
else
	not_ok "logrotate file (conffile, path /var/log/$logdir, postrotate reload)"; show "$LR" 20
fi
if command -v logrotate > /dev/null; then
	if logrotate -d -s "$W/lr.state" "$LR" > "$W/lr.log" 2>&1; then
		ok "logrotate -d parses the logrotate file"
	else
		not_ok "logrotate -d"; show "$W/lr.log"
	fi
else
	echo "# logrotate is not installed: its parse check skipped"
fi

UNIT=$R/lib/systemd/system/ringfence-monitor.service
# The unit file on its own: what it starts is not installed on this host,
# and man: links are looked up there too.
systemd-analyze verify "$UNIT" > "$W/verify.log" 2>&1
if ! grep -v -e "Command /usr/sbin/ringfence-monitor is not executable" -e "Command 'man " \
	"$W/verify.log" | grep . >/dev/null; then
	ok "systemd-analyze verify accepts the unit"
else
	not_ok "systemd-analyze verify"; show "$W/verify.log"
fi
exposure=$(systemd-analyze security --offline=true --root="$R" ringfence-monitor.service 2>/dev/null |
	sed -n 's/.*Overall exposure level for ringfence-monitor.service: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 3.0) }'; then
	ok "the unit is hardened: systemd-analyze security exposure $exposure (<= 3.0)"
else
	not_ok "unit exposure ${exposure:-unknown} (want <= 3.0)"
fi

# ---- installed binaries at work (root) ----
if [ "$(id -u)" != 0 ]; then
	echo "ok - skipped: not root (probe, a sandbox and the monitor need BPF and cgroups)"
	echo "# pkg test: $(($(date +%s) - t0)) s"
	exit $fail
fi
RF=$R/usr/bin/ringfence
MON=$R/usr/sbin/ringfence-monitor
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
host_steps() {
	"$RF" probe > "$W/probe.json" 2> "$W/probe.err"; echo "$?" > "$W/probe.rc"
	# The monitor as the unit runs it: only the unit's capabilities, no_new_privs.
	setpriv --bounding-set "-all,$caps" --inh-caps -all --no-new-privs -- \
		"$MON" --output "$W/alerts.ndjson" --burst-count 5 --burst-window-ms 2000 \
		--state "" --status "$W/mon.status.json" 2> "$W/mon.err" &
	mon_pid=$!
	sleep 1
	"$RF" run -q --policy "$R/usr/share/ringfence/examples/demo.json" --label pkg=test -- \
		bash -c 'for i in 1 2 3 4 5 6 7 8 9 10; do (echo > /dev/tcp/127.0.0.1/18081) 2>&1 | head -n1; done
			(echo > /dev/tcp/127.0.0.1/18080) 2>&1 | head -n1' > "$W/run.out" 2>&1
	echo "$?" > "$W/run.rc"
	for _ in $(seq 1 40); do grep -q 'pkg=test' "$W/alerts.ndjson" 2> /dev/null && break; sleep 0.25; done
	kill -TERM "$mon_pid"; wait "$mon_pid"; echo "$?" > "$W/mon.rc"; mon_pid=
}
hostlock bash -c "$(declare -f host_steps); R='$R' W='$W' RF='$RF' MON='$MON' caps='$caps' host_steps"
if [ "$(cat "$W/probe.rc")" = 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "classes" in d else 1)' "$W/probe.json"; then
	ok "installed ringfence probe answers (JSON with classes)"
else
	not_ok "installed ringfence probe (exit $(cat "$W/probe.rc"))"; show "$W/probe.err"
fi
if [ "$(cat "$W/run.rc")" = 0 ] && [ "$(grep -c 'Operation not permitted' "$W/run.out")" = 10 ] &&
   [ "$(tail -n1 "$W/run.out" | grep -c 'Connection refused')" = 1 ]; then
	ok "installed ringfence run: a port the policy does not list gets EPERM, the listed one is reached"
else
	not_ok "installed ringfence run (exit $(cat "$W/run.rc"))"; show "$W/run.out"
fi
if grep -q 'pkg=test' "$W/alerts.ndjson" 2> /dev/null && grep -q '"class_uid":2004' "$W/alerts.ndjson" &&
   [ "$(cat "$W/mon.rc")" = 0 ]; then
	ok "installed ringfence-monitor with only $caps and no_new_privs: deny-burst alert for the sandbox, exit 0 on SIGTERM"
else
	not_ok "installed ringfence-monitor with the unit's capabilities (exit $(cat "$W/mon.rc"))"
	show "$W/mon.err"; show "$W/alerts.ndjson" 3
fi
if grep -q 'watching' "$W/mon.err" && ! grep -q 'cannot be looked up' "$W/mon.err"; then
	ok "installed ringfence-monitor with the unit's capabilities looks cgroup ids up (no 'cannot be looked up')"
else
	not_ok "installed ringfence-monitor looks cgroup ids up with the unit's capabilities"; show "$W/mon.err"
fi

# ---- the postrm's purge, in a mount namespace with a private bpffs ----
# CASE: none (nothing pinned), pinned (a flat pin as builds before sets
# left, and two builds' set directories with a pin each, no sandbox), live
# (the same and a registry file). Prints the pin directory's state after
# purge and the exit.
purge_case() {
	unshare -m --propagation private sh -c '
		mount -t bpf bpf /sys/fs/bpf && mkdir -p /run/ringfence && mount -t tmpfs tmpfs /run/ringfence || exit 99
		if [ "$2" != none ]; then
			mkdir /sys/fs/bpf/ringfence
			bpftool map create /sys/fs/bpf/ringfence/rf_pkg_test type array key 4 value 4 entries 1 name rf_pkg_test || exit 98
			for s in 0123456789abcdef fedcba9876543210; do
				mkdir /sys/fs/bpf/ringfence/$s &&
				bpftool map create /sys/fs/bpf/ringfence/$s/meta type array key 4 value 4 entries 1 name rf_pkg_test || exit 98
			done
		fi
		if [ "$2" = live ]; then mkdir -p /run/ringfence/sandboxes; echo "{}" > /run/ringfence/sandboxes/x.json; fi
		PATH=/usr/sbin:/usr/bin:/sbin:/bin sh "$1" purge > /dev/null 2>&1; rc=$?
		[ -d /sys/fs/bpf/ringfence ] && echo "kept $rc" || echo "gone $rc"' _ "$W/ctl/postrm" "$1"
}
if [ -f "$W/ctl/postrm" ] && ! command -v ringfence > /dev/null; then
	# No host lock: nothing here is seen outside the namespace (a map in a
	# private bpffs, no program, no ringfence run).
	none=$(purge_case none)
	pinned=$(purge_case pinned)
	live=$(purge_case live)
	if [ "$none" = "gone 0" ] && [ "$pinned" = "gone 0" ] && [ "$live" = "kept 0" ]; then
		ok "postrm purge: the pinned programs removed (every build's set), nothing pinned is fine, live sandboxes keep them (exit 0 each)"
	else
		not_ok "postrm purge: nothing pinned '$none' (want gone 0), pinned '$pinned' (gone 0), live '$live' (kept 0)"
	fi
else
	not_ok "postrm purge: the package has a postrm and no ringfence on PATH to confuse the test"
fi
echo "# pkg test: $(($(date +%s) - t0)) s"
exit $fail
