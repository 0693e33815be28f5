/* Planner unit tests: the fail-closed logic against stated kernel
 * capabilities (no probing, no kernel). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lines.h"
#include "plan/plan.h"
#include "policy/policy.h"
#include "rf_abi.h"

/* This development host: everything but bpf-lsm. */
static struct rf_caps caps_host(void)
{
	struct rf_caps c;

	memset(&c, 0, sizeof(c));
	c.cgroup_v2.ok = c.sock_addr.ok = c.unix_sock_addr.ok = true;
	c.landlock.ok = c.seccomp.ok = true;
	c.landlock_abi = 7;
	c.unix_bytes = RF_UNIX_BYTES_TP;
	c.bpf_lsm.err = -1;
	snprintf(c.bpf_lsm.detail, sizeof(c.bpf_lsm.detail), "load: Operation not permitted");
	return c;
}

/* A kernel with nothing ringfence can use. */
static struct rf_caps caps_none(void)
{
	struct rf_caps c;

	memset(&c, 0, sizeof(c));
	snprintf(c.sock_addr.detail, sizeof(c.sock_addr.detail), "no cgroup2 to attach to");
	snprintf(c.unix_sock_addr.detail, sizeof(c.unix_sock_addr.detail), "no cgroup2");
	snprintf(c.landlock.detail, sizeof(c.landlock.detail), "landlock_create_ruleset: ENOSYS");
	return c;
}

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error err;

	if (policy__load_string(json, &p, &err))
		fail_msg("%s: %s", err.where, err.why);
	return p;
}

/* A refusal of class c (RF_CLASS_MAX: --require) with this code. */
static bool has_reason(const struct rf_plan *plan, enum rf_class c, enum rf_plan_why code)
{
	int i;

	for (i = 0; i < plan->n_reasons; i++)
		if (plan->reasons[i].code == code &&
		    (c == RF_CLASS_MAX || plan->reasons[i].cls == c))
			return true;
	return false;
}

#define UNRESTRICTED_FX "\"files\":\"unrestricted\",\"exec\":\"unrestricted\""

static void assert_note(const struct rf_plan *plan, enum rf_class c, const char *want);

/* The ledger's budgets: egress_bytes is the cgroup_skb program's (with a
 * gap for unix sockets), refused without the inet programs; disk_write_mb
 * the supervisor's, refused without the io controller (this host). */
static void planner_ledger_budgets(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
				   "\"limits\":{\"egress_bytes\":1000,\"disk_write_mb\":5}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;

	(void)state;
	snprintf(c.cgroup_io.detail, sizeof(c.cgroup_io.detail), "no io controller at /c");
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(plan.limits[RF_LIMIT_EGRESS].enforced);
	assert_int_equal(plan.limits[RF_LIMIT_EGRESS].be, RF_BE_CGROUP_SOCK_ADDR);
	assert_int_equal(plan.limits[RF_LIMIT_EGRESS].value, 1000);
	assert_false(plan.limits[RF_LIMIT_DISK_WRITE].enforced);
	assert_int_equal(plan.n_reasons, 1);
	plan__reason_text(&plan, 0, text, sizeof(text));
	assert_string_equal(text, "limits: disk_write_mb: supervisor cannot be enforced here: "
			    "no io controller at /c; remove it to run without it");
	assert_true(plan.gaps & (1ull << RF_GAP_LIMITS_EGRESS_UNIX));
	/* with the controller both hold */
	c.cgroup_io.ok = true;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_true(plan.limits[RF_LIMIT_DISK_WRITE].enforced);
	assert_int_equal(plan.limits[RF_LIMIT_DISK_WRITE].be, RF_BE_SUPERVISOR);
	assert_true(plan.gaps & (1ull << RF_GAP_LIMITS_DISK_WRITEBACK));
	/* without the inet programs the budget cannot be held */
	c.sock_addr.ok = false;
	snprintf(c.sock_addr.detail, sizeof(c.sock_addr.detail), "no cgroup2 to attach to");
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_false(plan.limits[RF_LIMIT_EGRESS].enforced);
	policy__free(p);
}

/* The ledger's unix peers: a sandbox that can reach one is told (gap
 * ledger.unix) where none is counted: no way on this kernel, 6.7+ without
 * the cgroup unix hooks, before 6.7 without the observe programs or under
 * --no-observe; a sandbox that reaches none is told nothing. */
static void planner_ledger_unix_gap(void **state)
{
	static const struct {
		enum rf_unix_bytes how;
		bool hooks, observe, no_observe, reach, gap;
	} cases[] = {
		{ RF_UNIX_BYTES_TP, true, false, false, true, false },
		{ RF_UNIX_BYTES_TP, true, true, true, true, false },  /* connections still */
		{ RF_UNIX_BYTES_TP, false, true, false, true, true },
		{ RF_UNIX_BYTES_FEXIT, false, true, false, true, false },
		{ RF_UNIX_BYTES_FEXIT, false, true, true, true, true },
		{ RF_UNIX_BYTES_FEXIT, false, false, false, true, true },
		{ RF_UNIX_BYTES_NONE, false, true, false, true, true },
		{ RF_UNIX_BYTES_NONE, false, true, false, false, false },
	};
	struct rf_policy *reach = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				       "\"network\":{\"connect\":[],\"unix\":[\"/run/a.sock\"]}}");
	struct rf_policy *none = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
				      "\"network\":{\"connect\":[],\"unix\":[]}}");
	struct rf_plan plan;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_caps c = caps_host();
		struct rf_plan_opts o = { .no_observe = cases[i].no_observe };

		c.unix_bytes = cases[i].how;
		c.unix_sock_addr.ok = cases[i].hooks;
		c.observe.ok = cases[i].observe;
		plan__compile(cases[i].reach ? reach : none, &c, &o, &plan);
		if (!!(plan.gaps & (1ull << RF_GAP_LEDGER_UNIX)) != cases[i].gap)
			fail_msg("case %zu: gap ledger.unix %d, want %d", i,
				 !!(plan.gaps & (1ull << RF_GAP_LEDGER_UNIX)), cases[i].gap);
	}
	policy__free(reach);
	policy__free(none);
}

/* This host's hybrid cgroup2: wall clock, output and scratch are held by
 * the supervisor and tmpfs; memory, pids and cpu are refused, one reason
 * each, naming the missing controller. */
static void planner_limits_per_limit_backends(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
				   "\"limits\":{\"wall_seconds\":5,\"output_bytes\":1000,"
				   "\"scratch\":{\"path\":\"/tmp\",\"size_mb\":8}}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;
	json_t *o, *l;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_true(plan.c[RF_CLASS_LIMITS].enforced);
	assert_true(plan.c[RF_CLASS_LIMITS].required);
	assert_int_equal(plan.limits[RF_LIMIT_WALL].be, RF_BE_SUPERVISOR);
	assert_int_equal(plan.limits[RF_LIMIT_OUTPUT].be, RF_BE_SUPERVISOR);
	assert_int_equal(plan.limits[RF_LIMIT_SCRATCH].be, RF_BE_TMPFS);
	assert_int_equal(plan.limits[RF_LIMIT_SCRATCH].value, 8);
	assert_false(plan.limits[RF_LIMIT_MEMORY].set);
	plan__backend_text(&plan, RF_CLASS_LIMITS, text, sizeof(text));
	assert_string_equal(text, "supervisor, tmpfs");
	o = plan__to_json(&plan);
	l = json_object_get(json_object_get(json_object_get(o, "classes"), "limits"), "limits");
	assert_int_equal(json_object_size(l), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(l, "output_bytes"),
							      "backend")), "supervisor");
	json_decref(o);
	policy__free(p);

	p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
		 "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
		 "\"limits\":{\"memory_mb\":64,\"pids\":10,\"cpu_percent\":20,\"wall_seconds\":1}}");
	c.cgroup_ctrl[RF_LIMIT_PIDS].ok = true;
	snprintf(c.cgroup_ctrl[RF_LIMIT_MEMORY].detail, sizeof(c.cgroup_ctrl[0].detail),
		 "the memory controller is not in the cgroup2 hierarchy at /c");
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_false(plan.c[RF_CLASS_LIMITS].enforced);
	assert_int_equal(plan.n_reasons, 2);      /* memory and cpu; pids is there */
	assert_true(plan.limits[RF_LIMIT_PIDS].enforced);
	assert_true(plan.limits[RF_LIMIT_WALL].enforced);
	assert_false(plan.limits[RF_LIMIT_MEMORY].enforced);
	assert_int_equal(plan.limits[RF_LIMIT_MEMORY].reason, 0);
	assert_int_equal(plan.limits[RF_LIMIT_CPU].reason, 1);
	plan__reason_text(&plan, 0, text, sizeof(text));
	assert_string_equal(text, "limits: memory_mb: cgroup-v2-memory cannot be enforced here: "
			    "the memory controller is not in the cgroup2 hierarchy at /c; remove "
			    "it to run without it");
	/* The class's note is its first refusal. */
	plan__note_text(&plan, RF_CLASS_LIMITS, text, RF_PLAN_NOTE_LEN);
	assert_true(strstr(text, "memory_mb: cgroup-v2-memory cannot be enforced here") == text);
	/* Without cgroup2 at all, the limits that need it say so. */
	c.cgroup_v2.ok = false;
	snprintf(c.cgroup_v2.detail, sizeof(c.cgroup_v2.detail), "find a cgroup2 mount: ENOENT");
	plan__compile(p, &c, NULL, &plan);
	assert_true(has_reason(&plan, RF_CLASS_LIMITS, RF_WHY_LIMIT_NO_CGROUP2));
	policy__free(p);
}

