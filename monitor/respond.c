// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fileio.h"
#include "monaction.h"
#include "paths.h"
#include "respond.h"

static int cg_write(const char *cg, const char *file, const char *val)
{
	char path[4096 + 32];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* cgroup.events says "frozen 1" (a change of it is POLLPRI). */
static int wait_frozen(const char *cg, int ms)
{
	char path[4096 + 32], buf[256];
	_cleanup_close_ int fd = -1;
	struct timespec t0, t;
	uint64_t frozen = 0;

	snprintf(path, sizeof(path), "%s/cgroup.events", cg);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		const char *f;
		long left;

		if (n < 0)
			return -errno;
		buf[n] = 0;
		f = strstr(buf, "frozen ");
		if (f && sscanf(f, "frozen %lu", &frozen) == 1 && frozen)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return -ETIMEDOUT;
		poll(&p, 1, (int)left);
	}
}

static void proc_line(int pid, char *buf, size_t len)
{
	char path[64], stat[512], *rp;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (fileio__read_small(AT_FDCWD, path, stat, sizeof(stat)) <= 0 ||
	    !(rp = strrchr(stat, ')')) || sscanf(rp + 1, " %*c %d", &ppid) != 1) {
		snprintf(buf, len, "%d ? ?", pid);
		return;
	}
	*rp = 0;
	snprintf(buf, len, "%d %d %s", pid, ppid, strchr(stat, '(') ? strchr(stat, '(') + 1 : "?");
}

void respond__tree(const char *cg, char *buf, size_t len)
{
	char path[4096 + 32], line[64];
	_cleanup_fclose_ FILE *f = NULL;
	size_t used = 0;
	int pid;

	buf[0] = 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "re");
	while (f && fscanf(f, "%d", &pid) == 1) {
		proc_line(pid, line, sizeof(line));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "; " : "", line);
		if (used >= len) {
			buf[len - 1] = 0;
			return;
		}
	}
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Freeze (and, kill, record then kill): 0, or -errno with why in a. */
static int act(struct rf_alert *a, const char *cg)
{
	int err = cg_write(cg, "cgroup.freeze", "1");

	if (!err)
		err = wait_frozen(cg, RF_RESPOND_FREEZE_MS);
	if (err) {
		snprintf(a->response_result, sizeof(a->response_result), "freeze failed: %s",
			 strerror(-err));
		if (a->response != RF_RESP_KILL)
			return err;
	}
	if (a->response == RF_RESP_FREEZE) {
		snprintf(a->response_result, sizeof(a->response_result), "frozen");
		return 0;
	}
	/* the tree of a frozen group: no process can fork or exit meanwhile */
	respond__tree(cg, a->response_tree, sizeof(a->response_tree));
	err = cg_write(cg, "cgroup.kill", "1");
	if (err) {
		snprintf(a->response_result, sizeof(a->response_result), "kill failed: %s",
			 strerror(-err));
		return err;
	}
	snprintf(a->response_result, sizeof(a->response_result), "killed");
	return 0;
}

void respond__act(struct rf_alert *a, const char *cg, const char *dir)
{
	const struct rf_rule_info *r = rf_rule_info(a->rule);
	struct rf_mon_action m = { 0 };

	if (a->response == RF_RESP_ALERT || a->phase != RF_PHASE_OPEN || !a->sandbox[0] ||
	    !r || r->control == RF_CONTROL_HEALTH)
		return;
	dir = dir ? dir : RF_ACTIONS_DIR;
	snprintf(m.action, sizeof(m.action), "%s", rf_response_name(a->response));
	snprintf(m.rule, sizeof(m.rule), "%s", r->id);
	snprintf(m.alert_uid, sizeof(m.alert_uid), "%s", a->uid);
	snprintf(m.result, sizeof(m.result), "pending");
	m.time_ms = wall_ms();
	/* said before it happens: a supervisor that sees its command die
	 * finds why */
	monaction__write(dir, a->sandbox, &m);
	a->responded = true;
	if (!cg || !cg[0]) {
		snprintf(a->response_result, sizeof(a->response_result), "cgroup unknown");
		a->response_ok = false;
	} else {
		a->response_ok = act(a, cg) == 0;
	}
	m.ok = a->response_ok;
	snprintf(m.result, sizeof(m.result), "%s", a->response_result);
	snprintf(m.process_tree, sizeof(m.process_tree), "%s", a->response_tree);
	monaction__write(dir, a->sandbox, &m);
}
