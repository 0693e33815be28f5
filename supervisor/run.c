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
#include "sandbox.h"

extern char **environ;

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
		if (!cgroup__is_empty(v[i].cgroup_path))
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
	if (sb->cg_created && !cgroup__is_empty(sb->cg.path)) {
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
					report__drain_samples(sb, false);
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
	struct rf_error e = { 0 };
	char **envp = NULL, **ro_mounts = NULL, **bpf_mounts = NULL;
	uint32_t flags = 0;
	uid_t uid;
	gid_t gid;
	siginfo_t info;
	sigset_t mask, oldmask;
	int rc = RF_EXIT_REFUSED, err, parent_fd = -1, i;
	bool blocked = false;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = prepare__load_policy(o->policy_path, &sb.policy);
	if (rc)
		return rc;
	rc = RF_EXIT_REFUSED;
	err = launch__resolve_user(o->user, &uid, &gid, &e);
	if (err) {
		rf_error_print(&e, NULL);
		rc = RF_EXIT_USAGE;
		goto cleanup;
	}
	make_name(sb.policy->id, sb.name, sizeof(sb.name));

	probe__run(&sb.caps, prepare__probe_flags(sb.policy, &o->plan_opts));
	plan__compile(sb.policy, &sb.caps, &o->plan_opts, &sb.plan);
	rc = prepare__backends(sb.policy, &sb.plan, &sb.ll, &sb.sc);
	if (rc)
		goto cleanup;
	/* Opened once the input is known good: a policy error leaves no file. */
	err = trace__open(o->trace_path, sb.name, &sb.trace);
	if (err) {
		rf_err("--trace %s: %s", o->trace_path, strerror(-err));
		rc = RF_EXIT_USAGE;
		goto cleanup;
	}
	rc = RF_EXIT_REFUSED;
	{
		json_t *ev = json_object(), *argv = json_array();

		for (i = 0; o->argv[i]; i++)
			json_array_append_new(argv, json_string(o->argv[i]));
		json_object_set_new(ev, "command", argv);
		json_object_set_new(ev, "user", json_pack("{s:i, s:i}", "uid", (int)uid,
							  "gid", (int)gid));
		json_object_set_new(ev, "plan", report__plan(sb.policy, &sb.plan, &sb.caps));
		if (sb.ll.n_approx)
			json_object_set_new(json_object_get(ev, "plan"), "approximations",
					    report__approximations(&sb.ll));
		trace__emit(sb.trace, "sandbox.plan", ev);
	}
	if (!sb.plan.ok) {
		prepare__print_refusal(&sb.plan);
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
		err = netrules__resolve(sb.policy, &rules, &n_rules, &resolved, &n_resolved, &e);
		if (err) {
			rf_error_print(&e, "refused");
			goto cleanup;
		}
		err = netrules__build(rules, n_rules, &entries, &n_entries, &e);
		if (err) {
			rf_error_print(&e, "refused");
			goto cleanup;
		}
	}
	trace__emit(sb.trace, "network.decision", report__decision(sb.policy, resolved, n_resolved));

	snprintf(mount, sizeof(mount), "%s", sb.caps.cgroup_mount);
	parent_fd = cgroup__open_parent(mount);
	if (parent_fd < 0) {
		rf_err("refused: cgroup %s/%s: %s", mount, RF_CGROUP_PARENT, strerror(-parent_fd));
		goto cleanup;
	}
	err = enforcer__open(parent_fd, sb.caps.unix_sock_addr.ok, sb.plan.install.lsm_flags != 0,
			     &sb.enf, why, sizeof(why));
	if (err) {
		rf_err("refused: %s", why);
		goto cleanup;
	}
	if (sb.plan.c[RF_PC_UNIX].required &&
	    !(sb.enf->features & (sb.plan.c[RF_PC_UNIX].be == RF_BE_BPF_LSM ? RF_FEAT_LSM :
									 RF_FEAT_UNIX))) {
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
	report__summary(&sb);

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
		    report__configure(&sb, !err && lr.failed_stage != LAUNCH_STAGE_SETUP));
	if (err) {
		rf_err("refused: starting the command: %s", strerror(-err));
		trace__emit(sb.trace, "sandbox.exit",
			    json_pack("{s:n, s:n, s:i, s:s, s:s}", "status", "signal",
				      "exit_code", rc, "failed_stage", "clone",
				      "error", strerror(-err)));
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
	if (!cgroup__is_empty(sb.cg.path)) {
		rf_err("sandbox %s: processes survived the kill; its policy stays in force "
		       "and `ringfence status` shows it as stale", sb.name);
		sb.keep_policy = true;
	}
	sb.cg_created = false;
	report__drain_samples(&sb, true);
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
			rf_info("sandbox %s: exited %d; kernel denials: %llu (network %llu, unix %llu, "
				"file %llu, exec %llu, process %llu)%s",
				sb.name, info.si_status, (unsigned long long)total,
				(unsigned long long)st.denials[RF_CLASS_NET],
				(unsigned long long)st.denials[RF_CLASS_UNIX],
				(unsigned long long)st.denials[RF_CLASS_FILE],
				(unsigned long long)st.denials[RF_CLASS_EXEC],
				(unsigned long long)st.denials[RF_CLASS_PROCESS],
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