/* A limit refused after planning (the scratch directory is missing). */
static void planner_limits_refused_later(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				   "\"exec\":\"unrestricted\",\"network\":\"unrestricted\","
				   "\"limits\":{\"wall_seconds\":3,"
				   "\"scratch\":{\"path\":\"/nope\",\"size_mb\":1}}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	plan__refuse_limit(&plan, RF_LIMIT_SCRATCH, RF_WHY_SCRATCH_PATH, 0, "/nope");
	assert_false(plan.ok);
	assert_false(plan.c[RF_CLASS_LIMITS].enforced);
	assert_false(plan.limits[RF_LIMIT_SCRATCH].enforced);
	assert_true(plan.limits[RF_LIMIT_WALL].enforced);
	plan__note_text(&plan, RF_CLASS_LIMITS, text, RF_PLAN_NOTE_LEN);
	assert_string_equal(text, "scratch: \"/nope\" is not a directory");
	plan__backend_text(&plan, RF_CLASS_LIMITS, text, sizeof(text));
	assert_string_equal(text, "");
	policy__free(p);
}

/* The VM's kernel: BPF-LSM works, the cgroup unix hooks do not. */
static struct rf_caps caps_lsm(void)
{
	struct rf_caps c = caps_host();

	c.bpf_lsm.ok = c.bpf_lsm_enforcer.ok = true;
	c.bpf_lsm.err = 0;
	c.unix_sock_addr.ok = false;
	c.unix_bytes = RF_UNIX_BYTES_FEXIT;  /* 6.1: no cgroup unix hooks */
	return c;
}

/* The sandbox's flags in the kernel's map come from the planner: the
 * classes the BPF-LSM judges, audit mode, unconfined network or unix, and
 * what the observe programs watch (none when they are not there). */
static void planner_sandbox_flags(void **state)
{
	enum caps_kind { HOST, HOST_OBSERVE, HOST_LL_LOG, LSM };
	static const struct {
		const char *name;
		enum caps_kind caps;
		const char *policy;      /* after {"version":1,"id":"a", */
		uint32_t want, want_unobserved;
	} cases[] = {
		{ "deny-all on landlock", HOST, "}",
		  RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_BOUNDARY, 0 },
		/* audit on landlock needs the observe programs: the listener too */
		{ "audit on landlock", HOST_OBSERVE, "\"mode\":\"audit\"}",
		  RF_SB_AUDIT | RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS, RF_SB_AUDIT },
		{ "nothing confined", HOST, UNRESTRICTED_FX ",\"network\":\"unrestricted\"}",
		  RF_SB_NET_UNRESTRICTED | RF_SB_UNIX_UNRESTRICTED | RF_SB_OBSERVE_BOUNDARY,
		  RF_SB_NET_UNRESTRICTED | RF_SB_UNIX_UNRESTRICTED },
		{ "connect unrestricted, unix confined", HOST,
		  UNRESTRICTED_FX ",\"network\":{\"connect\":\"unrestricted\",\"unix\":[]}}",
		  RF_SB_NET_UNRESTRICTED | RF_SB_OBSERVE_BOUNDARY, RF_SB_NET_UNRESTRICTED },
		{ "unix unrestricted, connect confined", HOST,
		  UNRESTRICTED_FX ",\"network\":{\"connect\":[],\"unix\":\"unrestricted\"}}",
		  RF_SB_UNIX_UNRESTRICTED | RF_SB_OBSERVE_BOUNDARY, RF_SB_UNIX_UNRESTRICTED },
		/* exec on landlock: the loader is killed at exec where they load */
		{ "the listener answers the boundary", HOST_OBSERVE, "}",
		  RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_LOADER, 0 },
		/* no syscall tracepoint there: only the exec one kills the loader */
		{ "landlock logs its own denials", HOST_LL_LOG, "}", RF_SB_OBSERVE_LOADER, 0 },
		{ "audit, landlock logging", HOST_LL_LOG, "\"mode\":\"audit\"}",
		  RF_SB_AUDIT | RF_SB_OBSERVE_PATHS | RF_SB_OBSERVE_ACCESS, RF_SB_AUDIT },
		{ "bpf-lsm judges", LSM, "\"network\":{\"unix\":[\"/run/x\"]}}",
		  RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX | RF_SB_LSM_UNIX_NAMES |
			  RF_SB_LSM_PROCESS | RF_SB_OBSERVE_BOUNDARY,
		  RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX | RF_SB_LSM_UNIX_NAMES |
			  RF_SB_LSM_PROCESS },
		{ "bpf-lsm, audit", LSM, "\"mode\":\"audit\"}",
		  RF_SB_AUDIT | RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX |
			  RF_SB_LSM_PROCESS | RF_SB_OBSERVE_BOUNDARY,
		  RF_SB_AUDIT | RF_SB_LSM_FILES | RF_SB_LSM_EXEC | RF_SB_LSM_UNIX |
			  RF_SB_LSM_PROCESS },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_caps c = cases[i].caps == LSM ? caps_lsm() : caps_host();
		char json[512];
		struct rf_policy *p;
		struct rf_plan plan;
		uint32_t got, got_unobserved;

		c.observe.ok = cases[i].caps == HOST_OBSERVE || cases[i].caps == HOST_LL_LOG;
		c.landlock_audit_log = cases[i].caps == HOST_LL_LOG;
		snprintf(json, sizeof(json), "{\"version\":1,\"id\":\"a\"%s%s",
			 cases[i].policy[0] == '}' ? "" : ",", cases[i].policy);
		p = load(json);
		plan__compile(p, &c, NULL, &plan);
		if (!plan.ok)
			fail_msg("%s: the plan is refused", cases[i].name);
		got = plan__sandbox_flags(&plan, p, true);
		got_unobserved = plan__sandbox_flags(&plan, p, false);
		policy__free(p);
		if (got != cases[i].want || got_unobserved != cases[i].want_unobserved)
			fail_msg("%s: flags 0x%x (unobserved 0x%x), want 0x%x (0x%x)",
				 cases[i].name, got, got_unobserved, cases[i].want,
				 cases[i].want_unobserved);
	}
}

static void planner_bpf_lsm_refuses_paths_longer_than_its_matcher(void **state)
{
	char json[1024], path[300];
	struct rf_policy *p;
	struct rf_caps c = caps_lsm();
	struct rf_plan plan;

	(void)state;
	memset(path, 'a', 250);
	path[0] = '/';
	path[250] = 0;
	snprintf(json, sizeof(json), "{\"version\":1,\"id\":\"a\",\"exec\":\"unrestricted\","
		 "\"files\":{\"read\":[\"%s\"]}}", path);
	p = load(json);
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan.ok);
	assert_true(has_reason(&plan, RF_CLASS_FILE, RF_WHY_LSM_PATH_TOO_LONG));
	assert_int_equal(plan.reasons[0].param, RF_PATH_MAX);
	assert_int_equal(strlen(plan.reasons[0].detail), 80); /* only its start is shown */
	policy__free(p);
}

static void planner_backend_names_round_trip(void **state)
{
	int b;

	(void)state;
	for (b = 1; b < RF_BE_MAX; b++)
		if (b != RF_BE_MONITOR)
			assert_int_equal(names__backend_by_name(names__backend(b)), b);
	assert_int_equal(names__backend_by_name("apparmor"), RF_BE_NONE);
	/* the monitor detects: it cannot be required or preferred */
	assert_int_equal(names__backend_by_name("ringfence-monitor"), RF_BE_NONE);
}

static void planner_json_names_every_class(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\"}");
	struct rf_caps c = caps_none();
	struct rf_plan plan;
	json_t *o, *classes;

	(void)state;
	plan__compile(p, &c, NULL, &plan);
	o = plan__to_json(&plan);
	assert_non_null(o);
	classes = json_object_get(o, "classes");
	assert_int_equal(json_object_size(classes), RF_CLASS_MAX);
	assert_true(json_is_null(json_object_get(json_object_get(classes, "file"), "backend")));
	assert_false(json_is_true(json_object_get(o, "ok")));
	assert_int_equal(json_array_size(json_object_get(o, "reasons")), (size_t)plan.n_reasons);
	json_decref(o);
	policy__free(p);
}

/* ---- the planner's decisions as a table ---------------------------------
 * Each case: a kernel (caps), the user's options, a policy ('-quoted), and
 * lines the plan, printed as key=value lines (plan_lines), must hold. */

/* ' -> " in a table entry. */
static const char *q(char *buf, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		buf[i] = src[i] == '\'' ? '"' : src[i];
	buf[i] = '\0';
	assert_int_equal(src[i], '\0');
	return buf;
}

static const char *const note_names[] = {
	"none", "unrestricted", "lsm-file", "lsm-exec", "lsm-unix", "landlock-file",
	"landlock-exec", "landlock-audit", "process", "syscalls-seccomp", "syscalls-alert",
	"monitor", "limits", "refused", "net-dns-gate", "net-dns-once",
};
_Static_assert(sizeof(note_names) / sizeof(note_names[0]) == RF_NOTE_MAX, "a name per note");

static const char *const why_names[] = {
	"lsm-path-too-long", "no-fs-backend", "audit-landlock", "landlock-truncate", "sock-addr",
	"no-cgroup2", "keep-caps", "syscalls-audit", "no-seccomp", "require-lsm",
	"require-unused", "seccomp-build", "landlock-entry", "landlock-build", "no-controller",
	"limit-no-cgroup2", "scratch-path", "strict-gaps", "scratch-cwd", "tmp-cwd",
};
_Static_assert(sizeof(why_names) / sizeof(why_names[0]) == RF_WHY_MAX, "a name per why");

static const char *const layer_names[] = {
	"capabilities", "capabilities-kept", "seccomp", "landlock-tcp", "landlock-scope-unix",
	"landlock-scope-signal",
};

static const struct {
	uint32_t flag;
	const char *name;
} lsm_flag_names[] = {
	{ RF_SB_LSM_FILES, "files" }, { RF_SB_LSM_EXEC, "exec" },
	{ RF_SB_LSM_UNIX, "unix" }, { RF_SB_LSM_PROCESS, "process" },
};

static const char *backend_or_none(enum rf_backend b)
{
	return b == RF_BE_NONE ? "none" : names__backend(b);
}

/* A reason's param as a name where the code says what it counts. */
static void param_text(const struct rf_plan_reason *r, char *buf, size_t len)
{
	if (r->code == RF_WHY_REQUIRE_LSM || r->code == RF_WHY_REQUIRE_UNUSED)
		snprintf(buf, len, "%s", backend_or_none((enum rf_backend)r->param));
	else if (r->code == RF_WHY_NO_CONTROLLER || r->code == RF_WHY_LIMIT_NO_CGROUP2)
		snprintf(buf, len, "%s", names__limit((enum rf_limit)r->param));
	else
		snprintf(buf, len, "%d", r->param);
}

