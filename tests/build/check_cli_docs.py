#!/usr/bin/env python3
"""tests/build/check_cli_docs.py BUILD: the command-line tables (what
BUILD/tests/build/cli_dump prints: the parsers' own tables) against what a
person reads and what the shells offer:

  - man/ringfence.1.scd: every command in COMMANDS, every option in
    OPTIONS (with its short name), each command's SYNOPSIS line names
    exactly the options it takes, every --require/--prefer backend, every
    exit code the code defines in EXIT STATUS;
  - man/ringfence-monitor.8.scd: every option, every exit code;
  - README.md's "Command line": every option and backend;
    docs/trace-and-alerts.md's table of the monitor's options: every one;
  - dist/bash-completion/*: run with bash-completion, each command offers
    exactly its options, the commands and the backends;
  - dist/zsh-completion/_ringfence*, dist/fish-completion/*.fish: the same,
    read from the files (each command's block, each `complete` line), and,
    where zsh or fish is installed (make deps), their syntax checked and
    the same questions asked of the shell itself (zsh through a
    pseudo-terminal: tests/build/zsh_complete.zsh).

No root. One "ok - " / "not ok - " line per check (TAP style); exit 1 on any
"not ok". Hidden (test-only) options and internal commands are in none of
them.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
failed = False


def check(desc, missing):
    """ok when missing (a list of what lacks) is empty."""
    global failed
    if missing:
        failed = True
        print(f"not ok - {desc}: {' '.join(sorted(set(missing)))}")
    else:
        print(f"ok - {desc}")


class Table:
    """One program's table, from cli_dump."""

    def __init__(self, text):
        self.verbs, self.opts, self.values, self.exits = [], {}, {}, []
        for line in text.splitlines():
            f = line.split("\t")
            if f[0] == "prog":
                self.prog = f[1]
            elif f[0] == "verb" and f[5] != "hidden":
                self.verbs.append(f[1])
            elif f[0] == "option":
                flags = set(f[6].split(",")) - {"-"}
                if "hidden" in flags:
                    continue
                self.opts[f[1]] = {
                    "short": None if f[2] == "-" else f[2],
                    "kind": f[3],
                    "verbs": set(f[5].split(",")) - {"-"},
                    "flags": flags,
                }
            elif f[0] == "value":
                self.values.setdefault(f[1], []).append(f[2])
            elif f[0] == "exit":
                self.exits.append(f[1])

    def of(self, verb):
        """The long options verb takes (None: before any command)."""
        if verb is None:
            return {o for o, d in self.opts.items() if "global" in d["flags"]}
        return {o for o, d in self.opts.items() if verb in d["verbs"]}

    def all_values(self):
        return sorted({v for vs in self.values.values() for v in vs})


def read(path):
    """The file's text; a missing file is a failed check and reads as ""."""
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        check(f"{path} exists", [path])
        return ""


