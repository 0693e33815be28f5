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
