// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The plan in words: the one place its codes become the text that `check`,
 * `probe`, the trace's sandbox.plan/configure events and the refusal lines
 * print. The strings are part of the interface: change them knowingly.
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const lsm_states[] = {
	[RF_LSM_AVAILABLE] = "available",
	[RF_LSM_NOT_LOADED] = "available on this kernel, but this build's LSM programs did not load",
	[RF_LSM_REFUSED] = "refused by this kernel",
	[RF_LSM_NOT_PROBED] = "not probed",
};
_Static_assert(N_OF(lsm_states) == RF_LSM_STATE_MAX, "lsm_states covers its enum");

/* Notes that are one fixed sentence. */
static const char *const fixed_notes[] = {
	[RF_NOTE_NONE] = "",
	[RF_NOTE_UNRESTRICTED] = "unrestricted by the policy: not confined",
	[RF_NOTE_LSM_FILE] = "every open by mode, and create, remove, rename, link, truncate, "
			     "mode, owner and times changes, on the kernel's resolved paths",
	[RF_NOTE_LSM_EXEC] = "every exec (interpreters and execveat included) and every "
			     "executable file mapping; executables without a path are denied",
	[RF_NOTE_LSM_UNIX] = "stream connects and datagram sends to unix sockets, pathname and "
			     "abstract, judged on the peer's bound name after the kernel resolved it; "
			     "nothing of the sandbox's that answers a connect is put at an allowed "
			     "pathname or on its way",
	[RF_NOTE_LANDLOCK_FILE] = "paths must exist when the sandbox starts",
	[RF_NOTE_LANDLOCK_EXEC] = "execve of the command, scripts' interpreters and ld.so are "
				  "checked; not checked by Landlock: libraries mapped executable "
				  "by the loader (no mmap hook) and executables without a path (a "
				  "memfd run with execveat)",
	[RF_NOTE_LANDLOCK_AUDIT] = "audit mode: Landlock's file and exec rules are not applied; "
				   "observe.bpf.c reports every open, exec and change the "
				   "sandbox makes, and those the policy would refuse are traced "
				   "as audited (attribution inferred, on the paths as named)",
	[RF_NOTE_PROCESS] = NULL,             /* built from the install flags */
	[RF_NOTE_SYSCALLS_SECCOMP] = "allowlist, EPERM for every other syscall; execve, exit "
				     "and exit_group are always allowed (the launcher execs the "
				     "command after installing the filter, and must exit if that "
				     "fails)",
	[RF_NOTE_SYSCALLS_ALERT] = "alert: calls outside the profile are reported by "
				   "ringfence-monitor (when it runs), never denied",
	[RF_NOTE_MONITOR] = "detection only: thresholds published in the sandbox registry for "
			    "ringfence-monitor (when it runs)",
	[RF_NOTE_NET_DNS_GATE] = "names: the sandbox's DNS (UDP and TCP to port 53, any address) "
				 "goes to its DNS gate, which answers only the names connect "
				 "allows and opens the addresses it returns for their TTL plus "
				 "5 s (network.dns \"gate\")",
	[RF_NOTE_NET_DNS_ONCE] = "names: resolved once by the supervisor before the command "
				 "starts (network.dns \"once\")",
	[RF_NOTE_LIMITS] = "memory_mb, pids, wall_seconds and output_bytes end the run when "
			   "reached: the whole sandbox is killed (exit status 137) and the trace "
			   "records limit.exceeded; cpu_percent throttles; writes past the scratch "
			   "size fail with ENOSPC",
	[RF_NOTE_REFUSED] = NULL,             /* the class's reason */
};
_Static_assert(N_OF(fixed_notes) == RF_NOTE_MAX, "fixed_notes covers its enum");

/* The visibility gaps of the backends that keep no record of their own. */
static const char *const landlock_seen =
	"denials: Landlock records none unless the kernel's audit is on; ringfence "
	"infers them from watched syscalls that failed with EACCES or EPERM "
	"(attribution inferred), so a refusal through a syscall it does not watch is "
	"not traced";