def section(text, title):
    """The lines of a scdoc section ("# TITLE" to the next "# ")."""
    m = re.search(r"^# " + re.escape(title) + r"\n(.*?)(?=^# |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


def longs(text):
    return set(re.findall(r"--[a-z][a-z0-9-]*", text))


def check_man_ringfence(t):
    man = read("man/ringfence.1.scd")
    cmds = section(man, "COMMANDS")
    check("ringfence.1: COMMANDS describes every command",
          [v for v in t.verbs if not re.search(r"^\*" + v + r"\*$", cmds, re.M)])
    opts = section(man, "OPTIONS")
    heads = "\n".join(l for l in opts.splitlines() if l and not l.startswith("\t"))
    missing = []
    for o, d in t.opts.items():
        pat = (r"\*" + d["short"] + ", " if d["short"] else r"\*") + re.escape(o) + r"\b"
        if not re.search(pat, heads):
            missing.append(o if not d["short"] else f"{d['short']},{o}")
    check("ringfence.1: OPTIONS describes every option (and its short name)", missing)
    syn = section(man, "SYNOPSIS")
    for v in t.verbs:
        line = next((l for l in syn.splitlines() if l.startswith(f"*ringfence {v}*")), None)
        if line is None:
            check(f"ringfence.1: SYNOPSIS has a line for {v}", [v])
            continue
        named = longs(line) | {o for o, d in t.opts.items()
                               if d["short"] and f"*{d['short']}*" in line}
        want = {o for o in t.of(v) if "no-synopsis" not in t.opts[o]["flags"]}
        check(f"ringfence.1: SYNOPSIS of {v} names exactly its options",
              [f"lacks:{o}" for o in want - named] + [f"extra:{o}" for o in named - want])
    check("ringfence.1: every --require/--prefer backend is named",
          [v for v in t.all_values() if not re.search(r"\*" + re.escape(v) + r"\*", man)])
    ex = section(man, "EXIT STATUS")
    check("ringfence.1: EXIT STATUS lists every exit code the code defines",
          [c for c in t.exits if not re.search(r"^\*" + c + r"\*$", ex, re.M)])


def check_man_monitor(t):
    man = read("man/ringfence-monitor.8.scd")
    opts = section(man, "OPTIONS")
    heads = "\n".join(l for l in opts.splitlines() if l and not l.startswith("\t"))
    check("ringfence-monitor.8: OPTIONS describes every option",
          [o for o in t.opts if not re.search(re.escape(o) + r"\b", heads)])
    ex = section(man, "EXIT STATUS")
    check("ringfence-monitor.8: EXIT STATUS lists every exit code",
          [c for c in t.exits if not re.search(r"\*" + c + r"\*", ex)])


def check_monitor_doc(t):
    m = re.search(r"^## ringfence-monitor\n(.*?)(?=^### )", read("docs/trace-and-alerts.md"), re.M | re.S)
    rows = "\n".join(l for l in (m.group(1) if m else "").splitlines() if l.startswith("| `"))
    check("docs/trace-and-alerts.md: the monitor's option table names every option",
          sorted(set(t.opts) - longs(rows)))


def check_readme(t):
    m = re.search(r"^## Command line\n(.*?)(?=^## )", read("README.md"), re.M | re.S)
    text = m.group(1) if m else ""
    check("README.md: Command line names every option", sorted(set(t.opts) - longs(text)))
    check("README.md: Command line names every backend",
          [v for v in t.all_values() if f"`{v}`" not in text])


BASH_COMP = "/usr/share/bash-completion/bash_completion"


def bash_complete(*words):
    """What the bash completion offers for the last of words."""
    script = r'''. "$1"; . "$2/dist/bash-completion/ringfence"; . "$2/dist/bash-completion/ringfence-monitor"
shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
f=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/"); $f "$1" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
printf "%s\n" "${COMPREPLY[@]}"'''
    out = subprocess.run(["bash", "-c", script, "_", BASH_COMP, ROOT, *words],
                         capture_output=True, text=True).stdout
    return {w for w in out.split("\n") if w}


def diff(want, got):
    return [f"lacks:{w}" for w in want - got] + [f"extra:{g}" for g in got - want]


def check_bash(rf, mon):
    if not os.path.exists(BASH_COMP):
        check("bash-completion is installed (make deps)", [BASH_COMP])
        return
    check_offers("bash", lambda line: bash_complete(*line.split(" ")), rf, mon, shorts=False)


def offered(out):
    return {w.strip() for w in out.split("\n") if w.strip()}


def check_offers(shell, complete, rf, mon, shorts=True):
    """The same questions of any shell: complete(line) -> the set offered;
    shorts: it offers the short names beside the long ones after "-"."""
    check(f"{shell}: ringfence offers every command", diff(set(rf.verbs), complete("ringfence ")))
    top = complete("ringfence -")
    check(f"{shell}: ringfence - offers the options taken before a command",
          diff(rf.of(None), {w for w in top if w.startswith("--")} if shorts else top))
    for v in rf.verbs:
        got = {w for w in complete(f"ringfence {v} --") if w != "--"}
        check(f"{shell}: ringfence {v} -- offers exactly its options", diff(rf.of(v), got))
    for o, vals in rf.values.items():
        check(f"{shell}: ringfence run {o} offers every value",
              diff(set(vals), complete(f"ringfence run {o} ")))
    check(f"{shell}: ringfence-monitor -- offers exactly its options",
          diff(mon.of(None), complete("ringfence-monitor --")))


def check_read(shell, files, text, read_offers, rf, mon):
    """The same questions of any completion as read from its files (files:
    the ringfence and ringfence-monitor ones; text: the first one's);
    read_offers = (its commands, the options before a command, {command:
    its options}, the monitor's options)."""
    cmds, top, per_verb, mon_opts = read_offers
    check(f"{shell}: {files[0]} lists every command", diff(set(rf.verbs), cmds))
    check(f"{shell}: {files[0]} offers the options taken before a command", diff(rf.of(None), top))
    for v in rf.verbs:
        check(f"{shell}: {files[0]} {v} offers exactly its options",
              diff(rf.of(v), per_verb.get(v, set())))
    check(f"{shell}: {files[0]} names every backend",
          [v for v in rf.all_values() if not re.search(r"\b" + re.escape(v) + r"\b", text)])
    check(f"{shell}: {files[1]} offers exactly its options", diff(mon.of(None), mon_opts))


def check_live(shell, folder, files, complete, rf, mon):
    """Where the shell is installed: its syntax check of files (in folder),
    then check_offers of the shell itself."""
    exe = shutil.which(shell)
    if not exe:
        print(f"# {shell} not installed: its syntax check is skipped")
        return
    bad = [f for f in files if subprocess.run([exe, "-n", os.path.join(ROOT, folder, f)]).returncode]
    check(f"{shell} -n: the completions parse", bad)
    if not bad:
        check_offers(shell, complete, rf, mon)


def zsh_complete(line):
    out = subprocess.run(["zsh", "-f", os.path.join(ROOT, "tests/build/zsh_complete.zsh"),
                          os.path.join(ROOT, "dist/zsh-completion"), line],
                         capture_output=True, text=True, timeout=60).stdout
    return offered(out)


def fish_complete(line):
    script = ('source "$argv[1]/ringfence.fish"; source "$argv[1]/ringfence-monitor.fish"; '
              'complete -C "$argv[2]"')
    out = subprocess.run(["fish", "-N", "-c", script, os.path.join(ROOT, "dist/fish-completion"),
                          line], capture_output=True, text=True, timeout=60).stdout
    return offered("\n".join(l.split("\t")[0] for l in out.split("\n")))


def zsh_blocks(text):
    """{verb: the options in its case branch "(verb)" ... ";;"}."""
    return {m.group(1): longs(m.group(2))
            for m in re.finditer(r"^\s*\(([a-z-]+)\)\s*\n(.*?);;", text, re.M | re.S)}


def check_zsh(rf, mon):
    files = ("_ringfence", "_ringfence-monitor")
    text = read("dist/zsh-completion/_ringfence")
    cmds = re.search(r"commands=\((.*?)\n\s*\)", text, re.S)
    top = re.search(r"#\s*before a command\n(.*?)\n\s*\n", text, re.S)
    check_read("zsh", files, text,
               (set(re.findall(r"'([a-z-]+):", cmds.group(1)) if cmds else []),
                longs(top.group(1)) if top else set(), zsh_blocks(text),
                longs(read("dist/zsh-completion/_ringfence-monitor"))), rf, mon)
    check_live("zsh", "dist/zsh-completion", files, zsh_complete, rf, mon)


def fish_pairs(text, prog):
    """{(verb or None, --long)} of the `complete -c prog ... -l long` lines;
    and the commands of `-n __fish_use_subcommand -a VERB` lines."""
    pairs, cmds = set(), set()
    sets = dict(re.findall(r"^set -l (\w+) ([^'\n]*)$", text, re.M))
    text = re.sub(r"\$(\w+)", lambda m: sets.get(m.group(1), m.group(0)), text)
    for line in text.splitlines():
        if not re.match(r"complete -c " + re.escape(prog) + r"\b", line):
            continue
        m = re.search(r"-l ([a-z][a-z0-9-]*)", line)
        seen = re.search(r"__fish_seen_subcommand_from ([a-z -]+)", line)
        if m:
            verbs = seen.group(1).split() if seen else [None]
            pairs |= {(v, "--" + m.group(1)) for v in verbs}
        elif "__fish_use_subcommand" in line:
            a = re.search(r"-a ([a-z-]+)\b", line)
            if a:
                cmds.add(a.group(1))
    return pairs, cmds


def check_fish(rf, mon):
    files = ("ringfence.fish", "ringfence-monitor.fish")
    text = read("dist/fish-completion/ringfence.fish")
    pairs, cmds = fish_pairs(text, "ringfence")
    mpairs, _ = fish_pairs(read("dist/fish-completion/ringfence-monitor.fish"), "ringfence-monitor")
    check_read("fish", files, text,
               (cmds, {o for v, o in pairs if v is None},
                {v: {o for w, o in pairs if w == v} for v in rf.verbs},
                {o for _, o in mpairs}), rf, mon)
    check_live("fish", "dist/fish-completion", files, fish_complete, rf, mon)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    dump = os.path.join(build, "tests/build/cli_dump")
    if not os.access(dump, os.X_OK):
        print(f"not ok - {dump} is built (make {dump})")
        return 1
    rf = Table(subprocess.run([dump, "ringfence"], capture_output=True, text=True, check=True).stdout)
    mon = Table(subprocess.run([dump, "ringfence-monitor"], capture_output=True, text=True,
                               check=True).stdout)
    # the dump itself: not vacuous
    check("cli_dump: both tables have their commands and options",
          [x for x, ok in (("verbs", len(rf.verbs) >= 7), ("options", len(rf.opts) >= 15),
                           ("backends", len(rf.all_values()) >= 5),
                           ("exits", len(rf.exits) >= 5),
                           ("monitor options", len(mon.opts) >= 25)) if not ok])
    check_man_ringfence(rf)
    check_man_monitor(mon)
    check_readme(rf)
    check_monitor_doc(mon)
    check_bash(rf, mon)
    check_zsh(rf, mon)
    check_fish(rf, mon)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
