// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ringfence run` as steps (steps.h), each with its undo: policy -> user ->
 * plan (fail closed) -> trace -> admit -> env -> network rules -> pinned
 * programs (and the cheap gc) -> reaper -> cgroup -> registry -> map
 * entries -> launch inside the cgroup -> wait and report. Teardown is the
 * undos in reverse: the kill (launch) comes before the map entries and the
 * registry file go, and the reaper is told last. A SIGKILL at any instant
 * leaves nothing, or what the reaper or gc (gc.h) find from the kernel's
 * state. `ringfence check` runs the same list up to the plan, then the
 * network rules' refusals (run__check_netrules). The wait step's event
 * loop is wait.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cgroups/cgplace.h"
#include "cgroup.h"
#include "cleanup.h"
#include "backends/enforcer.h"
#include "launch/env.h"
#include "cgroups/gc.h"
#include "launch/dynuser.h"
#include "launch/launch.h"
#include "log.h"
#include "monaction.h"
#include "mounts.h"
#include "names.h"
#include "dnsgate/dnsgate.h"
#include "filewatch.h"
#include "rules/netrules.h"
#include "observe/observe.h"
#include "plan/plan.h"
#include "policy/policy.h"
#include "plan/probe.h"
#include "prepare.h"
#include "reaper.h"
#include "registry_fill.h"
#include "report.h"
#include "run.h"
#include "backends/sandbox_landlock.h"
#include "backends/sandbox_seccomp.h"
#include "backends/sbmaps.h"
#include "observe/trace.h"
#include "sandbox.h"
#include "steps.h"
#include "stdio_vet.h"
#include "wait.h"

extern char **environ;

/* A unix stream or seqpacket socket that could still connect(): neither
 * connected (a peer) nor listening. */
static bool unix_unconnected(int fd)
{
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer), sl = sizeof(int);
	int listening = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &sl) == 0 && listening)
		return false;
	return getpeername(fd, (struct sockaddr *)&peer, &pl) < 0;
}

/* A socket on fd 0-2 was created outside the sandbox: the cgroup hooks
 * judge a socket by the cgroup it was made in, so they never see it, and
 * it could reach any destination. Refuse it. A unix stream socket is
 * judged by the caller where BPF-LSM holds unix sockets
 * (unix_stream_connect); elsewhere only one that is already connected or
 * listening may come in. */
static int check_stdio(const struct rf_policy *p, const struct rf_plan *plan,
		       struct rf_error *e)
{
	bool unix_lsm = plan->c[RF_CLASS_UNIX].be == RF_BE_BPF_LSM;
	int fd, err = stdio_vet__types(e);

	if (err)
		return err;
	for (fd = 0; fd <= 2; fd++) {
		int dom = 0, type = 0;
		socklen_t sl = sizeof(int);
		struct stat st;

		if (fstat(fd, &st) || !S_ISSOCK(st.st_mode))
			continue;
		getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &sl);
		sl = sizeof(int);
		getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl);
		if ((dom == AF_INET || dom == AF_INET6) && p->net_connect != RF_CONFINE_UNRESTRICTED) {
			return rf_error_set(e, -EPERM, "refused", "fd %d is an inet socket made "
					    "outside the sandbox: its traffic would bypass the "
					    "network policy", fd);
		}
		if (dom != AF_UNIX || p->net_unix == RF_CONFINE_UNRESTRICTED)
			continue;
		if (type == SOCK_DGRAM) {
			return rf_error_set(e, -EPERM, "refused", "fd %d is a unix datagram socket "
					    "made outside the sandbox: it could send to any unix "
					    "address", fd);
		}
		if (!unix_lsm && unix_unconnected(fd)) {
			return rf_error_set(e, -EPERM, "refused", "fd %d is an unconnected unix "
					    "stream socket made outside the sandbox: its connect() "
					    "would not be judged", fd);
		}
	}
	return 0;
}

static void make_name(const char *policy_id, char *buf, size_t len)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	snprintf(buf, len, "%s-%08x", policy_id, r);
}

static void sandbox_kill(struct sandbox *sb);

static void registry_note_limit(struct sandbox *sb, json_t *ex);

/* A limit ended the run: recorded, said, and the whole sandbox killed. */
static void limit_hit(struct sandbox *sb)
{
	char why[160];
	json_t *ex;

	if (sb->lw.reported)
		return;
	sb->lw.reported = true;
	sandbox_limits__hit_text(&sb->lw, why, sizeof(why));
	ex = sandbox_limits__exceeded_json(&sb->lw);
	registry_note_limit(sb, ex);
	trace__emit(sb->trace, "limit.exceeded", ex);
	if (sb->lw.hit == RF_LIMIT_EGRESS)
		flows__abort_sockets(sb);
	/* Killed before our own line: a stderr nobody reads cannot hold it. */
	sandbox_kill(sb);
	rf_err("sandbox %s: %s: killing the sandbox", sb->name, why);
}

/* Everything one run holds between its steps. */
struct run {
	const struct run_opts *o;
	struct sandbox sb;
	struct timespec t0;
	uid_t uid;
	gid_t gid;
	struct rf_dynuser dyn;    /* which uid runs and why; a dynamic uid's lock */
	char **envp;
	struct rf_addr_rule *rules;
	size_t n_rules;
	struct rf_resolved *resolved;
	size_t n_resolved;
	int parent_fd;
	struct rf_registry_entry reg;
	struct rf_reaper reaper;
	int start_lock;           /* held from the cgroup's mkdir to its registry file */
	char **ro_mounts;
	char **bpf_mounts;
	char **fan_mounts;        /* monitor.files: every mount point, for the child */
	sigset_t oldmask;
	struct launch_result lr;
	int status;               /* the command's exit status (wait) */
	struct rf_dnsgate *gate;  /* network.dns "gate" with names in network.connect */
	struct sbmaps_note pool;  /* the maps step's: a pool running low is grown
				   * once the command runs */
};

/*
 * Kill everything left in the sandbox's cgroup and remove it: the one
 * place that decides whether processes survived the kill, in which case
 * the policy stays in force (keep_policy, respected by the undos that
 * follow). A second call does nothing.
 */
static void sandbox_kill(struct sandbox *sb)
{
	if (sb->keep_policy || !sb->cg.path[0])
		return;
	cgroup__destroy(&sb->cg);
	if (!cgroup__is_empty(sb->cg.path)) {
		rf_err("sandbox %s: processes survived the kill; its policy stays in force "
		       "and `ringfence status` shows it as stale", sb->name);
		sb->keep_policy = true;
	}
}

/* The registry file says which cap ended the run before the kill, so
 * ringfence-monitor's resource alerts report it (the monitor reads it
 * while the file exists). */
static void registry_note_limit(struct sandbox *sb, json_t *ex)
{
	struct run *r = (struct run *)((char *)sb - offsetof(struct run, sb));
	struct rf_reg_limit *l = &r->reg.limit_exceeded;
	const char *lim = json_string_value(json_object_get(ex, "limit"));
	const char *unit = json_string_value(json_object_get(ex, "unit"));

	if (!lim || !unit || !r->reg.sandbox[0])
		return;
	snprintf(l->limit, sizeof(l->limit), "%s", lim);
	snprintf(l->unit, sizeof(l->unit), "%s", unit);
	l->value = (uint64_t)json_integer_value(json_object_get(ex, "value"));
	l->threshold = (uint64_t)json_integer_value(json_object_get(ex, "threshold"));
	l->present = true;
	if (registry__add(&r->reg))
		rf_debug("sandbox %s: the registry file could not say the limit", sb->name);
}