static const char *const landlock_logged =
	"denials: Landlock logs each one to the kernel's audit (audit is on) and "
	"ringfence reads them (attribution kernel); no syscall is watched for them, so "
	"records the audit stream loses are missing (sandbox.exit landlock_audit.complete "
	"false)";
static const char *const landlock_unseen =
	"denials: not traced (Landlock records none and the observe programs do not "
	"load here)";
static const char *const landlock_unwatched =
	"denials: not traced (--no-observe: no syscall is watched for this sandbox; "
	"Landlock still refuses them)";
static const char *const seccomp_allowlist_unseen =
	"refused calls are not in the trace (seccomp records none); ringfence-monitor "
	"reports them (when it runs)";
/* With the listener: sandbox_seccomp.c's profile rules, notify.c. */
static const char *const seccomp_profile_listened =
	"the supervisor's seccomp listener answers calls outside the profile and traces "
	"and publishes the first of each syscall for ringfence-monitor";
static const char *const seccomp_profile_unheard =
	"not reported here: the supervisor's seccomp listener needs the observe programs "
	"(only ringfence-monitor --record sees the calls)";

/* Refusals that are one fixed sentence; the others are formatted below. */
static const char *const fixed_whys[RF_WHY_MAX] = {
	[RF_WHY_KEEP_CAPS] = "--keep-caps (test-only) needs bpf-lsm to hold the process "
			     "boundary, and it is not available here",
	[RF_WHY_SYSCALLS_AUDIT] = "audit mode: a seccomp allowlist cannot record into the trace "
				  "without denying; remove \"syscalls\" or use enforce mode",
};

static const struct {
	unsigned int bit;
	const char *text;         /* %d: the Landlock ABI */
} layer_texts[] = {
	{ RF_LAYER_CAPABILITIES, "capabilities" },
	{ RF_LAYER_CAPABILITIES_KEPT, "capabilities KEPT (--keep-caps test mode)" },
	{ RF_LAYER_SECCOMP, "seccomp" },
	{ RF_LAYER_LANDLOCK_TCP, "landlock-abi%d (TCP connect ports; refuses unlisted ports "
				 "before the cgroup hook, with EACCES, unrecorded)" },
	{ RF_LAYER_LANDLOCK_SCOPE_UNIX, "landlock-abi%d (abstract sockets outside the sandbox)" },
	{ RF_LAYER_LANDLOCK_SCOPE_SIGNAL, "landlock-abi%d (signal scoping, ptrace confinement)" },
	{ RF_LAYER_MDWE, "prctl-mdwe (W^X memory: memory.deny_write_execute)" },
	{ RF_LAYER_SECCOMP_WX, "seccomp (W^X memory: memory.deny_write_execute; mprotect "
			       "never adds PROT_EXEC)" },
};

/* The limits class: its limits' backends, each once, in limit order. */
static void limits_backend_text(const struct rf_plan *plan, char *buf, size_t len)
{
	unsigned int seen = 0;
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < RF_LIMIT_MAX && off < len; i++) {
		const struct rf_limit_plan *lp = &plan->limits[i];

		if (!lp->enforced || (seen & (1u << lp->be)))
			continue;
		seen |= 1u << lp->be;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					names__backend(lp->be));
	}
}

static const char *const observed_names[] = {
	[RF_OBSV_NONE] = "",
	[RF_OBSV_KERNEL] = "kernel",
	[RF_OBSV_INFERRED] = "inferred",
	[RF_OBSV_AUDIT_INFERRED] = "inferred-audit",
	[RF_OBSV_KERNEL_AUDIT] = "kernel-audit",
};
_Static_assert(N_OF(observed_names) == RF_OBSV_MAX, "observed_names covers its enum");

const char *plan__observed_text(enum rf_plan_observed o)
{
	return (unsigned int)o < RF_OBSV_MAX ? observed_names[o] : "";
}