static void class_lines(struct lines *l, const struct rf_plan *plan, enum rf_class c)
{
	const struct rf_class_plan *cp = &plan->c[c];
	const char *n = names__class(c), *obs = plan__observed_text(cp->observed);
	char layers[200] = "", note[RF_PLAN_NOTE_LEN];
	size_t k, at = 0;

	for (k = 0; k < sizeof(layer_names) / sizeof(layer_names[0]); k++)
		if (cp->layers & (1u << k))
			at += (size_t)snprintf(layers + at, sizeof(layers) - at, "%s%s",
					       at ? "+" : "", layer_names[k]);
	plan__note_text(plan, c, note, sizeof(note));
	line(l, "%s.request=%s", n, names__request(cp->request));
	line(l, "%s.required=%d", n, cp->required);
	line(l, "%s.be=%s", n, backend_or_none(cp->be));
	line(l, "%s.enforced=%d", n, cp->enforced);
	line(l, "%s.layers=%s", n, at ? layers : "none");
	line(l, "%s.note=%s", n, cp->note < RF_NOTE_MAX ? note_names[cp->note] : "?");
	line(l, "%s.note_text=%s", n, note);
	line(l, "%s.observed=%s", n, obs[0] ? obs : "none");
	/* lost its backend to a refusal of its own */
	line(l, "%s.refused=%d", n, cp->note == RF_NOTE_REFUSED && !cp->enforced &&
				    plan->reasons[cp->reason].cls == c);
}

static void install_lines(struct lines *l, const struct rf_plan_install *in)
{
	char flags[100] = "";
	size_t k, at = 0;

	line(l, "install.landlock=%d", in->landlock);
	line(l, "install.landlock_fs=%d", in->landlock_fs);
	line(l, "install.landlock_net=%d", in->landlock_net);
	line(l, "install.landlock_scope_unix=%d", in->landlock_scope_unix);
	line(l, "install.landlock_scope_signal=%d", in->landlock_scope_signal);
	line(l, "install.landlock_abi=%d", in->landlock_abi);
	line(l, "install.seccomp_boundary=%d", in->seccomp_boundary);
	line(l, "install.seccomp_notify=%d", in->seccomp_notify);
	line(l, "install.seccomp_allowlist=%d", in->seccomp_allowlist);
	line(l, "install.seccomp_net_opts=%d", in->seccomp_net_opts);
	line(l, "install.seccomp_task_targets=%d", in->seccomp_task_targets);
	line(l, "install.keep_caps=%d", in->keep_caps);
	for (k = 0; k < sizeof(lsm_flag_names) / sizeof(lsm_flag_names[0]); k++) {
		bool on = in->lsm_flags & lsm_flag_names[k].flag;

		line(l, "install.lsm_flags.%s=%d", lsm_flag_names[k].name, on);
		if (on)
			at += (size_t)snprintf(flags + at, sizeof(flags) - at, "%s%s",
					       at ? "+" : "", lsm_flag_names[k].name);
	}
	line(l, "install.lsm_flags=%s", at ? flags : "none");
}

/* Every decision of the plan, one "key=value" line each (the first line
 * too starts after a newline: "\nkey=value\n" finds one whole). */
static void plan_lines(const struct rf_plan *plan, struct lines *l)
{
	char param[64];
	int i, k;

	lines_start(l);
	line(l, "ok=%d", plan->ok);
	line(l, "reasons=%d", plan->n_reasons);
	for (i = 0; i < plan->n_reasons; i++) {
		const struct rf_plan_reason *r = &plan->reasons[i];
		const char *why = r->code < RF_WHY_MAX ? why_names[r->code] : "?";

		param_text(r, param, sizeof(param));
		/* has a refusal of this code (of any class, and of this one) */
		line(l, "refusal=%s", why);
		line(l, "refusal=%s:%s", names__class(r->cls), why);
		line(l, "reason[%d].cls=%s", i, names__class(r->cls));
		line(l, "reason[%d].param=%s", i, param);
		line(l, "reason[%d].detail=%s", i, r->detail);
		if (i == plan->n_reasons - 1)
			line(l, "reason[last].param=%s", param);
	}
	for (k = 0; k < RF_CLASS_MAX; k++)
		class_lines(l, plan, (enum rf_class)k);
	install_lines(l, &plan->install);
	for (k = 0; k < RF_GAP_MAX; k++)
		line(l, "gap.%s=%d", plan__gap_id((enum rf_gap)k),
		     !!(plan->gaps & (1ull << k)));
}

/* A kernel: "host", "none" or "lsm", then "; key=value" changes. */
enum cap_type { CAP_BOOL, CAP_INT, CAP_TEXT };

#define PROBE(k, f) { k ".ok", offsetof(struct rf_caps, f.ok), CAP_BOOL }, \
	{ k ".detail", offsetof(struct rf_caps, f.detail), CAP_TEXT }

static const struct {
	const char *key;
	size_t off;
	enum cap_type type;
} cap_keys[] = {
	PROBE("landlock", landlock),
	PROBE("observe", observe),
	PROBE("sock_addr", sock_addr),
	PROBE("unix_sock_addr", unix_sock_addr),
	PROBE("cgroup_v2", cgroup_v2),
	PROBE("seccomp", seccomp),
	PROBE("pids", cgroup_ctrl[RF_LIMIT_PIDS]),
	PROBE("memory", cgroup_ctrl[RF_LIMIT_MEMORY]),
	{ "landlock_abi", offsetof(struct rf_caps, landlock_abi), CAP_INT },
	{ "unix_bytes", offsetof(struct rf_caps, unix_bytes), CAP_INT },
	{ "landlock_audit_log", offsetof(struct rf_caps, landlock_audit_log), CAP_BOOL },
	{ "ipv6_rthdr2", offsetof(struct rf_caps, ipv6_rthdr2), CAP_BOOL },
};

static void caps_set(struct rf_caps *c, const char *name, const char *key, const char *val)
{
	size_t i;

	for (i = 0; i < sizeof(cap_keys) / sizeof(cap_keys[0]); i++) {
		char *f = (char *)c + cap_keys[i].off;

		if (strcmp(cap_keys[i].key, key))
			continue;
		if (cap_keys[i].type == CAP_BOOL)
			*(bool *)f = atoi(val) != 0;
		else if (cap_keys[i].type == CAP_INT)
			*(int *)f = atoi(val);
		else
			snprintf(f, sizeof(c->landlock.detail), "%s", val);
		return;
	}
	fail_msg("%s: no caps key %s", name, key);
}

static struct rf_caps caps_of(const char *name, const char *spec)
{
	char buf[512], *save = NULL, *tok;
	struct rf_caps c;

	snprintf(buf, sizeof(buf), "%s", spec);
	tok = strtok_r(buf, ";", &save);
	c = !strcmp(tok, "none") ? caps_none() : !strcmp(tok, "lsm") ? caps_lsm() : caps_host();
	while ((tok = strtok_r(NULL, ";", &save))) {
		char *eq = strchr(tok, '=');

		tok += strspn(tok, " ");
		if (!eq)
			fail_msg("%s: caps \"%s\" is no key=value", name, tok);
		*eq = '\0';
		caps_set(&c, name, tok, eq + 1);
	}
	return c;
}

struct plan_case {
	const char *name;
	const char *caps;
	struct rf_plan_opts opts;
	const char *policy;
	const char *want;
};

#define ALL_OPEN_Q "'files':'unrestricted','exec':'unrestricted'"
#define MINIMAL_Q "{'version':1,'id':'a'}"
#define SYSCALLS_Q "{'version':1,'id':'a'," ALL_OPEN_Q ",'syscalls':{'allow':['read']"
#define HOLES_Q "{'version':1,'id':'a','network':{'connect':['[::1]:1'],'unix':[]}}"
#define LIMITS_PIDS_Q "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':'unrestricted'," \
	"'limits':{'pids':10}}"
#define REQUIRE_3 ((1u << RF_BE_LANDLOCK) | (1u << RF_BE_SECCOMP) | (1u << RF_BE_CGROUP_SOCK_ADDR))