/* What a run needs beyond what it has mapped at start (libbpf's objects,
 * the probe, the maps; about 12 MiB measured, doubled), plus the policy
 * reader's buffer (the size cap): refusing here, before anything exists,
 * beats an allocation failing half-way, which some libraries report as
 * another errno. */
#define RUN_HEADROOM ((24ul << 20) + RF_POLICY_MAX_BYTES)

static int check_headroom(struct rf_error *e)
{
	void *p = mmap(NULL, RUN_HEADROOM, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct rlimit rl;

	if (p != MAP_FAILED) {
		munmap(p, RUN_HEADROOM);
		return 0;
	}
	if (errno != ENOMEM)
		return 0;
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
		return rf_error_set(e, -ENOMEM, "out of memory", "ringfence cannot map the "
				    "%lu MiB it needs to run (RLIMIT_AS is %llu MiB)",
				    RUN_HEADROOM >> 20, (unsigned long long)rl.rlim_cur >> 20);
	return rf_error_set(e, -ENOMEM, "out of memory", "ringfence cannot map the %lu MiB "
			    "it needs to run", RUN_HEADROOM >> 20);
}

static int step_policy(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	err = check_headroom(&e->e);
	if (err)
		return err;
	return prepare__load_policy(r->o->policy_path, &r->sb.policy, &e->e);
}

static void undo_policy(void *ctx)
{
	struct run *r = ctx;

	policy__free(TAKE_PTR(r->sb.policy));
}

/* Why the resolved user: root without --user is taken for a dynamic uid
 * here and given one by the plan step (dynuser.h), which knows the mounts. */
static int step_user(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	int err = launch__resolve_user(r->o->user, &r->uid, &r->gid, &e->e);

	if (err)
		return err;
	if (r->o->user)
		r->dyn.why = r->uid == 0 ? RF_USER_ROOT : RF_USER_OPTION;
	else if (r->uid == 0)
		r->dyn.why = RF_USER_DYNAMIC;
	else
		r->dyn.why = getenv("SUDO_UID") ? RF_USER_SUDO : RF_USER_INVOKER;
	return 0;
}

/* Which uid runs and why: "dynamic" (root without --user), "root"
 * (--user root), "user" (--user), "sudo", "invoker", "root-audit", or
 * "root-fallback" with the reason (gap process.root). */
static json_t *plan_user(const struct run *r)
{
	json_t *u = json_pack("{s:I, s:I, s:s}", "uid", (json_int_t)r->uid, "gid",
			      (json_int_t)r->gid, "why", dynuser__why_name(r->dyn.why));

	if (r->dyn.why == RF_USER_ROOT_FALLBACK)
		json_object_set_new(u, "fallback", json_string(r->dyn.fallback));
	return u;
}

static size_t private_mounts(const struct sandbox *sb, struct launch_mount m[2]);
static int plan_dynuser(struct run *r, struct rf_step_error *e);

/* Which uid, once the plan is made. --keep-caps (test-only) proves a
 * boundary against root holding its capabilities, and audit mode (learn
 * too) denies nothing, so records what the command does as the caller:
 * uid 0 as the caller is, never a dynamic uid. */
static int plan_user_step(struct run *r, struct rf_step_error *e)
{
	int err = 0;

	if (r->dyn.why == RF_USER_DYNAMIC && r->sb.plan.install.keep_caps)
		r->dyn.why = RF_USER_ROOT;
	if (r->dyn.why == RF_USER_DYNAMIC && r->sb.policy->mode == RF_MODE_AUDIT)
		r->dyn.why = RF_USER_ROOT_AUDIT;
	if (r->dyn.why == RF_USER_DYNAMIC)
		err = plan_dynuser(r, e);
	if (!err)
		r->sb.user = plan_user(r);
	return err;
}

/* The dynamic uid, once the plan says which private tmpfs go over the
 * host's: the other write areas must take an id-mapping (mount_setattr), or the run falls back to uid 0 with
 * the gap process.root (--strict refuses it). */
static int plan_dynuser(struct run *r, struct rf_step_error *e)
{
	const struct rf_path_list *w = &r->sb.policy->files_write;
	_cleanup_free_ const char **paths = calloc(w->n + 1, sizeof(*paths));
	struct launch_mount m[2];
	size_t n_m = private_mounts(&r->sb, m), n = 0;
	const char *scratch = r->sb.plan.limits[RF_LIMIT_SCRATCH].set ?
			      r->sb.policy->limits.scratch.path : NULL;
	int err;

	if (!paths)
		return rf_error_set(&e->e, -ENOMEM, "user", "out of memory");
	for (size_t i = 0; i < w->n; i++)
		if (launch__rw_needs_map(m, n_m, scratch, w->v[i].path))
			paths[n++] = w->v[i].path;
	err = dynuser__prepare(&r->dyn, paths, n, r->sb.caps.mount_setattr,
			       r->sb.policy->files == RF_CONFINE_UNRESTRICTED);
	if (err) {
		e->exit = RF_EXIT_REFUSED;
		return rf_error_set(&e->e, err, "user", "no dynamic uid for the command "
				    "(root without --user; " RF_DYNUSER_DIR "): %s; --user USER "
				    "or --user root choose one", strerror(-err));
	}
	if (r->dyn.why == RF_USER_DYNAMIC) {
		r->uid = r->dyn.uid;
		r->gid = (gid_t)r->dyn.uid;
	} else {
		r->sb.plan.gaps |= 1ull << RF_GAP_PROCESS_ROOT;
		if (r->o->plan_opts.strict)
			plan__refuse(&r->sb.plan, RF_CLASS_PROCESS, RF_WHY_STRICT_GAPS, 0,
				     plan__gap_id(RF_GAP_PROCESS_ROOT));
	}
	return 0;
}

/* The directories on the way to an allowed unix name, as they are now
 * (unixpin.h): one that cannot be pinned keeps the gap unix.rename-dir
 * (--strict refuses it). */
static int plan_unix_pins(struct run *r, struct rf_step_error *e)
{
	struct rf_plan *plan = &r->sb.plan;
	struct launch_mount m[2];
	size_t n_m;
	int err;

	if (!plan->install.unix_pins)
		return 0;
	n_m = private_mounts(&r->sb, m);
	err = unixpin__plan(r->sb.policy, m, n_m, plan->limits[RF_LIMIT_SCRATCH].set ?
			    r->sb.policy->limits.scratch.path : NULL, &r->sb.pins);
	if (err)
		return rf_error_set(&e->e, err, "network.unix", "out of memory");
	if (r->sb.pins.n_open) {
		plan->gaps |= 1ull << RF_GAP_UNIX_RENAME_DIR;
		if (r->o->plan_opts.strict)
			plan__refuse(plan, RF_CLASS_UNIX, RF_WHY_STRICT_GAPS, 0,
				     plan__gap_id(RF_GAP_UNIX_RENAME_DIR));
	}
	return 0;
}

/* Landlock logs this sandbox's file/exec denials itself when the kernel's
 * audit is on (ABI 7+; the child asks for logging after its exec): the
 * plan says so (kernel-audit); read them from the audit socket, opened
 * before the sandbox.plan line and the enforcer (no observe programs are
 * attached for them) and before the child exists. If it cannot be opened
 * (no CAP_AUDIT_READ), the inferred observation takes over. */
static void open_landlock_audit(struct sandbox *sb)
{
	int err;

	if (sb->plan.c[RF_CLASS_FILE].observed != RF_OBSV_KERNEL_AUDIT &&
	    sb->plan.c[RF_CLASS_EXEC].observed != RF_OBSV_KERNEL_AUDIT)
		return;
	err = sb->ll.ruleset_fd >= 0 && sb->ll.handled_fs ? landlock_audit__open(&sb->la) :
							     -EBADF;
	if (!err)
		return;
	plan__landlock_unlogged(&sb->plan, &sb->caps);
	rf_info("sandbox %s: Landlock's audit log cannot be read (%s): its denials "
		"are inferred from failed syscalls", sb->name, strerror(-err));
}

static void undo_plan(void *ctx)
{
	struct run *r = ctx;

	dynuser__release(&r->dyn);
	unixpin__free(&r->sb.pins);
	json_decref(TAKE_PTR(r->sb.user));
	landlock_audit__close(&r->sb.la);
	sandbox_landlock__free(&r->sb.ll);
	sandbox_seccomp__free(&r->sb.sc);
}

/* Probe, plan, and build the backends made in user space (which can still
 * refuse the plan). A refused plan is no failure here: check prints it. */
static int step_plan(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	struct rf_plan_opts po;
	int err;

	probe__run(&sb->caps, prepare__probe_flags(sb->policy, &r->o->plan_opts));
	/* Where its cgroup goes decides which controllers it can have. */
	err = cgplace__choose(sb->caps.cgroup_mount, r->o->cgroup_parent, &sb->place, &e->e);
	if (err)
		return err;
	cgplace__probe_controllers(&sb->place, &sb->caps);
	if (steps__timings())
		fprintf(stderr, "ringfence: timing: probe bpf-lsm %.3f landlock %.3f audit %.3f%s "
			"seccomp %.3f observe %.3f cgroup %.3f sock_addr %.3f ms\n",
			sb->caps.bpf_lsm.ms, sb->caps.landlock.ms, sb->caps.audit.ms,
			sb->caps.audit_age_s >= 0 ? " (an earlier answer reused)" : "",
			sb->caps.seccomp.ms, sb->caps.observe.ms, sb->caps.cgroup_v2.ms,
			sb->caps.sock_addr.ms);
	po = r->o->plan_opts;
	po.stdio_unix = stdio_vet__unix_socket();
	plan__compile(sb->policy, &sb->caps, &po, &sb->plan);
	err = prepare__backends(sb->policy, &sb->plan, &sb->ll, &sb->sc, &e->e);
	/* After it: it may still give the command the host's /tmp (a cwd
	 * below it), a write area then. */
	if (!err)
		err = plan_user_step(r, e);
	if (!err)
		err = plan_unix_pins(r, e);
	if (err)
		undo_plan(r);
	else
		open_landlock_audit(sb);
	return err;
}

static json_t *plan_event(const struct run *r)
{
	const struct sandbox *sb = &r->sb;
	json_t *ev = json_object(), *argv = json_array();
	int i;

	for (i = 0; r->o->argv[i]; i++)
		json_array_append_new(argv, json_string(r->o->argv[i]));
	json_object_set_new(ev, "command", argv);
	json_object_set(ev, "user", sb->user);
	json_object_set_new(ev, "plan", report__plan(sb->policy, &sb->plan, &sb->caps));
	json_object_set_new(json_object_get(ev, "plan"), "cgroup", cgplace__json(&sb->place));
	json_object_set_new(ev, "on_supervisor_exit",
			    json_string(r->o->keep_running ? "keep-running" : "kill"));
	if (r->o->labels.n)
		json_object_set_new(ev, "labels", registry__labels_to_json(&r->o->labels));
	if (r->o->traceparent[0])
		json_object_set_new(ev, "traceparent", json_string(r->o->traceparent));
	if (sb->policy->n_vars)
		json_object_set_new(ev, "policy_variables", policy__variables_json(sb->policy));
	if (sb->ll.n_approx)
		json_object_set_new(json_object_get(ev, "plan"), "approximations",
				    report__approximations(&sb->ll));
	if (sb->plan.install.unix_pins)
		json_object_set_new(json_object_get(ev, "plan"), "unix_pins",
				    unixpin__json(&sb->pins));
	return ev;
}

/* Opened once the input is known good: a policy error leaves no file. */
static int step_trace(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	int err;

	make_name(r->sb.policy->id, r->sb.name, sizeof(r->sb.name));
	if (r->sb.place.how == RF_CGPLACE_SYSTEMD)
		snprintf(r->sb.place.unit, sizeof(r->sb.place.unit), "ringfence-%s.scope",
			 r->sb.name);
	err = trace__open(r->o->trace_path, r->sb.name, &r->sb.trace);
	if (err == -ENXIO)
		return rf_error_set(&e->e, err, NULL, "--trace %s: a FIFO that nobody reads",
				    r->o->trace_path);
	if (err)
		return rf_error_set(&e->e, err, NULL, "--trace %s: %s", r->o->trace_path,
				    strerror(-err));
	/* Nothing started yet: a trace that cannot take its first line
	 * (/dev/full, a full disk) refuses the run like one that cannot open. */
	err = trace__emit(r->sb.trace, "sandbox.plan", plan_event(r));
	return err ? rf_error_set(&e->e, err, NULL, "--trace %s: writing: %s",
				  r->o->trace_path, strerror(-err)) : 0;
}

static void undo_trace(void *ctx)
{
	struct run *r = ctx;

	trace__close(TAKE_PTR(r->sb.trace));
}

/* The plan holds and nothing on stdio bypasses it. */
static int step_admit(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;

	/* Every sandbox needs its cgroup: when the kernel refused the probe's
	 * one, that is the reason (one line), whatever the classes say. */
	if (r->sb.caps.cgroup_mount[0] && !r->sb.caps.cgroup_v2.ok)
		return rf_error_set(&e->e, r->sb.caps.cgroup_v2.err, "refused",
				    "no sandbox cgroup can be made: %s", r->sb.caps.cgroup_v2.detail);
	if (!r->sb.plan.ok) {
		prepare__print_refusal(&r->sb.plan);  /* every reason, one a line */
		return -EPERM;
	}
	return check_stdio(r->sb.policy, &r->sb.plan, &e->e);
}

static int step_env(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	int err;

	err = env__build(r->sb.policy, environ, &r->envp);
	return err ? rf_error_set(&e->e, err, "building the environment", "%s",
				  strerror(-err)) : 0;
}

static void undo_env(void *ctx)
{
	struct run *r = ctx;

	env__free(TAKE_PTR(r->envp));
}

static void undo_netrules(void *ctx)
{
	struct run *r = ctx;

	free(TAKE_PTR(r->rules));
	free(TAKE_PTR(r->resolved));
	free(TAKE_PTR(r->sb.entries));
	r->n_rules = r->n_resolved = r->sb.n_entries = 0;
}

/* Resolve and build the map entries, and see that the sandbox's maps
 * hold them: the refusals (a name that does not resolve, more port ranges
 * than a key holds, more keys than a sandbox's map holds) check makes too.
 * lsm_flags: the plan's (path keys count when the BPF-LSM judges files). */
static int build_netrules(struct run *r, uint32_t lsm_flags, struct rf_error *e)
{
	struct sandbox *sb = &r->sb;
	int err = 0;

	if (sb->policy->net_connect == RF_CONFINE_ALLOWLIST)
		err = netrules__resolve(sb->policy, &r->rules, &r->n_rules, &r->resolved,
					&r->n_resolved, e);
	if (!err && sb->policy->net_connect == RF_CONFINE_ALLOWLIST)
		err = netrules__build(r->rules, r->n_rules, &sb->entries, &sb->n_entries, e);
	if (err) {
		undo_netrules(r);
		return rf_error_wrap(e, "refused");
	}
	err = sbmaps__capacity(lsm_flags, sb->entries, sb->n_entries, sb->policy, e);
	if (err)
		undo_netrules(r);
	return err;
}

int run__check_netrules(const struct rf_policy *policy, uint32_t lsm_flags, struct rf_error *e)
{
	struct run r = { .sb = { .policy = (struct rf_policy *)policy } };
	int err;

	err = build_netrules(&r, lsm_flags, e);
	undo_netrules(&r);
	return err;
}

/* Names are resolved here, outside the sandbox, once. */
static int step_netrules(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	int err;

	err = build_netrules(r, sb->plan.install.lsm_flags, &e->e);
	if (err)
		return err;
	/* one record per rule: built only when the trace is written */
	if (trace__on(sb->trace))
		trace__emit(sb->trace, "network.decision",
			    report__decision(sb->policy, r->resolved, r->n_resolved));
	return 0;
}

static void undo_enforcer(void *ctx)
{
	struct run *r = ctx;

	enforcer__close(TAKE_PTR(r->sb.enf));
	if (r->parent_fd >= 0)
		close(TAKE_FD(r->parent_fd));
}

/* The observe groups this sandbox wants attached (RF_OBS_WANT bits): the
 * sys_exit tracepoint for its inferred denials, the exec tracepoint for
 * the loader kill, sys_enter too for an audit sandbox's execs, the
 * programs of its ledger's unix bytes (the socket length tracepoints, its
 * unix peers keyed by the cgroup unix hooks; before 6.7 the fexit programs
 * that do both; not under --no-observe). */
static unsigned int observe_groups(const struct sandbox *sb)
{
	uint32_t f = plan__sandbox_flags(&sb->plan, sb->policy, true);
	bool ubytes = flows__unix_bytes_wanted(sb->policy, &sb->plan, &sb->caps);

	return ((f & RF_OBSERVE_FLAGS & ~RF_SB_OBSERVE_LOADER) ? RF_OBS_WANT(RF_OBS_SYSCALLS) : 0) |
	       ((f & RF_SB_OBSERVE_LOADER) ? RF_OBS_WANT(RF_OBS_EXEC) : 0) |
	       ((f & RF_SB_OBSERVE_ACCESS) ? RF_OBS_WANT(RF_OBS_ENTER) : 0) |
	       (ubytes ? RF_OBS_WANT(RF_OBS_UNIX_BYTES) : 0);
}

/* The pinned programs on MOUNT/ringfence, loaded if need be. */
static int step_enforcer(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	const struct rf_class_plan *unx = &sb->plan.c[RF_CLASS_UNIX];
	int err;

	r->parent_fd = cgroup__open_parent(sb->caps.cgroup_mount);
	if (r->parent_fd < 0)
		return rf_error_set(&e->e, r->parent_fd, "refused", "cgroup %s/%s: %s",
				    sb->caps.cgroup_mount, RF_CGROUP_PARENT,
				    strerror(-r->parent_fd));
	err = enforcer__open(r->parent_fd, sb->caps.unix_sock_addr.ok,
			     sb->plan.install.lsm_flags != 0,
			     /* pinned whenever they work (the next probes find them),
			      * attached only for a sandbox that is observed */
			     sb->caps.observe.ok, observe_groups(sb), &sb->enf, &e->e);
	if (err) {
		rf_error_wrap(&e->e, "refused");
	} else if (unx->required &&
		   !(sb->enf->features & (unx->be == RF_BE_BPF_LSM ? RF_FEAT_LSM : RF_FEAT_UNIX))) {
		err = rf_error_set(&e->e, -EOPNOTSUPP, "refused",
				   "unix: the pinned programs have no unix hooks attached");
	}
	if (err) {
		undo_enforcer(r);
		return err;
	}
	sb->obs_skipped_known = !enforcer__observe_skipped(sb->enf, &sb->obs_skipped_base);
	/* What dead supervisors left, cheaply: a few registry files at random,
	 * cgroups no file names, map keys only of what it removes (`ringfence
	 * gc` walks them all). */
	gc__run(sb->enf, sb->caps.cgroup_mount, RF_GC_NOWAIT | RF_GC_SAMPLE, NULL, NULL);
	return 0;
}

/* The sandbox cgroups' parent (cgplace.h): a systemd scope made, this
 * process moved out of a delegated cgroup it was alone in. Nothing to
 * undo: an empty scope is systemd's to collect, the parent stays. */
static int step_place(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	int err;

	err = cgplace__setup(&sb->place, sb->name, &e->e);
	if (!err)
		rf_debug("sandbox %s: cgroup parent %s (%s: %s)", sb->name, sb->place.dir,
			 cgplace__how_name(sb->place.how), sb->place.why);
	return err;
}

/* Before anything is created that outlives a SIGKILL of this process. */
static int step_reaper(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	char path[sizeof(sb->cg.path)];
	int err;

	snprintf(path, sizeof(path), "%s/%s", sb->place.dir, sb->name);
	err = reaper__start(sb->name, path, r->o->keep_running,
			    r->dyn.why == RF_USER_DYNAMIC ? r->dyn.uid : 0, &r->reaper);
	return err ? rf_error_set(&e->e, err, "refused", "starting the reaper process: %s",
				  strerror(-err)) : 0;
}

/* Told first, then both waited for: the init (killed by the launch's
 * undo, its exit running beside the undos since) and the reaper leave
 * at once, not one after the other, each a wake-up on a busy host. */
static void undo_reaper(void *ctx)
{
	struct run *r = ctx;

	reaper__tell(&r->reaper);
	pidns__stop(&r->lr.pidns);
	reaper__stop(&r->reaper);
}

static void drop_start_lock(struct run *r)
{
	if (r->start_lock >= 0)
		close(TAKE_FD(r->start_lock));
}

static int step_cgroup(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	int err;

	r->start_lock = gc__start_lock();
	if (r->start_lock < 0)
		return rf_error_set(&e->e, r->start_lock, "refused", "locking %s/start.lock: %s",
				    RF_RUN_DIR, strerror(-r->start_lock));
	err = cgroup__create_at(sb->place.dir, sb->name, &sb->cg);
	if (err) {
		drop_start_lock(r);
		/* whatever it names is not ours to remove */
		sb->cg = (struct rf_cgroup){ .dir_fd = -1 };
		return rf_error_set(&e->e, err, "refused", "creating cgroup %s/%s%s: %s",
				    sb->place.dir, sb->name, err == -EAGAIN ? " (refused by the "
				    "kernel: cgroup.max.descendants or cgroup.max.depth reached)" : "",
				    strerror(-err));
	}
	sb->cgid = sb->cg.id;
	/* Elsewhere than MOUNT/ringfence, the programs attach to it (a
	 * failure is undone like the rest of this step: owed_before). */
	if (!cgplace__at_pinned(&sb->place, sb->caps.cgroup_mount) &&
	    (err = enforcer__attach_cgroup(sb->enf, sb->cg.dir_fd, &e->e)))
		return rf_error_wrap(&e->e, "refused");
	return 0;
}

/* Empty unless the command ran: then launch's undo killed already. */
static void undo_cgroup(void *ctx)
{
	struct run *r = ctx;

	drop_start_lock(r);
	sandbox_kill(&r->sb);
}

/* The cgroup controllers' caps on the sandbox cgroup, the relay pipes
 * for output_bytes and the command's pty where the caller has a
 * terminal; the clock starts with the command (wait). */
static int step_limits(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	int err;

	err = sandbox_limits__watch_init(&sb->lw, &sb->plan, &e->e);
	if (!err)
		err = tty_relay__open(&sb->tty, r->uid, r->gid, &e->e);
	if (!err)
		err = sandbox_limits__apply_cgroup(&sb->plan, sb->place.base, &sb->cg, &e->e);
	if (err) {
		tty_relay__close(&sb->tty);
		sandbox_limits__watch_close(&sb->lw);
	}
	return err;
}

static void undo_limits(void *ctx)
{
	struct run *r = ctx;

	tty_relay__close(&r->sb.tty);
	sandbox_limits__watch_close(&r->sb.lw);
}

/* RINGFENCE_TIMINGS: what the maps step did beyond writing the keys
 * (the pool had no slot of the class: its growth waited on the kernel). */
static void note_pool(const struct sbmaps_note *n)
{
	if (!steps__timings())
		return;
	if (n->grown || n->outer_writes)
		fprintf(stderr, "ringfence: timing: maps: no free slot: pool grown on this path "
			"by %u slot(s), %u outer-map write(s), each waiting for an RCU grace "
			"period: %.3f ms\n", n->grown, n->outer_writes, n->grow_ms);
	if (n->cleaned)
		fprintf(stderr, "ringfence: timing: maps: emptied a slot given back earlier: "
			"%zu key(s): %.3f ms\n", n->cleaned, n->clean_ms);
}

static int step_maps(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	/* the planner decides; whether the observe programs are there is
	 * known only now (the pinned set's features) */
	uint32_t flags = plan__sandbox_flags(&sb->plan, sb->policy,
					     (sb->enf->features & RF_FEAT_OBSERVE) &&
					     !observe__test_disabled());
	struct sbmaps_note note = { 0 };
	const char *map = NULL;
	int err;

	sb->sandbox_flags = flags;
	err = observe__init(&sb->obs, sb->policy, &sb->plan);
	sb->obs.dynamic_uid = r->dyn.why == RF_USER_DYNAMIC;
	/* Without it the trace is whole; the monitor misses the verdicts
	 * (counted in sandbox.exit). */
	if (!err && ((flags & RF_OBSERVE_FLAGS) || sb->la.fd >= 0) &&
	    observe__open_verdicts(&sb->obs))
		rf_info("observe: the verdict program is not pinned: inferred or audit-logged "
			"denials will not reach ringfence-monitor");
	if (!err) {
		landlock_audit__discard(&sb->la);  /* open since the plan */
		err = sbmaps__install(sb->enf, sb->cgid, flags, sb->entries, sb->n_entries,
				      sb->policy, &map, &note);
		note_pool(&note);
		r->pool = note;
	}
	if (!err && (err = flows__start(sb))) {
		flows__stop(sb);
		sbmaps__remove(sb->enf, sb->cgid);
		observe__free(&sb->obs);
		return rf_error_set(&e->e, err, "refused", "the connection ledger: %s",
				    strerror(-err));
	}
	if (!err && (err = filewatch__start(sb))) {
		flows__stop(sb);
		sbmaps__remove(sb->enf, sb->cgid);
		observe__free(&sb->obs);
		return rf_error_set(&e->e, err, "refused", "monitor.files: fanotify: %s",
				    strerror(-err));
	}
	if (err)
		observe__free(&sb->obs);
	if (err == -ENOSPC && map)
		/* each sandbox's keys are in maps of its own: only the number
		 * of sandboxes is host-wide */
		return rf_error_set(&e->e, err, "refused",
				    "writing the policy maps: every %s slot is taken (%d live "
				    "sandboxes at most): %s", map, RF_MAX_SANDBOXES, strerror(-err));
	if (err == -E2BIG && map)
		return rf_error_set(&e->e, err, "refused",
				    "writing the policy maps: a sandbox's %s map holds at most "
				    "%d keys", map, RF_SB_MAX_KEYS);
	return err ? rf_error_set(&e->e, err, "refused", "writing the policy maps: %s",
				  strerror(-err)) : 0;
}

static void undo_maps(void *ctx)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;

	filewatch__stop(sb);
	if (!sb->keep_policy) {
		flows__stop(sb);
		sbmaps__remove(sb->enf, sb->cgid);
	}
	observe__free(&sb->obs);
}

