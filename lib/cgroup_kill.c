/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cgroup v2 teardown: kill every process below a sandbox cgroup, wait, remove it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cgroup_internal.h"

#define CG_EMPTY_TIMEOUT_MS 5000   /* kill -> "populated 0" */
#define CG_POLL_SLICE_MS 50        /* re-read cgroup.events at least this often */
#define CG_RMDIR_TRIES 100         /* EBUSY right after emptying is transient */
#define CG_RMDIR_SLEEP_MS 10
#define CG_KILL_ROUNDS 500         /* fallback loop without cgroup.kill */
#define CG_MAX_DEPTH 256           /* nested cgroups we are willing to walk */

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The state of one level of a recursive walk over a cgroup subtree. */
struct walk {
	unsigned depth;
	int ret;     /* kill_listed: processes signalled; rmdir_children: first error */
};

/* fn owns cfd: the child open O_NOFOLLOW, or -errno when it could not be. */
typedef void (*child_fn)(int parent_fd, const char *name, int cfd, struct walk *w);

/* Call fn for every child cgroup (subdirectory) of dfd. 0 or -errno. */
static int walk_children(int dfd, child_fn fn, struct walk *w)
{
	struct dirent *de;
	DIR *d;
	int fd, r;

	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((de = readdir(d))) {
		int cfd;

		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		cfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		fn(dirfd(d), de->d_name, cfd < 0 ? -errno : cfd, w);
	}
	closedir(d);
	return 0;
}

static int kill_listed(int dfd, unsigned depth);

static void kill_child(int parent_fd, const char *name, int cfd, struct walk *w)
{
	int r;

	(void)parent_fd;
	(void)name;
	if (cfd < 0)
		return;
	r = kill_listed(cfd, w->depth + 1);
	close(cfd);
	if (r > 0)
		w->ret += r;
}

/* Without cgroup.kill (< 5.14): SIGKILL every pid listed in dfd's
 * cgroup.procs and in its descendants'. Returns how many were signalled. */
static int kill_listed(int dfd, unsigned depth)
{
	struct walk w = { .depth = depth };
	FILE *f = NULL;
	int fd, r;
	long pid;

	if (depth > CG_MAX_DEPTH)
		return -ELOOP;

	fd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* removed meanwhile */
	f = fdopen(fd, "re");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	while (fscanf(f, "%ld", &pid) == 1) {
		/* never ourselves: we would not be here to finish */
		if (pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, SIGKILL) == 0)
			w.ret++;
	}
	fclose(f);

	r = walk_children(dfd, kill_child, &w);
	return r ? r : w.ret;
}

/* SIGKILL the whole subtree: one write to cgroup.kill, or the loop. */
static int kill_all(int dfd)
{
	int fd, r;

	fd = openat(dfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		r = write(fd, "1", 1) == 1 ? 0 : -errno;
		close(fd);
		return r;
	}
	if (errno != ENOENT)
		return -errno;

	for (int i = 0; i < CG_KILL_ROUNDS; i++) {
		r = kill_listed(dfd, 0);
		if (r <= 0)
			return r;
		sleep_ms(10);
	}
	return -ETIMEDOUT;
}

/* Wait until cgroup.events says "populated 0" (the subtree has no live
 * task). kernfs signals changes as POLLPRI; re-read at least every slice
 * anyway so a missed notification costs at most that. */
static int wait_unpopulated(int dfd, long timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	char buf[256];
	int fd, r;

	fd = openat(dfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;

	for (;;) {
		ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
		struct pollfd pfd = { .fd = fd, .events = POLLPRI };
		const char *p;
		long left;

		if (k < 0) {
			if (errno == EINTR)
				continue;
			/* ENODEV: the cgroup went away under us */
			r = errno == ENODEV ? 0 : -errno;
			break;
		}
		buf[k] = '\0';
		p = strstr(buf, "populated ");
		if (!p) {
			r = -EPROTO;
			break;
		}
		if (p[10] == '0') {
			r = 0;
			break;
		}
		left = deadline - now_ms();
		if (left <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, (int)(left < CG_POLL_SLICE_MS ? left : CG_POLL_SLICE_MS)) < 0 &&
		    errno != EINTR) {
			r = -errno;
			break;
		}
	}
	close(fd);
	return r;
}