static const struct plan_case plan_cases[] = {
	/* the TCP-port layer would hide denials from the trace: opt-in */
	{ .name = "network_allowlist_uses_cgroup_sock_addr", .caps = "host",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':{'connect':['127.0.0.1:80']}}",
	  .want = "ok=1\nnetwork.be=cgroup-sock-addr\nnetwork.enforced=1\ninstall.landlock_net=0\n" },
	/* "unix" absent inside "network": an empty allowlist, still enforced */
	{ .name = "network_prefer_landlock_adds_the_tcp_layer", .caps = "host",
	  .opts = { .prefer = 1u << RF_BE_LANDLOCK },
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':{'connect':['127.0.0.1:80']}}",
	  .want = "network.layers=landlock-tcp\ninstall.landlock_net=1\nunix.request=allowlist\n"
		  "unix.enforced=1\ninstall.landlock_scope_unix=1\nfile.request=unrestricted\n"
		  "file.enforced=0\nfile.be=none\nfile.note=unrestricted\ninstall.landlock_fs=0\n" },
	/* omitted files and exec mean deny-all: Landlock enforces them here */
	{ .name = "omitted_files_and_exec_go_to_landlock", .caps = "host", .policy = MINIMAL_Q,
	  .want = "ok=1\nfile.request=deny-all\nfile.be=landlock\nexec.be=landlock\n"
		  "install.landlock_abi=7\nfile.note=landlock-file\nexec.note=landlock-exec\n"
		  "install.landlock_fs=1\n" },
	/* without Landlock (or bpf-lsm) the same policy is refused, per class */
	{ .name = "refuses_files_and_exec_without_landlock", .caps = "host; landlock.ok=0",
	  .policy = MINIMAL_Q,
	  .want = "ok=0\nfile.required=1\nfile.enforced=0\nrefusal=file:no-fs-backend\n"
		  "refusal=exec:no-fs-backend\nfile.refused=1\nexec.refused=1\nreasons=2\n" },
	/* Landlock below ABI 3 cannot confine truncate(): broader than asked */
	{ .name = "refuses_files_on_landlock_abi_2", .caps = "host; landlock_abi=2",
	  .policy = "{'version':1,'id':'a','exec':'unrestricted'}",
	  .want = "ok=0\nrefusal=file:landlock-truncate\nreason[0].param=2\n"
		  "install.landlock_net=0\ninstall.landlock_scope_signal=0\n" },
	/* audit mode must deny nothing: Landlock cannot record without denying,
	 * so under it audit needs the observe programs, and Landlock's file
	 * rules are left out */
	{ .name = "audit_under_landlock_needs_the_observe_programs", .caps = "host",
	  .policy = "{'version':1,'id':'a','mode':'audit','exec':'unrestricted',"
		    "'network':{'connect':[]}}",
	  .want = "ok=0\nrefusal=file:audit-landlock\n" },
	/* the process boundary stays: seccomp still refuses, observed */
	{ .name = "audit_under_landlock_observes_and_adds_no_denying_layer",
	  .caps = "host; observe.ok=1",
	  .policy = "{'version':1,'id':'a','mode':'audit','exec':'unrestricted',"
		    "'network':{'connect':[]}}",
	  .want = "ok=1\nfile.be=landlock\nfile.note=landlock-audit\nfile.observed=inferred-audit\n"
		  "install.landlock_fs=0\ninstall.seccomp_boundary=1\nprocess.observed=inferred\n" },
	{ .name = "audit_adds_no_network_layer", .caps = "host",
	  .policy = "{'version':1,'id':'a','mode':'audit'," ALL_OPEN_Q ",'network':{'connect':[]}}",
	  .want = "ok=1\ninstall.landlock_net=0\ninstall.landlock_scope_unix=0\nnetwork.layers=none\n" },
	/* no layer under a refused class */
	{ .name = "refuses_network_without_sock_addr",
	  .caps = "host; sock_addr.ok=0; sock_addr.detail=load: Operation not permitted",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':{'connect':[],"
		    "'unix':'unrestricted'}}",
	  .want = "ok=0\nrefusal=network:sock-addr\nreason[0].detail=load: Operation not permitted\n"
		  "unix.required=0\ninstall.landlock_net=0\n" },
	/* a policy that restricts unix sockets on a kernel without the unix
	 * hooks is refused; one leaving them unrestricted runs */
	{ .name = "unix_needs_connect_unix_hooks", .caps = "host; unix_sock_addr.ok=0",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':{'connect':['127.0.0.1:80'],"
		    "'unix':['/run/x.sock']}}",
	  .want = "ok=0\nrefusal=unix:sock-addr\nreasons=1\n" },
	{ .name = "unix_unrestricted_needs_no_hooks", .caps = "host; unix_sock_addr.ok=0",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':{'connect':['127.0.0.1:80'],"
		    "'unix':'unrestricted'}}",
	  .want = "ok=1\nunix.request=unrestricted\nunix.enforced=0\n" },
	/* an allowed abstract name: no abstract scoping layer (it would cut it) */
	{ .name = "no_abstract_scoping_when_an_abstract_name_is_allowed", .caps = "host",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':{'unix':['@bus']}}",
	  .want = "ok=1\ninstall.landlock_scope_unix=0\n" },
	/* in the order the plan lists classes */
	{ .name = "refuses_without_cgroup2", .caps = "host; cgroup_v2.ok=0",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q "}",
	  .want = "ok=0\nrefusal=network:no-cgroup2\nrefusal=unix:no-cgroup2\n"
		  "reason[0].cls=network\n" },
	/* the process boundary: seccomp where the kernel has it, with Landlock
	 * signal scoping from ABI 6; capabilities alone otherwise */
	{ .name = "process_boundary_seccomp_and_signal_scoping", .caps = "host",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':'unrestricted'}",
	  .want = "process.be=seccomp\ninstall.seccomp_boundary=1\ninstall.landlock_scope_signal=1\n"
		  "process.layers=capabilities+landlock-scope-signal\n" },
	{ .name = "process_boundary_capabilities_alone", .caps = "host; seccomp.ok=0; landlock_abi=5",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'network':'unrestricted'}",
	  .want = "ok=1\nprocess.be=capabilities\ninstall.seccomp_boundary=0\n"
		  "install.landlock_scope_signal=0\nprocess.layers=capabilities\nprocess.note=process\n" },
	{ .name = "syscalls_go_to_seccomp", .caps = "host", .policy = SYSCALLS_Q "}}",
	  .want = "ok=1\nsyscalls.be=seccomp\nsyscalls.note=syscalls-seccomp\n"
		  "install.seccomp_allowlist=1\n" },
	/* alert: accepted, reported by the monitor, never called enforced */
	{ .name = "syscalls_alert_to_the_monitor", .caps = "host",
	  .policy = SYSCALLS_Q ",'on_violation':'alert'}}",
	  .want = "ok=1\ninstall.seccomp_allowlist=0\nsyscalls.enforced=0\n"
		  "syscalls.be=ringfence-monitor\nsyscalls.note=syscalls-alert\n" },
	/* with the observe programs: the profile goes into the listener's
	 * filter in both modes (alert: let through, reported) */
	{ .name = "syscalls_alert_through_the_listener", .caps = "host; observe.ok=1",
	  .policy = SYSCALLS_Q ",'on_violation':'alert'}}",
	  .want = "ok=1\ninstall.seccomp_allowlist=1\ninstall.seccomp_notify=1\nsyscalls.enforced=0\n"
		  "syscalls.note_text=alert: calls outside the profile are reported by "
		  "ringfence-monitor (when it runs), never denied; the supervisor's seccomp "
		  "listener answers calls outside the profile and traces and publishes the "
		  "first of each syscall for ringfence-monitor\n" },
	{ .name = "syscalls_deny_through_the_listener", .caps = "host; observe.ok=1",
	  .policy = SYSCALLS_Q "}}",
	  .want = "install.seccomp_allowlist=1\ninstall.seccomp_notify=1\n" },
	{ .name = "syscalls_refused_in_audit_mode", .caps = "host",
	  .policy = "{'version':1,'id':'a','mode':'audit'," ALL_OPEN_Q ","
		    "'syscalls':{'allow':['read']}}",
	  .want = "ok=0\nrefusal=syscalls:syscalls-audit\n" },
	{ .name = "syscalls_refused_without_seccomp", .caps = "host; seccomp.ok=0",
	  .policy = SYSCALLS_Q "}}", .want = "ok=0\nrefusal=syscalls:no-seccomp\n" },
	/* monitor thresholds are detection, not enforcement: accepted, and
	 * never reported as enforced */
	{ .name = "monitor_thresholds_are_accepted_not_enforced", .caps = "host",
	  .policy = "{'version':1,'id':'a'," ALL_OPEN_Q ",'monitor':{'pids':5}}",
	  .want = "ok=1\nmonitor.enforced=0\nmonitor.required=0\nmonitor.be=ringfence-monitor\n"
		  "monitor.note=monitor\n" },
	/* every class refused at once, on a kernel with nothing: one reason
	 * each (file exec network unix syscalls limits) */
	{ .name = "lists_each_refused_class_once", .caps = "none",
	  .policy = "{'version':1,'id':'a','limits':{'pids':10},'syscalls':{'allow':['read']},"
		    "'monitor':{'pids':5}}",
	  .want = "ok=0\nreasons=6\n" },
	/* --require cgroup-v2-pids holds only where pids is enforced */
	{ .name = "limits_require_pids", .caps = "host; pids.ok=1",
	  .opts = { .require = 1u << RF_BE_CGROUP_PIDS }, .policy = LIMITS_PIDS_Q, .want = "ok=1\n" },
	{ .name = "limits_require_an_unused_backend", .caps = "host; pids.ok=1",
	  .opts = { .require = 1u << RF_BE_SUPERVISOR }, .policy = LIMITS_PIDS_Q,
	  .want = "ok=0\nrefusal=require-unused\n" },
	{ .name = "bpf_lsm_takes_file_exec_unix_process", .caps = "lsm",
	  .policy = "{'version':1,'id':'a','network':{'unix':['/run/x']}}",
	  .want = "ok=1\nfile.be=bpf-lsm\nexec.be=bpf-lsm\nunix.be=bpf-lsm\nprocess.be=bpf-lsm\n"
		  "network.be=cgroup-sock-addr\nprocess.layers=capabilities+seccomp+"
		  "landlock-scope-signal\ninstall.lsm_flags=files+exec+unix+process\n"
		  "install.landlock_fs=0\ninstall.seccomp_boundary=1\n" },
	/* issue 13: other processes' scheduling and routing options go to the
	 * seccomp layer only where no BPF-LSM program judges them, and what
	 * neither can close there is a gap of the plan */
	{ .name = "net_task_holes_on_landlock", .caps = "host; ipv6_rthdr2=1", .policy = HOLES_Q,
	  .want = "install.seccomp_task_targets=1\ninstall.seccomp_net_opts=1\n"
		  "gap.net.rthdr-cmsg=1\ngap.process.sigio=0\ngap.net.passed-socket=0\n" },
	/* a socket made outside comes in over a unix socket to outside: an
	 * allowed name, or one on fd 0-2 (the run's stdio_unix) */
	{ .name = "net_passed_socket_through_an_allowed_name", .caps = "host",
	  .policy = "{'version':1,'id':'a','network':{'connect':['[::1]:1'],'unix':['/run/b']}}",
	  .want = "gap.net.passed-socket=1\n" },
	{ .name = "net_passed_socket_through_stdio", .caps = "host",
	  .opts = { .stdio_unix = true }, .policy = HOLES_Q, .want = "gap.net.passed-socket=1\n" },
	/* no MIP6: no gap; no signal scoping below ABI 6 */
	{ .name = "net_task_holes_without_mip6_and_scoping", .caps = "host; landlock_abi=5",
	  .policy = HOLES_Q, .want = "gap.net.rthdr-cmsg=0\ngap.process.sigio=1\n" },
	{ .name = "net_task_holes_network_open", .caps = "host; landlock_abi=5",
	  .policy = "{'version':1,'id':'a','network':{'connect':'unrestricted','unix':[]}}",
	  .want = "install.seccomp_task_targets=1\ninstall.seccomp_net_opts=0\n"
		  "gap.net.passed-socket=0\n" },
	/* an egress budget holds no socket made outside either */
	{ .name = "net_passed_socket_under_an_egress_budget", .caps = "host",
	  .policy = "{'version':1,'id':'a','network':{'connect':'unrestricted','unix':'unrestricted'},"
		    "'limits':{'egress_bytes':1000}}",
	  .want = "gap.net.passed-socket=1\n" },
	{ .name = "net_task_holes_under_bpf_lsm", .caps = "lsm; ipv6_rthdr2=1", .policy = HOLES_Q,
	  .want = "install.seccomp_task_targets=0\ninstall.seccomp_net_opts=0\n"
		  "gap.net.rthdr-cmsg=0\ngap.process.sigio=0\ngap.net.passed-socket=0\n" },
	{ .name = "net_passed_socket_refused_under_bpf_lsm", .caps = "lsm",
	  .opts = { .stdio_unix = true },
	  .policy = "{'version':1,'id':'a','network':{'connect':['[::1]:1'],'unix':['/run/b']}}",
	  .want = "gap.net.passed-socket=0\n" },
	/* bpf-lsm can record without denying: audit mode is fine with it */
	{ .name = "bpf_lsm_allows_audit_mode", .caps = "lsm",
	  .policy = "{'version':1,'id':'a','mode':'audit'}", .want = "ok=1\nfile.be=bpf-lsm\n" },
	{ .name = "prefer_landlock_over_bpf_lsm_for_files", .caps = "lsm",
	  .opts = { .prefer = 1u << RF_BE_LANDLOCK }, .policy = MINIMAL_Q,
	  .want = "ok=1\nfile.be=landlock\ninstall.landlock_fs=1\ninstall.lsm_flags.files=0\n" },
	/* --keep-caps is a test mode for proving the LSM boundary alone:
	 * refused without bpf-lsm; with it, no seccomp or landlock layer */
	{ .name = "keep_caps_needs_bpf_lsm", .caps = "host", .opts = { .keep_caps = true },
	  .policy = MINIMAL_Q, .want = "ok=0\nrefusal=process:keep-caps\n" },
	{ .name = "keep_caps_under_bpf_lsm", .caps = "lsm", .opts = { .keep_caps = true },
	  .policy = MINIMAL_Q,
	  .want = "ok=1\ninstall.keep_caps=1\nprocess.layers=capabilities-kept\n"
		  "install.seccomp_boundary=0\ninstall.landlock_scope_signal=0\n" },
	/* --require: refused unless that backend enforces something here */
	{ .name = "require_refuses_an_unavailable_backend", .caps = "host",
	  .opts = { .require = 1u << RF_BE_BPF_LSM }, .policy = MINIMAL_Q,
	  .want = "ok=0\nrefusal=require-lsm\nreasons=1\n" },
	{ .name = "require_what_enforces", .caps = "host", .opts = { .require = REQUIRE_3 },
	  .policy = MINIMAL_Q, .want = "ok=1\n" },
	{ .name = "require_what_enforces_nothing", .caps = "host; landlock.ok=0",
	  .opts = { .require = REQUIRE_3 }, .policy = MINIMAL_Q,
	  .want = "refusal=require-unused\nreason[last].param=landlock\n" },
};

