#!/bin/bash
# tests/build/check_monitor_link.sh BUILD: ringfence-monitor is its own code
# and librf.a only: no launcher, planner, policy parser or seccomp installer
# symbols, and no libseccomp or libcap; the supervisor links no library it
# loads on use. TAP-style "ok - " lines.
set -uo pipefail
BUILD=${1:-build}
MON=$BUILD/ringfence-monitor
fail=0
check() { # description command...
	local d=$1
	shift
	if "$@"; then echo "ok - $d"; else echo "not ok - $d"; fail=1; fi
}
[ -x "$MON" ] || { echo "not ok - $MON exists"; exit 1; }
syms=$(nm "$MON" | awk '$2 ~ /^[TtDdBbRr]$/ { print $3 }')
for prefix in launch__ plan__ prepare__ policy__ sandbox_seccomp__ sandbox_landlock__ \
	probe__ netrules__ sbmaps__ enforcer__ env__ endpoint__ seccomp_; do
	check "no $prefix* symbol in ringfence-monitor" \
		bash -c '! grep -q "^$1" <<< "$2"' _ "$prefix" "$syms"
done
# What the monitor itself links (its NEEDED entries), not ldd's closure:
# libsystemd (sd_notify, the app-specific machine id) needs libcap itself,
# which the monitor's own code does not use.
libs=$(readelf -d "$MON" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in libseccomp libcap; do
	check "ringfence-monitor does not link $lib" bash -c '! grep -q "$1" <<< "$2"' _ "$lib" "$libs"
done
check "readelf lists the monitor's libraries (libbpf: the check can fail)" \
	bash -c 'grep -q "^libbpf" <<< "$1"' _ "$libs"
# The supervisor loads these when a run needs them (supervisor/util/lazylib.h):
# linked, every process would pay for loading them (libldns brings libcrypto).
for lib in libldns libsystemd libpsl libcrypto libcurl; do
	check "ringfence does not link $lib (loaded on use)" \
		bash -c '! ldd "$1" | grep -q "$2"' _ "$BUILD/ringfence" "$lib"
done
# The supervisor still does: the check above is not vacuous.
check "ringfence has libseccomp, linked or built in (the check can fail)" \
	bash -c 'ldd "$1" | grep -q libseccomp || nm "$1" | grep -q " T seccomp_init$"' \
	_ "$BUILD/ringfence"
check "nm sees the supervisor's launch__ symbols (the check can fail)" \
	bash -c 'nm "$1" | grep -q " T launch__"' _ "$BUILD/ringfence"
exit $fail
