// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ringfence run`: validate -> plan (fail closed) -> resolve -> cgroup ->
 * pinned programs -> map entries -> launch inside the cgroup -> wait ->
 * kill leftovers, remove entries and cgroup -> report.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "enforcer.h"
#include "env.h"
#include "launch.h"
#include "log.h"
#include "mounts.h"
#include "netrules.h"
#include "plan.h"
#include "policy.h"
#include "probe.h"
#include "registry.h"
#include "run.h"
#include "sandbox_landlock.h"
#include "sandbox_seccomp.h"
#include "sbmaps.h"
#include "trace.h"

extern char **environ;

struct sandbox {
	char name[128];
	struct rf_policy *policy;
	struct rf_plan plan;
	struct rf_caps caps;
	struct rf_trace *trace;
	struct rf_enforcer *enf;
	struct rf_cgroup cg;
	uint64_t cgid;            /* kept: cgroup__destroy clears cg */
	bool cg_created;
	bool maps_installed;
	bool registered;
	bool keep_policy;             /* processes survived: keep enforcing */
	struct rf_landlock ll;        /* ruleset the child applies */
	struct rf_seccomp sc;         /* filters the child installs */
	struct rf_net_entry *entries;   /* what is in the maps for it */
	size_t n_entries;
	uint64_t next_seq;        /* next kernel sample to put in the trace */
	uint64_t traced;          /* samples written to the trace */
	uint64_t missing;         /* samples the kernel could not keep */
};

static int load_policy(const char *path, struct rf_policy **ret)
{
	struct rf_error perr = { 0 };
	int err;

	err = policy__load_file(path, ret, &perr);
	if (err) {
		rf_err("policy %s: %s: %s", path, perr.where, perr.why);
		return RF_EXIT_USAGE;
	}
	return 0;
}

/* What the process class would look like in the plan JSON, plus header. */
static json_t *plan_document(const struct rf_policy *p, const struct rf_plan *plan,
			     const struct rf_caps *caps)
{
	json_t *o = plan__to_json(plan);

	if (!o)
		return NULL;
	json_object_set_new(o, "policy", json_pack("{s:s, s:s, s:s}", "id", p->id,
						   "sha256", p->digest,
						   "mode", p->mode == RF_MODE_AUDIT ? "audit" : "enforce"));
	json_object_set_new(o, "kernel", json_string(caps->kernel_release));
	return o;
}

static void print_refusal(const struct rf_plan *plan)
{
	int i;

	rf_err("refused: this policy cannot be enforced on this kernel (%d reason%s):",
	       plan->n_reasons, plan->n_reasons == 1 ? "" : "s");
	for (i = 0; i < plan->n_reasons; i++)
		fprintf(stderr, "ringfence:   - %s\n", plan->reasons[i]);
}

/* bpf-lsm is probed only when its answer can matter to this run. */
static unsigned int probe_flags(const struct rf_policy *p, const struct rf_plan_opts *o)
{
	return p->files != RF_CONFINE_UNRESTRICTED || p->exec != RF_CONFINE_UNRESTRICTED ||
	       (o && ((o->require | o->prefer) & (1u << RF_BE_BPF_LSM))) ? RF_PROBE_LSM : 0;
}

/* Which class a Landlock refusal belongs to, from the JSON path it names. */
static enum rf_plan_class landlock_class(const char *why)
{
	return !strncmp(why, "$.exec", 6) ? RF_PC_EXEC : RF_PC_FILE;
}

/*
 * The backends that are built in user space before the child exists:
 * the Landlock ruleset (needs every path to exist: an entry it cannot
 * express refuses the plan) and the seccomp filters (an unknown syscall
 * name is a policy error). Returns 0, or RF_EXIT_USAGE with the error
 * printed. A Landlock refusal lands in the plan.
 */
static int prepare_backends(const struct rf_policy *p, struct rf_plan *plan,
			    struct rf_landlock *ll, struct rf_seccomp *sc)
{
	const struct rf_plan_install *in = &plan->install;
	char why[700] = "";
	int err;

