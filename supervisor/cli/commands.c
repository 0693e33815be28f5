// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `ringfence check`, `probe`, `status`, `gc` and `unload`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/gc.h"
#include "cleanup.h"
#include "launch/dynuser.h"
#include "log.h"
#include "registry.h"
#include "run/run.h"
#include "backends/sbmaps.h"
#include "run/prepare.h"
#include "run/report.h"
#include "run/sandbox.h"

/* The plan document on stdout, then the reasons when it is refused. */
static int print_plan(const struct sandbox *sb)
{
	json_t *doc = report__plan(sb->policy, &sb->plan, &sb->caps);

	if (doc) {
		if (sb->ll.n_approx)
			json_object_set_new(doc, "approximations", report__approximations(&sb->ll));
		json_object_set_new(doc, "cgroup", cgplace__json(&sb->place));
		if (sb->user)
			json_object_set(doc, "user", sb->user);
		if (sb->plan.install.unix_pins)
			json_object_set_new(doc, "unix_pins", unixpin__json(&sb->pins));
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | RF_JSON_REALS);
		fputc('\n', stdout);
		json_decref(doc);
	}
	if (!sb->plan.ok) {
		prepare__print_refusal(&sb->plan);
		return RF_EXIT_REFUSED;
	}
	return 0;
}

/* The plan, then what run's network-rules step would refuse (capacity
 * of the map keys, names that do not resolve): the same exit as run. */
static int check_plan(const struct sandbox *sb)
{
	struct rf_error e;
	int rc = print_plan(sb);

	if (rc)
		return rc;
	if (run__check_netrules(sb->policy, sb->plan.install.lsm_flags, &e)) {
		rf_error_print(&e, NULL);
		return RF_EXIT_REFUSED;
	}
	return 0;
}

/* The steps of a run up to the plan: the same answer run would get. */
int cmd_check(const struct run_opts *opts)
{
	return run__steps(opts, "plan", check_plan);
}

/* Milliseconds to the microsecond: 0.515, not 0.51469900005031377. */
static double ms_round(double ms)
{
	return (double)(long long)(ms * 1000.0 + 0.5) / 1000.0;
}

static json_t *probe_json(const struct rf_backend_probe *p)
{
	return json_pack("{s:b, s:s, s:s?, s:f}", "ok", p->ok, "detail", p->detail,
			 "error", p->ok ? NULL : strerror(-p->err), "probe_ms", ms_round(p->ms));
}

/* Per limit, its backend and, where it cannot hold here, why. */
static json_t *limit_backends(const struct rf_plan *plan)
{
	json_t *o = json_object();
	int i;

	for (i = 0; i < RF_LIMIT_MAX; i++) {
		const struct rf_limit_plan *lp = &plan->limits[i];
		char why[RF_PLAN_REASON_LEN];
		json_t *l = json_pack("{s:s}", "backend", names__backend(lp->be));

		if (l && !lp->enforced && lp->reason >= 0) {
			plan__reason_text(plan, lp->reason, why, sizeof(why));
			json_object_set_new(l, "reason", json_string(why));
		}
		json_object_set_new(o, names__limit(i), l);
	}
	return o;
}

/*
 * Per class, the backend (with its version) this kernel would use for a
 * policy that confines everything, or why none: the planner's own answer
 * on the capabilities just probed.
 */
static json_t *class_backends(const struct rf_caps *caps)
{
	static const char confine_all[] =
		"{\"version\":1,\"id\":\"probe\",\"network\":{\"connect\":[],\"unix\":[]},"
		"\"syscalls\":{\"allow\":[\"read\"]},\"limits\":{\"memory_mb\":1,\"pids\":1,"
		"\"cpu_percent\":1,\"wall_seconds\":1,\"output_bytes\":1,"
		"\"scratch\":{\"path\":\"/tmp\",\"size_mb\":1}}}";
	struct rf_policy *p = NULL;
	struct rf_error err;
	struct rf_plan plan;
	json_t *o = json_object();
	int i;

	if (policy__load_string(confine_all, &p, &err))
		return o;
	plan__compile(p, caps, NULL, &plan);
	for (i = 0; i < RF_CLASS_MAX; i++) {
		enum rf_class k = names__class_order[i];
		char text[RF_PLAN_NOTE_LEN];
		json_t *c;

		if (k == RF_CLASS_LIMITS || k == RF_CLASS_MONITOR)
			continue;
		plan__backend_text(&plan, k, text, sizeof(text));
		c = json_pack("{s:o}", "backend", text[0] ? json_string(text) : json_null());
		plan__layers_text(&plan, k, text, sizeof(text));
		if (text[0])
			json_object_set_new(c, "layers", json_string(text));
		plan__note_text(&plan, k, text, sizeof(text));
		if (!plan.c[k].enforced)
			json_object_set_new(c, "reason", json_string(text));
		json_object_set_new(o, names__class(k), c);
	}
	json_object_set_new(o, "limits", limit_backends(&plan));
	policy__free(p);
	return o;
}