#define N_PLAN_CASES (sizeof(plan_cases) / sizeof(plan_cases[0]))

static void planner_case(void **state)
{
	const struct plan_case *pc = *state;
	struct rf_caps c = caps_of(pc->name, pc->caps);
	static struct lines got;
	struct rf_policy *p;
	struct rf_plan plan;
	char json[2048];

	p = load(q(json, sizeof(json), pc->policy));
	plan__compile(p, &c, &pc->opts, &plan);
	policy__free(p);
	plan_lines(&plan, &got);
	lines_expect(&got, pc->name, pc->want);
}

/* ---- rendering: today's exact text, pinned (plan_text.c) ---------------- */

static void text_of_reason(const struct rf_plan_reason *r, enum rf_lsm_state lsm, char *buf,
			   size_t len)
{
	static struct rf_plan plan;

	memset(&plan, 0, sizeof(plan));
	plan.lsm_state = lsm;
	plan.reasons[0] = *r;
	plan.n_reasons = 1;
	plan__reason_text(&plan, 0, buf, len);
}

/* --no-observe: Landlock's refusals unobserved, no tracepoint, the flags
 * without RF_OBSERVE_FLAGS, the plan's observation says so; audit mode
 * cannot record without them. */
static void planner_no_observe_is_a_per_run_choice(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"o\",\"network\":{\"connect\":[]}}");
	struct rf_policy *a = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\","
				   "\"files\":{\"read\":[\"/usr/\"]}}");
	struct rf_plan_opts o = { .no_observe = true };
	struct rf_caps c = caps_host();
	struct rf_plan plan;
	char note[RF_PLAN_NOTE_LEN];
	json_t *j, *obs;

	(void)state;
	c.observe.ok = true;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan__tracepoints(&plan));
	assert_true(plan__sandbox_flags(&plan, p, true) & RF_OBSERVE_FLAGS);
	j = plan__to_json(&plan);
	obs = json_object_get(j, "observation");
	assert_string_equal(json_string_value(json_object_get(obs, "choice")), "on");
	assert_true(json_is_true(json_object_get(obs, "syscall_tracepoints")));
	assert_non_null(strstr(json_string_value(json_object_get(obs, "host_cost")), "--no-observe"));
	json_decref(j);

	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	assert_true(plan.c[RF_CLASS_FILE].enforced);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_NONE);
	assert_int_equal(plan.c[RF_CLASS_EXEC].observed, RF_OBSV_NONE);
	assert_false(plan__tracepoints(&plan));
	assert_int_equal(plan__sandbox_flags(&plan, p, true) & RF_OBSERVE_FLAGS, 0);
	plan__note_text(&plan, RF_CLASS_FILE, note, sizeof(note));
	assert_non_null(strstr(note, "--no-observe"));
	j = plan__to_json(&plan);
	obs = json_object_get(j, "observation");
	assert_string_equal(json_string_value(json_object_get(obs, "choice")), "off");
	assert_false(json_is_true(json_object_get(obs, "syscall_tracepoints")));
	json_decref(j);

	/* Landlock's own log needs no tracepoint: nothing to turn off */
	c.landlock_audit_log = true;
	plan__compile(p, &c, &o, &plan);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_KERNEL_AUDIT);
	assert_false(plan__tracepoints(&plan));
	assert_false(plan__exec_tracepoint(&plan));
	/* observed, it is still no syscall tracepoint: the exec one alone
	 * kills the loader, and the plan says what that costs */
	plan__compile(p, &c, NULL, &plan);
	assert_false(plan__tracepoints(&plan));
	assert_true(plan__exec_tracepoint(&plan));
	assert_int_equal(plan__sandbox_flags(&plan, p, true) & RF_OBSERVE_FLAGS,
			 RF_SB_OBSERVE_LOADER);
	assert_false(plan.gaps & (1ull << RF_GAP_EXEC_LOADER));
	j = plan__to_json(&plan);
	obs = json_object_get(j, "observation");
	assert_false(json_is_true(json_object_get(obs, "syscall_tracepoints")));
	assert_true(json_is_true(json_object_get(obs, "exec_tracepoint")));
	assert_non_null(strstr(json_string_value(json_object_get(obs, "host_cost")), "exec"));
	json_decref(j);
	c.landlock_audit_log = false;

	plan__compile(a, &c, &o, &plan);
	assert_false(plan.ok);
	assert_false(plan.c[RF_CLASS_FILE].enforced);
	policy__free(p);
	policy__free(a);
}

/* Enforce mode: how each class's decisions are seen, per backend. */
static void planner_says_how_each_class_is_observed(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"o\",\"network\":{\"connect\":[]}}");
	struct rf_caps c = caps_host();
	struct rf_plan plan;
	json_t *j;

	(void)state;
	c.observe.ok = true;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_INFERRED);
	assert_int_equal(plan.c[RF_CLASS_EXEC].observed, RF_OBSV_INFERRED);
	assert_int_equal(plan.c[RF_CLASS_NET].observed, RF_OBSV_KERNEL);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_INFERRED);
	assert_true(plan.install.landlock_fs);
	j = plan__to_json(&plan);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(j, "classes"), "file"), "observed")), "inferred");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(j, "classes"), "network"), "observed")), "kernel");
	json_decref(j);
	/* without the observe programs nothing records Landlock's refusals */
	c.observe.ok = false;
	plan__compile(p, &c, NULL, &plan);
	assert_true(plan.ok);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_NONE);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_NONE);
	assert_string_equal(plan__observed_text(RF_OBSV_AUDIT_INFERRED), "inferred-audit");
	assert_string_equal(plan__observed_text(RF_OBSV_KERNEL_AUDIT), "kernel-audit");
	/* Landlock logs its own denials (audit on, ABI 7+): the note says so */
	c.observe.ok = true;
	c.landlock_audit_log = true;
	plan__compile(p, &c, NULL, &plan);
	assert_int_equal(plan.c[RF_CLASS_FILE].observed, RF_OBSV_KERNEL_AUDIT);
	assert_int_equal(plan.c[RF_CLASS_EXEC].observed, RF_OBSV_KERNEL_AUDIT);
	assert_int_equal(plan.c[RF_CLASS_PROCESS].observed, RF_OBSV_INFERRED);
	{
		char note[RF_PLAN_NOTE_LEN];

		plan__note_text(&plan, RF_CLASS_FILE, note, sizeof(note));
		assert_non_null(strstr(note, "Landlock logs each one to the kernel's audit"));
	}
	policy__free(p);
}

