// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ringfence oci-hook` as steps (steps.h), the same modules as run.c's but
 * for a cgroup and a process the runtime made: state -> policy -> plan (no
 * in-process backends: the hook runs beside the container, not in it) ->
 * admit -> network rules -> pinned programs -> the container's cgroup ->
 * registry -> map entries -> DNS gate -> keeper. On success nothing is
 * undone here: the keeper (oci_keep.c) owns it all until the container's
 * cgroup is empty or the poststop hook ends it; a SIGKILLed keeper leaves
 * a keep-running registry entry that gc removes once the cgroup is empty.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>

#include "cgroup.h"
#include "cgroups/gc.h"
#include "cleanup.h"
#include "backends/enforcer.h"
#include "backends/sbmaps.h"
#include "dnsgate/dnsgate.h"
#include "fileio.h"
#include "flows.h"
#include "log.h"
#include "oci.h"
#include "oci_internal.h"
#include "plan/plan.h"
#include "plan/probe.h"
#include "policy/policy.h"
#include "prepare.h"
#include "registry.h"
#include "registry_fill.h"
#include "report.h"
#include "rules/netrules.h"
#include "run.h"
#include "steps.h"
#include "observe/trace.h"

#define NOT_IN_PROCESS "not applied: an OCI hook runs beside the container's processes, " \
		       "never in them"

static int read_all(int fd, char **ret, size_t max)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n + 1 == cap) {
			char *p = cap >= max ? NULL : realloc(buf, cap *= 2);

			if (!p) {
				free(buf);
				return cap >= max ? -E2BIG : -ENOMEM;
			}
			buf = p;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*ret = buf;
	return 0;
}

static int load_config(struct oci_hook *h, struct rf_error *e)
{
	char path[PATH_MAX];
	json_error_t je;
	json_t *c;
	int err;

	snprintf(path, sizeof(path), "%s/config.json", h->st.bundle);
	c = json_load_file(path, 0, &je);
	if (!c)
		return rf_error_set(e, -EINVAL, path, "%s", je.text);
	err = oci__parse_config(c, &h->st, e);
	if (!err && h->st.runtime_seccomp)
		h->runtime_seccomp = json_incref(json_object_get(json_object_get(c, "linux"),
								  "seccomp"));
	json_decref(c);
	return err;
}

/* Whoever starts the container writes the annotation: the file it names
 * must be one only root could have written. */
static int policy_file_trusted(const char *path, struct rf_error *e)
{
	struct stat st;

	if (path[0] != '/')
		return rf_error_set(e, -EINVAL, "annotations: " RF_OCI_ANNOTATION,
				    "\"%s\": must be an absolute path", path);
	if (stat(path, &st))
		return 0;       /* the policy step names the error */
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022))
		return rf_error_set(e, -EPERM, "annotations: " RF_OCI_ANNOTATION,
				    "%s: must be a regular file owned by root and writable by "
				    "root only", path);
	return 0;
}

static int step_state(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	_cleanup_free_ char *text = NULL;
	int err = read_all(STDIN_FILENO, &text, RF_OCI_STATE_MAX);

	if (err)
		return rf_error_set(&e->e, err, "state on stdin", "%s", strerror(-err));
	err = oci__parse_state(text, &h->st, &e->e);
	if (err)
		return rf_error_wrap(&e->e, "state on stdin");
	snprintf(h->name, sizeof(h->name), RF_OCI_PREFIX "%s", h->st.id);
	if (strcmp(h->st.status, "creating") && strcmp(h->st.status, "created"))
		return 0;       /* poststop: only the id is needed */
	if (h->st.pid <= 0)
		return rf_error_set(&e->e, -EINVAL, "state on stdin: pid",
				    "missing: the hook runs at createRuntime or prestart");
	err = load_config(h, &e->e);
	if (!err && !h->st.policy[0])
		err = rf_error_set(&e->e, -EINVAL, "annotations", "no " RF_OCI_ANNOTATION
				   " annotation: install the hook with a \"when\" on it");
	return err ? err : policy_file_trusted(h->st.policy, &e->e);
}

static int step_policy(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;

	return prepare__load_policy(h->st.policy, &h->policy, &e->e);
}

