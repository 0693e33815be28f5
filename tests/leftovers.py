#!/usr/bin/env python3
"""What a suite of `make test` left running on the host, killed and removed.

    tests/leftovers.py snapshot BUILD_DIR > FILE
        what lives now: processes of this build's ringfence and
        ringfence-monitor (pid, start time) and the sandboxes the registry
        names.
    tests/leftovers.py clean BUILD_DIR FILE
        after a suite: what is new since FILE and is this build's (its
        processes; sandboxes whose supervisor is one of them or gone) gets
        a few seconds to end by itself (a reaper cleaning up), then is
        killed (processes: SIGKILL; sandboxes: cgroup.kill). Then
        `BUILD_DIR/ringfence gc` removes whatever dead sandboxes left.
    tests/leftovers.py selftest BUILD_DIR
        leaks a sandbox with a live supervisor and one kept running without
        it, then checks that clean finds, kills, removes and names them.
    tests/leftovers.py clean BUILD_DIR
        before the first suite: every process of this build and its
        sandboxes are leftovers of an earlier run; sandboxes of other
        supervisors that still run (or were kept running) are not ours:
        they are named, not touched.

Prints one "left: ..." line per thing that was still live, "# gc: ..."
notes for what gc removed; exits 1 when anything was live (the suite
leaked, or the host was not clean at the start). Sandboxes are this
build's by their supervisor's binary, whatever pinned set (one per build,
/sys/fs/bpf/ringfence/<set>, the registry file's pin_set) enforces them:
a leftover live supervisor holds its set's live lock and keeps that set
pinned beside the next builds' (their runs are not refused), so it is the
leaking suite that must fail, not a later one. Needs root; run by
tests/run_all.sh.
"""
import json
import os
import signal
import subprocess
import sys
import time

REGISTRY = "/run/ringfence/sandboxes"
GRACE_S = 5.0


def proc_start(pid):
    """Start time of pid, or None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if rest[0] in "ZX" else int(rest[19])


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def build_procs(build):
    """{pid: start} of live processes running this build's binaries."""
    exes = {os.path.join(build, "ringfence"), os.path.join(build, "ringfence-monitor")}
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            exe = os.readlink(f"/proc/{d}/exe")
        except OSError:
            continue
        if exe.endswith(" (deleted)"):
            exe = exe[: -len(" (deleted)")]
        start = proc_start(d)
        if exe in exes and start is not None and int(d) != os.getpid():
            out[int(d)] = start
    return out


def sandboxes():
    """{name: registry entry} of the sandboxes the registry names."""
    out = {}
    try:
        names = os.listdir(REGISTRY)
    except OSError:
        return out
    for n in names:
        if not n.endswith(".json"):
            continue
        try:
            with open(os.path.join(REGISTRY, n)) as f:
                out[n[:-5]] = json.load(f)
        except (OSError, ValueError):
            continue
    return out


def supervisor_alive(e):
    pid, start = e.get("supervisor_pid", 0), e.get("supervisor_start", 0)
    return pid > 0 and proc_start(pid) == start


def populated(e):
    try:
        with open(os.path.join(e.get("cgroup_path", "/nonexistent"), "cgroup.events")) as f:
            return "populated 1\n" in f.readlines()
    except OSError:
        return False


def runs_sleep(e):
    """The sandbox's command, /bin/sleep, is running in its cgroup."""
    try:
        with open(os.path.join(e.get("cgroup_path", "/nonexistent"), "cgroup.procs")) as f:
            pids = f.read().split()
    except OSError:
        return False
    for p in pids:
        try:
            with open(f"/proc/{p}/comm") as c:
                if c.read().strip() == "sleep":
                    return True
        except OSError:
            pass
    return False


def live(e):
    """Its supervisor runs, or it was kept running without one (gc kills
    and removes the others)."""
    return supervisor_alive(e) or (e.get("on_supervisor_exit") == "keep-running" and populated(e))


def build_set(build):
    """This build's pinned set name (first 16 hex digits of its build id,
    gen/build_id.h), or None when it cannot be read."""
    try:
        with open(os.path.join(build, "gen", "build_id.h")) as f:
            hexes = [b.strip()[2:] for b in f.read().split("{", 1)[1].split("}")[0].split(",")]
        return "".join(hexes[:8]).lower()
    except (OSError, IndexError):
        return None


def snapshot(build):
    json.dump({"procs": build_procs(build), "sandboxes": sorted(sandboxes())}, sys.stdout)