	ll->ruleset_fd = -1;
	if (!plan->ok)
		return 0;
	if (in->seccomp_boundary || in->seccomp_allowlist) {
		err = sandbox_seccomp__build(p, in->seccomp_boundary, sc, why, sizeof(why));
		if (err == -EINVAL) {
			rf_err("policy: %s", why);
			return RF_EXIT_USAGE;
		}
		if (err) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s",
				 why[0] ? ": " : "building the seccomp filters: ", strerror(-err));
			plan__refuse(plan, in->seccomp_allowlist ? RF_PC_SYSCALLS : RF_PC_PROCESS, why);
			return 0;
		}
	}
	if (in->landlock) {
		struct rf_landlock_opts lo = {
			.abi = in->landlock_abi,
			.fs = in->landlock_fs,
			.net_connect = in->landlock_net,
			.scope_abstract_unix = in->landlock_scope_unix,
			.scope_signal = in->landlock_scope_signal,
			.approximate = p->approximate,
		};

		err = sandbox_landlock__build(p, &lo, ll, why, sizeof(why));
		if (err == -EINVAL) {
			plan__refuse(plan, landlock_class(why), why);
		} else if (err) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s",
				 why[0] ? ": " : "building the Landlock ruleset: ", strerror(-err));
			plan__refuse(plan, lo.fs ? RF_PC_FILE : RF_PC_PROCESS, why);
		}
	}
	return 0;
}

/* Entries the policy let Landlock approximate, for the plan document. */
static json_t *approx_json(const struct rf_landlock *ll)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < ll->n_approx; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "entry", ll->approx[i].where,
						   "approximation", ll->approx[i].what));
	return a;
}

int cmd_check(const char *policy_path, const struct rf_plan_opts *opts)
{
	struct rf_policy *policy = NULL;
	struct rf_landlock ll = { .ruleset_fd = -1 };
	struct rf_seccomp sc;
	struct rf_caps caps;
	struct rf_plan plan;
	json_t *doc;
	int rc;

	memset(&sc, 0, sizeof(sc));
	rc = load_policy(policy_path, &policy);
	if (rc)
		return rc;
	probe__run(&caps, probe_flags(policy, opts));
	plan__compile(policy, &caps, opts, &plan);
	rc = prepare_backends(policy, &plan, &ll, &sc);
	if (rc)
		goto cleanup;
	doc = plan_document(policy, &plan, &caps);
	if (doc) {
		if (ll.n_approx)
			json_object_set_new(doc, "approximations", approx_json(&ll));
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
	}
	rc = plan.ok ? 0 : RF_EXIT_REFUSED;
	if (!plan.ok)
		print_refusal(&plan);
cleanup:
	sandbox_landlock__free(&ll);
	sandbox_seccomp__free(&sc);
	policy__free(policy);
	return rc;
}

static json_t *probe_json(const struct rf_backend_probe *p)
{
	return json_pack("{s:b, s:s, s:s?, s:f}", "ok", p->ok, "detail", p->detail,
			 "error", p->ok ? NULL : strerror(-p->err), "probe_ms", p->ms);
}

int cmd_probe(void)
{
	struct rf_caps caps;
	json_t *o, *b;

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
	o = json_pack("{s:s, s:s, s:i, s:o, s:{s:[s,s], s:[s,s], s:[s,s,s], s:[s], s:[s], s:[s]}}",
		      "kernel", caps.kernel_release,
		      "cgroup2_mount", caps.cgroup_mount,
		      "unprivileged_bpf_disabled", caps.unprivileged_bpf_disabled,
		      "backends", b,
		      "used_by_this_build",
		      "network", "cgroup-sock-addr", "landlock (TCP ports, layer)",
		      "unix", "cgroup-sock-addr", "landlock (abstract scoping, layer)",
		      "process", "seccomp", "capabilities", "landlock (signal scoping)",
		      "file", "landlock",
		      "exec", "landlock",
		      "syscalls", "seccomp");
	if (!o)
		return 1;
	json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(o);
	return 0;
}

/* A socket on fd 0-2 was created outside the sandbox: the cgroup hooks
 * never see it, so it could reach any destination. Refuse it. */
