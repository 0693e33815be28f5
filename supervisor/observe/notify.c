// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/seccomp.h>
#include <bpf/bpf.h>

#include "notify.h"
#include "observe.h"
#include "backends/obs_syscalls.h"
#include "backends/sandbox_seccomp.h"
#include "pins.h"

void notify__init(struct rf_notify *n, int fd)
{
	memset(n, 0, sizeof(*n));
	n->fd = fd;
	n->verdict_fd = -1;
}

void notify__profile(struct rf_notify *n, const struct rf_seccomp *sc)
{
	n->sc = sc && sc->profile ? sc : NULL;
}

void notify__drop(struct rf_notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

void notify__close(struct rf_notify *n)
{
	if (!n)
		return;
	notify__drop(n);
	if (n->verdict_fd >= 0)
		close(n->verdict_fd);
	free(n->table);
	notify__init(n, -1);
}

/* The thread group, name and uid of the task that made the call. */
static void task_fields(pid_t tid, struct rf_event *ev)
{
	char path[64], buf[512], *p;
	struct stat st;
	ssize_t k;
	int fd;

	ev->pid = ev->tid = (uint32_t)tid;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	k = read(fd, buf, sizeof(buf) - 1);
	buf[k > 0 ? k : 0] = 0;
	if ((p = strstr(buf, "\nTgid:")))
		ev->pid = (uint32_t)strtoul(p + 6, NULL, 10);
	if (!strncmp(buf, "Name:\t", 6)) {
		size_t len = strcspn(buf + 6, "\n");

		memcpy(ev->comm, buf + 6, len < RF_COMM_LEN - 1 ? len : RF_COMM_LEN - 1);
	}
	if (!fstat(fd, &st))
		ev->uid = st.st_uid;
	close(fd);
}

/* The record boundary_exit would have made of this call, or the hole
 * rules' (sandbox_seccomp.c). false: neither (nothing to publish). */
static bool boundary_record(struct rf_notify *n, const struct seccomp_notif *req, uint64_t cgid,
			    struct rf_event *ev)
{
	const struct rf_obs_syscall *d;
	int nr = req->data.nr;

	if (!n->table) {
		n->table = calloc(RF_OBS_SYSCALL_MAX, sizeof(*n->table));
		if (!n->table)
			return false;
		obs_syscalls__table(n->table);
	}
	memset(ev, 0, sizeof(*ev));
	ev->cgroup_id = cgid;
	if (sandbox_seccomp__hole_record(nr, (const uint64_t *)req->data.args, ev)) {
		ev->flags |= RF_EVF_LISTENER;
		task_fields((pid_t)req->pid, ev);
		return true;
	}
	/* the table's path syscalls are Landlock's (refused here only as holes) */
	if (nr < 0 || nr >= RF_OBS_SYSCALL_MAX || !n->table[nr].op ||
	    (n->table[nr].class & ~RF_OBS_ARG_HOW) != RF_CLASS_PROCESS)
		return false;
	d = &n->table[nr];
	ev->op = d->op;
	ev->class = d->class & ~RF_OBS_ARG_HOW;
	ev->reason = RF_REASON_BOUNDARY;
	ev->syscall = (uint16_t)nr;
	ev->flags = RF_EVF_INFERRED | RF_EVF_SYSCALL | RF_EVF_ERRNO_EPERM | RF_EVF_LISTENER;
	if (d->arg)
		ev->arg = (uint32_t)req->data.args[d->arg - 1];
	if (d->target)
		ev->target_pid = (uint32_t)req->data.args[d->target - 1];
	task_fields((pid_t)req->pid, ev);
	return true;
}

/* Through observe.bpf.c's rf_obs_verdict, the pinned program every
 * record of the supervisor's takes to the monitor; opened at the first
 * refusal only: refusals are rare, and a run without one pays nothing. */
static int publish(struct rf_notify *n, struct rf_event *ev)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = ev, .ctx_size_in = sizeof(*ev));

	if (n->verdict_fd < 0)
		n->verdict_fd = rf_pins__get(RF_PIN_OBS_VERDICT);
	if (n->verdict_fd < 0)
		return n->verdict_fd;
	if (bpf_prog_test_run_opts(n->verdict_fd, &o))
		return -errno;
	return o.retval ? -EIO : 0;
}

/* The profile's record of the first call of nr outside it: the
 * listener's exact decision (not inferred). Let through: audited, and
 * how the call ended is not known here (it runs after the answer). */
static bool profile_record(struct rf_notify *n, const struct seccomp_notif *req, uint64_t cgid,
			   bool refused, struct rf_event *ev)
{
	int nr = req->data.nr;

	if (!n->sc || !sandbox_seccomp__nr_in(n->sc->prof_out, nr) ||
	    sandbox_seccomp__nr_in(n->reported, nr))
		return false;
	n->reported[nr / 64] |= 1ULL << (nr % 64);
	memset(ev, 0, sizeof(*ev));
	ev->cgroup_id = cgid;
	ev->class = RF_CLASS_SYSCALLS;
	ev->op = RF_OP_SYSCALL;
	ev->reason = RF_REASON_NO_RULE;
	ev->verdict = refused ? RF_VERDICT_DENIED : RF_VERDICT_AUDITED;
	ev->syscall = (uint16_t)nr;
	ev->flags = RF_EVF_SYSCALL | RF_EVF_LISTENER | (refused ? RF_EVF_ERRNO_EPERM : 0);
	task_fields((pid_t)req->pid, ev);
	return true;
}

int notify__handle(struct rf_notify *n, uint64_t cgid, bool pub)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct rf_event ev;
	bool prof, pass;

	memset(&req, 0, sizeof(req));
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return errno == ENOENT ? -ENOENT : errno == EINTR ? 0 : -errno;
	/* The filter, not this answer, is the boundary: only what it handed
	 * over for an alert-mode profile alone is let through, so CONTINUE's
	 * caveat (the arguments may change before the call runs) grants
	 * nothing the filter would not. */
	prof = n->sc && sandbox_seccomp__nr_in(n->sc->prof_notify, req.data.nr);
	pass = prof && n->sc->prof_alert;
	memset(&resp, 0, sizeof(resp));
	resp.id = req.id;
	resp.error = pass ? 0 : -EPERM;
	resp.flags = pass ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
	/* Answered first: the task waits for it. ENOENT: it is gone. */
	if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	n->answered++;
	if (!pub)
		return 0;
	/* a number the filter hands over for the profile alone is not a
	 * boundary refusal, whatever the boundary's tables say of it */
	if (!prof && boundary_record(n, &req, cgid, &ev) && publish(n, &ev))
		n->unpublished++;
	if (profile_record(n, &req, cgid, !pass, &ev) && publish(n, &ev))
		n->unpublished++;
	return 0;
}