static void planner_text_every_refusal(void **state)
{
	static const struct {
		enum rf_class cls;
		enum rf_plan_why code;
		int param;
		const char *detail;
		enum rf_lsm_state lsm;
		const char *text;
	} cases[] = {
		{ RF_CLASS_FILE, RF_WHY_LSM_PATH_TOO_LONG, RF_PATH_MAX, "/aaa", 0,
		  "file: \"/aaa...\" is longer than the 247 bytes the bpf-lsm path matcher holds" },
		{ RF_CLASS_EXEC, RF_WHY_NO_FS_BACKEND, 0, "landlock_create_ruleset: ENOSYS",
		  RF_LSM_REFUSED, "exec: no backend can enforce exec rules here: landlock: "
		  "landlock_create_ruleset: ENOSYS; bpf-lsm: refused by this kernel" },
		{ RF_CLASS_FILE, RF_WHY_AUDIT_LANDLOCK, 0, "", RF_LSM_NOT_LOADED,
		  "file: audit mode needs a backend that can record without denying; landlock "
		  "cannot, bpf-lsm is available on this kernel, but this build's LSM programs "
		  "did not load, and the observe programs that would record accesses for landlock "
		  "are not available" },
		{ RF_CLASS_FILE, RF_WHY_LANDLOCK_TRUNCATE, 2, "", 0,
		  "file: landlock ABI 2 cannot confine truncate(); files needs ABI 3 or later" },
		{ RF_CLASS_NET, RF_WHY_SOCK_ADDR, 0, "load: Operation not permitted", 0,
		  "network: cgroup-sock-addr cannot run on this kernel (load: Operation not "
		  "permitted)" },
		{ RF_CLASS_UNIX, RF_WHY_NO_CGROUP2, 0, "no cgroup2 mount", 0,
		  "unix: no usable cgroup2 hierarchy (no cgroup2 mount)" },
		{ RF_CLASS_PROCESS, RF_WHY_KEEP_CAPS, 0, "", 0,
		  "process: --keep-caps (test-only) needs bpf-lsm to hold the process boundary, "
		  "and it is not available here" },
		{ RF_CLASS_SYSCALLS, RF_WHY_SYSCALLS_AUDIT, 0, "", 0,
		  "syscalls: audit mode: a seccomp allowlist cannot record into the trace without "
		  "denying; remove \"syscalls\" or use enforce mode" },
		{ RF_CLASS_SYSCALLS, RF_WHY_NO_SECCOMP, 0, "prctl: EINVAL", 0,
		  "syscalls: seccomp is not available (prctl: EINVAL)" },
		{ RF_CLASS_LIMITS, RF_WHY_NO_CONTROLLER, RF_LIMIT_MEMORY,
		  "the memory controller is not in the cgroup2 hierarchy at /c (its "
		  "cgroup.controllers: hugetlb)", 0,
		  "limits: memory_mb: cgroup-v2-memory cannot be enforced here: the memory "
		  "controller is not in the cgroup2 hierarchy at /c (its cgroup.controllers: "
		  "hugetlb); remove it to run without it" },
		{ RF_CLASS_LIMITS, RF_WHY_LIMIT_NO_CGROUP2, RF_LIMIT_PIDS, "no cgroup2 mount", 0,
		  "limits: pids: no usable cgroup2 hierarchy (no cgroup2 mount)" },
		{ RF_CLASS_LIMITS, RF_WHY_SCRATCH_PATH, -ENOENT, "/nope", 0,
		  "limits: scratch: \"/nope\" cannot be used as a mount point: No such file or "
		  "directory" },
		{ RF_CLASS_LIMITS, RF_WHY_SCRATCH_CWD, 0, "/tmp/job", 0,
		  "limits: scratch: the working directory \"/tmp/job\" lies inside the scratch "
		  "path, which the command sees as an empty tmpfs: start it from outside (from the "
		  "scratch path itself it starts in the empty tmpfs)" },
		{ RF_CLASS_LIMITS, RF_WHY_SCRATCH_CWD, -ENOENT, "", 0,
		  "limits: scratch: the working directory cannot be placed against the scratch "
		  "path: No such file or directory" },
		{ RF_CLASS_FILE, RF_WHY_TMP_CWD, 0, "/tmp/job", 0,
		  "file: the working directory \"/tmp/job\" lies below /tmp, which this sandbox "
		  "gets private (an empty tmpfs): start it from elsewhere, or set files.tmp to "
		  "\"shared\"" },
		{ RF_CLASS_FILE, RF_WHY_TMP_CWD, -ENOENT, "", 0,
		  "file: the working directory cannot be placed against /tmp, which this sandbox "
		  "gets private: No such file or directory" },
		{ RF_CLASS_MAX, RF_WHY_REQUIRE_LSM, RF_BE_BPF_LSM, "load: EPERM", RF_LSM_NOT_PROBED,
		  "--require: bpf-lsm enforces nothing here: not probed (load: EPERM)" },
		{ RF_CLASS_MAX, RF_WHY_REQUIRE_UNUSED, RF_BE_LANDLOCK, "", 0,
		  "--require: landlock enforces no class of this policy on this kernel" },
		{ RF_CLASS_SYSCALLS, RF_WHY_SECCOMP_BUILD, -ENOMEM, "", 0,
		  "syscalls: building the seccomp filters: Cannot allocate memory" },
		{ RF_CLASS_PROCESS, RF_WHY_SECCOMP_BUILD, -EPERM, "seccomp_load", 0,
		  "process: seccomp_load: Operation not permitted" },
		{ RF_CLASS_EXEC, RF_WHY_LANDLOCK_ENTRY, 0, "$.exec[0] \"/x\": does not exist", 0,
		  "exec: $.exec[0] \"/x\": does not exist" },
		{ RF_CLASS_FILE, RF_WHY_LANDLOCK_BUILD, -EPERM, "", 0,
		  "file: building the Landlock ruleset: Operation not permitted" },
		{ RF_CLASS_FILE, RF_WHY_STRICT_GAPS, 0, "file.xattr, file.attr", 0,
		  "file: --strict: the backend leaves known gaps (file.xattr, file.attr; "
		  "see \"gaps\")" },
	};
	bool seen[RF_WHY_MAX] = { false };
	char text[RF_PLAN_REASON_LEN];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_plan_reason r = { .cls = cases[i].cls, .code = cases[i].code,
					    .param = cases[i].param };

		snprintf(r.detail, sizeof(r.detail), "%s", cases[i].detail);
		text_of_reason(&r, cases[i].lsm, text, sizeof(text));
		assert_string_equal(text, cases[i].text);
		seen[cases[i].code] = true;
	}
	for (i = 0; i < RF_WHY_MAX; i++)
		assert_true(seen[i]);
}

/* A refused class's note is its reason without the class. */
static void planner_text_refused_note_and_refusal_lines(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"limits\":{\"pids\":10}}");
	struct rf_caps c = caps_host();
	char text[RF_PLAN_REASON_LEN];
	struct rf_plan plan;

	(void)state;
	c.landlock.ok = false;
	snprintf(c.landlock.detail, sizeof(c.landlock.detail), "ENOSYS");
	plan__compile(p, &c, NULL, &plan);
	assert_int_equal(plan.n_reasons, 3);
	plan__note_text(&plan, RF_CLASS_EXEC, text, RF_PLAN_NOTE_LEN);
	assert_string_equal(text, "no backend can enforce exec rules here: landlock: ENOSYS; "
			    "bpf-lsm: refused by this kernel");
	plan__reason_text(&plan, 0, text, sizeof(text));
	assert_string_equal(text, "file: no backend can enforce file rules here: landlock: "
			    "ENOSYS; bpf-lsm: refused by this kernel");
	plan__backend_text(&plan, RF_CLASS_FILE, text, sizeof(text));
	assert_string_equal(text, "");
	policy__free(p);
}

static void assert_note(const struct rf_plan *plan, enum rf_class c, const char *want)
{
	char text[RF_PLAN_NOTE_LEN];

	plan__note_text(plan, c, text, sizeof(text));
	assert_string_equal(text, want);
}

static void assert_layers(const struct rf_plan *plan, enum rf_class c, const char *want)
{
	char text[RF_PLAN_NOTE_LEN];

	plan__layers_text(plan, c, text, sizeof(text));
	assert_string_equal(text, want);
}

static void assert_backend(const struct rf_plan *plan, enum rf_class c, const char *want)
{
	char text[RF_PLAN_NOTE_LEN];

	plan__backend_text(plan, c, text, sizeof(text));
	assert_string_equal(text, want);
}

#define PROC_HEAD "no_new_privs; all capability sets emptied, securebits locked; cgroup2 " \
	"read-only and bpffs absent in its mount namespace; own session, no controlling terminal"
#define PROC_LSM "; bpf-lsm: no bpf(), no ptrace of, signals to or /proc/PID/mem access to " \
	"processes outside the sandbox, no mounts, no user namespaces, no writes to cgroup files"
#define PROC_SECCOMP "; seccomp: no bpf, ptrace, process_vm_*, mounts, namespaces, keyrings, " \
	"perf, kexec, modules, userfaultfd, io_uring, personality, TIOCSTI/TIOCLINUX; " \
	"non-native syscall ABIs killed"
#define PROC_LANDLOCK "; landlock: no signals to, ptrace of or /proc/PID/mem access to " \
	"processes outside the sandbox"

#define UNSEEN "denials: not traced (Landlock records none and the observe programs do " \
	"not load here)"
#define SEEN "denials: Landlock records none unless the kernel's audit is on; ringfence " \
	"infers them from watched syscalls that failed with EACCES or EPERM (attribution " \
	"inferred), so a refusal through a syscall it does not watch is not traced"