static void undo_policy(void *ctx)
{
	struct oci_hook *h = ctx;

	policy__free(TAKE_PTR(h->policy));
}

/* The policy's syscalls allowlist, when config.json's linux.seccomp holds
 * it (the runtime installs that profile in the container, `ringfence
 * oci-seccomp` writes one): false with why in detail otherwise. */
static bool runtime_holds_syscalls(struct oci_hook *h, char *detail, size_t len)
{
	struct rf_error e = { 0 };
	char why[256];
	json_t *want = NULL;
	bool ok;

	if (!h->runtime_seccomp) {
		snprintf(detail, len, "; config.json has no linux.seccomp (ringfence "
			 "oci-seccomp --policy FILE writes one)");
		return false;
	}
	if (oci_seccomp__profile(h->policy, &want, &e)) {
		snprintf(detail, len, "; %.60s: %.120s", e.where, e.why);
		return false;
	}
	ok = oci_seccomp__holds(h->runtime_seccomp, want, why, sizeof(why));
	json_decref(want);
	if (!ok)
		snprintf(detail, len, "; config.json's linux.seccomp does not hold the policy's "
			 "syscalls: %.120s", why);
	return ok;
}

/* Landlock and seccomp are applied by a process to itself: the planner
 * sees them as unavailable, so a class only they could hold is refused
 * with that reason, and BPF programs hold the rest. The one exception: a
 * syscalls allowlist the runtime's own seccomp profile holds is left out
 * of the plan (the oci object says who enforces it). */
static int step_plan(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	struct rf_plan_opts opts = { 0 };
	struct rf_syscalls *sc = &h->policy->syscalls;
	char detail[200] = "";
	bool listed = sc->present;

	(void)e;
	probe__run(&h->caps, prepare__probe_flags(h->policy, &opts));
	h->caps.landlock.ok = h->caps.seccomp.ok = false;
	h->caps.landlock_abi = 0;
	h->caps.landlock_audit_log = false;
	if (listed && sc->on_violation == RF_VIOLATION_DENY && h->policy->mode != RF_MODE_AUDIT)
		h->syscalls_by_runtime = runtime_holds_syscalls(h, detail, sizeof(detail));
	snprintf(h->caps.landlock.detail, sizeof(h->caps.landlock.detail), "%s", NOT_IN_PROCESS);
	if (h->syscalls_by_runtime)
		snprintf(h->caps.seccomp.detail, sizeof(h->caps.seccomp.detail), "the policy's "
			 "syscalls allowlist: held by the runtime's seccomp profile (config.json "
			 "linux.seccomp), which the runtime installs in the container");
	else if (detail[0])
		snprintf(h->caps.seccomp.detail, sizeof(h->caps.seccomp.detail), "%s%.170s",
			 NOT_IN_PROCESS, detail);
	else
		snprintf(h->caps.seccomp.detail, sizeof(h->caps.seccomp.detail), "%s (a syscall "
			 "allowlist belongs in the runtime's own seccomp profile)", NOT_IN_PROCESS);
	sc->present = listed && !h->syscalls_by_runtime;
	plan__compile(h->policy, &h->caps, &opts, &h->plan);
	sc->present = listed;
	return 0;
}

/* The plan as `run` traces it (sandbox.plan's "plan"), one JSON line on
 * stdout (crun keeps it where the run.oci.hooks.stdout annotation says),
 * with what the hook could not apply and why. */
static void print_plan(const struct oci_hook *h)
{
	json_t *p = report__plan(h->policy, &h->plan, &h->caps);
	char *text;

	if (!p)
		return;
	json_object_set_new(p, "oci", json_pack("{s:s, s:s, s:s, s:b, s:b}",
		"container", h->st.id, "landlock", h->caps.landlock.detail,
		"seccomp", h->caps.seccomp.detail, "runtime_seccomp_profile",
		h->st.runtime_seccomp, "syscalls_by_runtime_seccomp", h->syscalls_by_runtime));
	text = json_dumps(p, JSON_COMPACT);
	if (text)
		printf("%s\n", text);
	fflush(stdout);
	free(text);
	json_decref(p);
}

