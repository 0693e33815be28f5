// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The container sandbox's keeper: see oci_internal.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "backends/enforcer.h"
#include "backends/sbmaps.h"
#include "cgroups/gc.h"
#include "cleanup.h"
#include "dnsgate/dnsgate.h"
#include "log.h"
#include "oci_internal.h"

/* How long poststop waits for the keeper to release the sandbox before
 * releasing it itself. Each release is a few map deletes. */
#define STOP_WAIT_MS 5000
/* cgroup.events is polled for its change; this is a backstop only. */
#define RECHECK_MS 1000

static void release(struct oci_hook *h)
{
	if (h->gate) {
		sbmaps__set_dns_gate(h->enf, h->cgid, NULL);
		dnsgate__close(TAKE_PTR(h->gate), NULL);
	}
	sbmaps__purge(h->enf, h->cgid);  /* the ledger's entries too */
	registry__remove(h->name);
	if (h->placed)
		cgroup__destroy(&h->cg);
	enforcer__close(TAKE_PTR(h->enf));
}

/* Until the cgroup is empty (or gone) or a signal to stop comes. */
static void keep(struct oci_hook *h, int sfd)
{
	char path[PATH_MAX];
	_cleanup_close_ int ev = -1;

	snprintf(path, sizeof(path), "%s/cgroup.events", h->cg.path);
	ev = open(path, O_RDONLY | O_CLOEXEC);
	while (!cgroup__is_empty(h->cg.path)) {
		struct pollfd p[2] = { { .fd = sfd, .events = POLLIN },
				       { .fd = ev, .events = POLLPRI } };

		char buf[256];

		if (poll(p, 2, RECHECK_MS) < 0 && errno != EINTR)
			return;
		if (p[0].revents)
			return;
		/* kernfs re-arms the notification once the file is read again */
		if (p[1].revents && pread(ev, buf, sizeof(buf), 0) < 0)
			return;
	}
}

static int become_keeper(struct oci_hook *h, int ready)
{
	sigset_t mask;
	int null, sfd;

	setsid();
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
		return -errno;
	close(null);
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0)
		return -errno;
	h->reg.supervisor_pid = getpid();
	h->reg.supervisor_start = registry__proc_start(getpid());
	if (registry__add(&h->reg) || (h->gate && dnsgate__serve(h->gate)))
		return -EIO;
	if (write(ready, "1", 1) != 1)
		return -errno;
	close(ready);
	keep(h, sfd);
	release(h);
	return 0;
}

int oci_keep__start(void *ctx, struct rf_step_error *e)
{
	struct oci_hook *h = ctx;
	int p[2];
	char c = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return rf_error_set(&e->e, -errno, "refused", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return rf_error_set(&e->e, -errno, "refused", "starting the keeper: %s",
				    strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		_exit(become_keeper(h, p[1]) ? 1 : 0);
	}
	close(p[1]);
	do
		n = read(p[0], &c, 1);
	while (n < 0 && errno == EINTR);
	close(p[0]);
	if (n == 1)
		return 0;
	waitpid(pid, NULL, 0);
	return rf_error_set(&e->e, -EIO, "refused", "the keeper of %s did not start", h->name);
}

static int wait_gone(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, STOP_WAIT_MS) == 1 ? 0 : -ETIMEDOUT;
}

int oci_keep__stop(const char *name)
{
	struct rf_registry_entry e;
	char path[PATH_MAX];
	int err = 0, pidfd = -1;

	snprintf(path, sizeof(path), "%s/%s.json", RF_REGISTRY_DIR, name);
	if (registry__read_file(path, &e))
		return 0;       /* released already (the cgroup emptied first) */
	if (registry__supervisor_alive(&e))
		pidfd = (int)syscall(SYS_pidfd_open, e.supervisor_pid, 0);
	/* the same process still (pid reuse) once its fd is held */
	if (pidfd >= 0 && registry__supervisor_alive(&e) &&
	    !syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0))
		err = wait_gone(pidfd);
	if (pidfd >= 0)
		close(pidfd);
	if (err || !access(path, F_OK)) {
		rf_info("sandbox %s: its keeper did not release it: releasing it here", name);
		err = gc__sandbox(name, e.cgroup_path);
	}
	registry__entry_clear(&e);
	return err ? 1 : 0;
}
