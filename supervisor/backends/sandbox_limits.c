// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The policy's limits. memory_mb, pids and cpu_percent are cgroup v2
 * controllers on the sandbox cgroup, usable only where the controller is
 * in the cgroup2 hierarchy (a hybrid host's cgroup2 mount often has none
 * of them: the plan refuses then). wall_seconds and output_bytes are the
 * supervisor's: a deadline and a relay of the command's stdout/stderr
 * through pipes (where ringfence's own are terminals, the command's pty:
 * run/tty_relay.c) that stops at the budget. Reaching memory_mb (an OOM kill
 * of the whole group), pids (a refused fork), wall_seconds or
 * output_bytes ends the run: the caller kills the sandbox and records it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>

#include "fileio.h"
#include "log.h"
#include "sandbox_limits.h"
#include "plan/plan.h"
#include "plan/probe.h"
#include "util/epoll_want.h"

#define LIMITS_CPU_PERIOD_US 100000ULL
#define LIMITS_RELAY_CHUNK 65536

/* The controller each cgroup limit needs, by enum rf_limit. */
static const char *const controllers[RF_LIMIT_CPU + 1] = {
	[RF_LIMIT_MEMORY] = "memory", [RF_LIMIT_PIDS] = "pids", [RF_LIMIT_CPU] = "cpu",
};

/* A small file's text, NUL-terminated, newline stripped. */
static int read_text_at(int dfd, const char *name, char *buf, size_t len)
{
	ssize_t n = fileio__read_small(dfd, name, buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int write_text_at(int dfd, const char *name, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word))) {
		if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || !p[wl]))
			return true;
		p += wl;
	}
	return false;
}

void sandbox_limits__probe(struct rf_caps *caps)
{
	sandbox_limits__probe_at(caps, caps->cgroup_mount);
}

/* The io controller: the sandbox's io.stat, for disk_write_mb. */
static void probe_io(struct rf_caps *caps, const char *dir, const char *have, int err)
{
	struct rf_backend_probe *p = &caps->cgroup_io;

	p->ok = !err && has_word(have, "io");
	p->err = err ? err : p->ok ? 0 : -EOPNOTSUPP;
	if (err)
		snprintf(p->detail, sizeof(p->detail), "reading %s/cgroup.controllers: %s", dir,
			 strerror(-err));
	else if (p->ok)
		snprintf(p->detail, sizeof(p->detail), "io controller in the cgroup2 hierarchy "
			 "at %s", dir);
	else
		snprintf(p->detail, sizeof(p->detail), "the io controller is not in the cgroup2 "
			 "hierarchy at %s (its cgroup.controllers: %s): the kernel counts no "
			 "writes per cgroup here", dir, have[0] ? have : "none");
}

void sandbox_limits__probe_at(struct rf_caps *caps, const char *dir)
{
	char have[512] = "";
	int i, dfd, err;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = dfd < 0 ? -errno : read_text_at(dfd, "cgroup.controllers", have, sizeof(have));
	if (dfd >= 0)
		close(dfd);
	for (i = 0; i <= RF_LIMIT_CPU; i++) {
		struct rf_backend_probe *p = &caps->cgroup_ctrl[i];

		p->ok = !err && has_word(have, controllers[i]);
		p->err = err ? err : p->ok ? 0 : -EOPNOTSUPP;
		if (err)
			snprintf(p->detail, sizeof(p->detail), "reading %s/cgroup.controllers: %s",
				 dir, strerror(-err));
		else if (p->ok)
			snprintf(p->detail, sizeof(p->detail), "%s controller in the cgroup2 "
				 "hierarchy at %s", controllers[i], dir);
		else
			snprintf(p->detail, sizeof(p->detail), "the %s controller is not in the "
				 "cgroup2 hierarchy at %s (its cgroup.controllers: %s)",
				 controllers[i], dir, have[0] ? have : "none");
	}
	probe_io(caps, dir, have, err);
}

int sandbox_limits__io_write_bytes(const struct rf_cgroup *cg, uint64_t *ret_bytes)
{
	char buf[4096], *p;
	uint64_t sum = 0;
	int err;

	if (cg->dir_fd < 0)
		return -EBADF;
	err = read_text_at(cg->dir_fd, "io.stat", buf, sizeof(buf));
	if (err)
		return err;
	/* "MAJ:MIN rbytes=N wbytes=N rios=N ..." per device */
	for (p = strstr(buf, "wbytes="); p; p = strstr(p + 7, "wbytes="))
		sum += strtoull(p + 7, NULL, 10);
	*ret_bytes = sum;
	return 0;
}