static int check_stdio(const struct rf_policy *p, char *why, size_t len)
{
	int fd;

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
			snprintf(why, len, "fd %d is an inet socket made outside the sandbox: its "
				 "traffic would bypass the network policy", fd);
			return -EPERM;
		}
		if (dom == AF_UNIX && type == SOCK_DGRAM && p->net_unix != RF_CONFINE_UNRESTRICTED) {
			snprintf(why, len, "fd %d is a unix datagram socket made outside the "
				 "sandbox: it could send to any unix address", fd);
			return -EPERM;
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

static json_t *decision_json(const struct rf_policy *p, const struct rf_resolved *res,
			     size_t n_res)
{
	json_t *o = json_object(), *entries = json_array(), *unx = json_array();
	size_t i, j;

	for (i = 0; i < p->n_connect; i++) {
		const struct rf_endpoint *ep = &p->connect[i];
		json_t *e = json_object(), *addrs = json_array(), *excl = json_array();
		char a[INET6_ADDRSTRLEN + 8];

		json_object_set_new(e, "entry", json_string(ep->text));
		json_object_set_new(e, "kind", json_string(ep->kind == RF_HOST_NAME ? "name" :
							    ep->cidr ? "cidr" : "address"));
		if (ep->kind == RF_HOST_ADDR) {
			inet_ntop(ep->family, ep->addr, a, INET6_ADDRSTRLEN);
			if (ep->cidr)
				snprintf(a + strlen(a), 8, "/%u", ep->prefix_len);
			json_array_append_new(addrs, json_string(a));
		}
		for (j = 0; j < n_res; j++) {
			if (res[j].source != i)
				continue;
			inet_ntop(res[j].family, res[j].addr, a, INET6_ADDRSTRLEN);
			json_array_append_new(res[j].excluded ? excl : addrs, json_string(a));
		}
		json_object_set_new(e, "enforced_addresses", addrs);
		if (json_array_size(excl)) {
			json_object_set_new(e, "excluded_addresses", excl);
			json_object_set_new(e, "excluded_reason",
					    json_string("link-local or cloud-metadata address reached "
							"through a DNS name: only a literal entry allows it"));
		} else {
			json_decref(excl);
		}
		json_object_set_new(e, "port_lo", json_integer(ep->port_lo));
		json_object_set_new(e, "port_hi", json_integer(ep->port_hi));
		json_array_append_new(entries, e);
	}
	for (i = 0; i < p->n_unix; i++)
		json_array_append_new(unx, json_string(p->unix_rules[i].text));
	json_object_set_new(o, "connect", json_string(plan__request_name(
		p->net_connect == RF_CONFINE_ALLOWLIST ? RF_REQ_ALLOWLIST :
		p->net_connect == RF_CONFINE_UNRESTRICTED ? RF_REQ_UNRESTRICTED : RF_REQ_DENY_ALL)));
	json_object_set_new(o, "destinations", entries);
	json_object_set_new(o, "unix_mode", json_string(plan__request_name(
		p->net_unix == RF_CONFINE_ALLOWLIST ? RF_REQ_ALLOWLIST :
		p->net_unix == RF_CONFINE_UNRESTRICTED ? RF_REQ_UNRESTRICTED : RF_REQ_DENY_ALL)));
	json_object_set_new(o, "unix", unx);
	return o;
}

static json_t *configure_json(const struct sandbox *sb, bool installed)
{
	const struct rf_policy *p = sb->policy;
	bool audit = p->mode == RF_MODE_AUDIT;
	json_t *classes = json_object(), *o;
	int i;

	for (i = 0; i < RF_PC_MAX; i++) {
		const struct rf_class_plan *cp = &sb->plan.c[i];
		bool kernel_prog = cp->be == RF_BE_CGROUP_SOCK_ADDR || cp->be == RF_BE_BPF_LSM;
		bool child_side = cp->be == RF_BE_LANDLOCK || cp->be == RF_BE_SECCOMP;
		json_t *c;

		if (cp->request == RF_REQ_ABSENT)
			continue;
		c = json_pack("{s:s, s:o, s:b}", "requested", plan__request_name(cp->request),
			      "backend", cp->backend[0] ? json_string(cp->backend) : json_null(),
			      "enforced", cp->enforced && !(audit && kernel_prog) &&
					  (!child_side || installed));
		if (cp->backend[0] && kernel_prog) {
			/* The evidence: this run's probe of the live kernel. */
			json_object_set_new(c, "attach", json_string(
				cp->be == RF_BE_BPF_LSM ? sb->caps.bpf_lsm_enforcer.detail :
				i == RF_PC_NETWORK ? sb->caps.sock_addr.detail :
						     sb->caps.unix_sock_addr.detail));
			if (audit)
				json_object_set_new(c, "audited", json_true());
		}
		/* Landlock and seccomp are applied by the child itself, just
		 * before exec: installed is true only once exec happened. */
		if (child_side || cp->layers[0])
			json_object_set_new(c, "installed", json_boolean(installed));
		if (cp->layers[0])
			json_object_set_new(c, "layers", json_string(cp->layers));
		if (cp->note[0])
			json_object_set_new(c, "note", json_string(cp->note));
		json_object_set_new(classes, plan__class_name(i), c);
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:I}, s:{s:s, s:b, s:b}, s:o}",
		      "kernel", sb->caps.kernel_release,
		      "policy_id", p->id,
		      "policy_sha256", p->digest,
		      "mode", audit ? "audit" : "enforce",
		      "cgroup", "path", sb->cg.path, "id", (json_int_t)sb->cgid,
		      "programs", "pinned", RF_PIN_DIR, "loaded_now", sb->enf->loaded_now,
		      "unix_hooks", (sb->enf->features & RF_FEAT_UNIX) != 0,
		      "classes", classes);
	if (o && sb->ll.ruleset_fd >= 0)
		json_object_set_new(o, "landlock", json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:o}",
			"abi", sb->ll.abi, "handled_fs", (json_int_t)sb->ll.handled_fs,
			"handled_net", (json_int_t)sb->ll.handled_net,
			"scoped", (json_int_t)sb->ll.scoped,
			"fs_rules", (json_int_t)sb->ll.n_fs_rules,
			"net_rules", (json_int_t)sb->ll.n_net_rules,
			"approximations", approx_json(&sb->ll)));
	if (o && (sb->sc.boundary.len || sb->sc.allowlist.len))
		json_object_set_new(o, "seccomp", json_pack("{s:b, s:b, s:s}",
			"boundary", sb->sc.boundary.len > 0, "allowlist", sb->sc.allowlist.len > 0,
			"summary", sb->sc.summary));
	if (o && sb->plan.install.keep_caps)
		json_object_set_new(o, "keep_caps_note", json_string(
			"--keep-caps test mode: the command kept every capability; only the "
			"bpf-lsm programs confine its process boundary"));
	if (o && audit)
		json_object_set_new(o, "audit_note",
				    json_string("audit mode: every decision is recorded, nothing is denied"));
	return o;
}

