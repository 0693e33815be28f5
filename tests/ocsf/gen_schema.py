#!/usr/bin/env python3
"""Compile one OCSF event class, with a chosen set of profiles, into a JSON
Schema (draft 2020-12) from a checkout of the official ocsf/ocsf-schema
repository.

    gen_schema.py OCSF_DIR CLASS PROFILE... > schema.json
    e.g. gen_schema.py ocsf-schema-1.3.0 detection_finding \
             datetime host container security_control

What it compiles, following the OCSF schema server's rules:
  - "extends" chains of classes and objects, "$include" of includes/ and
    profiles/ files (an attribute from profiles/P.json belongs to profile P),
    dictionary.json's attribute definitions merged under each use;
  - the datetime profile: a <name>_dt (datetime_t) beside every timestamp_t;
  - attributes of profiles not chosen are left out; every chosen profile
    must be named in metadata.profiles;
  - types (dictionary "types": base type, range, max_len, regex), arrays,
    objects as $defs with no other keys allowed, "object" as any object;
  - enums (integer or string), and an enum's sibling caption must match
    the id (except 99, Other, whose caption is the producer's);
  - "required" attributes; "recommended" ones are listed per object in
    "x-ocsf-recommended" (the checker reports the absent ones);
  - object constraints: at_least_one (anyOf), just_one (oneOf);
  - class_uid, category_uid, and type_uid = class_uid * 100 + activity_id.

Only the standard library: the output is data (committed next to this
script) and tests validate alerts against it with Debian's python3-jsonschema.
"""
import copy
import json
import os
import sys


def load(root, rel):
    with open(os.path.join(root, rel)) as f:
        return json.load(f)