int cmd_probe(void)
{
	struct rf_caps caps;
	json_t *o, *b, *audit;

	probe__run(&caps, RF_PROBE_ALL);
	b = json_object();
	json_object_set_new(b, "cgroup-v2", probe_json(&caps.cgroup_v2));
	json_object_set_new(b, "cgroup-sock-addr", probe_json(&caps.sock_addr));
	json_object_set_new(b, "cgroup-sock-addr-unix", probe_json(&caps.unix_sock_addr));
	json_object_set_new(b, "bpf-lsm", probe_json(&caps.bpf_lsm));
	json_object_set_new(b, "landlock", probe_json(&caps.landlock));
	if (caps.landlock.ok)
		json_object_set_new(json_object_get(b, "landlock"), "abi",
				    json_integer(caps.landlock_abi));
	json_object_set_new(b, "seccomp", probe_json(&caps.seccomp));
	audit = probe_json(&caps.audit);
	json_object_set_new(audit, "enabled", caps.audit_enabled < 0 ? json_null() :
					      json_boolean(caps.audit_enabled > 0));
	json_object_set_new(audit, "locked", json_boolean(caps.audit_enabled == 2));
	json_object_set_new(audit, "landlock_denials_logged",
			    json_boolean(caps.landlock_audit_log));
	json_object_set_new(b, "observe", probe_json(&caps.observe));
	o = json_pack("{s:s, s:s, s:i, s:o, s:o, s:o}",
		      "kernel", caps.kernel_release,
		      "cgroup2_mount", caps.cgroup_mount,
		      "unprivileged_bpf_disabled", caps.unprivileged_bpf_disabled,
		      "backends", b,
		      "audit", audit,
		      "classes", class_backends(&caps));
	if (!o)
		return 1;
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | RF_JSON_REALS);
	fputc('\n', stdout);
	json_decref(o);
	return 0;
}

/* live: its supervisor runs; kept: it does not, but the command runs on
 * confined (--keep-running) and gc leaves it; stale: a leftover. */
static const char *sandbox_state(const struct rf_registry_entry *e, bool live)
{
	if (live)
		return "live";
	return e->keep_running && !cgroup__is_empty(e->cgroup_path) ? "kept" : "stale";
}

