// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The runtime's state JSON and the bundle's config.json, as the hook needs them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>

#include "oci.h"

/* The capabilities that undo the policy from inside when no BPF-LSM
 * program judges the process boundary: one table, names as config.json
 * writes them. */
static const struct {
	const char *name;
	int cap;
	const char *why;
} dangerous[] = {
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN, "mounts, namespaces, BPF" },
	{ "CAP_BPF", CAP_BPF, "BPF programs and maps" },
	{ "CAP_NET_ADMIN", CAP_NET_ADMIN, "detaching cgroup network programs" },
	{ "CAP_SYS_MODULE", CAP_SYS_MODULE, "kernel modules" },
	{ "CAP_SYS_PTRACE", CAP_SYS_PTRACE, "tracing processes outside" },
	{ "CAP_SYS_RAWIO", CAP_SYS_RAWIO, "raw memory and I/O" },
	{ "CAP_MAC_ADMIN", CAP_MAC_ADMIN, "LSM policy" },
};
_Static_assert(CAP_LAST_CAP < 64, "a capability set fits 64 bits");

const char *oci__dangerous_cap(uint64_t caps)
{
	size_t i;

	for (i = 0; i < sizeof(dangerous) / sizeof(dangerous[0]); i++)
		if (caps & (1ull << dangerous[i].cap))
			return dangerous[i].name;
	return NULL;
}

/* Runtime-spec ids are any string; ours become a file and cgroup name. */
static bool id_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= sizeof(((struct oci_state *)0)->id) || s[0] == '.')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int copy_str(json_t *o, const char *key, char *buf, size_t len, bool required,
		    struct rf_error *e)
{
	json_t *v = json_object_get(o, key);

	if (!v && !required)
		return 0;
	if (!json_is_string(v))
		return rf_error_set(e, -EINVAL, key, "%s", v ? "must be a string" : "missing");
	if (json_string_length(v) >= len)
		return rf_error_set(e, -E2BIG, key, "longer than %zu bytes", len - 1);
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

int oci__parse_state(const char *text, struct oci_state *ret, struct rf_error *e)
{
	json_error_t je;
	json_t *o = json_loads(text, 0, &je), *pid, *ann;
	int err;

	memset(ret, 0, sizeof(*ret));
	if (!json_is_object(o)) {
		json_decref(o);
		return rf_error_set(e, -EINVAL, "state", "not a JSON object (line %d: %s)",
				    je.line, je.text);
	}
	err = copy_str(o, "id", ret->id, sizeof(ret->id), true, e);
	if (!err && !id_ok(ret->id))
		err = rf_error_set(e, -EINVAL, "id", "\"%s\": only letters, digits, '_', '.', "
				   "'-' (at most %zu)", ret->id, sizeof(ret->id) - 1);
	if (!err)
		err = copy_str(o, "status", ret->status, sizeof(ret->status), true, e);
	if (!err)
		err = copy_str(o, "bundle", ret->bundle, sizeof(ret->bundle), true, e);
	if (!err && ret->bundle[0] != '/')
		err = rf_error_set(e, -EINVAL, "bundle", "must be an absolute path");
	pid = json_object_get(o, "pid");
	if (!err && pid && (!json_is_integer(pid) || json_integer_value(pid) < 0 ||
			    json_integer_value(pid) > 0x3fffffff))
		err = rf_error_set(e, -EINVAL, "pid", "must be a process id");
	ret->pid = pid ? (int)json_integer_value(pid) : 0;
	ann = json_object_get(o, "annotations");
	if (!err && ann && !json_is_object(ann))
		err = rf_error_set(e, -EINVAL, "annotations", "must be an object");
	if (!err && ann)
		err = copy_str(ann, RF_OCI_ANNOTATION, ret->policy, sizeof(ret->policy), false, e);
	json_decref(o);
	return err;
}

static int caps_of(json_t *list, uint64_t *ret, struct rf_error *e)
{
	size_t i, k;
	json_t *v;

	*ret = 0;
	json_array_foreach(list, i, v) {
		if (!json_is_string(v))
			return rf_error_set(e, -EINVAL, "config.json: process.capabilities.bounding",
					    "entry %zu is not a string", i);
		for (k = 0; k < sizeof(dangerous) / sizeof(dangerous[0]); k++)
			if (!strcmp(json_string_value(v), dangerous[k].name))
				*ret |= 1ull << dangerous[k].cap;
	}
	return 0;
}

int oci__parse_config(json_t *c, struct oci_state *st, struct rf_error *e)
{
	json_t *linux_ = json_object_get(c, "linux");
	json_t *bounding = json_object_get(json_object_get(json_object_get(c, "process"),
							   "capabilities"), "bounding");
	json_t *ann = json_object_get(c, "annotations");

	if (!json_is_object(c))
		return rf_error_set(e, -EINVAL, "config.json", "not a JSON object");
	st->has_cgroups_path = json_string_length(json_object_get(linux_, "cgroupsPath")) > 0;
	st->runtime_seccomp = json_is_object(json_object_get(linux_, "seccomp"));
	/* the state carries the annotations (runtime-spec 1.0.2+); older
	 * runtimes: config.json's */
	if (!st->policy[0] && json_is_object(ann) &&
	    copy_str(ann, RF_OCI_ANNOTATION, st->policy, sizeof(st->policy), false, e))
		return e->err;
	if (bounding && !json_is_array(bounding))
		return rf_error_set(e, -EINVAL, "config.json: process.capabilities.bounding",
				    "must be an array");
	return bounding ? caps_of(bounding, &st->caps_bounding, e) : 0;
}