enum gate_need {
	GATE_NONE = 0,
	GATE_OBSERVE,   /* audit mode, no name: only to record the names looked up */
	GATE_NEEDED,
};

/* Does the policy need the DNS gate: a confined network.connect naming
 * hosts, with network.dns "gate" (the default)? In audit mode with no
 * name it records which names gave the addresses the command reached
 * (learn writes "name:port" from them), where a resolver is known. */
static enum gate_need wants_gate(const struct rf_policy *p)
{
	size_t i;

	if (p->net_connect != RF_CONFINE_ALLOWLIST || p->dns.mode != RF_DNS_GATE)
		return GATE_NONE;
	for (i = 0; i < p->n_connect; i++)
		if (p->connect[i].kind == RF_HOST_NAME)
			return GATE_NEEDED;
	return p->mode == RF_MODE_AUDIT ? GATE_OBSERVE : GATE_NONE;
}

/* The gate's sockets and the steering entry exist before the command
 * does; the gate's thread starts after the launch (step_dns_serve). */
static int step_dns_gate(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	struct rf_dnsgate_opts o = {
		.policy = sb->policy, .rules = r->rules, .n_rules = r->n_rules,
		.enf = sb->enf, .cgid = sb->cgid, .trace = sb->trace,
		.audit = sb->policy->mode == RF_MODE_AUDIT,
	};
	enum gate_need need = wants_gate(sb->policy);
	struct rf_dns_gate where;
	int err;

	if (need == GATE_NONE)
		return 0;
	err = dnsgate__open(&o, &r->gate, &e->e);
	/* its names are forgotten at the end (flows__stop) */
	sb->flows.named = !err;
	if (err && need == GATE_OBSERVE) {
		/* only an observer: the run goes on, its lookups unrecorded */
		rf_info("sandbox %s: audit mode without the DNS gate (%s): the names the "
			"command looks up are not recorded", sb->name, e->e.why);
		memset(&e->e, 0, sizeof(e->e));
		return 0;
	}
	if (err)
		return err;
	dnsgate__address(r->gate, &where);
	err = sbmaps__set_dns_gate(sb->enf, sb->cgid, &where);
	if (err) {
		dnsgate__close(TAKE_PTR(r->gate), NULL);
		return rf_error_set(&e->e, err, "refused", "steering DNS to the gate: %s",
				    strerror(-err));
	}
	rf_debug("sandbox %s: DNS gate on 127.0.0.1:%u", sb->name, where.port4);
	return 0;
}