/* Put the kernel's kept samples into the trace. final: the sandbox is
 * gone, so a missing sample will never arrive (it was not kept). */
static void drain_samples(struct sandbox *sb, bool final)
{
	struct rf_sandbox st;
	struct rf_event ev;
	uint64_t end;

	if (sbmaps__read_sandbox(sb->enf, sb->cgid, &st))
		return;
	end = st.deny_seq < RF_SAMPLE_LIMIT_DEFAULT ? st.deny_seq : RF_SAMPLE_LIMIT_DEFAULT;
	while (sb->next_seq < end) {
		int err = sbmaps__read_sample(sb->enf, sb->cgid, sb->next_seq, &ev);

		if (err == -ENOENT && !final)
			return;  /* counted, not yet stored: next tick */
		if (err) {
			sb->missing++;
		} else {
			trace__emit(sb->trace, "kernel.deny", trace__event_json(&ev));
			sb->traced++;
		}
		sb->next_seq++;
	}
}

/* The cgroup is gone or holds no process anywhere below it. Until then
 * its map entries must stay: they are what confines the survivors. */
static bool cgroup_empty(const char *path)
{
	char file[4200], buf[256];
	ssize_t n;
	int fd;

	snprintf(file, sizeof(file), "%s/cgroup.events", path);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return strstr(buf, "populated 0") != NULL;
}

static void gc_stale(const struct rf_enforcer *enf)
{
	struct rf_registry_entry *v = NULL;
	size_t n = 0, i;

	if (registry__list(&v, &n))
		return;
	for (i = 0; i < n; i++) {
		if (registry__supervisor_alive(&v[i]))
			continue;
		/* Its supervisor died without cleaning up: kill what is left
		 * before its map entries go, never the other way round. */
		rf_debug("cleaning up stale sandbox %s", v[i].sandbox);
		cgroup__destroy_path(v[i].cgroup_path);
		if (!cgroup_empty(v[i].cgroup_path))
			continue;  /* survivors: its policy stays, try again later */
		sbmaps__purge(enf, v[i].cgroup_id);
		registry__remove(v[i].sandbox);
	}
	free(v);
}

static void sandbox_cleanup(struct sandbox *sb)
{
	if (sb->cg_created)
		cgroup__destroy(&sb->cg);
	if (sb->cg_created && !cgroup_empty(sb->cg.path)) {
		rf_err("sandbox %s: processes survived the kill; its policy stays in force "
		       "and `ringfence status` shows it as stale", sb->name);
		sb->keep_policy = true;
	}
	if (sb->keep_policy)
		return;
	if (sb->maps_installed)
		sbmaps__remove(sb->enf, sb->cgid, sb->entries, sb->n_entries, sb->policy);
	if (sb->registered)
		registry__remove(sb->name);
	enforcer__close(sb->enf);
	sandbox_landlock__free(&sb->ll);
	sandbox_seccomp__free(&sb->sc);
	trace__close(sb->trace);
	policy__free(sb->policy);
}