int cmd_status(bool as_json)
{
	struct rf_registry_entry *v = NULL;
	struct rf_enforcer *enf = NULL;
	char set[RF_PIN_SET_LEN] = "";
	size_t n = 0, i;
	json_t *arr;
	int err;

	err = registry__list(&v, &n);
	if (err) {
		rf_err("reading %s: %s", RF_REGISTRY_DIR, strerror(-err));
		return 1;
	}
	arr = json_array();
	for (i = 0; i < n; i++) {
		struct rf_sandbox st = { 0 };
		bool live = registry__supervisor_alive(&v[i]);
		uint64_t total = 0;
		int k;

		/* its counters are in its build's set (pins.h) */
		if (!enf || strcmp(set, v[i].pin_set)) {
			enforcer__close(TAKE_PTR(enf));
			snprintf(set, sizeof(set), "%s", v[i].pin_set);
			enforcer__open_pinned_set(set, &enf);
		}
		if (enf && !sbmaps__read_sandbox(enf, v[i].cgroup_id, &st))
			for (k = 0; k < RF_CLASS_KERNEL_MAX; k++)
				total += st.denials[k];
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:i, s:s, s:I}",
			"sandbox", v[i].sandbox, "state", sandbox_state(&v[i], live),
			"policy_id", v[i].policy_id, "policy_sha256", v[i].digest,
			"cgroup_path", v[i].cgroup_path, "cgroup_id", (json_int_t)v[i].cgroup_id,
			"supervisor_pid", (int)v[i].supervisor_pid, "pid", (int)v[i].child_pid,
			"started", v[i].started, "denials", (json_int_t)total));
	}
	if (as_json) {
		json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | RF_JSON_REALS);
		fputc('\n', stdout);
	} else if (!n) {
		printf("no sandboxes\n");
	} else {
		printf("%-32s %-6s %-8s %-8s %-9s %s\n", "SANDBOX", "STATE", "SUPERV", "PID",
		       "DENIALS", "STARTED");
		for (i = 0; i < n; i++) {
			json_t *e = json_array_get(arr, i);

			printf("%-32s %-6s %-8lld %-8lld %-9lld %s\n",
			       json_string_value(json_object_get(e, "sandbox")),
			       json_string_value(json_object_get(e, "state")),
			       json_integer_value(json_object_get(e, "supervisor_pid")),
			       json_integer_value(json_object_get(e, "pid")),
			       json_integer_value(json_object_get(e, "denials")),
			       json_string_value(json_object_get(e, "started")));
		}
	}
	json_decref(arr);
	enforcer__close(enf);
	registry__list_free(v, n);
	return 0;
}

static void print_line(const char *line)
{
	printf("%s\n", line);
	fflush(stdout);
}

/* The dynamic uids' lock files no run holds (dynuser.h): bookkeeping
 * (the reaper removes a killed supervisor's already), counted with -v. */
static int gc_uid_locks(bool verbose)
{
	unsigned n;
	int err = dynuser__sweep(&n);

	if (!err && n && verbose)
		printf("removed %u lock file%s of released dynamic uids (%s)\n", n,
		       n == 1 ? "" : "s", RF_DYNUSER_DIR);
	return err;
}

/* Everything no live supervisor owns, found from the kernel's state. */
int cmd_gc(int verbosity)
{
	bool quiet = verbosity == 0;

	struct rf_enforcer *enf = NULL;
	struct rf_gc_stats st;
	char mount[4096] = "";
	int err;

	cgroup__find_v2_mount(mount, sizeof(mount));
	enforcer__open_pinned(&enf);  /* nothing pinned: no map keys to walk */
	err = gc__run(enf, mount, RF_GC_FULL, quiet ? NULL : print_line, &st);
	if (!err)
		err = gc_uid_locks(verbosity > 1);
	/* the pool back to its size, off every run's path */
	if (!err && enf)
		sbmaps__pool_fill(enf, RF_SB_POOL_MIN);
	enforcer__close(enf);
	if (err) {
		rf_err("gc: %s", strerror(-err));
		return 1;
	}
	return st.survivors ? 1 : 0;
}

int cmd_unload(bool force)
{
	struct rf_registry_entry *v = NULL;
	size_t n = 0, i, live = 0;
	int err;

	registry__list(&v, &n);
	for (i = 0; i < n; i++)
		live += registry__supervisor_alive(&v[i]);
	if (live && !force) {
		rf_err("%zu sandbox%s live; refusing to unload (use --force to kill them first)",
		       live, live == 1 ? " is" : "es are");
		registry__list_free(v, n);
		return 1;
	}
	/* Fail closed: sandboxes die before the programs confining them go. */
	for (i = 0; i < n; i++) {
		cgroup__destroy_path(v[i].cgroup_path);
		if (!cgroup__is_empty(v[i].cgroup_path)) {
			rf_err("sandbox %s: processes survived the kill; not unloading",
			       v[i].sandbox);
			registry__list_free(v, n);
			return 1;
		}
		registry__remove(v[i].sandbox);
	}
	registry__list_free(v, n);
	err = enforcer__unload(force);
	if (err == -EBUSY) {
		rf_err("a supervisor is still starting or running; refusing to unload");
		return 1;
	}
	if (err) {
		rf_err("unload: %s", strerror(-err));
		return 1;
	}
	rf_info("unloaded: every build's programs detached, %s removed", RF_PIN_DIR);
	return 0;
}
