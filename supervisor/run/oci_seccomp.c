// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The policy's syscalls allowlist as an OCI seccomp profile (runtime-spec
 * config-linux.md "Seccomp"), for the runtime to install in the container:
 * an OCI hook runs beside the container's processes and cannot. The rules
 * are the supervisor's own allowlist filter's (sandbox_seccomp__allowlist_rules),
 * rendered here; the hook checks a container's linux.seccomp against them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <seccomp.h>

#include "backends/sandbox_seccomp.h"
#include "oci.h"
#include "prepare.h"
#include "policy/policy.h"
#include "run.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* libseccomp's enum scmp_compare, by value, as the runtime-spec spells it. */
static const char *const cmp_names[] = {
	[SCMP_CMP_NE] = "SCMP_CMP_NE", [SCMP_CMP_LT] = "SCMP_CMP_LT",
	[SCMP_CMP_LE] = "SCMP_CMP_LE", [SCMP_CMP_EQ] = "SCMP_CMP_EQ",
	[SCMP_CMP_GE] = "SCMP_CMP_GE", [SCMP_CMP_GT] = "SCMP_CMP_GT",
	[SCMP_CMP_MASKED_EQ] = "SCMP_CMP_MASKED_EQ",
};
_Static_assert(N_OF(cmp_names) == _SCMP_CMP_MAX, "cmp_names covers enum scmp_compare");

static const struct { uint32_t arch; const char *name; } arch_names[] = {
	{ SCMP_ARCH_X86_64, "SCMP_ARCH_X86_64" }, { SCMP_ARCH_X86, "SCMP_ARCH_X86" },
	{ SCMP_ARCH_AARCH64, "SCMP_ARCH_AARCH64" }, { SCMP_ARCH_ARM, "SCMP_ARCH_ARM" },
	{ SCMP_ARCH_PPC64LE, "SCMP_ARCH_PPC64LE" }, { SCMP_ARCH_S390X, "SCMP_ARCH_S390X" },
	{ SCMP_ARCH_RISCV64, "SCMP_ARCH_RISCV64" },
};

/* Actions that let the call run (or let a listener or tracer decide). */
static const char *const passing_actions[] = {
	"SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY", "SCMP_ACT_TRACE",
};

static const char *native_arch(void)
{
	uint32_t a = seccomp_arch_native();
	size_t i;

	for (i = 0; i < N_OF(arch_names); i++)
		if (arch_names[i].arch == a)
			return arch_names[i].name;
	return NULL;
}

/* One rule: unconditional ALLOWs gather in the first entry's names. */
static int add_rule(void *arg, const char *name, uint32_t action,
		    const struct rf_seccomp_cmp *cmp, unsigned int n_cmp)
{
	json_t *list = arg, *e, *args;
	unsigned int i;

	if (action == SCMP_ACT_ALLOW && !n_cmp)
		return json_array_append_new(json_object_get(json_array_get(list, 0), "names"),
					     json_string(name)) ? -ENOMEM : 0;
	if (action != SCMP_ACT_ALLOW && (action & SECCOMP_RET_ACTION_FULL) != SCMP_ACT_ERRNO(0))
		return -EINVAL;  /* the allowlist has no other action */
	e = json_pack("{s:[s], s:s}", "names", name, "action",
		      action == SCMP_ACT_ALLOW ? "SCMP_ACT_ALLOW" : "SCMP_ACT_ERRNO");
	args = json_array();
	if (!e || !args)
		goto nomem;
	if (action != SCMP_ACT_ALLOW &&
	    json_object_set_new(e, "errnoRet", json_integer(action & SECCOMP_RET_DATA)))
		goto nomem;
	for (i = 0; i < n_cmp; i++) {
		if (cmp[i].op <= 0 || (size_t)cmp[i].op >= N_OF(cmp_names) || !cmp_names[cmp[i].op])
			goto inval;
		if (json_array_append_new(args, json_pack("{s:I, s:I, s:I, s:s}", "index",
				(json_int_t)cmp[i].arg, "value", (json_int_t)cmp[i].a,
				"valueTwo", (json_int_t)cmp[i].b, "op", cmp_names[cmp[i].op])))
			goto nomem;
	}
	if (n_cmp && json_object_set(e, "args", args))
		goto nomem;
	json_decref(args);
	return json_array_append_new(list, e) ? -ENOMEM : 0;
inval:
	json_decref(e);
	json_decref(args);
	return -EINVAL;
nomem:
	json_decref(e);
	json_decref(args);
	return -ENOMEM;
}

