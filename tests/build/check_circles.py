#!/usr/bin/env python3
"""No import circles: over the built objects' symbols (nm), no two files of
lib/, supervisor/ or monitor/ use each other, directly or through others,
and no two rooms (lib, monitor, supervisor/<room>) do either.

A file uses another when it calls a function or reads a variable that the
other defines; types and inline functions in headers are not uses. Usage:
check_circles.py BUILD  (prints ok/not ok lines; exit 1 on a circle)."""
import os
import subprocess
import sys

build = sys.argv[1] if len(sys.argv) > 1 else 'build'
objs = []
for top in ('lib', 'supervisor', 'monitor'):
    for d, _, fs in os.walk(os.path.join(build, top)):
        objs += [os.path.join(d, f) for f in fs if f.endswith('.o')]
# Only objects of sources in the tree (a build folder may hold old ones).
objs = [o for o in objs if os.path.exists(os.path.relpath(o, build)[:-2] + '.c')]
if not objs:
    print(f'not ok - no objects under {build}: build first')
    sys.exit(1)


def syms(o, flags):
    out = subprocess.check_output(['nm', '-P'] + flags + [o], text=True)
    return {ln.split()[0] for ln in out.splitlines() if ln.strip()}


def unit(o):  # build/supervisor/policy/policy.o -> supervisor/policy/policy.c
    return os.path.relpath(o, build)[:-2] + '.c'


def room(u):
    p = u.split('/')
    return '/'.join(p[:2]) if p[0] == 'supervisor' and len(p) > 2 else p[0]


defs, uses = {}, {}
for o in objs:
    u = unit(o)
    for s in syms(o, ['--defined-only', '-g']):
        defs.setdefault(s, u)
    uses[u] = syms(o, ['-u'])
edges = {u: {defs[s] for s in ss if s in defs and defs[s] != u} for u, ss in uses.items()}


def sccs(graph):
    """Tarjan's strongly connected components (iterative)."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n[0]; n[0] += 1; stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    c = []
                    while True:
                        w = stack.pop(); on.discard(w); c.append(w)
                        if w == v:
                            break
                    if len(c) > 1:
                        out.append(sorted(c))
    return out


def why(graph_uses, a, b):
    return sorted(s for s in uses_of(a) if defs.get(s) in b)[:3]


def uses_of(u):
    return uses.get(u, set())


bad = 0
for c in sccs(edges):
    bad = 1
    ties = []
    for a in c:
        for b in sorted(edges[a] & set(c)):
            names = sorted(s for s in uses[a] if defs.get(s) == b)[:3]
            ties.append(f'{a} -> {b} ({", ".join(names)})')
    print(f'not ok - import circle of {len(c)} files: ' + '; '.join(ties))
if not bad:
    print(f'ok - no import circle among {len(uses)} files')

redges = {}
for a, bs in edges.items():
    redges.setdefault(room(a), set()).update(room(b) for b in bs if room(b) != room(a))
rbad = 0
for c in sccs(redges):
    rbad = 1
    ties = []
    for a in c:
        for b in sorted(redges[a] & set(c)):
            pairs = sorted(f'{x}->{y}' for x in edges if room(x) == a for y in edges[x] if room(y) == b)[:3]
            ties.append(f'{a} -> {b} ({", ".join(pairs)})')
    print(f'not ok - rooms in a circle: ' + '; '.join(ties))
if not rbad:
    print(f'ok - no circle among {len(redges)} rooms')
sys.exit(1 if bad or rbad else 0)
