/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* cgroup v2 lookup: the cgroup2 mount, the ringfence parent, sandbox cgroups, ids, emptiness. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cgroup.h"
#include "cgroup_internal.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* 0 when fd is on a cgroup2 file system, else -EMEDIUMTYPE or -errno. */
int cgroup__check_v2_fd(int fd)
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
	setvbuf(f, NULL, _IOFBF, 64 << 10);   /* one read(): mounts.c says why */

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
	r = cgroup__check_v2_fd(mfd);
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

/* mkdir dir/name under the open cgroup2 directory pfd. */
static int create_in(int pfd, const char *dir, const char *name, struct rf_cgroup *ret_cg)
{
	char path[sizeof(ret_cg->path)];
	struct stat st;
	int fd = -1, r;

	r = path_join(path, sizeof(path), dir, name);
	if (r < 0)
		return r;
	if (mkdirat(pfd, name, 0755) < 0)
		return -errno;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		(void)unlinkat(pfd, name, AT_REMOVEDIR);
		return r;
	}
	ret_cg->dir_fd = fd;
	ret_cg->id = (uint64_t)st.st_ino;
	strcpy(ret_cg->path, path);
	return 0;
}

int cgroup__create(const char *mount, const char *name, struct rf_cgroup *ret_cg)
{
	char parent[sizeof(ret_cg->path)];
	int pfd, r;

	if (!ret_cg)
		return -EINVAL;
	memset(ret_cg, 0, sizeof(*ret_cg));
	ret_cg->dir_fd = -1;
	if (!mount || !name_ok(name))
		return -EINVAL;
	r = path_join(parent, sizeof(parent), mount, RF_CGROUP_PARENT);
	if (r < 0)
		return r;
	pfd = cgroup__open_parent(mount);
	if (pfd < 0)
		return pfd;
	r = create_in(pfd, parent, name, ret_cg);
	close(pfd);
	return r;
}

int cgroup__create_at(const char *dir, const char *name, struct rf_cgroup *ret_cg)
{
	int pfd, r;

	if (!ret_cg)
		return -EINVAL;
	memset(ret_cg, 0, sizeof(*ret_cg));
	ret_cg->dir_fd = -1;
	if (!dir || dir[0] != '/' || !name_ok(name))
		return -EINVAL;
	pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	r = cgroup__check_v2_fd(pfd);
	if (!r)
		r = create_in(pfd, dir, name, ret_cg);
	close(pfd);
	return r;
}

int cgroup__create_under(int parent_fd, const char *dir, const char *name,
			 struct rf_cgroup *ret_cg)
{
	if (!ret_cg)
		return -EINVAL;
	memset(ret_cg, 0, sizeof(*ret_cg));
	ret_cg->dir_fd = -1;
	if (parent_fd < 0 || !dir || dir[0] != '/' || !name_ok(name))
		return -EINVAL;
	return create_in(parent_fd, dir, name, ret_cg);
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
	r = cgroup__check_v2_fd(fd);
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
