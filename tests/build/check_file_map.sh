#!/bin/bash
# tests/build/check_file_map.sh [DIR]: ARCHITECTURE.md's file map is
# complete and true, and private headers stay private.
#   - every product source (bpf/*.c, bpf/*.h, lib/*, supervisor/*/*,
#     monitor/*) has its own line in the "File map" section, starting
#     with its path;
#   - every path ARCHITECTURE.md names (anywhere, code included) exists,
#     and every glob it names (tests/bench/*.sh) matches something;
#   - every *_internal.h is included only by files of its own folder
#     (anywhere in the tree: tests and tools too).
# No root, no build. TAP-style "ok - " / "not ok - " lines; exits non-zero
# on a failure. DIR defaults to the top of this tree; run_all.sh's build
# argument (a folder without ARCHITECTURE.md) is ignored, as
# check_doc_links.sh does.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] && [ -d "$1" ] && [ -e "$1/ARCHITECTURE.md" ] && top=$(cd "$1" && pwd)

check_tree() { # dir: prints TAP lines, returns 1 on a failure
	python3 - "$1" <<'EOF'
import glob, os, re, sys

top = sys.argv[1]
doc_path = os.path.join(top, 'ARCHITECTURE.md')
if not os.path.exists(doc_path):
    print('not ok - ARCHITECTURE.md exists')
    sys.exit(1)
with open(doc_path, encoding='utf-8') as f:
    doc = f.read().splitlines()

def rel_files(pattern):
    return sorted(os.path.relpath(p, top) for p in glob.glob(os.path.join(top, pattern))
                  if os.path.isfile(p))

# The product: what the two binaries and the BPF objects are built from.
product = sorted(set(rel_files('bpf/*.c') + rel_files('bpf/*.h') + rel_files('lib/*') +
                     rel_files('supervisor/*/*') + rel_files('monitor/*')))

# The file map: the lines of the section whose heading is "File map".
in_map, mapped = False, {}
for n, line in enumerate(doc, 1):
    m = re.match(r'^(#{1,6})\s+(.*)', line)
    if m:
        in_map = m.group(2).strip().lower() == 'file map'
        continue
    if in_map:
        m = re.match(r'^\s*`?([\w./-]+)', line)
        if m:
            mapped.setdefault(m.group(1), n)
bad = 0
if not mapped:
    print('not ok - ARCHITECTURE.md has a "## File map" section with one line per file')
    bad += 1
missing = [p for p in product if p not in mapped]
for p in missing:
    print('not ok - %s is a product source but has no line in ARCHITECTURE.md\'s file map' % p)
if not missing:
    print('ok - every product source (%d files) has its line in ARCHITECTURE.md\'s file map'
          % len(product))
bad += len(missing)

# Every path named exists. A path starts with a top-level folder of the
# tree and is not part of a longer path (/usr/lib/...) or a URL.
TOPS = 'bpf|lib|supervisor|monitor|tests|schemas|man|dist|debian|docs|tools'
PATH = re.compile(r'(?<![\w/.@:-])((?:%s)/[\w./*-]*)' % TOPS)
named, stale = set(), []
for n, line in enumerate(doc, 1):
    for p in PATH.findall(line):
        p = p.rstrip('.')
        if p in named:
            continue
        named.add(p)
        hits = glob.glob(os.path.join(top, p)) if '*' in p else \
            ([p] if os.path.exists(os.path.join(top, p)) else [])
        if not hits:
            stale.append((n, p))
for n, p in stale:
    print('not ok - ARCHITECTURE.md:%d names %s, which does not exist' % (n, p))
if not stale:
    print('ok - every path ARCHITECTURE.md names exists (%d paths)' % len(named))
bad += len(stale)

# Private headers: *_internal.h included only from its own folder.
internal = {}
for d, dirs, files in os.walk(top):
    dirs[:] = [x for x in dirs if not x.startswith('.') and x != 'build']
    for f in files:
        if f.endswith('_internal.h'):
            internal.setdefault(f, []).append(os.path.relpath(d, top))
INC = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
leaks, uses = [], 0
for d, dirs, files in os.walk(top):
    dirs[:] = [x for x in dirs if not x.startswith('.') and x != 'build']
    for f in files:
        if not f.endswith(('.c', '.h')):
            continue
        path = os.path.join(d, f)
        here = os.path.relpath(d, top)
        with open(path, encoding='utf-8', errors='replace') as fh:
            for n, line in enumerate(fh, 1):
                m = INC.match(line)
                if not m or not m.group(1).endswith('_internal.h'):
                    continue
                base = os.path.basename(m.group(1))
                homes = internal.get(base, [])
                uses += 1
                if here not in homes:
                    leaks.append('%s:%d includes %s, private to %s' % (
                        os.path.relpath(path, top), n, m.group(1),
                        ', '.join(h + '/' for h in homes) or 'no folder (not found)'))
for l in leaks:
    print('not ok - %s' % l)
if not leaks:
    print('ok - each of %d *_internal.h headers is included only from its own folder '
          '(%d includes)' % (sum(len(v) for v in internal.values()), uses))
bad += len(leaks)
sys.exit(1 if bad else 0)
EOF
}

# The checker itself can fail: a scratch tree with a source the map lacks,
# a mapped file that is gone and a private header used from another folder
# must give three failures; the same tree repaired must pass.
selftest() {
	local dir out rc1 rc2
	dir=$(mktemp -d)
	mkdir -p "$dir/lib" "$dir/supervisor/a" "$dir/supervisor/b" "$dir/monitor" "$dir/bpf"
	: > "$dir/lib/x.c"
	: > "$dir/supervisor/a/a.c"
	: > "$dir/supervisor/a/a_internal.h"
	printf '#include "a/a_internal.h"\n' > "$dir/supervisor/b/b.c"
	printf '# A\n\n## File map\n\n```\nlib/x.c      x\nlib/gone.c   gone\nsupervisor/a/a.c  a\nsupervisor/a/a_internal.h  private\n```\n' \
		> "$dir/ARCHITECTURE.md"
	out=$(check_tree "$dir")
	rc1=$?
	grep -q '^not ok - supervisor/b/b.c is a product source' <<< "$out" &&
		grep -q '^not ok - ARCHITECTURE.md:7 names lib/gone.c' <<< "$out" &&
		grep -q '^not ok - supervisor/b/b.c:1 includes a/a_internal.h, private to supervisor/a/' \
			<<< "$out" || rc1=0
	printf '\n' > "$dir/supervisor/b/b.c"
	printf '# A\n\n## File map\n\n```\nlib/x.c      x\nsupervisor/a/a.c  a\nsupervisor/a/a_internal.h  private\nsupervisor/b/b.c  b\n```\n' \
		> "$dir/ARCHITECTURE.md"
	check_tree "$dir" > /dev/null
	rc2=$?
	rm -rf "$dir"
	[ "$rc1" != 0 ] && [ "$rc2" = 0 ]
}

fail=0
if selftest; then
	echo "ok - the file-map check reports a missing, a stale and a leaked file and passes a good map (self-test)"
else
	echo "not ok - the file-map check reports a missing, a stale and a leaked file and passes a good map (self-test)"
	fail=1
fi
check_tree "$top" || fail=1
exit $fail
