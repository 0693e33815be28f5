#!/usr/bin/env python3
"""Validate alert records (one JSON object a line) against a compiled OCSF
schema (gen_schema.py) and, optionally, schemas/alert.schema.json.

    check_alerts.py [--project SCHEMA] [--absent-ok FILE] OCSF_SCHEMA FILE...

Every error is printed (path in the record, what is wrong); a recommended
attribute (x-ocsf-recommended) left out counts as an error unless FILE
(--absent-ok) lists it as "object.attribute" ("class" for the event's own
attributes) with the reason. Exit 0 only with at least one record and no
error. Needs Debian's python3-jsonschema (draft 2020-12).
"""
import argparse
import json
import sys

import jsonschema


def resolve(root, node):
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def def_name(root, node):
    if isinstance(node, dict) and "$ref" in node:
        return node["$ref"].rsplit("/", 1)[1]
    return None


def absent_recommended(root, node, inst, where, name, out):
    """(where, object.attribute) for every recommended attribute not present."""
    node = resolve(root, node)
    if not isinstance(node, dict):
        return
    if "allOf" in node and "properties" not in node and "items" not in node:
        for sub in node["allOf"]:
            absent_recommended(root, sub, inst, where, name, out)
        return
    if node.get("type") == "array" and isinstance(inst, list):
        sub = node.get("items", {})
        for i, v in enumerate(inst):
            absent_recommended(root, sub, v, "%s[%d]" % (where, i),
                               def_name(root, sub) or name, out)
        return
    if not isinstance(inst, dict) or "properties" not in node:
        return
    for attr in node.get("x-ocsf-recommended", []):
        if attr not in inst:
            out.append((where, "%s.%s" % (name, attr)))
    for k, v in inst.items():
        sub = node["properties"].get(k)
        if sub is not None:
            absent_recommended(root, sub, v, where + "." + k,
                               def_name(root, sub) or name, out)


def load_absent_ok(path):
    ok = set()
    if path:
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                ok.add(line)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--project")
    ap.add_argument("--absent-ok")
    ap.add_argument("ocsf")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    ocsf = json.load(open(args.ocsf))
    validators = [("OCSF", jsonschema.Draft202012Validator(ocsf))]
    if args.project:
        validators.append(("alert.schema.json", jsonschema.Draft202012Validator(
            json.load(open(args.project)))))
    absent_ok = load_absent_ok(args.absent_ok)
    n = errors = 0
    for path in args.files:
        for ln, line in enumerate(open(path), 1):
            rec = json.loads(line)
            n += 1
            for vname, v in validators:
                for e in v.iter_errors(rec):
                    errors += 1
                    print("%s:%d: %s: %s: %s" % (path, ln, vname,
                          "/".join(str(p) for p in e.absolute_path) or "(record)",
                          e.message[:300]))
            missing = []
            absent_recommended(ocsf, ocsf, rec, "", "class", missing)
            for where, attr in missing:
                if attr not in absent_ok:
                    errors += 1
                    print("%s:%d: OCSF: %s: recommended %s absent" % (path, ln,
                          where or "(record)", attr))
    print("# %d records, %d errors" % (n, errors), file=sys.stderr)
    sys.exit(0 if n and not errors else 1)


if __name__ == "__main__":
    main()