void plan__backend_text(const struct rf_plan *plan, enum rf_class c, char *buf, size_t len)
{
	enum rf_backend be = plan->c[c].be;

	if (c == RF_CLASS_LIMITS && plan->c[c].enforced)
		limits_backend_text(plan, buf, len);
	else if (be == RF_BE_LANDLOCK)
		snprintf(buf, len, "landlock-abi%d", plan->install.landlock_abi);
	else
		snprintf(buf, len, "%s", names__backend(be));
}

void plan__layers_text(const struct rf_plan *plan, enum rf_class c, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = 0; i < N_OF(layer_texts) && off < len; i++) {
		if (!(plan->c[c].layers & layer_texts[i].bit))
			continue;
		if (off)
			off += (size_t)snprintf(buf + off, len - off, "; ");
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, layer_texts[i].text,
						plan->install.landlock_abi);
	}
}

/* The process boundary: what holds it, and what is not covered. */
static void process_note(const struct rf_plan *plan, char *buf, size_t len)
{
	bool keep = plan->install.keep_caps;
	bool lsm = plan->c[RF_CLASS_PROCESS].be == RF_BE_BPF_LSM;
	bool seccomp = plan->install.seccomp_boundary;
	bool scope = plan->install.landlock_scope_signal;

	snprintf(buf, len,
		 "no_new_privs; %scgroup2 read-only and bpffs absent in its mount namespace; "
		 "own session, no controlling terminal%s%s%s",
		 keep ? "capabilities kept (test mode); " :
			"all capability sets emptied, securebits locked; ",
		 lsm ? "; bpf-lsm: no bpf(), no ptrace of, signals to or /proc/PID/mem access "
		       "to processes outside the sandbox, no mounts, no user namespaces, no "
		       "writes to cgroup files" : "",
		 seccomp ? "; seccomp: no bpf, ptrace, process_vm_*, mounts, "
		 "namespaces, keyrings, perf, kexec, modules, userfaultfd, io_uring, "
		 "personality, TIOCSTI/TIOCLINUX; non-native syscall ABIs killed" :
		 lsm ? "" : "; NOT covered (no seccomp): bpf, ptrace, mounts, user namespaces",
		 scope ? "; landlock: no signals to, ptrace of or /proc/PID/mem access to "
			 "processes outside the sandbox" :
		 lsm ? "" : "; NOT covered (no landlock ABI 6): signals to same-user processes outside");
}

