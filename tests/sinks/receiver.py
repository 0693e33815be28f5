#!/usr/bin/env python3
"""tests/sinks/receiver.py: a local HTTP receiver for ringfence-monitor's
--otlp and --webhook sinks (tests/sinks/run.sh).

  receiver.py --port-file F --out F [--die-after N] [--hang] [--expect-trace ID:SPAN]

Serves POST on 127.0.0.1 (a free port, written to --port-file). A path
ending in /v1/logs is an OTLP/HTTP JSON ExportLogsServiceRequest whose
shape is checked (resourceLogs / scopeLogs / logRecords, severityNumber,
body, attributes, trace and span ids); anything else is a webhook POST of
one OCSF record. Each record taken appends "KIND UID" to --out (the OCSF
metadata.uid), a shape error "INVALID KIND why" (answered 400).
--die-after N: after N records, exit at once without answering (a receiver
killed mid-stream). --hang: accept and never answer.
"""
import argparse
import json
import os
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--out", required=True)
ap.add_argument("--die-after", type=int, default=0)
ap.add_argument("--hang", action="store_true")
ap.add_argument("--expect-trace", default="")
args = ap.parse_args()
lock = threading.Lock()
taken = 0
HEX = re.compile(r"^[0-9a-f]+$")


def kv_list(v, where):
    if not isinstance(v, list):
        raise ValueError(f"{where}: not a list")
    for a in v:
        if not isinstance(a, dict) or not isinstance(a.get("key"), str) or \
                not isinstance(a.get("value"), dict) or len(a["value"]) != 1 or \
                next(iter(a["value"])) not in ("stringValue", "intValue", "boolValue",
                                               "doubleValue", "arrayValue", "kvlistValue"):
            raise ValueError(f"{where}: not an OTLP KeyValue: {a!r}")
    return {a["key"]: next(iter(a["value"].values())) for a in v}


def otlp_records(req):
    """The OCSF records of an ExportLogsServiceRequest, its shape checked."""
    out = []
    rls = req.get("resourceLogs")
    if not isinstance(rls, list) or not rls:
        raise ValueError("resourceLogs: not a non-empty list")
    for rl in rls:
        res = kv_list(rl.get("resource", {}).get("attributes"), "resource.attributes")
        if res.get("service.name") != "ringfence-monitor":
            raise ValueError("resource service.name is not ringfence-monitor")
        sls = rl.get("scopeLogs")
        if not isinstance(sls, list) or not sls:
            raise ValueError("scopeLogs: not a non-empty list")
        for sl in sls:
            if not isinstance(sl.get("scope", {}).get("name"), str):
                raise ValueError("scope.name missing")
            lrs = sl.get("logRecords")
            if not isinstance(lrs, list) or not lrs:
                raise ValueError("logRecords: not a non-empty list")
            for lr in lrs:
                for k in ("timeUnixNano", "observedTimeUnixNano"):
                    if not isinstance(lr.get(k), str) or not lr[k].isdigit():
                        raise ValueError(f"{k}: not a decimal string")
                sn = lr.get("severityNumber")
                if not isinstance(sn, int) or not 0 <= sn <= 24:
                    raise ValueError(f"severityNumber {sn!r}")
                if not isinstance(lr.get("severityText"), str):
                    raise ValueError("severityText missing")
                attrs = kv_list(lr.get("attributes"), "attributes")
                body = json.loads(lr["body"]["stringValue"])
                if attrs.get("ocsf.metadata.uid") != body["metadata"]["uid"]:
                    raise ValueError("attribute ocsf.metadata.uid is not the body's")
                if int(attrs.get("ocsf.severity_id", "-1")) != body["severity_id"]:
                    raise ValueError("attribute ocsf.severity_id is not the body's")
                tid, sid = lr.get("traceId"), lr.get("spanId")
                if tid is not None or sid is not None:
                    if not (isinstance(tid, str) and len(tid) == 32 and HEX.match(tid) and
                            isinstance(sid, str) and len(sid) == 16 and HEX.match(sid)):
                        raise ValueError(f"traceId/spanId {tid!r}/{sid!r}")
                if args.expect_trace and f"{tid}:{sid}" != args.expect_trace:
                    raise ValueError(f"trace {tid}:{sid}, expected {args.expect_trace}")
                out.append(body)
    return out


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        # the status line and the body leave in separate writes: without
        # this, Nagle and the client's delayed ACK cost 40 ms a request
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self):
        global taken
        n = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(n)
        if args.hang:
            time.sleep(3600)
        kind = "otlp" if self.path.endswith("/v1/logs") else "webhook"
        try:
            if self.headers.get("Content-Type") != "application/json":
                raise ValueError("Content-Type is not application/json")
            req = json.loads(data)
            recs = otlp_records(req) if kind == "otlp" else [req]
            uids = [r["metadata"]["uid"] for r in recs]
        except (ValueError, KeyError, TypeError) as e:
            with lock, open(args.out, "a") as f:
                f.write(f"INVALID {kind} {e}\n")
            self.send_response(400)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with lock:
            if args.die_after and taken + len(uids) > args.die_after:
                os._exit(3)     # killed mid-stream: no answer, nothing written
            with open(args.out, "a") as f:
                for u in uids:
                    f.write(f"{kind} {u}\n")
            taken += len(uids)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


srv = ThreadingHTTPServer(("127.0.0.1", args.port), H)
srv.daemon_threads = True
tmp = args.port_file + ".tmp"
with open(tmp, "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(tmp, args.port_file)
srv.serve_forever()