static void undo_dns_gate(void *ctx)
{
	struct run *r = ctx;

	if (!r->gate)
		return;
	if (!r->sb.keep_policy)
		sbmaps__set_dns_gate(r->sb.enf, r->sb.cgid, NULL);
	/* its grants go too; with keep_policy the survivors' DNS fails */
	dnsgate__close(TAKE_PTR(r->gate), NULL);
}

static int step_dns_serve(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	int err;

	if (!r->gate)
		return 0;
	err = dnsgate__serve(r->gate);
	return err ? rf_error_set(&e->e, err, "refused", "starting the DNS gate: %s",
				  strerror(-err)) : 0;
}

static void undo_dns_serve(void *ctx)
{
	struct run *r = ctx;

	dnsgate__stop(r->gate);
}

static int step_registry(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	struct sandbox *sb = &r->sb;
	struct rf_registry_entry *reg = &r->reg;
	struct timespec now;
	int err;

	snprintf(reg->sandbox, sizeof(reg->sandbox), "%s", sb->name);
	snprintf(reg->policy_id, sizeof(reg->policy_id), "%s", sb->policy->id);
	snprintf(reg->digest, sizeof(reg->digest), "%s", sb->policy->digest);
	snprintf(reg->mode, sizeof(reg->mode), "%s",
		 sb->policy->mode == RF_MODE_AUDIT ? "audit" : "enforce");
	snprintf(reg->cgroup_path, sizeof(reg->cgroup_path), "%s", sb->cg.path);
	snprintf(reg->cgroup_placement, sizeof(reg->cgroup_placement), "%s",
		 cgplace__how_name(sb->place.how));
	reg->cgroup_id = sb->cgid;
	snprintf(reg->pin_set, sizeof(reg->pin_set), "%s", rf_pins__selected());
	reg->supervisor_pid = getpid();
	reg->keep_running = r->o->keep_running;
	registry_fill__policy(reg, sb->policy);
	reg->labels = r->o->labels;
	snprintf(reg->traceparent, sizeof(reg->traceparent), "%s", r->o->traceparent);
	reg->supervisor_start = registry__proc_start(getpid());
	clock_gettime(CLOCK_REALTIME, &now);
	trace__format_ts(&now, reg->started, sizeof(reg->started));
	err = registry__add(reg);
	/* The file names the cgroup now (or the run stops here): gc may look. */
	drop_start_lock(r);
	return err ? rf_error_set(&e->e, err, "refused", "registering the sandbox in %s: %s",
				  RF_REGISTRY_DIR, strerror(-err)) : 0;
}