/* The refusal without its "class: " prefix. */
static void why_text(const struct rf_plan *plan, const struct rf_plan_reason *r,
		     char *buf, size_t len)
{
	const char *lsm = lsm_states[plan->lsm_state];

	switch (r->code) {
	case RF_WHY_LSM_PATH_TOO_LONG:
		snprintf(buf, len, "\"%s...\" is longer than the %d bytes the bpf-lsm path "
			 "matcher holds", r->detail, r->param);
		return;
	case RF_WHY_NO_FS_BACKEND:
		snprintf(buf, len, "no backend can enforce %s rules here: landlock: %s; "
			 "bpf-lsm: %s", names__class(r->cls), r->detail, lsm);
		return;
	case RF_WHY_AUDIT_LANDLOCK:
		snprintf(buf, len, "audit mode needs a backend that can record without denying; "
			 "landlock cannot, bpf-lsm is %s, and the observe programs that would "
			 "record accesses for landlock are not available%s%s", lsm,
			 r->detail[0] ? ": " : "", r->detail);
		return;
	case RF_WHY_LANDLOCK_TRUNCATE:
		snprintf(buf, len, "landlock ABI %d cannot confine truncate(); files needs ABI 3 "
			 "or later", r->param);
		return;
	case RF_WHY_SOCK_ADDR:
		snprintf(buf, len, "cgroup-sock-addr cannot run on this kernel (%s)", r->detail);
		return;
	case RF_WHY_NO_CGROUP2:
		snprintf(buf, len, "no usable cgroup2 hierarchy (%s)", r->detail);
		return;
	case RF_WHY_NO_SECCOMP:
		snprintf(buf, len, "seccomp is not available (%s)", r->detail);
		return;
	case RF_WHY_REQUIRE_LSM:
		snprintf(buf, len, "bpf-lsm enforces nothing here: %s (%s)", lsm, r->detail);
		return;
	case RF_WHY_REQUIRE_UNUSED:
		snprintf(buf, len, "%s enforces no class of this policy on this kernel",
			 names__backend(r->param));
		return;
	case RF_WHY_SECCOMP_BUILD:
	case RF_WHY_LANDLOCK_BUILD:
		snprintf(buf, len, "%s%s%s", r->detail, r->detail[0] ? ": " :
			 r->code == RF_WHY_SECCOMP_BUILD ? "building the seccomp filters: " :
							   "building the Landlock ruleset: ",
			 strerror(-r->param));
		return;
	case RF_WHY_LANDLOCK_ENTRY:
		snprintf(buf, len, "%s", r->detail);
		return;
	case RF_WHY_NO_CONTROLLER:
		snprintf(buf, len, "%s: %s cannot be enforced here: %s; remove it to run without "
			 "it", names__limit(r->param), names__backend(plan__limit_backend(r->param)),
			 r->detail);
		return;
	case RF_WHY_SCRATCH_PATH:
		snprintf(buf, len, "scratch: \"%s\" %s%s", r->detail,
			 r->param ? "cannot be used as a mount point: " : "is not a directory",
			 r->param ? strerror(-r->param) : "");
		return;
	case RF_WHY_STRICT_GAPS:
		snprintf(buf, len, "--strict: the backend leaves known gaps (%s; see \"gaps\")",
			 r->detail);
		return;
	case RF_WHY_SCRATCH_CWD:
		if (r->param)
			snprintf(buf, len, "scratch: the working directory cannot be placed "
				 "against the scratch path: %s", strerror(-r->param));
		else
			snprintf(buf, len, "scratch: the working directory \"%s\" lies inside the "
				 "scratch path, which the command sees as an empty tmpfs: start it "
				 "from outside (from the scratch path itself it starts in the empty "
				 "tmpfs)", r->detail);
		return;
	case RF_WHY_TMP_CWD:
		if (r->param)
			snprintf(buf, len, "the working directory cannot be placed against "
				 "/tmp, which this sandbox gets private: %s", strerror(-r->param));
		else
			snprintf(buf, len, "the working directory \"%s\" lies below /tmp, "
				 "which this sandbox gets private (an empty tmpfs): start it from "
				 "elsewhere, or set files.tmp to \"shared\"", r->detail);
		return;
	case RF_WHY_LIMIT_NO_CGROUP2:
		snprintf(buf, len, "%s: no usable cgroup2 hierarchy (%s)", names__limit(r->param),
			 r->detail);
		return;
	default:
		snprintf(buf, len, "%s", (unsigned int)r->code < RF_WHY_MAX &&
			 fixed_whys[r->code] ? fixed_whys[r->code] : "refused");
	}
}