def leftovers(build, before):
    """(processes, ours, foreign): what is new since before (None: the
    start, everything) and still live. A new sandbox is ours when its
    supervisor is one of this build's processes, or (during a suite) gone
    (a kept sandbox) and this build's set enforces it (another build's set:
    another checkout's suite); others are named but not touched."""
    old_procs = {int(p): s for p, s in before["procs"].items()} if before else {}
    old_sb = set(before["sandboxes"]) if before else set()
    procs = {p: s for p, s in build_procs(build).items() if old_procs.get(p) != s}
    sbs, foreign = {}, {}
    own_set = build_set(build)
    for name, e in sandboxes().items():
        if name in old_sb or not live(e):
            continue
        same_set = e.get("pin_set") in (None, own_set) or own_set is None
        mine = e.get("supervisor_pid") in procs or (
            before is not None and not supervisor_alive(e) and same_set)
        (sbs if mine else foreign)[name] = e
    return procs, sbs, foreign


def clean(build, before):
    deadline = time.monotonic() + (GRACE_S if before is not None else 0)
    while True:
        procs, sbs, foreign = leftovers(build, before)
        if not (procs or sbs) or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    for p, start in procs.items():
        print(f"left: process {p} ({cmdline(p)}): killed")
        if proc_start(p) == start:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for name, e in sbs.items():
        print(f"left: sandbox {name} (cgroup {e.get('cgroup_path')}): killed")
        try:
            with open(os.path.join(e["cgroup_path"], "cgroup.kill"), "w") as f:
                f.write("1")
        except (OSError, KeyError):
            pass
    for name, e in foreign.items():
        pid = e.get("supervisor_pid", 0)
        print(f"left: sandbox {name} of another ringfence ({cmdline(pid)}, pid {pid}): "
              f"not this build's, left alone")
    # Killed supervisors' reapers clean up; gc takes what is left.
    end = time.monotonic() + 3
    while (procs or sbs) and time.monotonic() < end and any(
            n in sandboxes() and live(e) for n, e in sbs.items()):
        time.sleep(0.1)
    gc = subprocess.run([os.path.join(build, "ringfence"), "gc"], capture_output=True, text=True)
    for line in (gc.stdout + gc.stderr).splitlines():
        print(f"# gc: {line}")
    return 1 if procs or sbs or foreign else 0


def selftest(build):
    """Leak on purpose, then clean: a live supervisor and a sandbox kept
    running without one are found, killed, removed and reported; a second
    clean finds nothing. ok/not ok lines; 0 when all hold."""
    import contextlib
    import io
    import tempfile

    rf = os.path.join(build, "ringfence")
    fails = 0

    def check(cond, what):
        nonlocal fails
        print(("ok - " if cond else "not ok - ") + "leftovers: " + what)
        fails += not cond

    def mine():
        return {n: e for n, e in sandboxes().items() if n.startswith("leftover-selftest-")}

    def until(cond, s=10.0):
        end = time.monotonic() + s
        while not cond() and time.monotonic() < end:
            time.sleep(0.05)
        return cond()

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write('{"version":1,"id":"leftover-selftest","files":"unrestricted",'
                '"exec":"unrestricted","network":"unrestricted"}')
    before = io.StringIO()
    with contextlib.redirect_stdout(before):
        snapshot(build)
    before = json.loads(before.getvalue())
    argv = [rf, "run", "-q", "--policy", f.name, "--", "/bin/sleep", "300"]
    live_sup = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    until(lambda: len(mine()) == 1)
    kept_sup = subprocess.Popen(argv[:2] + ["--keep-running"] + argv[2:],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    # both commands running (their registry files come before the launch:
    # a supervisor killed mid-launch takes its sandbox with it)
    until(lambda: len(mine()) == 2 and all(runs_sleep(e) for e in mine().values()))
    kept_sup.kill()
    kept_sup.wait()
    check(len(mine()) == 2 and all(live(e) for e in mine().values()),
          "a live supervisor's sandbox and one kept without its supervisor are set up")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = clean(build, before)
    live_sup.wait()
    text = out.getvalue()
    check(rc == 1, f"clean after the leak exits 1 (got {rc})")
    check(f"left: process {live_sup.pid} " in text, "the live supervisor is named")
    check(text.count("left: sandbox leftover-selftest-") == 2, "both sandboxes are named")
    check(until(lambda: not mine()), "nothing of them is left in the registry")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = clean(build, before)
    check(rc == 0 and "left:" not in out.getvalue(), "a second clean finds nothing")
    os.unlink(f.name)
    return 1 if fails else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "selftest":
        return selftest(os.path.realpath(sys.argv[2]))
    if len(sys.argv) < 3 or sys.argv[1] not in ("snapshot", "clean"):
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    build = os.path.realpath(sys.argv[2])
    if sys.argv[1] == "snapshot":
        snapshot(build)
        return 0
    before = None
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as f:
            before = json.load(f)
    return clean(build, before)


if __name__ == "__main__":
    sys.exit(main())