static void undo_registry(void *ctx)
{
	struct run *r = ctx;

	if (!r->sb.keep_policy)
		registry__remove(r->sb.name);
}

/* The command never ran: sandbox.exit says where it stopped. */
static void emit_not_started(struct run *r, int exit, const char *stage, int err)
{
	trace__emit(r->sb.trace, "sandbox.exit",
		    json_pack("{s:n, s:n, s:i, s:s, s:s}", "status", "signal", "exit_code", exit,
			      "failed_stage", stage, "error", strerror(err)));
}

/* What the child reported when it failed before the command ran. */
static int launch_failure(struct run *r, struct rf_step_error *e)
{
	const struct launch_result *lr = &r->lr;
	const char *argv0 = r->o->argv[0];

	if (lr->failed_stage == LAUNCH_STAGE_EXEC && lr->err == ENOENT) {
		rf_error_set(&e->e, -ENOENT, NULL, "%s: command not found", argv0);
		e->exit = RF_EXIT_NOTFOUND;
	} else if (lr->failed_stage == LAUNCH_STAGE_EXEC) {
		rf_error_set(&e->e, -lr->err, NULL, "%s: cannot execute: %s", argv0,
			     strerror(lr->err));
		/* What the policy refused, as far as the observe programs saw. */
		report__drain_samples(&r->sb, true);
		if (r->sb.obs.exec_denied[0])
			rf_error_hint(&e->e, "%s is not in exec", r->sb.obs.exec_denied);
	} else {
		rf_error_set(&e->e, -lr->err, "refused", "sandbox setup failed at %s: %s",
			     lr->what, strerror(lr->err));
		rf_error_hint(&e->e, "the command did not run");
	}
	emit_not_started(r, e->exit, lr->failed_stage == LAUNCH_STAGE_EXEC ? "exec" : "setup",
			 lr->err);
	return e->e.err;
}