void plan__note_text(const struct rf_plan *plan, enum rf_class c, char *buf, size_t len)
{
	const struct rf_class_plan *cp = &plan->c[c];
	size_t off;

	switch (cp->note) {
	case RF_NOTE_PROCESS:
		process_note(plan, buf, len);
		return;
	case RF_NOTE_REFUSED:
		why_text(plan, &plan->reasons[cp->reason], buf, len);
		return;
	default:
		off = (size_t)snprintf(buf, len, "%s", (unsigned int)cp->note < RF_NOTE_MAX ?
				       fixed_notes[cp->note] : "");
	}
	/* What the backend's denials look like in the trace: its gap too. */
	if (off < len && (cp->note == RF_NOTE_LANDLOCK_FILE || cp->note == RF_NOTE_LANDLOCK_EXEC))
		off += (size_t)snprintf(buf + off, len - off, "; %s",
					cp->observed == RF_OBSV_INFERRED ? landlock_seen :
					cp->observed == RF_OBSV_KERNEL_AUDIT ? landlock_logged :
					plan->observe_off ? landlock_unwatched : landlock_unseen);
	else if (off < len && plan->install.seccomp_notify && plan->install.seccomp_allowlist &&
		 (cp->note == RF_NOTE_SYSCALLS_SECCOMP || cp->note == RF_NOTE_SYSCALLS_ALERT))
		off += (size_t)snprintf(buf + off, len - off, "; %s", seccomp_profile_listened);
	else if (off < len && cp->note == RF_NOTE_SYSCALLS_SECCOMP)
		off += (size_t)snprintf(buf + off, len - off, "; %s", seccomp_allowlist_unseen);
	else if (off < len && cp->note == RF_NOTE_SYSCALLS_ALERT)
		off += (size_t)snprintf(buf + off, len - off, "; %s", seccomp_profile_unheard);
	/* Landlock took the class although --prefer asked for bpf-lsm. */
	if ((cp->note == RF_NOTE_LANDLOCK_FILE || cp->note == RF_NOTE_LANDLOCK_EXEC) &&
	    (plan->prefer & (1u << RF_BE_BPF_LSM)) && off < len)
		snprintf(buf + off, len - off, "; --prefer bpf-lsm not honoured: bpf-lsm is %s",
			 lsm_states[plan->lsm_state]);
}

void plan__reason_text(const struct rf_plan *plan, int i, char *buf, size_t len)
{
	const struct rf_plan_reason *r = &plan->reasons[i];
	bool require = r->code == RF_WHY_REQUIRE_LSM || r->code == RF_WHY_REQUIRE_UNUSED;
	char why[RF_PLAN_REASON_LEN];

	why_text(plan, r, why, sizeof(why));
	snprintf(buf, len, "%s: %s", require ? "--require" : names__class(r->cls), why);
}

/* {"memory_mb": {"value": 256, "backend": "cgroup-v2-memory", "enforced": false,
 *  "reason": ".."}, ...}: every limit the policy sets. */
static json_t *limits_json(const struct rf_plan *plan)
{
	json_t *o = json_object();
	char why[RF_PLAN_REASON_LEN];
	int i;

	for (i = 0; o && i < RF_LIMIT_MAX; i++) {
		const struct rf_limit_plan *lp = &plan->limits[i];
		json_t *l;

		if (!lp->set)
			continue;
		l = json_pack("{s:I, s:s, s:b}", "value", (json_int_t)lp->value,
			      "backend", names__backend(lp->be), "enforced", lp->enforced);
		if (l && lp->reason >= 0) {
			why_text(plan, &plan->reasons[lp->reason], why, sizeof(why));
			json_object_set_new(l, "reason", json_string(why));
		}
		json_object_set_new(o, names__limit(i), l);
	}
	return o;
}

/* What watching this sandbox costs the rest of the host, and the choice
 * (docs/benchmarks.md, tests/bench/observe.sh measure it). */
static json_t *observation_json(const struct rf_plan *plan)
{
	bool tp = plan__tracepoints(plan), xt = plan__exec_tracepoint(plan);
	const char *cost =
		tp ? "while this sandbox runs, observe.bpf.c's sys_exit program (and sys_enter "
		     "for an audit sandbox) runs on every syscall of every task on the host (measured outside "
		     "sandboxes with kernel audit off: getppid x1.14 to x1.77, open+close up to "
		     "x1.75; docs/benchmarks.md); --no-observe trades the inferred denials for "
		     "no cost outside" :
		xt ? "while this sandbox runs, observe.bpf.c's sched_process_exec program runs "
		     "once per exec of every task on the host (a cgroup check; it kills a "
		     "sandboxed process whose program is the dynamic loader); no syscall is "
		     "watched; --no-observe leaves exec.loader open instead" :
		plan->observe_off ?
		     "none from this sandbox: no syscall is watched for it (--no-observe); "
		     "another observed sandbox that is live keeps the programs attached" :
		     "none: no syscall needs watching for this sandbox's denials";

	return json_pack("{s:s, s:b, s:b, s:s}", "choice", plan->observe_off ? "off" : "on",
			 "syscall_tracepoints", tp, "exec_tracepoint", xt, "host_cost", cost);
}