static void summary_line(const struct sandbox *sb)
{
	char line[1024] = "";
	size_t off = 0;
	int i;

	for (i = 0; i < RF_PC_MAX; i++) {
		const struct rf_class_plan *cp = &sb->plan.c[i];

		if (cp->request == RF_REQ_ABSENT || i == RF_PC_PROCESS)
			continue;
		off += snprintf(line + off, sizeof(line) - off, "%s%s %s", off ? "; " : "",
				plan__class_name(i),
				cp->request == RF_REQ_UNRESTRICTED ? "unrestricted (not confined)" :
				cp->enforced ? (sb->policy->mode == RF_MODE_AUDIT ? "audited by " :
						"enforced by ") : "NOT enforced");
		if (cp->enforced && cp->request != RF_REQ_UNRESTRICTED)
			off += snprintf(line + off, sizeof(line) - off, "%s", cp->backend);
		if (off >= sizeof(line))
			break;
	}
	rf_info("sandbox %s: %s", sb->name, line);
}

static int wait_loop(struct sandbox *sb, const struct launch_result *lr, siginfo_t *ret_info)
{
	struct epoll_event evs[4], e = { .events = EPOLLIN };
	struct itimerspec its = { .it_interval = { 0, 100000000 }, .it_value = { 0, 100000000 } };
	struct signalfd_siginfo si;
	int ep = -1, sfd = -1, tfd = -1, err = 0, i, n;
	sigset_t mask;
	bool done = false;

	memset(ret_info, 0, sizeof(*ret_info));
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || tfd < 0 || ep < 0) {
		err = -errno;
		goto cleanup;
	}
	timerfd_settime(tfd, 0, &its, NULL);
	e.data.fd = lr->pidfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, lr->pidfd, &e);
	e.data.fd = sfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &e);
	e.data.fd = tfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e);

	while (!done) {
		n = epoll_wait(ep, evs, 4, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == lr->pidfd) {
				done = true;
			} else if (fd == sfd) {
				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					continue;
				/* A terminal's signal already reached the child, which
				 * shares our process group; forward everything else. */
				if (si.ssi_code == SI_KERNEL && getpgid(lr->pid) == getpgrp())
					continue;
				syscall(SYS_pidfd_send_signal, lr->pidfd, si.ssi_signo, NULL, 0);
			} else if (fd == tfd) {
				uint64_t ticks;

				if (read(tfd, &ticks, sizeof(ticks)) > 0)
					drain_samples(sb, false);
			}
		}
	}
	memset(ret_info, 0, sizeof(*ret_info));
	if (waitid(P_PIDFD, lr->pidfd, ret_info, WEXITED))
		err = -errno;
cleanup:
	if (ep >= 0)
		close(ep);
	if (sfd >= 0)
		close(sfd);
	if (tfd >= 0)
		close(tfd);
	return err;
}