static int step_admit(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	const char *cap;

	print_plan(h);

	if (!h->caps.cgroup_v2.ok)
		return rf_error_set(&e->e, h->caps.cgroup_v2.err ? h->caps.cgroup_v2.err : -ENOENT,
				    "refused", "no cgroup2: %s", h->caps.cgroup_v2.detail);
	if (!h->plan.ok) {
		prepare__print_refusal(&h->plan);
		return rf_error_set(&e->e, -EPERM, "refused", "container %s not started",
				    h->st.id);
	}
	cap = oci__dangerous_cap(h->st.caps_bounding);
	if (cap && h->plan.c[RF_CLASS_PROCESS].be != RF_BE_BPF_LSM)
		return rf_error_set(&e->e, -EPERM, "refused", "container %s holds %s and no "
				    "BPF-LSM program guards the process boundary on this kernel: "
				    "it could undo the policy", h->st.id, cap);
	return 0;
}

static void undo_netrules(void *ctx)
{
	struct oci_hook *h = ctx;

	free(TAKE_PTR(h->rules));
	free(TAKE_PTR(h->resolved));
	free(TAKE_PTR(h->entries));
	h->n_rules = h->n_resolved = h->n_entries = 0;
}

static int step_netrules(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	int err = 0;

	if (h->policy->net_connect == RF_CONFINE_ALLOWLIST)
		err = netrules__resolve(h->policy, &h->rules, &h->n_rules, &h->resolved,
					&h->n_resolved, &e->e);
	if (!err && h->policy->net_connect == RF_CONFINE_ALLOWLIST)
		err = netrules__build(h->rules, h->n_rules, &h->entries, &h->n_entries, &e->e);
	if (!err)
		err = sbmaps__capacity(h->plan.install.lsm_flags, h->entries, h->n_entries,
				       h->policy, &e->e);
	if (err) {
		undo_netrules(h);
		return rf_error_wrap(&e->e, "refused");
	}
	return 0;
}

static void undo_enforcer(void *ctx)
{
	struct oci_hook *h = ctx;

	enforcer__close(TAKE_PTR(h->enf));
	if (h->parent_fd >= 0)
		close(TAKE_FD(h->parent_fd));
}

static int step_enforcer(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	int err;

	h->parent_fd = cgroup__open_parent(h->caps.cgroup_mount);
	if (h->parent_fd < 0)
		return rf_error_set(&e->e, h->parent_fd, "refused", "cgroup %s/%s: %s",
				    h->caps.cgroup_mount, RF_CGROUP_PARENT, strerror(-h->parent_fd));
	/* the unix byte programs stay attached while the keeper (a fork of
	 * this process: the group's lock fd with it) holds the sandbox */
	err = enforcer__open(h->parent_fd, h->caps.unix_sock_addr.ok,
			     h->plan.install.lsm_flags != 0, h->caps.observe.ok,
			     flows__unix_bytes_wanted(h->policy, &h->plan, &h->caps) ?
			     RF_OBS_WANT(RF_OBS_UNIX_BYTES) : 0,
			     &h->enf, &e->e);
	if (err) {
		undo_enforcer(h);
		return rf_error_wrap(&e->e, "refused");
	}
	gc__run(h->enf, h->caps.cgroup_mount, RF_GC_NOWAIT | RF_GC_SAMPLE, NULL, NULL);
	return 0;
}

/* The container's cgroup v2 path, from /proc/PID/cgroup's "0::" line. */
static int pid_cgroup(int pid, char *ret, size_t len)
{
	char path[64], buf[8192], *l;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	n = fileio__read_small(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "0::", 3))
			continue;
		l += 3;
		snprintf(ret, len, "%.*s", (int)strcspn(l, "\n"), l);
		return 0;
	}
	return -ENOENT;
}

/* A cgroup of its own (the runtime's): used as it is, the programs
 * attached to it. None (a runtime without cgroups, or one that writes
 * only cgroup v1, as crun does on a hybrid host): one is made under
 * MOUNT/ringfence as run makes a sandbox's and the container's first
 * process moved in, before anything in it runs the user's code. */
