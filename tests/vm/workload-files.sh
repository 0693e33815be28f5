#!/bin/bash
# tests/vm/workload-files.sh: the host files that the real workloads of the
# guest suites marked "# vm-needs: workloads" use (python3 reading and
# writing files and fetching over HTTP, gcc compiling a C file), one
# absolute path a line. tests/vm/run.sh copies them into the initramfs
# with the shared libraries of each ELF file among them and their times
# (Python's compiled caches are only used when the source's mtime matches:
# otherwise it would try to write new ones).
#
# Not the whole of /usr: only what these workloads open, asked of the
# tools themselves (Python's loaded modules, gcc -M's headers, gcc
# -print-prog-name), so the initramfs stays small (~40 MB unpacked).
set -euo pipefail

die() { echo "vm-workloads: $*" >&2; exit 1; }
PY=/usr/bin/python3
[ -x "$PY" ] || die "$PY is missing (make deps installs python3)"
command -v gcc > /dev/null || die "gcc is missing"

# python3: the interpreter and every module the guest jobs import (os,
# sys, socket, with what those pull in and what startup loads under the
# guest's environment), each source with its compiled cache.
readlink -f "$PY"
env -i PATH=/usr/bin:/bin LANG=C HOME=/root "$PY" - << 'EOF'
import importlib.util, os, sys, socket
import encodings.idna  # loaded lazily: socket encodes host names with it
seen = set()
for m in list(sys.modules.values()):
    f = getattr(m, '__file__', None)
    if not f or not os.path.isabs(f):
        continue
    seen.add(f)
    if f.endswith('.py'):
        c = importlib.util.cache_from_source(f)
        if os.path.exists(c):
            seen.add(c)
# the landmark Python finds its prefix by
seen.add(os.path.join(os.path.dirname(os.__file__), 'os.py'))
for f in sorted(seen):
    print(f)
EOF

# gcc -c of a C file that includes <stdio.h>: the driver, cc1, as, and
# the headers (gcc -M lists every header it would read).
readlink -f "$(command -v gcc)"
readlink -f "$(gcc -print-prog-name=cc1)"
as=$(gcc -print-prog-name=as)
case $as in /*) ;; *) as=$(command -v "$as") ;; esac
readlink -f "$as"
printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n' |
	gcc -M -x c - | tr ' \\' '\n\n' | grep '^/' | sort -u

# make, and gcc's link step: collect2, ld, the crt files, libc and libm
command -v make
readlink -f "$(gcc -print-prog-name=collect2)"
ld=$(gcc -print-prog-name=ld)
case $ld in /*) ;; *) ld=$(command -v "$ld") ;; esac
echo "$ld"  # the link itself (collect2 looks for "ld"): copy_path follows it
for f in crt1.o Scrt1.o crti.o crtn.o crtbegin.o crtend.o crtbeginS.o crtendS.o libc.so libc_nonshared.a libm.so \
	libgcc.a libgcc_s.so libgcc_s.so.1 liblto_plugin.so libmvec.so libc.so.6 libm.so.6; do
	p=$(gcc -print-file-name="$f")
	[ "${p#/}" != "$p" ] && [ -e "$p" ] && readlink -f "$p"
done
# libc.so and libm.so are linker scripts naming these
ls /usr/lib/x86_64-linux-gnu/libc_nonshared.a /lib/x86_64-linux-gnu/libc.so.6 \
	/lib/x86_64-linux-gnu/libm.so.6 /lib64/ld-linux-x86-64.so.2 \
	/usr/lib/x86_64-linux-gnu/libmvec.so.1 /lib/x86_64-linux-gnu/libmvec.so.1 2> /dev/null || true

# The workload bench's extras (tests/bench/vm-workloads.sh, "# vm-needs:
# workloads bench-workloads"): the modules of its python3 import line, the
# math header its C files include, tar and git. Not for the test
# suites: ssl alone brings libssl and libcrypto.
[ "${RF_VM_BENCH_WORKLOADS:-0}" = 1 ] || exit 0
env -i PATH=/usr/bin:/bin LANG=C HOME=/root "$PY" - << 'EOF2'
import importlib.util, os, sys
import json, sqlite3, ssl, email, http.client
seen = set()
for m in list(sys.modules.values()):
    f = getattr(m, '__file__', None)
    if not f or not os.path.isabs(f):
        continue
    seen.add(f)
    if f.endswith('.py'):
        c = importlib.util.cache_from_source(f)
        if os.path.exists(c):
            seen.add(c)
for f in sorted(seen):
    print(f)
EOF2
# -O2: stdio.h then includes bits/stdio.h (its inline functions)
printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <math.h>\n' |
	gcc -O2 -M -x c - | tr ' \\' '\n\n' | grep '^/' | sort -u
command -v tar git