/* Processes exist from here on: they die before any policy goes. */
static void undo_launch(void *ctx)
{
	struct run *r = ctx;

	sandbox_kill(&r->sb);
	if (r->lr.pidfd >= 0) {
		siginfo_t si;

		/* The init's exit waits for every task of its namespace, the
		 * command's zombie too: reaped first if the wait did not. */
		(void)waitid(P_PIDFD, (id_t)r->lr.pidfd, &si, WEXITED | WNOHANG);
		close(TAKE_FD(r->lr.pidfd));
	}
	/* Reaped by the reaper's undo, which comes later (the reaper step
	 * precedes this one), so its exit overlaps the undos between. */
	pidns__kill(&r->lr.pidns);
	notify__close(&r->sb.notify);
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
	mounts__free(TAKE_PTR(r->ro_mounts));
	mounts__free(TAKE_PTR(r->bpf_mounts));
	mounts__free(TAKE_PTR(r->fan_mounts));
}

/* The tmpfs mounts of the plan's private places: /dev/shm always (where
 * the host has one: nothing shared to hide otherwise), /tmp when the plan
 * says so. POSIX shm and semaphores are files there: the command sees its
 * own and none of the host's. */
static size_t private_mounts(const struct sandbox *sb, struct launch_mount m[2])
{
	struct stat st;
	size_t n = 0;

	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode))
		m[n++] = (struct launch_mount){ "/dev/shm", "tmpfs", "mode=1777",
						MS_NOSUID | MS_NODEV, sb->ll.shm_access };
	if (sb->plan.priv.tmp)
		m[n++] = (struct launch_mount){ "/tmp", "tmpfs", "mode=1777",
						MS_NOSUID | MS_NODEV, sb->ll.tmp_access };
	return n;
}

static int start_child(struct run *r)
{
	struct sandbox *sb = &r->sb;
	struct launch_mount mounts[2];
	size_t n_mounts = private_mounts(sb, mounts);
	struct launch_opts lo = {
		.cgroup_fd = sb->cg.dir_fd,
		.argv = r->o->argv,
		.envp = r->envp,
		.uid = r->uid,
		.gid = r->gid,
		.idmap_fd = r->dyn.userns_fd,
		.unix_sk_fd = sb->enf ? sb->enf->map_fd[RF_PIN_UNIX_SK] : -1,
		.ro_mounts = (const char *const *)r->ro_mounts,
		.detach_mounts = (const char *const *)r->bpf_mounts,
		.keep_caps = sb->plan.install.keep_caps,
		.landlock_fd = sb->ll.ruleset_fd,
		.seccomp = sb->sc.boundary.len || sb->sc.allowlist.len ? &sb->sc : NULL,
		.stdout_fd = sb->lw.child_w[0],
		.stderr_fd = sb->lw.child_w[1],
		.tty_fd = sb->tty.slave,
		.tty_std = { sb->tty.std[0], sb->tty.std[1], sb->tty.std[2] },
		.scratch_path = sb->plan.limits[RF_LIMIT_SCRATCH].set ?
				sb->policy->limits.scratch.path : NULL,
		.scratch_mb = sb->plan.limits[RF_LIMIT_SCRATCH].value,
		.scratch_landlock_access = sb->ll.scratch_access,
		.proc_landlock_access = sb->ll.proc_access,
		.ll_later = sb->ll.later,
		.n_ll_later = sb->ll.n_later,
		.mounts = mounts,
		.n_mounts = n_mounts,
		.devpts_fd = sb->tty.devpts,
		.devpts_landlock_access = sb->ll.devpts_access,
		.ro_tree = sb->plan.install.ro_tree,
		.pin_dirs = sb->pins.pin_dirs,
		.mdwe = sb->plan.install.mdwe,
		.fanotify_fd = filewatch__fd(sb),
		.fanotify_mask = filewatch__mask(),
		.fanotify_mounts = (const char *const *)r->fan_mounts,
	};
	const struct rf_path_list *w = &sb->policy->files_write;
	_cleanup_free_ const char **rw = calloc(w->n + 1, sizeof(*rw));
	int err;

	if (!rw)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		rw[i] = w->v[i].path;
	lo.rw_paths = rw;
	err = launch__start(&lo, &r->lr);
	notify__init(&sb->notify, r->lr.notify_fd);
	notify__profile(&sb->notify, &sb->sc);
	r->lr.notify_fd = -1;
	/* The process that restricts itself: its domain is this sandbox's. */
	sb->la.child = r->lr.pid;
	/* Installed: the child got past its last setup step (exec may still
	 * have failed after it). */
	trace__emit(sb->trace, "sandbox.configure",
		    report__configure(sb, !err && r->lr.failed_stage != LAUNCH_STAGE_SETUP));
	return err;
}