static void planner_text_landlock_host(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"network\":{\"connect\":[]},"
				   "\"syscalls\":{\"allow\":[\"read\"]},\"monitor\":{\"pids\":5}}");
	struct rf_caps c = caps_host();
	struct rf_plan_opts o = { .prefer = (1u << RF_BE_LANDLOCK) | (1u << RF_BE_BPF_LSM) };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &c, &o, &plan);
	assert_true(plan.ok);
	assert_backend(&plan, RF_CLASS_FILE, "landlock-abi7");
	assert_backend(&plan, RF_CLASS_NET, "cgroup-sock-addr");
	assert_backend(&plan, RF_CLASS_PROCESS, "seccomp");
	assert_backend(&plan, RF_CLASS_MONITOR, "ringfence-monitor");
	assert_backend(&plan, RF_CLASS_LIMITS, "");
	assert_note(&plan, RF_CLASS_FILE, "paths must exist when the sandbox starts; " UNSEEN
		    "; --prefer bpf-lsm not honoured: bpf-lsm is refused by this kernel");
	assert_note(&plan, RF_CLASS_EXEC, "execve of the command, scripts' interpreters and "
		    "ld.so are checked; not checked by Landlock: libraries mapped executable by "
		    "the loader (no mmap hook) and executables without a path (a memfd run with "
		    "execveat); " UNSEEN "; --prefer bpf-lsm not honoured: bpf-lsm is refused by "
		    "this kernel");
	/* Where the observe programs load, the gap is said the other way. */
	c.observe.ok = true;
	plan__compile(p, &c, &o, &plan);
	assert_note(&plan, RF_CLASS_FILE, "paths must exist when the sandbox starts; " SEEN
		    "; --prefer bpf-lsm not honoured: bpf-lsm is refused by this kernel");
	c.observe.ok = false;
	plan__compile(p, &c, &o, &plan);
	assert_note(&plan, RF_CLASS_NET, "");
	assert_note(&plan, RF_CLASS_PROCESS, PROC_HEAD PROC_SECCOMP PROC_LANDLOCK);
	assert_note(&plan, RF_CLASS_SYSCALLS, "allowlist, EPERM for every other syscall; execve, "
		    "exit and exit_group are always allowed (the launcher execs the command after "
		    "installing the filter, and must exit if that fails); refused calls are not in "
		    "the trace (seccomp records none); ringfence-monitor reports them (when it runs)");
	assert_note(&plan, RF_CLASS_MONITOR, "detection only: thresholds published in the "
		    "sandbox registry for ringfence-monitor (when it runs)");
	assert_layers(&plan, RF_CLASS_NET, "landlock-abi7 (TCP connect ports; refuses unlisted "
		      "ports before the cgroup hook, with EACCES, unrecorded)");
	assert_layers(&plan, RF_CLASS_UNIX, "landlock-abi7 (abstract sockets outside the sandbox)");
	assert_layers(&plan, RF_CLASS_PROCESS, "capabilities; landlock-abi7 (signal scoping, "
		      "ptrace confinement)");
	policy__free(p);
}

static void planner_text_bpf_lsm_and_bare_kernels(void **state)
{
	struct rf_policy *p = load("{\"version\":1,\"id\":\"a\",\"network\":{\"unix\":[]},"
				   "\"syscalls\":{\"allow\":[\"read\"],\"on_violation\":\"alert\"}}");
	struct rf_policy *free_fs = load("{\"version\":1,\"id\":\"a\"," UNRESTRICTED_FX ","
					 "\"network\":\"unrestricted\"}");
	struct rf_caps lsm = caps_lsm(), bare = caps_host();
	struct rf_plan_opts keep = { .keep_caps = true };
	struct rf_plan plan;

	(void)state;
	plan__compile(p, &lsm, NULL, &plan);
	assert_note(&plan, RF_CLASS_FILE, "every open by mode, and create, remove, rename, link, "
		    "truncate, mode, owner and times changes, on the kernel's resolved paths");
	assert_note(&plan, RF_CLASS_EXEC, "every exec (interpreters and execveat included) and "
		    "every executable file mapping; executables without a path are denied");
	assert_note(&plan, RF_CLASS_UNIX, "stream connects and datagram sends to unix sockets, "
		    "pathname and abstract, judged on the peer's bound name after the kernel "
		    "resolved it; nothing of the sandbox's that answers a connect is put at an "
		    "allowed pathname or on its way");
	assert_note(&plan, RF_CLASS_PROCESS, PROC_HEAD PROC_LSM PROC_SECCOMP PROC_LANDLOCK);
	assert_note(&plan, RF_CLASS_SYSCALLS, "alert: calls outside the profile are reported by "
		    "ringfence-monitor (when it runs), never denied; not reported here: the "
		    "supervisor's seccomp listener needs the observe programs (only "
		    "ringfence-monitor --record sees the calls)");
	assert_backend(&plan, RF_CLASS_SYSCALLS, "ringfence-monitor");
	assert_layers(&plan, RF_CLASS_PROCESS, "capabilities; seccomp; landlock-abi7 (signal "
		      "scoping, ptrace confinement)");
	plan__compile(p, &lsm, &keep, &plan);
	assert_note(&plan, RF_CLASS_PROCESS, "no_new_privs; capabilities kept (test mode); cgroup2 "
		    "read-only and bpffs absent in its mount namespace; own session, no "
		    "controlling terminal" PROC_LSM);
	assert_layers(&plan, RF_CLASS_PROCESS, "capabilities KEPT (--keep-caps test mode)");
	bare.seccomp.ok = false;
	bare.landlock_abi = 5;
	plan__compile(free_fs, &bare, NULL, &plan);
	assert_note(&plan, RF_CLASS_FILE, "unrestricted by the policy: not confined");
	assert_note(&plan, RF_CLASS_PROCESS, PROC_HEAD "; NOT covered (no seccomp): bpf, ptrace, "
		    "mounts, user namespaces; NOT covered (no landlock ABI 6): signals to same-user "
		    "processes outside");
	assert_backend(&plan, RF_CLASS_PROCESS, "capabilities");
	policy__free(p);
	policy__free(free_fs);
}

#define GAP(g) (1ull << RF_GAP_##g)

/* memory.deny_write_execute: prctl where the kernel has it, else the
 * boundary filter; exec.anon-code closed either way, on both backends. */
static void planner_wx_closes_anon_code(void **state)
{
	struct rf_policy *wx = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				    "\"exec\":[\"/usr/\"],\"memory\":{\"deny_write_execute\":true}}");
	struct rf_policy *aud = load("{\"version\":1,\"id\":\"a\",\"mode\":\"audit\","
				     "\"files\":\"unrestricted\",\"exec\":[\"/usr/\"],"
				     "\"memory\":{\"deny_write_execute\":true}}");
	struct rf_caps c = caps_host(), l = caps_lsm();
	struct rf_plan plan;

	(void)state;
	c.mdwe = true;
	plan__compile(wx, &c, NULL, &plan);
	assert_true(plan.install.mdwe && !plan.install.seccomp_wx);
	assert_true(plan.c[RF_CLASS_EXEC].layers & RF_LAYER_MDWE);
	assert_false(plan.gaps & GAP(EXEC_ANON_CODE));
	c.mdwe = false;
	plan__compile(wx, &c, NULL, &plan);
	assert_true(!plan.install.mdwe && plan.install.seccomp_wx);
	assert_true(plan.c[RF_CLASS_EXEC].layers & RF_LAYER_SECCOMP_WX);
	assert_false(plan.gaps & GAP(EXEC_ANON_CODE));
	plan__compile(wx, &l, NULL, &plan);
	assert_true(plan.install.seccomp_wx);
	assert_false(plan.gaps & GAP(EXEC_ANON_CODE));
	/* audit mode denies nothing: not applied, the gap stays */
	plan__compile(aud, &c, NULL, &plan);
	assert_false(plan.install.mdwe || plan.install.seccomp_wx);
	policy__free(wx);
	policy__free(aud);
}

/* unix.rename and unix.rebind (BPF-LSM closes both: RF_SB_LSM_UNIX_NAMES
 * refuses the latter in the kernel): only on the cgroup hooks, and only
 * where a write rule reaches an allowed pathname's directory; files on
 * Landlock close it by withholding sockets and symlinks there (install.landlock_unix_names),
 * files unrestricted cannot. unix.rename-dir: where a write rule holds a
 * directory of the name below its root (or lies below an allowed subtree);
 * with the write rules' own mounts (mount_setattr: ro_tree) the planner
 * leaves it to the pins made at start (install.unix_pins, run/unixpin.h). */
static void planner_unix_rename_gap(void **state)
{
	static const struct {
		const char *files, *unx;
		bool narrow, gap, dir;
	} cases[] = {
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/tmp/\"]}", "\"/tmp/x.sock\"", true, false, false },
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/tmp/\"]}", "\"/tmp/a/b/x.sock\"", true, false, true },
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/tmp/\"]}", "\"/tmp/d/\"", true, false, true },
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/srv/in/\"]}", "\"/srv/\"", true, false, true },
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/tmp/\"]}", "\"/run/x.sock\"", false, false, false },
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/tmp/f\"]}", "\"/tmp/f\"", false, false, false },
		{ "{\"read\":[\"/usr/\"],\"write\":[\"/tmp/\"]}", "\"@abstract\"", false, false, false },
		{ "\"unrestricted\"", "\"/run/x.sock\"", false, true, true },
		{ "\"unrestricted\"", "\"@abstract\"", false, false, false },
	};
	struct rf_caps c = caps_host(), l = caps_lsm();
	struct rf_plan plan;
	char json[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rf_policy *p;

		snprintf(json, sizeof(json), "{\"version\":1,\"id\":\"a\",\"files\":%s,"
			 "\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[%s]}}",
			 cases[i].files, cases[i].unx);
		p = load(json);
		plan__compile(p, &c, NULL, &plan);
		assert_int_equal(plan.install.landlock_unix_names, cases[i].narrow);
		assert_int_equal(!!(plan.gaps & GAP(UNIX_RENAME)), cases[i].gap);
		assert_int_equal(!!(plan.gaps & GAP(UNIX_REBIND)), cases[i].gap);
		assert_int_equal(!!(plan.gaps & GAP(UNIX_RENAME_DIR)), cases[i].dir);
		assert_false(plan.install.unix_pins);
		c.mount_setattr = true;
		plan__compile(p, &c, NULL, &plan);
		c.mount_setattr = false;
		assert_int_equal(!!(plan.gaps & GAP(UNIX_RENAME_DIR)), cases[i].dir && cases[i].gap);
		assert_int_equal(plan.install.unix_pins, cases[i].dir && !cases[i].gap);
		if (cases[i].narrow) {
			const struct rf_path_rule *w = &p->files_write.v[0];

			assert_true(policy__unix_name_in_write(p, w));
		}
		plan__compile(p, &l, NULL, &plan);
		assert_false(plan.gaps & (GAP(UNIX_RENAME) | GAP(UNIX_RENAME_DIR)));
		/* BPF-LSM judges a connect by the socket as bound, and refuses
		 * the sandbox a socket of its own at an allowed pathname (or on
		 * its way): where there is one, the flag that does it */
		assert_false(plan.gaps & GAP(UNIX_REBIND));
		assert_int_equal(!!(plan.install.lsm_flags & RF_SB_LSM_UNIX_NAMES),
				 !strchr(cases[i].unx, '@'));
		assert_false(plan.install.landlock_unix_names || plan.install.unix_pins);
		policy__free(p);
	}
}

