#!/usr/bin/env python3
"""A monitor recording (ringfence-monitor --record format) that makes every
rule fire with every kind of evidence, for `--replay`:
  - deny-burst: IPv4 and IPv6 connects, a UDP send, socket creations with
    no address (SCTP), unix connects, and an audit-mode burst;
  - failed-ops: file opens, a directory created (mkdir), exec, a kill;
  - syscall: one refused (EPERM) and one that succeeded, outside the profile
    (the sensor's), one let through and one refused (the seccomp listener's);
  - resource: memory and pids over their thresholds, a cpu rise;
  - lost events; sandboxes shed from a full table;
  - correlation labels and a W3C traceparent on one sandbox;
  - dns-tunnel: distinct names under one suffix, a long and a random label;
    the DNS gate's records (answered A and AAAA, refused, failed, over TCP)
    also become DNS Activity records with --activity;
  - unexpected-exec: git run by python3 where monitor.exec lists python3,
    in a sandbox whose on_alert is kill (a replay never acts);
  - egress-volume: the ledger's flow records (outbound IPv4 with the DNS
    gate's name, IPv6, UDP, an inbound one, final ones) past
    monitor.egress_bytes, for the sandbox and for one destination; they
    also become Network Activity records with --activity;
  - unexpected-file: the supervisor's records of opens outside monitor.files
    (flags UNEXPECTED|ACCESS): a file read then written by python3, a
    program exec'd from /tmp.
Usage: recording.py > FILE
"""
import json

MS = 1000000
T0 = 500 * 1000 * MS
out = []


def rec(**kw):
    out.append(kw)


def sandbox(t, cg, name, **extra):
    d = dict(t=t, type="sandbox", cgroup_id=cg, sandbox=name, policy_id="pol-" + name,
             cgroup_path="/sys/fs/cgroup/ringfence/" + name)
    d.update(extra)
    rec(**d)


def decision(t, cg, cls, op, verdict=1, reason=1, family=0, port=0, protocol=0,
             addr="0" * 32, path="", comm="tool", pid=900, **more):
    d = dict(t=t, type="decision", cgroup_id=cg, seq=len(out), pid=pid, tid=pid, uid=1000,
             **{"class": cls}, op=op, verdict=verdict, reason=reason, family=family,
             port=port, protocol=protocol, addr=addr, comm=comm, **more)
    if path:
        d["path"] = path
    rec(**d)


V4 = "7f000001" + "0" * 24
V6 = "0" * 31 + "1"

rec(ringfence_monitor_record=1, version="1", boot_to_real_ns=1795000000000000000,
    ticks=False, tick_ms=250,
    defaults=dict(burst_count=3, burst_window_ms=1000, linger_ms=2000, update_ms=10000,
                  max_sandboxes=6))