int cmd_run(const struct run_opts *o)
{
	struct sandbox sb = { .cg = { .dir_fd = -1 }, .ll = { .ruleset_fd = -1 } };
	struct rf_addr_rule *rules = NULL;
	struct rf_resolved *resolved = NULL;
	struct rf_net_entry *entries = NULL;
	size_t n_rules = 0, n_resolved = 0, n_entries = 0;
	struct launch_result lr = { .pid = 0, .pidfd = -1 };
	struct launch_opts lo = { 0 };
	struct rf_registry_entry reg = { 0 };
	struct timespec t0, t1, now;
	char why[1024] = "", mount[256];
	char **envp = NULL, **ro_mounts = NULL, **bpf_mounts = NULL;
	uint32_t flags = 0;
	uid_t uid;
	gid_t gid;
	siginfo_t info;
	sigset_t mask, oldmask;
	int rc = RF_EXIT_REFUSED, err, parent_fd = -1, i;
	bool blocked = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = load_policy(o->policy_path, &sb.policy);
	if (rc)
		return rc;
	rc = RF_EXIT_REFUSED;
	err = launch__resolve_user(o->user, &uid, &gid, why, sizeof(why));
	if (err) {
		rf_err("--user: %s", why);
		rc = RF_EXIT_USAGE;
		goto cleanup;
	}
	make_name(sb.policy->id, sb.name, sizeof(sb.name));
	err = trace__open(o->trace_path, sb.name, &sb.trace);
	if (err) {
		rf_err("--trace %s: %s", o->trace_path, strerror(-err));
		rc = RF_EXIT_USAGE;
		goto cleanup;
	}

	probe__run(&sb.caps, probe_flags(sb.policy, &o->plan_opts));
	plan__compile(sb.policy, &sb.caps, &o->plan_opts, &sb.plan);
	rc = prepare_backends(sb.policy, &sb.plan, &sb.ll, &sb.sc);
	if (rc)
		goto cleanup;
	rc = RF_EXIT_REFUSED;
	{
		json_t *ev = json_object(), *argv = json_array();

		for (i = 0; o->argv[i]; i++)
			json_array_append_new(argv, json_string(o->argv[i]));
		json_object_set_new(ev, "command", argv);
		json_object_set_new(ev, "user", json_pack("{s:i, s:i}", "uid", (int)uid,
							  "gid", (int)gid));
		json_object_set_new(ev, "plan", plan_document(sb.policy, &sb.plan, &sb.caps));
		if (sb.ll.n_approx)
			json_object_set_new(json_object_get(ev, "plan"), "approximations",
					    approx_json(&sb.ll));
		trace__emit(sb.trace, "sandbox.plan", ev);
	}
	if (!sb.plan.ok) {
		print_refusal(&sb.plan);
		goto cleanup;
	}
	if (check_stdio(sb.policy, why, sizeof(why))) {
		rf_err("refused: %s", why);
		goto cleanup;
	}
	err = env__build(sb.policy, environ, &envp);
	if (err) {
		rf_err("building the environment: %s", strerror(-err));
		goto cleanup;
	}

	/* Names are resolved here, outside the sandbox, once. */
	if (sb.policy->net_connect == RF_CONFINE_ALLOWLIST) {
		err = netrules__resolve(sb.policy, &rules, &n_rules, &resolved, &n_resolved,
					why, sizeof(why));
		if (err) {
			rf_err("refused: %s", why);
			goto cleanup;
		}
		err = netrules__build(rules, n_rules, &entries, &n_entries, why, sizeof(why));
		if (err) {
			rf_err("refused: network.connect: %s", err == -E2BIG ? why : strerror(-err));
			goto cleanup;
		}
	}
	trace__emit(sb.trace, "network.decision", decision_json(sb.policy, resolved, n_resolved));

	snprintf(mount, sizeof(mount), "%s", sb.caps.cgroup_mount);
	parent_fd = cgroup__open_parent(mount);
	if (parent_fd < 0) {
		rf_err("refused: cgroup %s/%s: %s", mount, RF_CGROUP_PARENT, strerror(-parent_fd));
		goto cleanup;
	}
	err = enforcer__open(parent_fd, sb.caps.unix_sock_addr.ok, &sb.enf, why, sizeof(why));
	if (err) {
		rf_err("refused: %s", why);
		goto cleanup;
	}
	if (sb.plan.c[RF_PC_UNIX].required && !(sb.enf->features & RF_FEAT_UNIX)) {
		rf_err("refused: unix: the pinned programs have no unix hooks attached");
		goto cleanup;
	}
	gc_stale(sb.enf);

	err = cgroup__create(mount, sb.name, &sb.cg);
	if (err) {
		rf_err("refused: creating cgroup %s/%s/%s: %s", mount, RF_CGROUP_PARENT, sb.name,
		       strerror(-err));
		goto cleanup;
	}
	sb.cg_created = true;
	sb.cgid = sb.cg.id;

	if (sb.policy->mode == RF_MODE_AUDIT)
		flags |= RF_SB_AUDIT;
	if (sb.policy->net_connect == RF_CONFINE_UNRESTRICTED)
		flags |= RF_SB_NET_UNRESTRICTED;
	if (sb.policy->net_unix == RF_CONFINE_UNRESTRICTED)
		flags |= RF_SB_UNIX_UNRESTRICTED;
	flags |= sb.plan.install.lsm_flags;
	err = sbmaps__install(sb.enf, sb.cgid, flags, entries, n_entries, sb.policy);
	if (err) {
		rf_err("refused: writing the policy maps: %s", strerror(-err));
		goto cleanup;
	}
	sb.maps_installed = true;
	sb.entries = entries;
	sb.n_entries = n_entries;

	snprintf(reg.sandbox, sizeof(reg.sandbox), "%s", sb.name);
	snprintf(reg.policy_id, sizeof(reg.policy_id), "%s", sb.policy->id);
	snprintf(reg.digest, sizeof(reg.digest), "%s", sb.policy->digest);
	snprintf(reg.mode, sizeof(reg.mode), "%s",
		 sb.policy->mode == RF_MODE_AUDIT ? "audit" : "enforce");
	snprintf(reg.cgroup_path, sizeof(reg.cgroup_path), "%s", sb.cg.path);
	reg.cgroup_id = sb.cgid;
	reg.supervisor_pid = getpid();
	reg.policy = sb.policy;
	reg.supervisor_start = registry__proc_start(getpid());
	clock_gettime(CLOCK_REALTIME, &now);
	trace__format_ts(&now, reg.started, sizeof(reg.started));
	err = registry__add(&reg);
	if (err) {
		rf_err("refused: registering the sandbox in %s: %s", RF_REGISTRY_DIR,
		       strerror(-err));
		goto cleanup;
	}
	sb.registered = true;
	summary_line(&sb);

	/* Block before the child exists so no signal is lost; the child
	 * resets its mask before exec. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	blocked = true;

	lo.cgroup_fd = sb.cg.dir_fd;
	lo.argv = o->argv;
	lo.envp = envp;
	lo.uid = uid;
	lo.gid = gid;
	/* cgroup2 read-only and bpffs gone in the child's mount namespace. */
	err = mounts__list("cgroup2", &ro_mounts);
	if (!err)
		err = mounts__list("bpf", &bpf_mounts);
	if (err) {
		rf_err("refused: reading the mount table: %s", strerror(-err));
		goto cleanup;
	}
	lo.ro_mounts = (const char *const *)ro_mounts;
	lo.detach_mounts = (const char *const *)bpf_mounts;
	lo.keep_caps = sb.plan.install.keep_caps;
	lo.landlock_fd = sb.ll.ruleset_fd;
	lo.seccomp = sb.sc.boundary.len || sb.sc.allowlist.len ? &sb.sc : NULL;
	err = launch__start(&lo, &lr);
	/* Installed: the child got past its last setup step (exec may still
	 * have failed after it). */
	trace__emit(sb.trace, "sandbox.configure",
		    configure_json(&sb, !err && lr.failed_stage != LAUNCH_STAGE_SETUP));
	if (err) {
		rf_err("refused: starting the command: %s", strerror(-err));
		goto cleanup;
	}
	if (lr.failed_stage != LAUNCH_STAGE_NONE) {
		if (lr.failed_stage == LAUNCH_STAGE_EXEC && lr.err == ENOENT) {
			rf_err("%s: command not found", o->argv[0]);
			rc = RF_EXIT_NOTFOUND;
		} else if (lr.failed_stage == LAUNCH_STAGE_EXEC) {
			rf_err("%s: cannot execute: %s", o->argv[0], strerror(lr.err));
		} else {
			rf_err("refused: sandbox setup failed at %s: %s; the command did not run",
			       lr.what, strerror(lr.err));
		}
		trace__emit(sb.trace, "sandbox.exit",
			    json_pack("{s:n, s:n, s:i, s:s, s:s}", "status", "signal",
				      "exit_code", rc, "failed_stage",
				      lr.failed_stage == LAUNCH_STAGE_EXEC ? "exec" : "setup",
				      "error", strerror(lr.err)));
		goto cleanup;
	}
	reg.child_pid = lr.pid;
	registry__add(&reg);

	err = wait_loop(&sb, &lr, &info);
	if (err) {
		rf_err("waiting for the command: %s", strerror(-err));
		rc = RF_EXIT_REFUSED;
	} else if (info.si_code == CLD_EXITED) {
		rc = info.si_status;
	} else {
		rc = 128 + info.si_status;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	/* Everything left in the cgroup dies before the report is final. */
	cgroup__destroy(&sb.cg);
	if (!cgroup_empty(sb.cg.path)) {
		rf_err("sandbox %s: processes survived the kill; its policy stays in force "
		       "and `ringfence status` shows it as stale", sb.name);
		sb.keep_policy = true;
	}
	sb.cg_created = false;
	drain_samples(&sb, true);
	{
		struct rf_sandbox st = { 0 };
		uint64_t total = 0, lost = 0;
		json_t *ev, *den = json_object();

		sbmaps__read_sandbox(sb.enf, sb.cgid, &st);
		for (i = 0; i < RF_CLASS_MAX; i++) {
			json_object_set_new(den, trace__class_name(i), json_integer((json_int_t)st.denials[i]));
			total += st.denials[i];
		}
		enforcer__stat(sb.enf, RF_STAT_RINGBUF_LOST, &lost);
		ev = json_pack("{s:o, s:o, s:i, s:I, s:o, s:I, s:I, s:I, s:I, s:I}",
			       "status", info.si_code == CLD_EXITED ? json_integer(info.si_status) : json_null(),
			       "signal", info.si_code == CLD_EXITED ? json_null() : json_integer(info.si_status),
			       "exit_code", rc,
			       "duration_ms", (json_int_t)((t1.tv_sec - t0.tv_sec) * 1000 +
							   (t1.tv_nsec - t0.tv_nsec) / 1000000),
			       "denials", den,
			       "denials_total", (json_int_t)total,
			       "denials_in_trace", (json_int_t)sb.traced,
			       "denials_not_in_trace", (json_int_t)(total - sb.traced),
			       "sample_limit", (json_int_t)RF_SAMPLE_LIMIT_DEFAULT,
			       "host_ringbuf_lost", (json_int_t)lost);
		trace__emit(sb.trace, "sandbox.exit", ev);
		if (info.si_code == CLD_EXITED)
			rf_info("sandbox %s: exited %d; kernel denials: %llu (network %llu, unix %llu)%s",
				sb.name, info.si_status, (unsigned long long)total,
				(unsigned long long)st.denials[RF_CLASS_NET],
				(unsigned long long)st.denials[RF_CLASS_UNIX],
				sb.policy->mode == RF_MODE_AUDIT ? " [audit: none enforced]" : "");
		else
			rf_info("sandbox %s: killed by signal %d; kernel denials: %llu",
				sb.name, info.si_status, (unsigned long long)total);
	}

cleanup:
	if (lr.pidfd >= 0)
		close(lr.pidfd);
	if (blocked)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (parent_fd >= 0)
		close(parent_fd);
	sandbox_cleanup(&sb);
	env__free(envp);
	mounts__free(ro_mounts);
	mounts__free(bpf_mounts);
	free(rules);
	free(resolved);
	free(entries);
	return rc;
}

int cmd_status(bool as_json)
{
	struct rf_registry_entry *v = NULL;
	struct rf_enforcer *enf = NULL;
	size_t n = 0, i;
	json_t *arr;
	int err;

	err = registry__list(&v, &n);
	if (err) {
		rf_err("reading %s: %s", RF_REGISTRY_DIR, strerror(-err));
		return 1;
	}
	enforcer__open_pinned(&enf);
	arr = json_array();
	for (i = 0; i < n; i++) {
		struct rf_sandbox st = { 0 };
		bool live = registry__supervisor_alive(&v[i]);
		uint64_t total = 0;
		int k;

		if (enf && !sbmaps__read_sandbox(enf, v[i].cgroup_id, &st))
			for (k = 0; k < RF_CLASS_MAX; k++)
				total += st.denials[k];
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:i, s:s, s:I}",
			"sandbox", v[i].sandbox, "state", live ? "live" : "stale",
			"policy_id", v[i].policy_id, "policy_sha256", v[i].digest,
			"cgroup_path", v[i].cgroup_path, "cgroup_id", (json_int_t)v[i].cgroup_id,
			"supervisor_pid", (int)v[i].supervisor_pid, "pid", (int)v[i].child_pid,
			"started", v[i].started, "denials", (json_int_t)total));
	}
	if (as_json) {
		json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
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
	free(v);
	return 0;
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
		free(v);
		return 1;
	}
	/* Fail closed: sandboxes die before the programs confining them go. */
	for (i = 0; i < n; i++) {
		cgroup__destroy_path(v[i].cgroup_path);
		if (!cgroup_empty(v[i].cgroup_path)) {
			rf_err("sandbox %s: processes survived the kill; not unloading",
			       v[i].sandbox);
			free(v);
			return 1;
		}
		registry__remove(v[i].sandbox);
	}
	free(v);
	err = enforcer__unload(force);
	if (err == -EBUSY) {
		rf_err("a supervisor is still starting or running; refusing to unload");
		return 1;
	}
	if (err) {
		rf_err("unload: %s", strerror(-err));
		return 1;
	}
	rf_info("unloaded: programs detached, %s removed", RF_PIN_DIR);
	return 0;
}
