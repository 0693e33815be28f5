#!/usr/bin/env python3
"""Network Activity records (--activity) of the replay's flows: the records
of one flow add up to its last totals (each carries what is new since the
flow's previous one), the sandbox is named with its labels, and the DNS
gate's name is the destination's hostname. A unix peer (named by its
socket's name, boundary Localhost) counts connections, and its traffic
only where its bytes are counted (unmapped.bytes_counted).

    check_flows.py ACTIVITY.jsonl
"""
import json
import sys

sums, last, named, unix, counted = {}, {}, False, 0, 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    u = r["unmapped"]
    if r["connection_info"]["protocol_name"] == "unix":
        assert r["connection_info"]["boundary_id"] == 1, r
        k = (r["dst_endpoint"]["name"], u["unix"]["socket_type"])
        unix += 1
        if not u["bytes_counted"]:
            assert "traffic" not in r and "bytes_sent_total" not in u, r
            sums.setdefault(k, [0])[0] += u["connections"]
            last[k] = [u["connections_total"]]
            continue
        counted += 1
        s = sums.setdefault(k, [0, 0, 0])
        s[0] += r["traffic"]["bytes_out"]
        s[1] += r["traffic"]["bytes_in"]
        s[2] += u["connections"]
        last[k] = [u["bytes_sent_total"], u["bytes_received_total"], u["connections_total"]]
        continue
    peer = r["src_endpoint"] if u["inbound"] else r["dst_endpoint"]
    port = (r["dst_endpoint"] if u["inbound"] else peer).get("port")
    k = (peer["ip"], port, r["connection_info"]["protocol_num"], u["inbound"])
    s = sums.setdefault(k, [0, 0, 0])
    s[0] += r["traffic"]["bytes_out"]
    s[1] += r["traffic"]["bytes_in"]
    s[2] += u["connections"]
    assert r["traffic"]["bytes"] == r["traffic"]["bytes_out"] + r["traffic"]["bytes_in"]
    last[k] = [u["bytes_sent_total"], u["bytes_received_total"], u["connections_total"]]
    assert u["sandbox"] == "sb-flows", u
    assert r["metadata"]["labels"] == ["job=ci-43"], r["metadata"]
    named |= r["dst_endpoint"].get("hostname") == "up.example.com"
if not sums or sums != last or not named or not unix or not counted:
    print("sums %s\nlast %s\nnamed %s\nunix %d counted %d" % (sums, last, named, unix, counted),
          file=sys.stderr)
    sys.exit(1)
