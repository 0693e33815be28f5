/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The dynamic user: a uid from a fixed range, taken by a lock file, and the id-mapping of the write areas. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "dynuser.h"

static const char *const why_names[RF_USER_WHY_MAX] = {
	[RF_USER_INVOKER] = "invoker",
	[RF_USER_SUDO] = "sudo",
	[RF_USER_OPTION] = "user",
	[RF_USER_ROOT] = "root",
	[RF_USER_DYNAMIC] = "dynamic",
	[RF_USER_ROOT_AUDIT] = "root-audit",
	[RF_USER_ROOT_FALLBACK] = "root-fallback",
};
_Static_assert(sizeof(why_names) / sizeof(why_names[0]) == RF_USER_WHY_MAX,
	       "a name for every reason");

const char *dynuser__why_name(enum rf_user_why w)
{
	return (unsigned int)w < RF_USER_WHY_MAX && why_names[w] ? why_names[w] : "unknown";
}

/* 0 when the directory is there (made now or before), or -errno. */
static int mkdir_ok(const char *path, mode_t mode)
{
	return mkdir(path, mode) == 0 || errno == EEXIST ? 0 : -errno;
}

static void lock_path(char *path, size_t len, uid_t uid)
{
	snprintf(path, len, RF_DYNUSER_DIR "/%u", (unsigned)uid);
}

/* fd is the file at path: not unlinked, nor replaced by a newer one. */
static bool still_linked(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * The lock of uid: its fd, -EAGAIN when another supervisor holds it, or
 * -errno. The holder unlinks the file while it still holds the lock
 * (dynuser__release), so a lock taken on a file opened before that unlink
 * is a lock on a file nobody else will look at: taken, then checked to be
 * the one at the path still, else dropped and tried again. Only a holder
 * unlinks, and only its own file: so while one holds the lock, the path
 * names its file and every other taker either waits on that file's lock
 * or finds its own file unlinked. Two never hold one uid.
 */
int dynuser__lock_uid(uid_t uid)
{
	char path[64];

	lock_path(path, sizeof(path), uid);
	for (int tries = 0; tries < 8; tries++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno == EWOULDBLOCK ? -EAGAIN : -errno;

			close(fd);
			return e;
		}
		if (still_linked(fd, path))
			return fd;
		close(fd);
	}
	return -EAGAIN;  /* its holders keep coming and going: another uid */
}

/* A free uid, its lock held: probing from a point that differs per
 * process, so concurrent supervisors rarely try the same one first. */
static int take_uid(struct rf_dynuser *d)
{
	unsigned int start = ((unsigned int)getpid() * 2654435761U) % RF_DYNUSER_COUNT;
	int r;

	r = mkdir_ok("/run/ringfence", 0755);
	if (r == 0)
		r = mkdir_ok(RF_DYNUSER_DIR, 0700);
	if (r < 0)
		return r;
	for (unsigned int i = 0; i < RF_DYNUSER_COUNT; i++) {
		uid_t uid = RF_DYNUSER_BASE + (start + i) % RF_DYNUSER_COUNT;

		r = dynuser__lock_uid(uid);
		if (r == -EAGAIN)
			continue;
		if (r < 0)
			return r;
		d->uid = uid;
		d->lock_fd = r;
		return 0;
	}
	return -EUSERS;
}

static int write_file(const char *path, const char *text)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	return 0;
}

/* The maps of pid's user namespace: 0 <-> id, everything else itself
 * (host 0 and namespace id stay unmapped). */
static int write_maps(pid_t pid, uid_t id)
{
	char map[160], path[64];
	int r;

	snprintf(map, sizeof(map), "0 %u 1\n1 1 %u\n%u %u %u\n", (unsigned)id,
		 (unsigned)id - 1, (unsigned)id + 1, (unsigned)id + 1,
		 4294967294U - (unsigned)id);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	r = write_file(path, map);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	return write_file(path, map);
}

/* A child that makes a user namespace and waits for the maps and for the
 * namespace to be opened (the fd keeps it alive after the child is gone). */