int oci_seccomp__profile(const struct rf_policy *policy, json_t **ret, struct rf_error *e)
{
	const char *arch = native_arch();
	json_t *p, *list;
	struct rf_seccomp_sink sink;
	int err;

	if (!arch)
		return rf_error_set(e, -EOPNOTSUPP, "seccomp", "this architecture (%#x) has no "
				    "runtime-spec name here", seccomp_arch_native());
	/* EPERM for the rest, as the supervisor's filter; native only (its
	 * other architectures and x32 are killed: libseccomp's bad-arch) */
	p = json_pack("{s:s, s:i, s:[s], s:[{s:[], s:s}]}", "defaultAction", "SCMP_ACT_ERRNO",
		      "defaultErrnoRet", EPERM, "architectures", arch, "syscalls", "names",
		      "action", "SCMP_ACT_ALLOW");
	if (!p)
		return rf_error_set(e, -ENOMEM, "seccomp", "out of memory");
	list = json_object_get(p, "syscalls");
	sink = (struct rf_seccomp_sink){ add_rule, list };
	err = sandbox_seccomp__allowlist_rules(policy, &sink, e);
	if (err) {
		json_decref(p);
		return err;
	}
	*ret = p;
	return 0;
}

/* The names a profile's entry with a passing action lets through. */
static bool passes(json_t *entry)
{
	const char *a = json_string_value(json_object_get(entry, "action"));
	size_t i;

	for (i = 0; a && i < N_OF(passing_actions); i++)
		if (!strcmp(a, passing_actions[i]))
			return true;
	return !a;  /* no action: not one we know refuses */
}

static bool allowed_in(json_t *profile, const char *name)
{
	json_t *entry, *n;
	size_t i, j;

	json_array_foreach(json_object_get(profile, "syscalls"), i, entry) {
		if (!passes(entry))
			continue;
		json_array_foreach(json_object_get(entry, "names"), j, n)
			if (json_is_string(n) && !strcmp(json_string_value(n), name))
				return true;
	}
	return false;
}

bool oci_seccomp__holds(json_t *runtime, json_t *profile, char *why, size_t len)
{
	static const char *const refusing[] = {
		"SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD",
		"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP",
	};
	const char *def = json_string_value(json_object_get(runtime, "defaultAction"));
	const char *native = json_string_value(json_array_get(json_object_get(profile,
					       "architectures"), 0));
	json_t *entry, *n;
	size_t i, j;

	for (i = 0; def && i < N_OF(refusing); i++)
		if (!strcmp(def, refusing[i]))
			break;
	if (!def || i == N_OF(refusing)) {
		snprintf(why, len, "its defaultAction %s lets unlisted syscalls through",
			 def ? def : "(none)");
		return false;
	}
	json_array_foreach(json_object_get(runtime, "architectures"), i, n) {
		if (!json_is_string(n) || !native || strcmp(json_string_value(n), native)) {
			snprintf(why, len, "it lists the architecture %s (the policy's filter "
				 "allows %s only)", json_is_string(n) ? json_string_value(n) : "?",
				 native ? native : "none");
			return false;
		}
	}
	json_array_foreach(json_object_get(runtime, "syscalls"), i, entry) {
		if (!passes(entry))
			continue;
		json_array_foreach(json_object_get(entry, "names"), j, n) {
			if (json_is_string(n) && allowed_in(profile, json_string_value(n)))
				continue;
			snprintf(why, len, "it lets %s through, which the policy's syscalls do "
				 "not list", json_is_string(n) ? json_string_value(n) : "?");
			return false;
		}
	}
	return true;
}

int cmd_oci_seccomp(const char *policy_path)
{
	struct rf_error e = { 0 };
	struct rf_policy *policy = NULL;
	json_t *p = NULL;
	int err = prepare__load_policy(policy_path, &policy, &e);

	if (!err)
		err = oci_seccomp__profile(policy, &p, &e);
	policy__free(policy);
	if (err) {
		if (e.why[0])   /* else the policy's errors were printed, one a line */
			rf_error_print(&e, NULL);
		return RF_EXIT_USAGE;
	}
	err = json_dumpf(p, stdout, JSON_INDENT(2)) || putchar('\n') == EOF || fflush(stdout);
	json_decref(p);
	if (err) {
		fprintf(stderr, "ringfence: error: writing the profile: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