static int step_launch(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	sigset_t mask;
	int err;

	report__summary(&r->sb);
	/* said when it starts (check's plan has it as user.fallback) */
	if (r->dyn.why == RF_USER_ROOT_FALLBACK)
		rf_info("policy %s: the command runs as uid 0: %s", r->sb.policy->id,
			r->dyn.fallback);
	notify__init(&r->sb.notify, -1);
	/* Block before the child exists so no signal is lost; the child
	 * resets its mask before exec. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	/* the pty's: read in the wait (wait.c) */
	sigaddset(&mask, SIGWINCH);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGCONT);
	sigprocmask(SIG_BLOCK, &mask, &r->oldmask);
	/* cgroup2 read-only, bpffs gone in the child's mount namespace, and
	 * mqueue mounts too: each names the host's IPC namespace's queues;
	 * and every devpts (the caller's terminal by name): the sandbox's own
	 * goes over /dev/pts. */
	err = mounts__list2("cgroup2", &r->ro_mounts, "bpf,mqueue,devpts", &r->bpf_mounts);
	/* monitor.files: the child marks each mount it got a copy of (it may
	 * not open mountinfo itself: a BPF-LSM file policy judges it already) */
	if (!err && filewatch__fd(&r->sb) >= 0)
		err = mounts__list("*", &r->fan_mounts);
	if (err) {
		rf_error_set(&e->e, err, "refused", "reading the mount table: %s", strerror(-err));
	} else if ((err = start_child(r))) {
		rf_error_set(&e->e, err, "refused", "starting the command: %s", strerror(-err));
		emit_not_started(r, e->exit, "clone", -err);
	} else if (r->lr.failed_stage != LAUNCH_STAGE_NONE) {
		err = launch_failure(r, e);
	}
	if (err) {
		undo_launch(r);
		return err;
	}
	r->reg.child_pid = r->lr.pid;
	registry__add(&r->reg);
	return 0;
}

static json_t *dns_stats_json(struct rf_dnsgate *g)
{
	struct rf_dnsgate_stats st;

	dnsgate__stop(g);
	dnsgate__stats(g, &st);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			 "queries", (json_int_t)st.queries, "allowed", (json_int_t)st.allowed,
			 "denied", (json_int_t)st.denied,
			 "dropped_answers", (json_int_t)st.dropped_answers,
			 "granted", (json_int_t)st.granted, "expired", (json_int_t)st.expired,
			 "servfail", (json_int_t)st.servfail,
			 "monitor_lost", (json_int_t)st.monitor_lost);
}

/* The last event: how the command ended and what the kernel denied. */
static void report_exit(struct run *r, const siginfo_t *info, int exit)
{
	struct sandbox *sb = &r->sb;
	struct rf_sandbox st = { 0 };
	struct timespec t1;
	uint64_t total = 0, lost = 0;
	bool exited = info->si_code == CLD_EXITED;
	json_t *den = json_object(), *ex;
	char inferred[160];
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	report__drain_samples(sb, true);
	report__observe_skipped(sb);
	sbmaps__read_sandbox(sb->enf, sb->cgid, &st);
	for (i = 0; i < RF_CLASS_KERNEL_MAX; i++) {
		json_object_set_new(den, names__class(i), json_integer((json_int_t)st.denials[i]));
		total += st.denials[i];
	}
	enforcer__stat(sb->enf, RF_STAT_RINGBUF_LOST, &lost);
	ex = json_pack("{s:o, s:o, s:i, s:I, s:o, s:I, s:I, s:I, s:I, s:I}",
			      "status", exited ? json_integer(info->si_status) : json_null(),
			      "signal", exited ? json_null() : json_integer(info->si_status),
			      "exit_code", exit,
			      "duration_ms", (json_int_t)((t1.tv_sec - r->t0.tv_sec) * 1000 +
							  (t1.tv_nsec - r->t0.tv_nsec) / 1000000),
			      "denials", den,
			      "denials_total", (json_int_t)total,
			      "denials_in_trace", (json_int_t)sb->traced,
			      "denials_not_in_trace", (json_int_t)(total - sb->traced),
			      "sample_limit", (json_int_t)sbmaps__sample_limit(sb->sandbox_flags),
			      "host_ringbuf_lost", (json_int_t)lost);
	/* denials above are the kernel's exact counts; inferred ones apart */
	if (ex) {
		json_t *counts = report__exit_counts(sb);

		json_object_update(ex, counts);
		json_decref(counts);
	}
	/* The DNS gate's counts: the sandbox is gone, so the gate stops here. */
	if (ex && r->gate)
		json_object_set_new(ex, "dns", dns_stats_json(r->gate));
	/* The ledger: each destination's network.flow, then the totals. */
	flows__finish(sb, ex);
	/* monitor.files: the last events sent, what the watch saw */
	filewatch__finish(sb, ex);
	/* The limit that ended the run, when one did (limit.exceeded has it all). */
	if (ex && sb->lw.hit != RF_LIMIT_MAX)
		json_object_set_new(ex, "limit", json_string(names__limit(sb->lw.hit)));
	/* ringfence-monitor froze or killed it (monitor.on_alert): said here,
	 * its file then goes */
	if (ex) {
		json_t *ma = report__monitor_action(sb);

		if (ma)
			json_object_set_new(ex, "monitor_action", ma);
		monaction__remove(RF_ACTIONS_DIR, sb->name);
	}
	trace__emit(sb->trace, "sandbox.exit", ex);
	report__inferred_text(sb, inferred, sizeof(inferred));
	if (exited)
		rf_info("sandbox %s: exited %d; kernel denials: %llu (network %llu, unix %llu, "
			"file %llu, exec %llu, process %llu)%s%s",
			sb->name, info->si_status, (unsigned long long)total,
			(unsigned long long)st.denials[RF_CLASS_NET],
			(unsigned long long)st.denials[RF_CLASS_UNIX],
			(unsigned long long)st.denials[RF_CLASS_FILE],
			(unsigned long long)st.denials[RF_CLASS_EXEC],
			(unsigned long long)st.denials[RF_CLASS_PROCESS], inferred,
			sb->policy->mode == RF_MODE_AUDIT ? " [audit: none enforced]" : "");
	else
		rf_info("sandbox %s: killed by signal %d; kernel denials: %llu%s",
			sb->name, info->si_status, (unsigned long long)total, inferred);
	report__denials_after_summary(sb, total > sb->traced ? total - sb->traced : 0);
	report__skipped_human(sb);
}