static int adopt_cgroup(struct oci_hook *h, const char *rel, struct rf_error *e)
{
	char path[PATH_MAX];
	/* below MOUNT/ringfence/containers: the pinned set's own attachment
	 * to MOUNT/ringfence already covers it (attached again, each program
	 * would run twice) */
	static const char under[] = "/" RF_CGROUP_PARENT "/" RF_CGROUP_CONTAINERS "/";
	bool below = !strncmp(rel, under, sizeof(under) - 1);
	int err;

	/* The BPF-LSM programs pass every task outside MOUNT/ringfence at
	 * once (their fast path, bpf_current_task_under_cgroup): elsewhere
	 * their rules, the process boundary's too, would silently not hold. */
	if (!below && h->plan.install.lsm_flags)
		return rf_error_set(e, -EPERM, "refused", "the container's cgroup %s%s is not below "
				    "%s%s, and the BPF-LSM programs judge only tasks below %s/%s: "
				    "start it there (podman --cgroup-parent=%.*s)",
				    h->caps.cgroup_mount, rel, h->caps.cgroup_mount, under,
				    h->caps.cgroup_mount, RF_CGROUP_PARENT, (int)sizeof(under) - 2, under);
	snprintf(path, sizeof(path), "%s%s", h->caps.cgroup_mount, rel);
	h->cg.dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->cg.dir_fd < 0)
		return rf_error_set(e, -errno, "refused", "cgroup %s: %s", path, strerror(errno));
	snprintf(h->cg.path, sizeof(h->cg.path), "%s", path);
	err = cgroup__id_of(path, &h->cg.id);
	if (!err && !below)
		err = enforcer__attach_cgroup(h->enf, h->cg.dir_fd, e);
	else
		rf_error_set(e, err, "refused", "cgroup %s: %s", path, strerror(-err));
	return err ? rf_error_wrap(e, "refused") : 0;
}

static int place_cgroup(struct oci_hook *h, struct rf_error *e)
{
	char procs[PATH_MAX + 16], pid[16];
	int err, fd;

	h->start_lock = gc__start_lock();
	if (h->start_lock < 0)
		return rf_error_set(e, h->start_lock, "refused", "locking %s/start.lock: %s",
				    RF_RUN_DIR, strerror(-h->start_lock));
	err = cgroup__create(h->caps.cgroup_mount, h->name, &h->cg);
	if (err) {
		h->cg = (struct rf_cgroup){ .dir_fd = -1 };
		return rf_error_set(e, err, "refused", "creating cgroup %s/%s/%s: %s",
				    h->caps.cgroup_mount, RF_CGROUP_PARENT, h->name, strerror(-err));
	}
	h->placed = true;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", h->cg.path);
	snprintf(pid, sizeof(pid), "%d", h->st.pid);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	err = fd < 0 ? -errno : fileio__write_all(fd, pid, strlen(pid));
	if (fd >= 0)
		close(fd);
	return err ? rf_error_set(e, err, "refused", "moving process %d into %s: %s",
				  h->st.pid, h->cg.path, strerror(-err)) : 0;
}

static int step_cgroup(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	char rel[PATH_MAX], self[PATH_MAX], mine[PATH_MAX];
	int err = pid_cgroup(h->st.pid, rel, sizeof(rel));

	if (err)
		return rf_error_set(&e->e, err, "refused", "the cgroup of process %d: %s",
				    h->st.pid, strerror(-err));
	snprintf(mine, sizeof(mine), "%s%s", h->caps.cgroup_mount, rel);
	/* its own: set by the runtime (config.json) and not the hook's */
	if (h->st.has_cgroups_path && strcmp(rel, "/") &&
	    (cgroup__self_path(h->caps.cgroup_mount, self, sizeof(self)) || strcmp(self, mine)))
		err = adopt_cgroup(h, rel, &e->e);
	else
		err = place_cgroup(h, &e->e);
	h->cgid = h->cg.id;
	return err;
}

static void drop_start_lock(struct oci_hook *h)
{
	if (h->start_lock >= 0)
		close(TAKE_FD(h->start_lock));
}

/* Only on failure: the container does not start, so what the runtime
 * made stays the runtime's and what we made goes. */
static void undo_cgroup(void *ctx)
{
	struct oci_hook *h = ctx;

	drop_start_lock(h);
	if (h->placed)
		cgroup__destroy(&h->cg);
	else if (h->cg.dir_fd >= 0)
		close(TAKE_FD(h->cg.dir_fd));
}