/* Landlock's holes: what seccomp closes, the rest listed as gaps, which
 * depend on the policy (a write rule) and the kernel (MFD_NOEXEC_SEAL). */
static void planner_gaps_follow_backend_policy_and_kernel(void **state)
{
	struct rf_policy *rw = load("{\"version\":1,\"id\":\"a\",\"files\":{\"read\":[\"/usr/\"],"
				    "\"write\":[\"/tmp/\"]},\"exec\":[\"/usr/\"]}");
	struct rf_policy *ro = load("{\"version\":1,\"id\":\"a\",\"files\":{\"read\":[\"/usr/\"]},"
				    "\"exec\":[\"/usr/\"]}");
	struct rf_policy *open = load("{\"version\":1,\"id\":\"a\",\"files\":\"unrestricted\","
				      "\"exec\":\"unrestricted\"}");
	struct rf_caps c = caps_host(), l = caps_lsm();
	struct rf_plan plan;
	json_t *j;

	(void)state;
	c.memfd_noexec_seal = true;
	plan__compile(rw, &c, NULL, &plan);
	/* no observe programs: nothing kills `ld.so FILE` */
	assert_int_equal(plan.gaps, GAP(FILE_XATTR) | GAP(FILE_ATTR) | GAP(EXEC_MMAP) |
					    GAP(EXEC_LOADER) | GAP(EXEC_ANON_CODE));
	assert_false(plan.install.loader_kill);
	c.observe.ok = true;
	plan__compile(rw, &c, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(FILE_XATTR) | GAP(FILE_ATTR) | GAP(EXEC_MMAP) |
					    GAP(EXEC_ANON_CODE));
	assert_true(plan.install.loader_kill);
	assert_true(plan__sandbox_flags(&plan, rw, true) & RF_SB_OBSERVE_LOADER);
	assert_false(plan.install.seccomp_fs_meta);
	assert_true(plan.install.seccomp_fs_ioctl && plan.install.seccomp_memfd_noexec);
	j = plan__to_json(&plan);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(j, "gaps"), 0), "gap")), "file.xattr");
	json_decref(j);

	plan__compile(ro, &c, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(EXEC_MMAP) | GAP(EXEC_ANON_CODE));
	assert_true(plan.install.seccomp_fs_meta);
	assert_false(plan.install.ro_tree);

	/* The new mount API: the rest of the tree read-only closes both. */
	c.mount_setattr = true;
	plan__compile(rw, &c, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(EXEC_MMAP) | GAP(EXEC_ANON_CODE));
	assert_true(plan.install.ro_tree);
	assert_false(plan.install.seccomp_fs_meta);
	plan__compile(ro, &c, NULL, &plan);
	assert_false(plan.install.ro_tree);
	plan__compile(rw, &l, NULL, &plan);
	assert_false(plan.install.ro_tree);
	c.mount_setattr = false;

	c.memfd_noexec_seal = false;
	c.observe.ok = false;
	plan__compile(ro, &c, NULL, &plan);
	assert_true(plan.gaps & GAP(EXEC_MEMFD));
	assert_false(plan.install.seccomp_memfd_noexec);

	plan__compile(rw, &l, NULL, &plan);
	assert_int_equal(plan.gaps, GAP(EXEC_ANON_CODE));
	assert_false(plan.install.seccomp_fs_ioctl || plan.install.seccomp_fs_meta);

	plan__compile(open, &c, NULL, &plan);
	assert_int_equal(plan.gaps, 0);
	/* --strict: refused, one reason per class with gaps, naming them. */
	{
		struct rf_plan_opts o = { .strict = true };
		char t[RF_PLAN_REASON_LEN];

		plan__compile(open, &c, &o, &plan);
		assert_true(plan.ok);
		plan__compile(rw, &l, &o, &plan);
		assert_false(plan.ok);
		assert_int_equal(plan.n_reasons, 1);
		plan__reason_text(&plan, 0, t, sizeof(t));
		assert_string_equal(t, "exec: --strict: the backend leaves known gaps "
				       "(exec.anon-code; see \"gaps\")");
	}
	/* A refused class takes its gaps with it. */
	plan__compile(rw, &c, NULL, &plan);
	plan__refuse(&plan, RF_CLASS_FILE, RF_WHY_LANDLOCK_ENTRY, 0, "x");
	assert_int_equal(plan.gaps, GAP(EXEC_MMAP) | GAP(EXEC_MEMFD) | GAP(EXEC_LOADER) |
					    GAP(EXEC_ANON_CODE));
	policy__free(rw);
	policy__free(ro);
	policy__free(open);
}

/* /tmp: private when files.write reaches /tmp itself ("/tmp/" or "/"),
 * shared for a directory below it or unrestricted files, files.tmp wins,
 * a scratch at /tmp is the private one. */
static void planner_tmp_private_or_shared(void **state)
{
	static const struct {
		const char *files, *limits;
		bool tmp;
		enum rf_tmp_why why;
		const char *text;
	} cases[] = {
		{ "{\"write\":[\"/tmp/\"]}", NULL, true, RF_TMP_WHY_WRITE, "private" },
		{ "{\"write\":[\"/\"]}", NULL, true, RF_TMP_WHY_WRITE, "private" },
		{ "{\"write\":[\"/tmp/job/\"]}", NULL, false, RF_TMP_WHY_NO_WRITE, "shared" },
		{ "{\"read\":[\"/tmp/\"]}", NULL, false, RF_TMP_WHY_NO_WRITE, "shared" },
		{ "\"unrestricted\"", NULL, false, RF_TMP_WHY_NO_WRITE, "shared" },
		{ "{\"write\":[\"/tmp/\"],\"tmp\":\"shared\"}", NULL, false, RF_TMP_WHY_POLICY,
		  "shared" },
		{ "{\"tmp\":\"private\"}", NULL, true, RF_TMP_WHY_POLICY, "private" },
		{ "{\"write\":[\"/tmp/\"]}", "{\"scratch\":{\"path\":\"/tmp\",\"size_mb\":1}}",
		  false, RF_TMP_WHY_SCRATCH, "private" },
	};
	struct rf_caps c = caps_host();

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *json = NULL;
		struct rf_policy *p;
		struct rf_plan plan;
		json_t *o, *ns;

		assert_true(asprintf(&json, "{\"version\":1,\"id\":\"t\",\"files\":%s%s%s}",
				     cases[i].files, cases[i].limits ? ",\"limits\":" : "",
				     cases[i].limits ? cases[i].limits : "") > 0);
		p = load(json);
		plan__compile(p, &c, NULL, &plan);
		if (plan.priv.tmp != cases[i].tmp || plan.priv.tmp_why != cases[i].why)
			fail_msg("%s: tmp %d why %d", json, plan.priv.tmp, plan.priv.tmp_why);
		o = plan__to_json(&plan);
		ns = json_object_get(o, "namespaces");
		assert_string_equal(json_string_value(json_object_get(ns, "tmp")), cases[i].text);
		assert_string_equal(json_string_value(json_object_get(ns, "pid")), "private");
		assert_string_equal(json_string_value(json_object_get(ns, "dev_shm")), "private");
		json_decref(o);
		policy__free(p);
		free(json);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planner_tmp_private_or_shared),
		cmocka_unit_test(planner_says_how_each_class_is_observed),
		cmocka_unit_test(planner_no_observe_is_a_per_run_choice),
		cmocka_unit_test(planner_sandbox_flags),
		cmocka_unit_test(planner_bpf_lsm_refuses_paths_longer_than_its_matcher),
		cmocka_unit_test(planner_gaps_follow_backend_policy_and_kernel),
		cmocka_unit_test(planner_wx_closes_anon_code),
		cmocka_unit_test(planner_unix_rename_gap),
		cmocka_unit_test(planner_backend_names_round_trip),
		cmocka_unit_test(planner_json_names_every_class),
		cmocka_unit_test(planner_text_every_refusal),
		cmocka_unit_test(planner_text_refused_note_and_refusal_lines),
		cmocka_unit_test(planner_limits_per_limit_backends),
		cmocka_unit_test(planner_ledger_budgets),
		cmocka_unit_test(planner_ledger_unix_gap),
		cmocka_unit_test(planner_limits_refused_later),
		cmocka_unit_test(planner_text_landlock_host),
		cmocka_unit_test(planner_text_bpf_lsm_and_bare_kernels),
	};
	/* One named test per planner case, so a failure names its case. */
	static struct CMUnitTest cases[N_PLAN_CASES];
	static char names[N_PLAN_CASES][80];
	size_t i;
	int failed;

	for (i = 0; i < N_PLAN_CASES; i++) {
		snprintf(names[i], sizeof(names[i]), "planner_%s", plan_cases[i].name);
		cases[i] = (struct CMUnitTest){
			.name = names[i],
			.test_func = planner_case,
			.initial_state = (void *)&plan_cases[i],
		};
	}
	failed = cmocka_run_group_tests_name("planner", tests, NULL, NULL);
	failed += _cmocka_run_group_tests("planner_cases", cases, N_PLAN_CASES, NULL, NULL);
	return failed ? 1 : 0;
}
