#!/bin/bash
# tests/build/check_doc_links.sh [DIR]: every relative Markdown link in the
# tree's *.md files resolves: the target file or folder exists and, when the
# link has a #anchor into a .md file, a heading there has that slug (GitHub's
# rule: lower case, punctuation other than - and _ dropped, spaces to -,
# duplicates get -1, -2, ...). Links inside code are not links. TAP-style
# "ok - " / "not ok - " lines, one per file plus one per broken link; exits
# non-zero on any broken link. DIR defaults to the top of this tree; the
# build argument run_all.sh passes to the other build checks is not needed.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -gt 0 ] && [ -d "$1" ] && [ -e "$1/README.md" ] && top=$(cd "$1" && pwd)

check_tree() { # dir: prints TAP lines, returns 1 on a broken link
	python3 - "$1" <<'EOF'
import os, re, sys

top = sys.argv[1]
FENCE = re.compile(r'^\s{0,3}(```|~~~)')
HEADING = re.compile(r'^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$')
LINK = re.compile(r'\]\(([^()\s]+)(?:\s+"[^"]*")?\)')

def strip_code(line):
    return re.sub(r'(`+)(.+?)\1', '', line)

def lines_outside_code(path):
    fenced = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line.rstrip('\n')

def slug(text):
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)  # links: their text
    text = re.sub(r'<[^>]+>', '', text).replace('`', '').strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')

anchors_cache = {}
def anchors(path):
    if path not in anchors_cache:
        seen, out = {}, set()
        for _, line in lines_outside_code(path):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            out.add(s if k == 0 else '%s-%d' % (s, k))
        anchors_cache[path] = out
    return anchors_cache[path]

md = []
for d, dirs, files in os.walk(top):
    dirs[:] = sorted(x for x in dirs if not x.startswith('.') and x != 'build')
    md += [os.path.join(d, f) for f in sorted(files) if f.endswith('.md')]

bad = 0
for path in md:
    rel = os.path.relpath(path, top)
    n_links, broken = 0, []
    for n, line in lines_outside_code(path):
        for target in LINK.findall(strip_code(line)):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target, re.I):
                continue  # http:, https:, mailto: ...
            n_links += 1
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                broken.append('%s:%d: %s: no such file' % (rel, n, target))
            elif anchor and not dest.endswith('.md'):
                broken.append('%s:%d: %s: anchor into a file that is not Markdown' % (rel, n, target))
            elif anchor and anchor not in anchors(dest):
                broken.append('%s:%d: %s: no heading with that anchor in %s'
                              % (rel, n, target, os.path.relpath(dest, top)))
    for b in broken:
        print('not ok - broken link %s' % b)
    if not broken:
        print('ok - %s: %d relative links resolve' % (rel, n_links))
    bad += len(broken)
sys.exit(1 if bad else 0)
EOF
}

# The checker itself can fail: a scratch tree with one good and one broken
# anchor must be reported as broken, and the good one must pass.
selftest() {
	local dir rc out
	dir=$(mktemp -d)
	mkdir -p "$dir/docs"
	printf '# T\n\n## `files` and `exec`\n\n```sh\n# not a heading\n```\n' > "$dir/docs/a.md"
	printf '# R\n\n[ok](docs/a.md#files-and-exec) [bad](docs/a.md#not-a-heading)\n' > "$dir/README.md"
	out=$(check_tree "$dir")
	rc=$?
	rm -rf "$dir"
	[ "$rc" != 0 ] && grep -q 'not ok - broken link README.md:3: docs/a.md#not-a-heading' <<< "$out" &&
		! grep -q 'files-and-exec' <<< "$out"
}

fail=0
if selftest; then
	echo "ok - the link check reports a broken anchor and passes a good one (self-test)"
else
	echo "not ok - the link check reports a broken anchor and passes a good one (self-test)"
	fail=1
fi
check_tree "$top" || fail=1
exit $fail