static int step_registry(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	struct rf_registry_entry *reg = &h->reg;
	struct timespec now;
	int err;

	snprintf(reg->sandbox, sizeof(reg->sandbox), "%s", h->name);
	snprintf(reg->policy_id, sizeof(reg->policy_id), "%s", h->policy->id);
	snprintf(reg->digest, sizeof(reg->digest), "%s", h->policy->digest);
	snprintf(reg->mode, sizeof(reg->mode), "%s",
		 h->policy->mode == RF_MODE_AUDIT ? "audit" : "enforce");
	snprintf(reg->cgroup_path, sizeof(reg->cgroup_path), "%s", h->cg.path);
	snprintf(reg->cgroup_placement, sizeof(reg->cgroup_placement), "%s",
		 h->placed ? "root" : "oci-runtime");
	reg->cgroup_id = h->cgid;
	/* the hook now, its keeper once started; the container outlives both */
	reg->supervisor_pid = getpid();
	reg->supervisor_start = registry__proc_start(getpid());
	reg->child_pid = h->st.pid;
	reg->keep_running = true;
	registry_fill__policy(reg, h->policy);
	memcpy(reg->labels.v[0], "container.id=", 13);
	snprintf(reg->labels.v[0] + 13, RF_LABEL_LEN - 13, "%.12s", h->st.id);
	reg->labels.n = 1;
	clock_gettime(CLOCK_REALTIME, &now);
	trace__format_ts(&now, reg->started, sizeof(reg->started));
	err = registry__add(reg);
	drop_start_lock(h);
	return err ? rf_error_set(&e->e, err, "refused", "registering the sandbox in %s: %s",
				  RF_REGISTRY_DIR, strerror(-err)) : 0;
}

static void undo_registry(void *ctx)
{
	struct oci_hook *h = ctx;

	registry__remove(h->name);
}

static int step_maps(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	uint32_t flags = plan__sandbox_flags(&h->plan, h->policy, false);
	const char *map = NULL;
	int err;

	/* The runtime starts the container, not ringfence: no child of ours
	 * marks its mounts. Refused rather than silently unwatched. */
	if (h->policy->monitor.has_files)
		return rf_error_set(&e->e, -EOPNOTSUPP, "refused", "monitor.files is not "
				    "watched for OCI containers (the runtime, not ringfence, "
				    "starts the command)");
	err = sbmaps__install(h->enf, h->cgid, flags, h->entries, h->n_entries, h->policy,
			      &map, NULL);
	/* The connection ledger counts the container's flows as a run's
	 * (ringfence-monitor reads them each interval); undo_maps' purge
	 * takes its entries with the rest. */
	if (!err && h->enf->map_fd[RF_PIN_LEDGER] >= 0 &&
	    bpf_map_update_elem(h->enf->map_fd[RF_PIN_LEDGER], &h->cgid,
				&(struct rf_ledger){ .flags = flows__ledger_unix_flags(h->enf) },
				BPF_ANY))
		err = -errno;
	if (err == -ENOSPC && map)
		return rf_error_set(&e->e, err, "refused", "writing the policy maps: every %s "
				    "slot is taken: %s", map, strerror(-err));
	return err ? rf_error_set(&e->e, err, "refused", "writing the policy maps: %s",
				  strerror(-err)) : 0;
}

static void undo_maps(void *ctx)
{
	struct oci_hook *h = ctx;

	sbmaps__purge(h->enf, h->cgid);  /* the ledger's entries too */
}

static bool wants_gate(const struct rf_policy *p)
{
	size_t i;

	if (p->net_connect != RF_CONFINE_ALLOWLIST || p->dns.mode != RF_DNS_GATE)
		return false;
	for (i = 0; i < p->n_connect; i++)
		if (p->connect[i].kind == RF_HOST_NAME)
			return true;
	return false;
}

/* The gate's sockets live in the container's network namespace (its
 * 127.0.0.1 is where the steering sends its DNS), its upstream too. */