void sandbox_limits__cpu_max(uint64_t percent, char *buf, size_t len)
{
	snprintf(buf, len, "%llu %llu", (unsigned long long)(percent * LIMITS_CPU_PERIOD_US / 100),
		 (unsigned long long)LIMITS_CPU_PERIOD_US);
}

/* "+ctrl" in BASE/cgroup.subtree_control and BASE/ringfence/'s (BASE: the
 * cgroup2 root or the delegated place, cgplace.h): the sandbox cgroup gets
 * the controller's files. */
static int enable_controller(const char *mount, const char *ctrl, struct rf_error *e)
{
	static const char *const levels[] = { ".", RF_CGROUP_PARENT };
	char plus[32];
	size_t i;
	int mfd, dfd, err = 0;

	snprintf(plus, sizeof(plus), "+%s", ctrl);
	mfd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return rf_error_set(e, -errno, "refused", "opening %s: %s", mount,
				    strerror(errno));
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]) && !err; i++) {
		dfd = openat(mfd, levels[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		err = dfd < 0 ? -errno : write_text_at(dfd, "cgroup.subtree_control", plus);
		if (dfd >= 0)
			close(dfd);
		if (err)
			rf_error_set(e, err, "refused", "enabling the %s controller in %s/%s/"
				     "cgroup.subtree_control: %s", ctrl, mount, levels[i],
				     strerror(-err));
	}
	close(mfd);
	return err;
}

/* memory.swap.max missing: no swap accounting. Only fine without swap. */
static int cap_swap(int dfd, struct rf_error *e)
{
	struct sysinfo si;
	int err = write_text_at(dfd, "memory.swap.max", "0");

	if (err == -ENOENT && sysinfo(&si) == 0 && si.totalswap == 0)
		return 0;
	return err ? rf_error_set(e, err, "refused", "memory.swap.max: %s (swap must be "
				  "capped with memory_mb)", strerror(-err)) : 0;
}

int sandbox_limits__apply_cgroup(const struct rf_plan *plan, const char *mount,
			 const struct rf_cgroup *cg, struct rf_error *e)
{
	const struct rf_limit_plan *l = plan->limits;
	char v[64];
	int i, err;

	for (i = 0; i <= RF_LIMIT_CPU; i++) {
		if (!l[i].set)
			continue;
		err = enable_controller(mount, controllers[i], e);
		if (err)
			return err;
	}
	if (l[RF_LIMIT_DISK_WRITE].set && (err = enable_controller(mount, "io", e)))
		return err;
	if (l[RF_LIMIT_MEMORY].set) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)l[RF_LIMIT_MEMORY].value << 20);
		err = write_text_at(cg->dir_fd, "memory.max", v);
		if (!err)
			err = cap_swap(cg->dir_fd, e);
		else
			rf_error_set(e, err, "refused", "memory.max: %s", strerror(-err));
		if (!err && (err = write_text_at(cg->dir_fd, "memory.oom.group", "1")))
			rf_error_set(e, err, "refused", "memory.oom.group: %s", strerror(-err));
		if (err)
			return err;
	}
	if (l[RF_LIMIT_PIDS].set) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)l[RF_LIMIT_PIDS].value);
		if ((err = write_text_at(cg->dir_fd, "pids.max", v)))
			return rf_error_set(e, err, "refused", "pids.max: %s", strerror(-err));
	}
	if (l[RF_LIMIT_CPU].set) {
		sandbox_limits__cpu_max(l[RF_LIMIT_CPU].value, v, sizeof(v));
		if ((err = write_text_at(cg->dir_fd, "cpu.max", v)))
			return rf_error_set(e, err, "refused", "cpu.max: %s", strerror(-err));
	}
	return 0;
}

static void watch_reset(struct rf_limits_watch *w)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->timer_fd = w->events_fd[0] = w->events_fd[1] = -1;
	for (i = 0; i < RF_LIMITS_OUT_MAX; i++) {
		w->out_r[i] = w->child_w[i] = -1;
		w->dest[i] = i + 1;
		w->out[i].fd = w->out[i].restore_fl = -1;
	}
	w->saved_err = -1;
	w->hit = RF_LIMIT_MAX;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void sandbox_limits__watch_close(struct rf_limits_watch *w)
{
	int i;

	if (!w)
		return;
	close_fd(&w->timer_fd);
	close_fd(&w->events_fd[0]);
	close_fd(&w->events_fd[1]);
	if (w->saved_err >= 0) {
		dup2(w->saved_err, 2);
		close_fd(&w->saved_err);
	}
	for (i = 0; i < RF_LIMITS_OUT_MAX; i++) {
		close_fd(&w->out_r[i]);
		close_fd(&w->child_w[i]);
		out_relay__close(&w->out[i]);
	}
}