def merge(base, over):
    """Deep merge: over's keys win, dicts merge."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


class Compiler:
    def __init__(self, root, profiles):
        self.root = root
        self.profiles = set(profiles)
        dic = load(root, "dictionary.json")
        self.dict_attrs = dic["attributes"]
        self.types = dic["types"]["attributes"]
        self.objects = {}
        for f in os.listdir(os.path.join(root, "objects")):
            if f.endswith(".json"):
                o = load(root, "objects/" + f)
                self.objects[o["name"]] = o
        self.classes = {}
        for dirpath, _, files in os.walk(os.path.join(root, "events")):
            for f in files:
                if f.endswith(".json"):
                    c = load(root, os.path.relpath(os.path.join(dirpath, f), root))
                    self.classes[c["name"]] = c
        self.categories = load(root, "categories.json")["attributes"]
        self.defs = {}

    def attributes(self, spec, table):
        """The attributes of a class or object, its parents' and includes' merged."""
        attrs = {}
        if spec.get("extends"):
            attrs = self.attributes(table[spec["extends"]], table)
        own = dict(spec.get("attributes", {}))
        for inc in own.pop("$include", []):
            part = load(self.root, inc)
            prof = part.get("name") if part.get("meta") == "profile" else None
            for k, v in part.get("attributes", {}).items():
                v = dict(v)
                if prof:
                    v["profile"] = prof
                attrs[k] = merge(attrs.get(k, {}), v)
        for k, v in own.items():
            attrs[k] = merge(attrs.get(k, {}), v)
        return attrs

    def constraints(self, spec, table):
        if "constraints" in spec:
            return spec["constraints"]
        if spec.get("extends"):
            return self.constraints(table[spec["extends"]], table)
        return {}

    def resolve(self, attrs):
        """Dictionary definitions under each attribute, the datetime siblings,
        and the profile filter."""
        out = {}
        for name, a in attrs.items():
            full = merge(self.dict_attrs.get(name, {}), a)
            if full.get("profile") and full["profile"] not in self.profiles:
                continue
            out[name] = full
            if full.get("type") == "timestamp_t" and "datetime" in self.profiles:
                out[name + "_dt"] = {"type": "datetime_t", "requirement": "optional",
                                     "profile": "datetime"}
        return out

    def type_schema(self, tname):
        if tname == "object":
            return {"type": "object"}
        if tname in self.objects:
            self.object_def(tname)
            return {"$ref": "#/$defs/" + tname}
        prims = ("string_t", "integer_t", "long_t", "float_t", "boolean_t", "json_t")
        chain = []
        base = tname
        while base not in prims and base in self.types:
            chain.append(self.types[base])
            base = self.types[base].get("type")
        if base in prims:
            chain.append(self.types[base])
        s = {"string_t": {"type": "string"}, "integer_t": {"type": "integer"},
             "long_t": {"type": "integer"}, "float_t": {"type": "number"},
             "boolean_t": {"type": "boolean"}, "json_t": {}}.get(base)
        if s is None:
            raise SystemExit("unknown type " + tname)
        s = dict(s)
        for t in chain:
            if "range" in t and "minimum" not in s:
                s["minimum"], s["maximum"] = t["range"]
            if "max_len" in t and "maxLength" not in s:
                s["maxLength"] = t["max_len"]
            if "regex" in t and "pattern" not in s:
                s["pattern"] = t["regex"]
        return s

    def attr_schema(self, name, a):
        s = self.type_schema(a.get("type", "string_t"))
        if "enum" in a:
            vals = [int(k) if s.get("type") == "integer" else k for k in a["enum"]]
            s = {"allOf": [s, {"enum": vals}]}
        if a.get("is_array"):
            s = {"type": "array", "items": s}
        return s

    def sibling_rules(self, attrs):
        """An id's caption sibling must name the same enum value (99: free)."""
        rules = []
        for name, a in attrs.items():
            sib = a.get("sibling")
            if not sib or "enum" not in a or sib not in attrs or a.get("is_array"):
                continue
            for k, v in a["enum"].items():
                if k == "99":
                    continue
                rules.append({"if": {"required": [name, sib],
                                     "properties": {name: {"const": int(k)}}},
                              "then": {"properties": {sib: {"const": v["caption"]}}}})
        return rules

    def body(self, attrs, constraints):
        s = {"type": "object", "additionalProperties": False,
             "properties": {n: self.attr_schema(n, a) for n, a in sorted(attrs.items())}}
        req = sorted(n for n, a in attrs.items() if a.get("requirement") == "required")
        rec = sorted(n for n, a in attrs.items() if a.get("requirement") == "recommended")
        if req:
            s["required"] = req
        if rec:
            s["x-ocsf-recommended"] = rec
        all_of = self.sibling_rules(attrs)
        for kind, key in (("at_least_one", "anyOf"), ("just_one", "oneOf")):
            names = [n for n in constraints.get(kind, []) if n in attrs]
            if names:
                all_of.append({key: [{"required": [n]} for n in names]})
        if all_of:
            s["allOf"] = all_of
        return s

    def object_def(self, name):
        if name in self.defs:
            return
        self.defs[name] = None      # recursion guard: process.parent_process
        spec = self.objects[name]
        attrs = self.resolve(self.attributes(spec, self.objects))
        self.defs[name] = self.body(attrs, self.constraints(spec, self.objects))
        self.defs[name]["title"] = spec.get("caption", name)

    def category(self, spec):
        """A class's category, its parents' when it names none (dns_activity
        takes network's)."""
        while "category" not in spec and spec.get("extends"):
            spec = self.classes[spec["extends"]]
        return spec["category"]

    def event(self, cname):
        spec = self.classes[cname]
        attrs = self.resolve(self.attributes(spec, self.classes))
        cat = self.categories[self.category(spec)]
        class_uid = cat["uid"] * 1000 + spec["uid"]
        s = self.body(attrs, self.constraints(spec, self.classes))
        props = s["properties"]
        props["class_uid"] = {"const": class_uid}
        props["category_uid"] = {"const": cat["uid"]}
        acts = attrs["activity_id"]["enum"]
        s["allOf"] = s.get("allOf", []) + [
            {"if": {"required": ["activity_id"],
                    "properties": {"activity_id": {"const": int(k)}}},
             "then": {"required": ["type_uid"],
                      "properties": {"type_uid": {"const": class_uid * 100 + int(k)}}}}
            for k in acts]
        if self.profiles:
            s["allOf"].append({"properties": {"metadata": {
                "required": ["profiles"],
                "properties": {"profiles": {"allOf": [
                    {"contains": {"const": p}} for p in sorted(self.profiles)]}}}}})
        out = {"$schema": "https://json-schema.org/draft/2020-12/schema",
               "title": "OCSF %s %s (%d), profiles: %s" % (
                   load(self.root, "version.json")["version"], spec["caption"],
                   class_uid, ", ".join(sorted(self.profiles))),
               "x-generated-by": "tests/ocsf/gen_schema.py"}
        out.update(s)
        out["$defs"] = {k: self.defs[k] for k in sorted(self.defs)}
        return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    c = Compiler(sys.argv[1], sys.argv[3:])
    json.dump(c.event(sys.argv[2]), sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