static int open_gate_in(struct oci_hook *h, const struct rf_dnsgate_opts *o, struct rf_error *e)
{
	char path[64];
	_cleanup_close_ int own = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int theirs = -1;
	struct stat a, b;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", h->st.pid);
	theirs = open(path, O_RDONLY | O_CLOEXEC);
	if (own < 0 || theirs < 0 || fstat(own, &a) || fstat(theirs, &b))
		return rf_error_set(e, -errno, "refused", "%s: %s", path, strerror(errno));
	if (a.st_ino != b.st_ino && setns(theirs, CLONE_NEWNET))
		return rf_error_set(e, -errno, "refused", "entering %s: %s", path, strerror(errno));
	err = dnsgate__open(o, &h->gate, e);
	if (a.st_ino != b.st_ino && setns(own, CLONE_NEWNET) && !err) {
		err = rf_error_set(e, -errno, "refused", "leaving %s: %s", path, strerror(errno));
		dnsgate__close(TAKE_PTR(h->gate), NULL);
	}
	return err;
}

static int step_dns_gate(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	struct rf_dnsgate_opts o = {
		.policy = h->policy, .rules = h->rules, .n_rules = h->n_rules,
		.enf = h->enf, .cgid = h->cgid, .audit = h->policy->mode == RF_MODE_AUDIT,
	};
	struct rf_dns_gate where;
	int err;

	if (!wants_gate(h->policy))
		return 0;
	err = open_gate_in(h, &o, &e->e);
	if (err)
		return err;
	dnsgate__address(h->gate, &where);
	err = sbmaps__set_dns_gate(h->enf, h->cgid, &where);
	return err ? rf_error_set(&e->e, err, "refused", "steering DNS to the gate: %s",
				  strerror(-err)) : 0;
}

static void undo_dns_gate(void *ctx)
{
	struct oci_hook *h = ctx;

	if (!h->gate)
		return;
	sbmaps__set_dns_gate(h->enf, h->cgid, NULL);
	dnsgate__close(TAKE_PTR(h->gate), NULL);
}

static const struct rf_step state_step[] = {
	{ "state", step_state, NULL, RF_EXIT_USAGE, false },
};

static const struct rf_step hook_steps[] = {
	{ "policy", step_policy, undo_policy, RF_EXIT_USAGE, false },
	{ "plan", step_plan, NULL, RF_EXIT_USAGE, false },
	{ "admit", step_admit, NULL, RF_EXIT_REFUSED, false },
	{ "network-rules", step_netrules, undo_netrules, RF_EXIT_REFUSED, false },
	{ "enforcer", step_enforcer, undo_enforcer, RF_EXIT_REFUSED, false },
	{ "cgroup", step_cgroup, undo_cgroup, RF_EXIT_REFUSED, true },
	{ "registry", step_registry, undo_registry, RF_EXIT_REFUSED, true },
	{ "maps", step_maps, undo_maps, RF_EXIT_REFUSED, true },
	{ "dns-gate", step_dns_gate, undo_dns_gate, RF_EXIT_REFUSED, true },
	{ "keeper", oci_keep__start, NULL, RF_EXIT_REFUSED, false },
};

int cmd_oci_hook(void)
{
	struct oci_hook h = {
		.cg = { .dir_fd = -1 }, .parent_fd = -1, .start_lock = -1,
	};
	struct rf_steps st = { .steps = state_step, .n = 1 };
	struct rf_steps s = { .steps = hook_steps,
			      .n = sizeof(hook_steps) / sizeof(hook_steps[0]) };
	int rc;

	/* Whatever the runtime left open stays out of the keeper. */
	syscall(SYS_close_range, 3u, ~0u, 0u);
	rc = steps__run(&st, &h, NULL);
	if (rc) {
		json_decref(h.runtime_seccomp);
		return rc;
	}
	if (strcmp(h.st.status, "creating") && strcmp(h.st.status, "created"))
		return oci_keep__stop(h.name);
	rc = steps__run(&s, &h, NULL);
	json_decref(TAKE_PTR(h.runtime_seccomp));
	if (rc) {
		steps__undo(&s, &h);
		return rc;
	}
	/* The keeper owns the sandbox now: nothing is undone here. */
	rf_debug("container %s: sandbox %s, cgroup %s (id %llu)", h.st.id, h.name, h.cg.path,
		 (unsigned long long)h.cgid);
	return 0;
}