/* One relay channel, a pipe: the command's end moved to >= 10 (out of
 * the launcher child's way, like the Landlock ruleset), ours
 * non-blocking, and so is our way to ringfence's own fd (out_relay.h,
 * opened at the start). A terminal needs none: the command's pty carries that
 * stream (run/tty_relay.c), counted against the same budget. */
static int relay_pipe(struct rf_limits_watch *w, int i)
{
	int p[2];

	if (isatty(w->dest[i]))
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	w->out_r[i] = p[0];
	w->child_w[i] = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
	close(p[1]);
	if (w->child_w[i] < 0)
		return -errno;
	return fcntl(p[0], F_SETFL, O_NONBLOCK) < 0 ? -errno : 0;
}

int sandbox_limits__watch_init(struct rf_limits_watch *w, const struct rf_plan *plan,
		       struct rf_error *e)
{
	const struct rf_limit_plan *l = plan->limits;
	int i, err;

	watch_reset(w);
	w->wall_seconds = l[RF_LIMIT_WALL].set ? l[RF_LIMIT_WALL].value : 0;
	w->output_bytes = l[RF_LIMIT_OUTPUT].set ? l[RF_LIMIT_OUTPUT].value : 0;
	w->memory_mb = l[RF_LIMIT_MEMORY].set ? l[RF_LIMIT_MEMORY].value : 0;
	w->pids = l[RF_LIMIT_PIDS].set ? l[RF_LIMIT_PIDS].value : 0;
	for (i = 0; w->output_bytes && i < RF_LIMITS_OUT_MAX; i++) {
		err = relay_pipe(w, i);
		if (err) {
			sandbox_limits__watch_close(w);
			return rf_error_set(e, err, "refused", "output relay pipe: %s",
					    strerror(-err));
		}
	}
	return 0;
}

int sandbox_limits__watch_start(struct rf_limits_watch *w, const struct rf_cgroup *cg)
{
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)w->wall_seconds } };
	int i, err;

	/* Ours closed: the pipes see EOF once every writer in the sandbox is gone. */
	for (i = 0; i < RF_LIMITS_OUT_MAX; i++)
		close_fd(&w->child_w[i]);
	w->cg = cg;
	clock_gettime(CLOCK_MONOTONIC, &w->start);
	/* A reader that goes away must not kill the supervisor (relay_once). */
	if (w->output_bytes)
		signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < RF_LIMITS_OUT_MAX; i++)
		if (w->out_r[i] >= 0 && (err = out_relay__open(&w->out[i], w->dest[i])))
			return err;
	/* Nor may a reader that stopped hold our own lines (a limit's). */
	if (w->out_r[1] >= 0 && w->dest[1] == 2)
		out_relay__own_stderr(&w->out[1], &w->saved_err);
	/* The kernel flags these files on every change (an OOM kill, a
	 * refused fork): no polling of the counters while the command runs. */
	if (w->memory_mb && cg && cg->dir_fd >= 0)
		w->events_fd[0] = openat(cg->dir_fd, "memory.events", O_RDONLY | O_CLOEXEC);
	if (w->pids && cg && cg->dir_fd >= 0)
		w->events_fd[1] = openat(cg->dir_fd, "pids.events", O_RDONLY | O_CLOEXEC);
	if (!w->wall_seconds)
		return 0;
	w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (w->timer_fd < 0 || timerfd_settime(w->timer_fd, 0, &its, NULL) < 0)
		return -errno;
	return 0;
}

int sandbox_limits__watch_fds(const struct rf_limits_watch *w, int *fds)
{
	int n = 0;

	if (w->timer_fd >= 0)
		fds[n++] = w->timer_fd;
	return n;
}

void sandbox_limits__watch(struct rf_limits_watch *w, int ep)
{
	int i;

	for (i = 0; i < RF_LIMITS_OUT_MAX; i++) {
		struct rf_out_relay *o = &w->out[i];
		size_t room = 0;

		if (w->out_r[i] >= 0)
			(void)out_relay__tail(o, &room);
		epoll_want__set(ep, w->out_r[i], &w->watched_r[i], room ? EPOLLIN : 0);
		epoll_want__set(ep, o->fd, &o->watched, o->len && !o->dead ? EPOLLOUT : 0);
	}
}