int dynuser__make_userns(uid_t id, int *ret_fd)
{
	int ready[2], go[2], r = 0, fd = -1;
	char c = 0, path[64];
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0) {
		r = -errno;
		close(ready[0]);
		close(ready[1]);
		return r;
	}
	pid = fork();
	if (pid == 0) {
		/* its copy of the write end would keep the read below from EOF */
		close(go[1]);
		close(ready[0]);
		c = unshare(CLONE_NEWUSER) == 0 ? 'u' : 'e';
		if (write(ready[1], &c, 1) == 1)
			(void)!read(go[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (pid < 0)
		r = -errno;
	else if (read(ready[0], &c, 1) != 1 || c != 'u')
		r = -EPERM;
	if (r == 0)
		r = write_maps(pid, id);
	if (r == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		r = fd < 0 ? -errno : 0;
	}
	close(go[1]);
	close(ready[0]);
	if (pid > 0)
		(void)waitpid(pid, NULL, 0);
	if (r < 0)
		return r;
	*ret_fd = fd;
	return 0;
}

/* Whether path's tree can be id-mapped: the same calls the child makes on
 * its copy (launch_child.c), on a detached copy dropped right after.
 * 0 (or a missing path, which the child skips too), or -errno. */
static int probe_map(const char *path, int userns_fd)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_IDMAP, .userns_fd = (__u64)userns_fd };
	_cleanup_close_ int t = (int)syscall(SYS_open_tree, AT_FDCWD, path,
					     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (t < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	if (syscall(SYS_mount_setattr, t, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0)
		return -errno;
	return 0;
}

/* dir lies in one of the n areas (id-mapped: root's directories there
 * are the dynamic uid's, their owner bits count). */
static bool in_areas(const char *dir, const char *const *areas, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(areas[i]);

		while (l > 1 && areas[i][l - 1] == '/')
			l--;
		if (!strncmp(dir, areas[i], l) && (dir[l] == '\0' || dir[l] == '/'))
			return true;
	}
	return false;
}

/* The first directory above path (outside every area) that others may
 * not search (root's 0700 /root, mktemp -d): the dynamic uid could not
 * reach path by its name. 1 with *ret_dir set, or 0. */
static int unreachable(const char *path, const char *const *areas, size_t n, char *ret_dir,
		       size_t len)
{
	char dir[4096];
	size_t l = strlen(path);
	struct stat st;

	if (l >= sizeof(dir))
		return 0;
	memcpy(dir, path, l + 1);
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (!in_areas(dir, areas, n) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
		    !(st.st_mode & S_IXOTH)) {
			snprintf(ret_dir, len, "%s", dir);
			return 1;
		}
		*s = '/';
	}
	return 0;
}

int dynuser__refused(const char *path, int want, const char *const *areas, size_t n,
		     char *ret_why, size_t len)
{
	char dir[4096];
	size_t l = strlen(path);
	struct stat st;
	mode_t bits = (want & R_OK ? S_IROTH : 0) | (want & W_OK ? S_IWOTH : 0) |
		      (want & X_OK ? S_IXOTH : 0);

	if (path[0] != '/' || l >= sizeof(dir) || in_areas(path, areas, n))
		return 0;
	memcpy(dir, path, l + 1);
	while (l > 1 && dir[l - 1] == '/')
		dir[--l] = '\0';
	for (char *s = dir + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (!in_areas(dir, areas, n) && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
		    !(st.st_mode & S_IXOTH)) {
			snprintf(ret_why, len, "%s is %04o, uid %u: others may not enter it", dir,
				 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
			return 1;
		}
		*s = '/';
	}
	if (stat(dir, &st) < 0)
		return 0;
	/* a directory is listed and entered (a subtree rule) */
	if (S_ISDIR(st.st_mode))
		bits = (bits & S_IWOTH) | S_IROTH | S_IXOTH;
	if ((st.st_mode & bits) == bits)
		return 0;
	snprintf(ret_why, len, "%s is %04o, uid %u", dir, (unsigned)(st.st_mode & 07777),
		 (unsigned)st.st_uid);
	return 1;
}

__attribute__((format(printf, 2, 3)))
static void fall_back(struct rf_dynuser *d, const char *fmt, ...)
{
	va_list ap;

	dynuser__release(d);
	d->why = RF_USER_ROOT_FALLBACK;
	d->uid = 0;
	va_start(ap, fmt);
	vsnprintf(d->fallback, sizeof(d->fallback), fmt, ap);
	va_end(ap);
}

int dynuser__prepare(struct rf_dynuser *d, const char *const *rw_paths, size_t n,
		     bool can_map, bool files_open)
{
	int r;

	d->why = RF_USER_DYNAMIC;
	d->lock_fd = d->userns_fd = -1;
	d->fallback[0] = '\0';
	/* Nothing would keep it from leaving files in the host's world-writable
	 * places (/tmp), which a later sandbox given the same uid would own
	 * (systemd's DynamicUser= implies ProtectSystem=strict for this); a
	 * read-only tree would break what "unrestricted" lets it write. */
	if (files_open) {
		fall_back(d, "files are unrestricted: a dynamic uid could leave files in the "
			  "host's world-writable places for a later sandbox given the same uid");
		return 0;
	}
	if (n && !can_map) {
		fall_back(d, "the write area %s cannot be id-mapped: this kernel has no "
			  "mount_setattr (5.12+)", rw_paths[0]);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		char dir[256];

		if (unreachable(rw_paths[i], rw_paths, n, dir, sizeof(dir))) {
			fall_back(d, "the write area %s lies below %s, which only its owner "
				  "may enter", rw_paths[i], dir);
			return 0;
		}
	}
	r = take_uid(d);
	if (r < 0)
		return r;
	if (!n)
		return 0;
	r = dynuser__make_userns(d->uid, &d->userns_fd);
	if (r < 0) {
		fall_back(d, "no user namespace for the id-mapped mounts of %s: %s",
			  rw_paths[0], strerror(-r));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		r = probe_map(rw_paths[i], d->userns_fd);
		if (r < 0) {
			fall_back(d, "the write area %s cannot be id-mapped (its filesystem "
				  "or kernel): %s", rw_paths[i], strerror(-r));
			return 0;
		}
	}
	return 0;
}

/* The lock file goes while its lock is held (dynuser__lock_uid says why that is
 * safe), so a released uid leaves nothing in RF_DYNUSER_DIR. */
void dynuser__release(struct rf_dynuser *d)
{
	char path[64];

	if (d->userns_fd >= 0)
		close(d->userns_fd);
	if (d->lock_fd >= 0) {
		lock_path(path, sizeof(path), d->uid);
		if (still_linked(d->lock_fd, path))
			(void)unlink(path);
		close(d->lock_fd);
	}
	d->userns_fd = d->lock_fd = -1;
}

/* The files a dead supervisor left (SIGKILL: its lock went, its file
 * stayed): each taken as dynuser__lock_uid takes it, then unlinked as a release
 * does. A file whose lock is held is a live run's: left. */
int dynuser__sweep(unsigned *ret_removed)
{
	DIR *dir = opendir(RF_DYNUSER_DIR);
	struct dirent *de;

	*ret_removed = 0;
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		struct rf_dynuser d = { .lock_fd = -1, .userns_fd = -1 };
		char *end;
		unsigned long uid = strtoul(de->d_name, &end, 10);
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end ||
		    uid < RF_DYNUSER_BASE || uid >= (unsigned long)RF_DYNUSER_BASE + RF_DYNUSER_COUNT)
			continue;
		fd = dynuser__lock_uid((uid_t)uid);
		if (fd < 0)
			continue;
		d.uid = (uid_t)uid;
		d.lock_fd = fd;
		dynuser__release(&d);
		(*ret_removed)++;
	}
	closedir(dir);
	return 0;
}