static int rmdir_retry(int parent_fd, const char *name)
{
	for (int i = 0; ; i++) {
		if (unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY || i + 1 >= CG_RMDIR_TRIES)
			return -errno;
		sleep_ms(CG_RMDIR_SLEEP_MS);
	}
}

static int rmdir_children(int dfd, unsigned depth);

static void rmdir_child(int parent_fd, const char *name, int cfd, struct walk *w)
{
	int q;

	if (cfd < 0) {
		if (cfd != -ENOENT && w->ret == 0)
			w->ret = cfd;
		return;
	}
	q = rmdir_children(cfd, w->depth + 1);
	close(cfd);
	if (q == 0)
		q = rmdir_retry(parent_fd, name);
	if (q < 0 && w->ret == 0)
		w->ret = q;
}

/* Remove the (empty) descendant cgroups of dfd, deepest first: a cgroup
 * with children cannot be removed. */
static int rmdir_children(int dfd, unsigned depth)
{
	struct walk w = { .depth = depth };
	int r;

	if (depth > CG_MAX_DEPTH)
		return -ELOOP;
	r = walk_children(dfd, rmdir_child, &w);
	return r ? r : w.ret;
}

/* Kill, wait, remove the cgroup open as dfd whose path is path. */
static int destroy_fd(int dfd, const char *path)
{
	char parent[PATH_MAX];
	const char *slash, *name;
	int pfd, r;

	r = cgroup__check_v2_fd(dfd);
	if (r < 0)
		return r;
	/* Every cgroup but a hierarchy's root has cgroup.events. Killing a
	 * root would kill the whole machine: refuse. A removed cgroup has
	 * no files at all; its cgroup.procs is gone too. */
	if (faccessat(dfd, "cgroup.events", F_OK, 0) < 0) {
		if (errno != ENOENT)
			return -errno;
		if (faccessat(dfd, "cgroup.procs", F_OK, 0) == 0)
			return -EPERM;
		return 0;
	}

	r = kill_all(dfd);
	if (r < 0)
		return r;
	r = wait_unpopulated(dfd, CG_EMPTY_TIMEOUT_MS);
	if (r < 0)
		return r;
	r = rmdir_children(dfd, 0);
	if (r < 0)
		return r;

	slash = strrchr(path, '/');
	if (!slash || !slash[1] || (size_t)(slash - path) >= sizeof(parent))
		return -EINVAL;
	name = slash + 1;
	if (slash == path)
		strcpy(parent, "/");
	else
		snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);

	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = rmdir_retry(pfd, name);
	close(pfd);
	return r;
}

int cgroup__destroy(struct rf_cgroup *cg)
{
	int r;

	/* a zeroed or never-created struct: nothing to do (and dir_fd 0 of a
	 * zeroed struct is not ours to close) */
	if (!cg || !cg->path[0])
		return 0;

	if (cg->dir_fd >= 0) {
		r = destroy_fd(cg->dir_fd, cg->path);
		close(cg->dir_fd);
		cg->dir_fd = -1;
	} else {
		r = cgroup__destroy_path(cg->path);
	}
	/* keep the path after a failure so that a second call retries */
	if (r == 0) {
		cg->path[0] = '\0';
		cg->id = 0;
	}
	return r;
}

int cgroup__destroy_path(const char *path)
{
	char p[PATH_MAX];
	size_t len;
	int fd, r;

	if (!path || !path[0])
		return 0;
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	snprintf(p, sizeof(p), "%.*s", (int)len, path);
	r = destroy_fd(fd, p);
	close(fd);
	return r;
}

/* An rmdir first: a cgroup nothing entered needs no kill. */
int cgroup__remove_unused(int parent_fd, struct rf_cgroup *cg)
{
	const char *slash;

	if (!cg || !cg->path[0])
		return 0;
	slash = strrchr(cg->path, '/');
	/* EBUSY: something went in after all; the whole destroy then */
	if (!slash || unlinkat(parent_fd, slash + 1, AT_REMOVEDIR) < 0)
		return cgroup__destroy(cg);
	if (cg->dir_fd >= 0)
		close(cg->dir_fd);
	cg->dir_fd = -1;
	cg->path[0] = '\0';
	cg->id = 0;
	return 0;
}