sandbox(T0, 11, "sb-net", monitor=dict(memory_mb=64, pids=8, cpu_percent=90),
        labels={"job": "ci-42", "tool.call": "fetch 7"},
        traceparent="00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
sandbox(T0, 12, "sb-unix")
sandbox(T0, 13, "sb-files", syscalls=dict(allow=["read", "write"], on_violation="alert"))
sandbox(T0, 14, "sb-audit")
rec(t=T0 + MS, type="exec", cgroup_id=11, pid=900, ppid=899, uid=1000, comm="curl",
    path="/usr/bin/curl")
rec(t=T0 + MS, type="proc", cgroup_id=13, pid=901, tid=901, ppid=1, uid=1000, comm="make")
t = T0 + 10 * MS
for i in range(4):
    t += MS
    decision(t, 11, 0, 1, reason=2, family=2, port=9, protocol=6, addr=V4, comm="curl")
    decision(t, 11, 0, 2, family=10, port=443, protocol=6, addr=V6, comm="curl")
    decision(t, 11, 0, 3, family=2, port=53, protocol=17, addr=V4, comm="curl")
    decision(t, 11, 0, 7, reason=6, family=2, protocol=132, comm="curl")
    decision(t, 12, 1, 5, family=1, path="/run/dbus/system_bus_socket", comm="busctl")
    decision(t, 13, 2, 8, reason=7, path="/etc/shadow", comm="make", pid=901)
    decision(t, 13, 2, 13, path="/srv/newdir", comm="make", pid=901)
    decision(t, 13, 3, 9, path="/usr/bin/nc", comm="make", pid=901)
    decision(t, 13, 4, 28, reason=8, comm="make", pid=901)
    decision(t, 14, 0, 1, verdict=2, family=2, port=80, protocol=6, addr=V4, comm="wget")
rec(t=T0 + 400 * MS, type="syscall", cgroup_id=13, pid=901, uid=1000, comm="make", nr=101,
    err=1, name="ptrace")
rec(t=T0 + 401 * MS, type="syscall", cgroup_id=13, pid=901, uid=1000, comm="make", nr=165,
    name="mount")
# the supervisor's seccomp listener (class syscalls, op syscall, flags
# SYSCALL|LISTENER): getcpu let through (alert: outcome unknown), then
# keyctl refused (ERRNO_EPERM too)
decision(T0 + 402 * MS, 13, 6, 62, verdict=2, comm="make", pid=901, flags=4 | 64, syscall=309)
decision(T0 + 403 * MS, 13, 6, 62, verdict=1, comm="make", pid=901, flags=4 | 16 | 64,
         syscall=250)
for i in range(1, 6):
    rec(t=T0 + i * 1000 * MS, type="sample", cgroup_id=11, cpu_ns=i * i * 400 * MS,
        mem_bytes=(200 << 20) if i == 3 else (10 << 20), procs=12 if i == 4 else 2,
        procs_peak=12 if i == 4 else 2, src=7)
# DNS: the gate's records (verdict 1 answered, 2 refused, 3 failed)
sandbox(T0 + 500 * MS, 15, "sb-dns",
        monitor=dict(dns_names=dict(count=5, window_ms=1000), dns_label_len=40,
                     exec=["python3"], on_alert="kill"))


def dns(t, name, suffix="example.com", verdict=1, qtype=1, rcode=0, protocol=17,
        family=2, addr="5db8d822" + "0" * 24, granted=1, reason=0):
    off = len(name) - len(suffix) if suffix else 0xffff
    rec(t=t, type="dns", cgroup_id=15, seq=len(out), pid=800, verdict=verdict, reason=reason,
        qtype=qtype, rcode=rcode, protocol=protocol, suffix_off=off,
        family=family if granted else 0, n_granted=granted, n_dropped=0, ttl=300,
        latency_us=1500, addr=addr if granted else "0" * 32, name=name)


for i in range(8):
    dns(T0 + 600 * MS + i * MS, "n%d.example.com" % i)
dns(T0 + 610 * MS, "v6.example.com", qtype=28, family=10, addr="20010db8" + "0" * 23 + "1",
    protocol=6)
dns(T0 + 611 * MS, "blocked.evil.test", suffix=None, verdict=2, rcode=5, granted=0, reason=10)
dns(T0 + 612 * MS, "slow.example.com", verdict=3, rcode=2, granted=0)
dns(T0 + 613 * MS, "a" * 45 + ".example.com")
dns(T0 + 614 * MS, "mzxw6ytboi4dsnrugq3tmnzyhe2dcmrt.example.com")
rec(t=T0 + 620 * MS, type="exec", cgroup_id=15, pid=810, ppid=809, uid=1000, comm="python3",
    path="/usr/bin/python3")
rec(t=T0 + 621 * MS, type="fork", cgroup_id=15, pid=811, ppid=810, uid=1000, comm="python3")
rec(t=T0 + 622 * MS, type="exec", cgroup_id=15, pid=811, ppid=810, uid=1000, comm="git",
    path="/usr/bin/git")
# monitor.files: flags 128 (RF_EVF_UNEXPECTED) | 2 (ACCESS), class file, op
# open (8) or exec (9), need the access bits, target_pid the parent
decision(T0 + 623 * MS, 15, 2, 8, verdict=0, reason=0, path="/etc/hostname", comm="python3",
         pid=810, flags=130, need=1, target_pid=809)
decision(T0 + 624 * MS, 15, 2, 8, verdict=0, reason=0, path="/etc/hostname", comm="python3",
         pid=810, flags=130, need=2, target_pid=809)
decision(T0 + 625 * MS, 15, 2, 9, verdict=0, reason=0, path="/tmp/x/tool", comm="python3",
         pid=811, flags=130, need=4, target_pid=810)
# the ledger's flows (type flow: what is new since the flow's previous record)
sandbox(T0 + 700 * MS, 16, "sb-flows", monitor=dict(egress_bytes=100000, egress_window_ms=5000),
        labels={"job": "ci-43"})
V4_LO = "7f000001" + "0" * 24
V4_NET = "cb007107" + "0" * 24


def flow(t, addr, port, sent, rcvd, conns, tot, family=2, proto=6, flags=0, name="",
         final=False, since=None):
    d = dict(t=t, type="flow", cgroup_id=16, addr=addr, port=port, family=family,
             proto=proto, flags=flags, connections=conns, bytes_sent=sent,
             bytes_received=rcvd, since_ns=since if since else t - 1000 * MS,
             total_connections=tot[0], total_bytes_sent=tot[1], total_bytes_received=tot[2],
             first_ns=T0 + 700 * MS, last_ns=t - MS)
    if name:
        d["name"] = name
    if final:
        d["final"] = True
    rec(**d)


flow(T0 + 1000 * MS, V4_NET, 443, 60000, 900, 1, (1, 60000, 900), name="up.example.com")
flow(T0 + 1000 * MS, V4_LO, 8080, 10, 20, 1, (1, 10, 20), flags=2)
flow(T0 + 1000 * MS, V6, 443, 300, 4000, 1, (1, 300, 4000), family=10, flags=2)
flow(T0 + 1000 * MS, V4_NET, 53, 40, 120, 1, (1, 40, 120), proto=17)
flow(T0 + 1000 * MS, V4_LO, 9000, 5, 500, 1, (1, 5, 500), flags=1 | 2)
flow(T0 + 2000 * MS, V4_NET, 443, 70000, 100, 0, (1, 130000, 1000), name="up.example.com")
flow(T0 + 3000 * MS, V4_NET, 443, 5000, 0, 1, (2, 135000, 1000), name="up.example.com",
     final=True)
flow(T0 + 3000 * MS, V4_LO, 8080, 0, 0, 0, (1, 10, 20), flags=2, final=True)
# unix peers (family 1, proto the socket type, addr a hash of the name):
# connections only, named by the socket's name
flow(T0 + 1000 * MS, "a1" * 16, 0, 0, 0, 2, (2, 0, 0), family=1, proto=1,
     name="/run/app.sock")
flow(T0 + 3000 * MS, "a1" * 16, 0, 0, 0, 1, (3, 0, 0), family=1, proto=1,
     name="/run/app.sock", final=True)
flow(T0 + 3000 * MS, "b2" * 16, 0, 0, 0, 4, (4, 0, 0), family=1, proto=2,
     name="@bus-abstract", final=True)
# a unix peer whose bytes are counted (flags 4: the socket length
# tracepoints were attached for its sandbox): traffic as an IP flow's
flow(T0 + 1000 * MS, "c3" * 16, 0, 700, 90, 1, (1, 700, 90), family=1, proto=1, flags=4,
     name="/run/counted.sock")
flow(T0 + 3000 * MS, "c3" * 16, 0, 300, 10, 0, (1, 1000, 100), family=1, proto=1, flags=4,
     name="/run/counted.sock", final=True)
# unix sockets the sandbox did not connect: its server's accepted
# connections (flags 1, inbound: named by its listening name) and a
# socketpair (flags 16: no name)
flow(T0 + 3000 * MS, "d4" * 16, 0, 700, 3000, 1, (1, 700, 3000), family=1, proto=1,
     flags=5, name="/run/own.sock", final=True)
flow(T0 + 3000 * MS, "e5" * 16, 0, 3200, 3200, 2, (2, 3200, 3200), family=1, proto=1,
     flags=20, final=True)
rec(t=T0 + 4000 * MS, type="sandbox_end", cgroup_id=15)
rec(t=T0 + 4000 * MS, type="sandbox_end", cgroup_id=16)
rec(t=T0 + 4500 * MS, type="lost", hop="kernel-decisions", count=42, before_start=True)
# shed: more live sandboxes than the table holds, each with a decision
for i in range(6):
    cg = 100 + i
    sandbox(T0 + 5000 * MS + i * MS, cg, "sb-many-%d" % i)
    decision(T0 + 5000 * MS + i * MS, cg, 0, 1, family=2, port=9, protocol=6, addr=V4)
for cg in (11, 12, 13, 14):
    rec(t=T0 + 6000 * MS, type="sandbox_end", cgroup_id=cg)
for line in out:
    print(json.dumps(line, separators=(",", ":")))
