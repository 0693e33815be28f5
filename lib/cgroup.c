/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cgroup v2: find the mount, the ringfence parent, one cgroup per sandbox. */
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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

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

static int is_cgroup2_fd(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	return sfs.f_type == CGROUP2_SUPER_MAGIC ? 0 : -EMEDIUMTYPE;
}

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo. In place. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (char *r = s; *r; ) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

int cgroup__find_v2_mount(char *ret_path, size_t len)
{
	char *line = NULL, *best = NULL;
	size_t cap = 0;
	bool best_is_root = false;
	FILE *f;
	int r;

	if (!ret_path || len == 0)
		return -EINVAL;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;

	while (getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok, *root = NULL, *mnt = NULL, *fstype = NULL;
		bool after_sep = false;

		line[strcspn(line, "\n")] = '\0';
		/* id parent maj:min root mountpoint opts [optional...] - fstype src super */
		tok = strtok_r(line, " ", &save);
		for (int i = 0; tok; i++, tok = strtok_r(NULL, " ", &save)) {
			if (i == 3)
				root = tok;
			else if (i == 4)
				mnt = tok;
			else if (i > 5 && !after_sep && strcmp(tok, "-") == 0)
				after_sep = true;
			else if (after_sep) {
				fstype = tok;
				break;
			}
		}
		if (!mnt || !fstype || strcmp(fstype, "cgroup2") != 0)
			continue;
		/* prefer a mount of the hierarchy's root over a bind mount of a
		 * subtree; otherwise the first one wins */
		if (best && (best_is_root || strcmp(root, "/") != 0))
			continue;
		free(best);
		best = strdup(mnt);
		if (!best) {
			r = -ENOMEM;
			goto cleanup;
		}
		best_is_root = strcmp(root, "/") == 0;
	}
	if (ferror(f)) {
		r = -EIO;
		goto cleanup;
	}
	if (!best) {
		r = -ENOENT;
		goto cleanup;
	}
	unescape_octal(best);
	if (strlen(best) >= len) {
		r = -ENAMETOOLONG;
		goto cleanup;
	}
	strcpy(ret_path, best);
	r = 0;

cleanup:
	free(best);
	free(line);
	fclose(f);
	return r;
}

/* dir + "/" + name into out, without doubling a trailing '/'. */
static int path_join(char *out, size_t len, const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	int n;

	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	n = snprintf(out, len, "%.*s/%s", (int)dl, dir, name);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool name_ok(const char *name)
{
	return name && name[0] && strlen(name) <= NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int cgroup__open_parent(const char *mount)
{
	int mfd = -1, fd = -1, r;

	if (!mount || !mount[0])
		return -EINVAL;

	mfd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0)
		return -errno;
	r = is_cgroup2_fd(mfd);
	if (r < 0)
		goto cleanup;

	/* EEXIST: another supervisor (or an earlier run) made it */
	if (mkdirat(mfd, RF_CGROUP_PARENT, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		goto cleanup;
	}
	fd = openat(mfd, RF_CGROUP_PARENT, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		goto cleanup;
	}
	r = fd;
	fd = -1;

cleanup:
	if (fd >= 0)
		close(fd);
	close(mfd);
	return r;
}

int cgroup__create(const char *mount, const char *name, struct rf_cgroup *ret_cg)
{
	char path[sizeof(ret_cg->path)];
	char parent[sizeof(ret_cg->path)];
	struct stat st;
	int pfd = -1, fd = -1, r;
	bool made = false;

	if (!ret_cg)
		return -EINVAL;
	memset(ret_cg, 0, sizeof(*ret_cg));
	ret_cg->dir_fd = -1;
	if (!mount || !name_ok(name))
		return -EINVAL;

	r = path_join(parent, sizeof(parent), mount, RF_CGROUP_PARENT);
	if (r < 0)
		return r;
	r = path_join(path, sizeof(path), parent, name);
	if (r < 0)
		return r;

	pfd = cgroup__open_parent(mount);
	if (pfd < 0)
		return pfd;

	if (mkdirat(pfd, name, 0755) < 0) {
		r = -errno;
		goto cleanup;
	}
	made = true;

	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		goto cleanup;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto cleanup;
	}

	ret_cg->dir_fd = fd;
	ret_cg->id = (uint64_t)st.st_ino;
	strcpy(ret_cg->path, path);
	fd = -1;
	made = false;
	r = 0;

cleanup:
	if (fd >= 0)
		close(fd);
	if (made)
		(void)unlinkat(pfd, name, AT_REMOVEDIR);
	close(pfd);
	return r;
}

/* Lines in an open cgroup.procs (one pid each). */
static int count_lines_fd(int fd)
{
	char buf[4096];
	int n = 0;

	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return n;
		for (ssize_t i = 0; i < k; i++)
			n += buf[i] == '\n';
	}
}

int cgroup__count_procs(const struct rf_cgroup *cg)
{
	char p[sizeof(cg->path) + 16];
	int fd, r;

	if (!cg)
		return -EINVAL;
	if (cg->dir_fd >= 0) {
		fd = openat(cg->dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	} else {
		if (!cg->path[0])
			return -EBADF;
		r = path_join(p, sizeof(p), cg->path, "cgroup.procs");
		if (r < 0)
			return r;
		fd = open(p, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	r = count_lines_fd(fd);
	close(fd);
	return r;
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

	r = is_cgroup2_fd(dfd);
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

int cgroup__id_of(const char *path, uint64_t *ret_id)
{
	struct stat st;
	int fd, r;

	if (!path || !ret_id)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* an inode number elsewhere is no cgroup id */
	r = is_cgroup2_fd(fd);
	if (r == 0 && fstat(fd, &st) < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	*ret_id = (uint64_t)st.st_ino;
	return 0;
}

/* The cgroup is gone or holds no process anywhere below it. Until then
 * its map entries must stay: they are what confines the survivors. */
bool cgroup__is_empty(const char *path)
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