int sandbox_limits__event_fds(const struct rf_limits_watch *w, int *fds)
{
	int i, n = 0;

	for (i = 0; i < 2; i++)
		if (w->events_fd[i] >= 0)
			fds[n++] = w->events_fd[i];
	return n;
}

static bool set_hit(struct rf_limits_watch *w, enum rf_limit l, uint64_t value,
		    uint64_t threshold)
{
	if (w->hit != RF_LIMIT_MAX)
		return false;
	w->hit = l;
	w->hit_value = value;
	w->hit_threshold = threshold;
	return true;
}

static void close_out_r(struct rf_limits_watch *w, int i)
{
	close_fd(&w->out_r[i]);   /* which leaves the epoll set */
	w->watched_r[i] = 0;
}

/* One read from pipe i, as far as the buffer toward ringfence's side has
 * room: what fits in the budget goes on, the rest is dropped and ends
 * the run. -1 at EOF (closed), 0 nothing (or no room), 1 data. */
static int relay_once(struct rf_limits_watch *w, int i, bool *hit_now)
{
	struct rf_out_relay *o = &w->out[i];
	uint64_t budget = w->output_bytes - w->out_delivered, give;
	size_t room;
	char *tail = out_relay__tail(o, &room);
	ssize_t n;

	if (!room)
		return 0;
	n = read(w->out_r[i], tail, room < LIMITS_RELAY_CHUNK ? room : LIMITS_RELAY_CHUNK);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close_out_r(w, i);
		return -1;
	}
	if (n < 0)
		return 0;
	give = (uint64_t)n < budget ? (uint64_t)n : budget;
	out_relay__commit(o, (size_t)give);
	w->out_read += (uint64_t)n;
	if (!out_relay__flush(o)) {
		/* Our reader is gone: so is the command's (its next write gets
		 * EPIPE or SIGPIPE, as without the relay). */
		close_out_r(w, i);
		return -1;
	}
	w->out_delivered += give;
	if ((uint64_t)n > give)
		*hit_now |= set_hit(w, RF_LIMIT_OUTPUT, w->out_read, w->output_bytes);
	return 1;
}

uint64_t sandbox_limits__admit_output(struct rf_limits_watch *w, uint64_t n, bool *hit_now)
{
	uint64_t room = w->output_bytes - w->out_delivered, give;

	if (!w->output_bytes)
		return n;
	give = n < room ? n : room;
	w->out_delivered += give;
	w->out_read += n;
	if (n > give)
		*hit_now |= set_hit(w, RF_LIMIT_OUTPUT, w->out_read, w->output_bytes);
	return give;
}

static uint64_t elapsed_ms(const struct rf_limits_watch *w)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)((now.tv_sec - w->start.tv_sec) * 1000 +
			  (now.tv_nsec - w->start.tv_nsec) / 1000000);
}

bool sandbox_limits__on_fd(struct rf_limits_watch *w, int fd)
{
	bool hit_now = false;
	uint64_t ticks;
	int i;

	if (fd >= 0 && fd == w->timer_fd) {
		if (read(fd, &ticks, sizeof(ticks)) > 0)
			hit_now = set_hit(w, RF_LIMIT_WALL, elapsed_ms(w) / 1000, w->wall_seconds);
		close_fd(&w->timer_fd);
		return hit_now;
	}
	for (i = 0; i < 2; i++)
		if (fd >= 0 && fd == w->events_fd[i]) {
			char buf[512];

			/* Reading it from the start acknowledges the change;
			 * what it says is read again by the check. */
			if (pread(fd, buf, sizeof(buf), 0) < 0)
				rf_debug("re-arm %s: %s", i ? "pids.events" : "memory.events",
					 strerror(errno));
			return sandbox_limits__check_cgroup(w);
		}
	for (i = 0; i < RF_LIMITS_OUT_MAX; i++) {
		if (fd >= 0 && fd == w->out_r[i])
			relay_once(w, i, &hit_now);
		else if (fd >= 0 && fd == w->out[i].fd && !out_relay__flush(&w->out[i]))
			close_out_r(w, i);
	}
	return hit_now;
}

/* The end of a run: a reader that takes nothing for this long gets the
 * rest of the output dropped (a stopped reader never holds the exit). */