/* [{"gap", "class", "backend", "what"}], in table order. */
static json_t *gaps_json(const struct rf_plan *plan)
{
	json_t *a = json_array();
	char be[64];
	int g;

	for (g = 0; a && g < RF_GAP_MAX; g++) {
		enum rf_class c = plan__gap_class(g);

		if (!(plan->gaps & (1ull << g)))
			continue;
		plan__backend_text(plan, c, be, sizeof(be));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "gap", plan__gap_id(g),
						   "class", names__class(c), "backend", be,
						   "what", plan__gap_what(g)));
	}
	return a;
}

static const char *const tmp_why_text[] = {
	[RF_TMP_WHY_WRITE] = "files.write reaches /tmp itself",
	[RF_TMP_WHY_NO_WRITE] = "files.write does not reach /tmp itself",
	[RF_TMP_WHY_POLICY] = "files.tmp",
	[RF_TMP_WHY_SCRATCH] = "limits.scratch is /tmp",
	[RF_TMP_WHY_CWD] = "files.write reaches /tmp itself, but the command starts below it",
};
_Static_assert(sizeof(tmp_why_text) / sizeof(tmp_why_text[0]) == RF_TMP_WHY_MAX,
	       "a text for every rf_tmp_why");

/* What of the host's shared places the command sees (plan.h). */
static json_t *private_json(const struct rf_plan *plan)
{
	const struct rf_plan_private *v = &plan->priv;
	bool scratch = v->tmp_why == RF_TMP_WHY_SCRATCH;

	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "pid", "private",
			 "proc", "private (hidepid=ptraceable)", "dev_shm", "private",
			 "tmp", v->tmp || scratch ? "private" : "shared",
			 "tmp_why", tmp_why_text[v->tmp_why]);
}

json_t *plan__to_json(const struct rf_plan *plan)
{
	json_t *root = json_object(), *classes = json_object(), *reasons = json_array();
	char text[RF_PLAN_REASON_LEN];
	int i;

	if (!root || !classes || !reasons)
		goto fail;
	for (i = 0; i < RF_CLASS_MAX; i++) {
		enum rf_class k = names__class_order[i];
		const struct rf_class_plan *cp = &plan->c[k];
		json_t *c;

		plan__backend_text(plan, k, text, sizeof(text));
		c = json_pack("{s:s, s:b, s:o, s:b}", "requested", names__request(cp->request),
			      "required", cp->required,
			      "backend", text[0] ? json_string(text) : json_null(),
			      "enforced", cp->enforced);
		if (!c)
			goto fail;
		if (cp->observed != RF_OBSV_NONE)
			json_object_set_new(c, "observed",
					    json_string(plan__observed_text(cp->observed)));
		plan__layers_text(plan, k, text, sizeof(text));
		if (text[0])
			json_object_set_new(c, "layers", json_string(text));
		plan__note_text(plan, k, text, RF_PLAN_NOTE_LEN);
		if (text[0])
			json_object_set_new(c, "note", json_string(text));
		if (k == RF_CLASS_LIMITS && cp->request == RF_REQ_SET)
			json_object_set_new(c, "limits", limits_json(plan));
		json_object_set_new(classes, names__class(k), c);
	}
	for (i = 0; i < plan->n_reasons; i++) {
		plan__reason_text(plan, i, text, sizeof(text));
		json_array_append_new(reasons, json_string(text));
	}
	json_object_set_new(root, "ok", json_boolean(plan->ok));
	json_object_set_new(root, "classes", classes);
	json_object_set_new(root, "reasons", reasons);
	json_object_set_new(root, "gaps", gaps_json(plan));
	json_object_set_new(root, "observation", observation_json(plan));
	json_object_set_new(root, "namespaces", private_json(plan));
	return root;
fail:
	json_decref(root);
	json_decref(classes);
	json_decref(reasons);
	return NULL;
}