static int step_wait(void *ctx, struct rf_step_error *e)
{
	struct run *r = ctx;
	siginfo_t info;
	int err;

	/* No deadline, no wait: the command is killed below. */
	memset(&info, 0, sizeof(info));
	/* The command runs: the next runs' slots are made now, beside it. */
	if (sbmaps__top_up_async(r->sb.enf, &r->pool))
		rf_debug("sandbox %s: the pool of per-sandbox maps could not be grown in "
			 "the background: a later run will grow it", r->sb.name);
	else if (steps__timings() && r->pool.top_up)
		fprintf(stderr, "ringfence: timing: maps: pool low: %u slot(s) of class %u "
			"grown in the background\n", r->pool.top_up, r->pool.top_up_class);
	err = sandbox_limits__watch_start(&r->sb.lw, &r->sb.cg);
	if (err)
		rf_error_set(&e->e, err, "refused", "arming wall_seconds, the output relay: %s",
			     strerror(-err));
	else if ((err = wait__loop(&r->sb, &r->lr, limit_hit, &info)))
		rf_error_set(&e->e, err, "waiting for the command", "%s", strerror(-err));
	else
		r->status = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
	/* A cap the cgroup itself held (an OOM kill of the group) is read
	 * before the cgroup goes. */
	if (sandbox_limits__check_cgroup(&r->sb.lw) || flows__check(&r->sb))
		limit_hit(&r->sb);
	flows__settle(&r->sb);
	/* A run a limit ended exits 137, whatever its first process did. */
	if (!err && r->sb.lw.hit != RF_LIMIT_MAX)
		r->status = 128 + SIGKILL;
	/* Everything left in the cgroup dies before the report is final; then
	 * the output it wrote before dying is passed on. The PID namespace's
	 * init too (not woken for the command's end: pidns.h); its exit runs
	 * beside the rest, reaped by the reaper's undo. */
	sandbox_kill(&r->sb);
	pidns__kill(&r->lr.pidns);
	sandbox_limits__drain(&r->sb.lw);
	tty_relay__finish(&r->sb.tty, &r->sb.lw);
	if (r->sb.tty.dropped)
		rf_info("sandbox %s: %llu bytes of the command's output dropped: the terminal "
			"took nothing for a second", r->sb.name,
			(unsigned long long)r->sb.tty.dropped);
	if (r->sb.lw.out_dropped)
		rf_info("sandbox %s: %llu bytes of the command's output dropped: its reader "
			"took nothing for a second", r->sb.name,
			(unsigned long long)r->sb.lw.out_dropped);
	report_exit(r, &info, err ? e->exit : r->status);
	return err;
}

static const struct rf_step run_steps[] = {
	{ "policy", step_policy, undo_policy, RF_EXIT_USAGE, false },
	{ "user", step_user, NULL, RF_EXIT_USAGE, false },
	{ "plan", step_plan, undo_plan, RF_EXIT_USAGE, false },
	{ "trace", step_trace, undo_trace, RF_EXIT_USAGE, false },
	{ "admit", step_admit, NULL, RF_EXIT_REFUSED, false },
	{ "env", step_env, undo_env, RF_EXIT_REFUSED, false },
	{ "network-rules", step_netrules, undo_netrules, RF_EXIT_REFUSED, false },
	{ "enforcer", step_enforcer, undo_enforcer, RF_EXIT_REFUSED, false },
	/* From here on a SIGKILL of this process leaves kernel state: the
	 * reaper (reaper.h) outlives it and cleans up, gc finds the rest. */
	/* A systemd scope holds this process from here on. */
	{ "cgroup-parent", step_place, NULL, RF_EXIT_REFUSED, false },
	{ "reaper", step_reaper, undo_reaper, RF_EXIT_REFUSED, false },
	/* The start lock (gc.h) is held from the cgroup's mkdir until the
	 * registry file names it. */
	{ "cgroup", step_cgroup, undo_cgroup, RF_EXIT_REFUSED, true },
	/* Caps on the sandbox cgroup (memory, pids, cpu): set before anything
	 * runs in it. */
	{ "limits", step_limits, undo_limits, RF_EXIT_REFUSED, false },
	/* Registered before the maps are written: whatever the kernel holds
	 * for a sandbox has a cgroup or a registry file that names it, so a
	 * supervisor killed at any point leaves gc something to find (and its
	 * undo runs after the maps' in reverse). The steps that create kernel
	 * state owe their undo from before they run (owed_before). */
	{ "registry", step_registry, undo_registry, RF_EXIT_REFUSED, true },
	{ "maps", step_maps, undo_maps, RF_EXIT_REFUSED, true },
	{ "dns-gate", step_dns_gate, undo_dns_gate, RF_EXIT_REFUSED, true },
	{ "launch", step_launch, undo_launch, RF_EXIT_REFUSED, false },
	{ "dns-serve", step_dns_serve, undo_dns_serve, RF_EXIT_REFUSED, false },
	{ "wait", step_wait, NULL, RF_EXIT_REFUSED, false },
};

/* A trace that lost lines is never a silent success: one line, and
 * RF_EXIT_TRACE instead of the command's status (which the line gives). */
static int trace_incomplete(const struct run *r, int rc)
{
	uint64_t written;
	int err = trace__error(r->sb.trace, &written);

	if (!err)
		return rc;
	rf_err("--trace %s: writing failed after %llu events: %s; the trace is incomplete "
	       "(the command's exit status was %d)", r->o->trace_path,
	       (unsigned long long)written, strerror(-err), rc);
	return RF_EXIT_TRACE;
}

int run__steps(const struct run_opts *o, const char *last,
	       int (*then)(const struct sandbox *sb))
{
	struct run r = {
		.o = o,
		.sb = { .cg = { .dir_fd = -1 }, .ll = { .ruleset_fd = -1 }, .la = { .fd = -1 },
			.lw = { .timer_fd = -1, .out_r = { -1, -1 }, .child_w = { -1, -1 },
				.out = { { .fd = -1, .restore_fl = -1 },
					 { .fd = -1, .restore_fl = -1 } },
				.saved_err = -1, .hit = RF_LIMIT_MAX } },
		.parent_fd = -1,
		.lr = { .pidfd = -1, .notify_fd = -1 },
		.reaper = { .done_fd = -1 },
		.start_lock = -1,
		.dyn = { .lock_fd = -1, .userns_fd = -1 },
	};
	struct rf_steps s = { .steps = run_steps, .n = sizeof(run_steps) / sizeof(run_steps[0]) };
	int rc;

	rc = steps__run(&s, &r, last);
	/* Whichever step ran out of memory, the exit says so. */
	if (rc && s.err.e.err == -ENOMEM)
		rc = RF_EXIT_NOMEM;
	if (!rc)
		rc = then ? then(&r.sb) : r.status;
	/* The command ran: a refusal's own exit would win otherwise. */
	if (s.done == s.n)
		rc = trace_incomplete(&r, rc);
	steps__undo(&s, &r);
	return rc;
}

int cmd_run(const struct run_opts *o)
{
	return run__steps(o, NULL, NULL);
}