#define DRAIN_STALL_MS 1000

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void sandbox_limits__drain(struct rf_limits_watch *w)
{
	uint64_t last = now_ms();
	size_t before = SIZE_MAX;
	bool hit_now = false;
	int i;

	for (;;) {
		struct pollfd p[RF_LIMITS_OUT_MAX];
		bool got = false;
		size_t waiting = 0;
		nfds_t np = 0;
		uint64_t t = now_ms();

		for (i = 0; i < RF_LIMITS_OUT_MAX; i++)
			while (w->out_r[i] >= 0 && relay_once(w, i, &hit_now) > 0)
				got = true;
		for (i = 0; i < RF_LIMITS_OUT_MAX; i++)
			if (w->out[i].len && !w->out[i].dead) {
				waiting += w->out[i].len;
				p[np++] = (struct pollfd){ .fd = w->out[i].fd, .events = POLLOUT };
			}
		if (!waiting && !got)
			break;
		if (got || waiting < before)
			last = t;
		else if (t - last >= DRAIN_STALL_MS)
			break;
		before = waiting;
		if (np)
			(void)poll(p, np, (int)(DRAIN_STALL_MS - (t - last)));
		for (i = 0; i < RF_LIMITS_OUT_MAX; i++)
			if (w->out[i].len && !out_relay__flush(&w->out[i]))
				close_out_r(w, i);
	}
	for (i = 0; i < RF_LIMITS_OUT_MAX; i++)
		w->out_dropped += out_relay__drop(&w->out[i]);
}

/* "KEY N" from a cgroup's *.events file; 0 when missing. */
static uint64_t events_count(int dfd, const char *file, const char *key)
{
	char buf[1024], *p;
	size_t kl = strlen(key);

	if (fileio__read_small(dfd, file, buf, sizeof(buf)) <= 0)
		return 0;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
	return 0;
}

uint64_t sandbox_limits__cpu_usec(const struct rf_cgroup *cg)
{
	return cg && cg->dir_fd >= 0 ? events_count(cg->dir_fd, "cpu.stat", "usage_usec") : 0;
}

static uint64_t read_u64_at(int dfd, const char *file)
{
	char buf[64];

	return read_text_at(dfd, file, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

bool sandbox_limits__check_cgroup(struct rf_limits_watch *w)
{
	int dfd = w->cg ? w->cg->dir_fd : -1;
	uint64_t peak;

	if (dfd < 0 || w->hit != RF_LIMIT_MAX)
		return false;
	if (w->memory_mb && (w->hit_events = events_count(dfd, "memory.events", "oom_kill"))) {
		/* memory.peak (5.19+), in MiB rounded up; else the cap itself. */
		peak = read_u64_at(dfd, "memory.peak");
		return set_hit(w, RF_LIMIT_MEMORY, peak ? (peak + (1 << 20) - 1) >> 20 :
			       w->memory_mb, w->memory_mb);
	}
	if (w->pids && (w->hit_events = events_count(dfd, "pids.events", "max")))
		return set_hit(w, RF_LIMIT_PIDS, read_u64_at(dfd, "pids.current"), w->pids);
	return false;
}

static const char *unit_of(enum rf_limit l)
{
	static const char *const units[RF_LIMIT_MAX] = {
		[RF_LIMIT_MEMORY] = "MiB", [RF_LIMIT_PIDS] = "processes",
		[RF_LIMIT_CPU] = "percent", [RF_LIMIT_WALL] = "seconds",
		[RF_LIMIT_OUTPUT] = "bytes", [RF_LIMIT_SCRATCH] = "MiB",
		[RF_LIMIT_EGRESS] = "bytes", [RF_LIMIT_DISK_WRITE] = "MiB",
	};

	return (unsigned int)l < RF_LIMIT_MAX ? units[l] : "";
}

json_t *sandbox_limits__exceeded_json(const struct rf_limits_watch *w)
{
	json_t *o = json_pack("{s:s, s:I, s:I, s:s, s:s}", "limit", names__limit(w->hit),
			      "value", (json_int_t)w->hit_value,
			      "threshold", (json_int_t)w->hit_threshold,
			      "unit", unit_of(w->hit), "action", "killed");

	if (o && w->hit == RF_LIMIT_MEMORY)
		json_object_set_new(o, "oom_kills", json_integer((json_int_t)w->hit_events));
	if (o && w->hit == RF_LIMIT_PIDS)
		json_object_set_new(o, "forks_refused", json_integer((json_int_t)w->hit_events));
	if (o && w->hit == RF_LIMIT_OUTPUT)
		json_object_set_new(o, "delivered", json_integer((json_int_t)w->out_delivered));
	return o;
}

void sandbox_limits__hit_text(const struct rf_limits_watch *w, char *buf, size_t len)
{
	snprintf(buf, len, "limit %s=%llu reached", names__limit(w->hit),
		 (unsigned long long)w->hit_threshold);
}
