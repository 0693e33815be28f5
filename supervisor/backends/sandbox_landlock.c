// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Landlock backend: files, exec, TCP connect ports and scoping, for hosts
 * without BPF-LSM. The supervisor builds one ruleset; the child calls
 * sandbox_landlock__restrict() just before execve.
 *
 * Conventions:
 *  - build() returns 0, -EINVAL (an entry or a missing right cannot be
 *    expressed exactly and the policy did not opt into the approximation;
 *    err names it), -EOPNOTSUPP (Landlock missing, or an ABI that cannot
 *    confine what the policy confines, approximation or not) or another
 *    -errno from the kernel. On failure *ret is left empty (ruleset_fd -1).
 *  - ruleset_fd is -1 or >= 3, never 0..2: a zeroed struct (fd 0) is safe to
 *    free, and the child's stdio dup2()s cannot clobber the ruleset.
 *    free() closes only fds >= 3.
 *  - handled_net / scoped say what the ABI could take: net_connect needs ABI
 *    4, scoping ABI 6; a lower ABI leaves them 0 and the caller decides.
 *
 * Only <linux/landlock.h> and raw syscalls: Debian 12 ships no liblandlock
 * and its UAPI header stops at ABI 2, so newer constants and the grown
 * structs are defined here (values from the kernel's UAPI documentation).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "cleanup.h"
#include "policy/policy.h"
#include "rules/netrules.h"
#include "sandbox_landlock.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
/* uapi/linux/landlock.h (ABI 7), newer than this system's headers */
#define RF_LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)

#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)          /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)       /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)      /* ABI 5 */
#endif
#ifndef LANDLOCK_ACCESS_NET_CONNECT_TCP
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)    /* ABI 4 */
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)              /* ABI 6 */
#endif

/* enum landlock_rule_type members are not macros: no #ifndef possible. */
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2                             /* ABI 4 */

/* struct landlock_ruleset_attr as of ABI 6; older headers declare only
 * handled_access_fs. The kernel accepts the larger size when the fields
 * it does not know are zero. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct ll_net_port_attr {
	uint64_t allowed_access;
	uint64_t port;
};

#define LL_FS_ABI1                                                              \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |           \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |           \
	 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |       \
	 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |           \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |           \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |         \
	 LANDLOCK_ACCESS_FS_MAKE_SYM)

#define LL_FS_READ_DIR (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* Write-class rights on a directory (masked by the ABI). */
#define LL_FS_WRITE_DIR                                                         \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |        \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |        \
	 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |            \
	 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |          \
	 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM |          \
	 LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE |               \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* What a write rule that holds an allowed network.unix name does not
 * grant (opts->unix_names): a socket or a symlink made, renamed or linked
 * there would answer to the allowed name (policy__unix_name_in_write). */
#define LL_FS_UNIX_NAMES (LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

/* The only rights the kernel accepts on a rule for a non-directory. */
#define LL_FS_FILE                                                              \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |           \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |           \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

static uint64_t ll_fs_rights(int abi)
{
	uint64_t r = 0;

	if (abi >= 1)
		r |= LL_FS_ABI1;
	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

static int ll_add_approx(struct rf_landlock *ll, const char *where, const char *what)
{
	struct rf_landlock_approx *v;

	v = realloc(ll->approx, (ll->n_approx + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	ll->approx = v;
	memset(&v[ll->n_approx], 0, sizeof(v[0]));
	snprintf(v[ll->n_approx].where, sizeof(v[0].where), "%s", where);
	snprintf(v[ll->n_approx].what, sizeof(v[0].what), "%s", what);
	ll->n_approx++;
	return 0;
}

/* Why an entry cannot be expressed exactly: the refusal and the
 * approximation (always "drop it": narrower than asked, never broader). */
enum ll_inexact {
	LL_EXACT = 0,
	LL_MISSING,
	LL_SYMLINK,
	LL_IS_DIR,
	LL_NOT_DIR,
};

static const struct {
	const char *why;
	const char *hint;
	const char *what;
} ll_inexact_text[] = {
	[LL_MISSING] = { "does not exist",
			 "Landlock rules need paths that exist when the sandbox starts",
			 "dropped: does not exist (Landlock needs existing paths)" },
	[LL_SYMLINK] = { "is a symlink", "Landlock would confine its target",
			 "dropped: is a symlink (Landlock would confine its target)" },
	[LL_IS_DIR] = { "is a directory",
			"an exact entry must name a file (a subtree ends with '/')",
			"dropped: is a directory (exact entry)" },
	[LL_NOT_DIR] = { "is not a directory",
			 "a subtree entry (ending with '/') must name a directory",
			 "dropped: is not a directory (subtree entry)" },
};

/* The entry as it should have been written: a symlink's target (its
 * subtree when the entry was one), a directory as a subtree, a file as an
 * exact entry. Empty when there is none (a dangling symlink). */
static void ll_suggest(const struct rf_path_rule *rule, enum ll_inexact why, char *buf,
		       size_t len)
{
	char *target;
	size_t n;

	buf[0] = '\0';
	if (why == LL_SYMLINK) {
		target = realpath(rule->path, NULL);
		if (target)
			snprintf(buf, len, "%s%s", target,
				 rule->subtree && strcmp(target, "/") ? "/" : "");
		free(target);
	} else if (why == LL_IS_DIR) {
		snprintf(buf, len, "%s/", rule->path);
	} else if (why == LL_NOT_DIR) {
		n = strlen(rule->path);
		while (n > 1 && rule->path[n - 1] == '/')
			n--;
		snprintf(buf, len, "%.*s", (int)n, rule->path);
	}
}

/*
 * An entry Landlock cannot take as written, without "approximate": what it
 * is and what to write instead. Only a missing path may be approximated
 * (dropped); dropping "/usr" because it lacks its '/' would be wrong.
 */
static int ll_inexact_error(const struct rf_path_rule *rule, const char *entry,
			    enum ll_inexact why, struct rf_error *err)
{
	char fix[PATH_MAX + 2];
	char *target;

	ll_suggest(rule, why, fix, sizeof(fix));
	if (why == LL_SYMLINK) {
		target = realpath(rule->path, NULL);
		if (!target) {
			rf_error_set(err, -EINVAL, entry, "is a symlink whose target does not exist");
			return rf_error_hint(err, "Landlock confines targets: name an existing file");
		}
		rf_error_set(err, -EINVAL, entry, "is a symlink to \"%s\"", target);
		free(target);
		return rf_error_hint(err, "Landlock confines the target: write \"%s\"", fix);
	}
	rf_error_set(err, -EINVAL, entry, "%s", ll_inexact_text[why].why);
	if (why == LL_MISSING)
		return rf_error_hint(err, "%s (or set \"approximate\": true to drop it)",
				     ll_inexact_text[why].hint);
	return rf_error_hint(err, "%s: write \"%s\"", ll_inexact_text[why].hint, fix);
}

/* Keep an inexact entry's refusal (err: the first) and go on, so that
 * every such entry is reported at once. */
static int ll_refuse(struct rf_landlock *ll, const struct rf_path_rule *rule, const char *entry,
		     enum ll_inexact why, struct rf_error *err)
{
	struct rf_landlock_refusal *v = ll->refusals;
	struct rf_error e = { 0 };

	ll_inexact_error(rule, entry, why, &e);
	if (ll->n_refusals == 0)
		*err = e;
	if (ll->n_refusals == RF_LANDLOCK_REFUSALS_MAX)
		return 0;
	v[ll->n_refusals].cls = strncmp(entry, "$.exec", 6) == 0 ? RF_CLASS_EXEC : RF_CLASS_FILE;
	rf_error_str(&e, v[ll->n_refusals].text, sizeof(v[0].text));
	ll->n_refusals++;
	return 0;
}

/*
 * The directories entries were opened from, by name (a pointer into an
 * entry and a length): a list of 100,000 files in some hundred
 * directories walks each directory's path once, then one component per
 * entry. LL_WAYS slots per hash, the oldest reopened on a miss.
 */
#define LL_SETS 64
#define LL_WAYS 4

struct ll_dirs {
	struct {
		const char *name;
		size_t len;
		int fd;
	} slot[LL_SETS][LL_WAYS];
	unsigned int next[LL_SETS];   /* the way a miss replaces */
};

static void ll_dirs_init(struct ll_dirs *d)
{
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < LL_SETS; i++)
		for (size_t w = 0; w < LL_WAYS; w++)
			d->slot[i][w].fd = -1;
}

static void ll_dirs_close(struct ll_dirs *d)
{
	for (size_t i = 0; i < LL_SETS; i++)
		for (size_t w = 0; w < LL_WAYS; w++)
			if (d->slot[i][w].fd >= 0)
				close(d->slot[i][w].fd);
}

/* An O_PATH fd of directory name[0..len) (symlinks followed, as in any
 * open's earlier components), or -errno. */
static int ll_dir_fd(struct ll_dirs *d, const char *name, size_t len)
{
	char buf[RF_POLICY_PATH_MAX + 1];
	uint32_t h = 2166136261u;
	size_t i, w;
	int fd;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	i = h % LL_SETS;
	for (w = 0; w < LL_WAYS; w++)
		if (d->slot[i][w].fd >= 0 && d->slot[i][w].len == len &&
		    !memcmp(d->slot[i][w].name, name, len))
			return d->slot[i][w].fd;
	memcpy(buf, name, len);
	buf[len] = '\0';
	fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = d->next[i]++ % LL_WAYS;
	if (d->slot[i][w].fd >= 0)
		close(d->slot[i][w].fd);
	d->slot[i][w].name = name;
	d->slot[i][w].len = len;
	d->slot[i][w].fd = fd;
	return fd;
}

/*
 * Open one entry for a path_beneath rule. Returns 0 with *ret_fd, a positive
 * enum ll_inexact, or -errno. O_NOFOLLOW on the name without its trailing
 * '/' gives the symlink itself when the entry is one: checked on the fd,
 * so no lstat/open race. (A trailing '/' would make the kernel follow it.)
 * Symlinks in earlier components are resolved, as for any open: the last
 * component is opened below its directory's fd (dirs).
 */
static int ll_open_entry(const struct rf_path_rule *rule, struct ll_dirs *dirs, int *ret_fd)
{
	const char *base;
	struct stat st;
	size_t len;
	int dfd, fd, r;

	len = strlen(rule->path);
	if (len == 0 || len > RF_POLICY_PATH_MAX)
		return -ENAMETOOLONG;
	while (len > 1 && rule->path[len - 1] == '/')
		len--;
	if (len == 1) {   /* "/": no directory above it */
		dfd = AT_FDCWD;
		base = "/";
	} else {
		/* the policy's paths are absolute: there is a slash */
		const char *slash = memrchr(rule->path, '/', len);
		size_t dir_len = slash == rule->path ? 1 : (size_t)(slash - rule->path);

		dfd = ll_dir_fd(dirs, rule->path, dir_len);
		if (dfd < 0)
			return dfd == -ENOENT || dfd == -ENOTDIR ? LL_MISSING : dfd;
		base = strndupa(slash + 1, len - (size_t)(slash + 1 - rule->path));
	}

	/* A subtree: O_DIRECTORY without following says "a directory, not a
	 * symlink" with no fstat; anything else takes the long way below,
	 * which says what it is. */
	if (rule->subtree) {
		fd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			*ret_fd = fd;
			return 0;
		}
	}
	fd = openat(dfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return r == -ENOENT || r == -ENOTDIR ? LL_MISSING : r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (S_ISLNK(st.st_mode))
		r = LL_SYMLINK;
	else if (rule->subtree && !S_ISDIR(st.st_mode))
		r = LL_NOT_DIR;
	else if (!rule->subtree && S_ISDIR(st.st_mode))
		r = LL_IS_DIR;
	else {
		*ret_fd = fd;
		return 0;
	}
fail:
	close(fd);
	return r;
}

/*
 * The entries' fds once their rule is added, closed a run at a time: fds
 * come lowest-free first, so consecutive entries mostly get consecutive
 * fds, and a run [first, next) of fds this loop opened itself is closed by
 * one close_range(). An fd that does not extend the run starts a new one.
 */
#define LL_FD_RUN 256

struct ll_fd_run {
	int first, next;
};

static void ll_fd_run_flush(struct ll_fd_run *run)
{
	if (run->next > run->first &&
	    close_range((unsigned int)run->first, (unsigned int)run->next - 1, 0) < 0)
		for (int fd = run->first; fd < run->next; fd++)
			close(fd);
	run->first = run->next = 0;
}

static void ll_fd_run_add(struct ll_fd_run *run, int fd)
{
	if (run->next > run->first && (fd != run->next || run->next - run->first >= LL_FD_RUN))
		ll_fd_run_flush(run);
	if (run->next == run->first)
		run->first = fd;
	run->next = fd + 1;
}

static int ll_add_path_fd(struct rf_landlock *ll, int fd, uint64_t access)
{
	struct ll_path_beneath_attr attr = {
		.allowed_access = access & ll->handled_fs,
		.parent_fd = fd,
	};

	if (syscall(__NR_landlock_add_rule, ll->ruleset_fd, LL_RULE_PATH_BENEATH, &attr, 0) < 0)
		return -errno;
	ll->n_fs_rules++;
	return 0;
}

/* "/" gets every right of a class the policy leaves unrestricted. */
static int ll_add_root(struct rf_landlock *ll, uint64_t access, struct rf_error *err)
{
	int fd, r;

	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		return rf_error_set(err, r, "landlock", "open \"/\": %s", strerror(-r));
	}
	r = ll_add_path_fd(ll, fd, access);
	close(fd);
	if (r < 0)
		rf_error_set(err, r, "landlock_add_rule \"/\"", "%s", strerror(-r));
	return r;
}

/* The name of list entry i in errors: where_base[i] "path". */
static const char *ll_entry_name(const char *where_base, size_t i, const char *path,
				 char *buf, size_t len)
{
	snprintf(buf, len, "%s[%zu] \"%s\"", where_base, i, path);
	return buf;
}

/* An entry at or below the scratch path (NULL: none) names the host's
 * directory the tmpfs hides: opened here, it would allow that directory to
 * whatever still reaches it (a cwd, an inherited fd), never the tmpfs. */
static bool ll_hidden(const struct rf_path_rule *rule, const char *const *hidden)
{
	for (; *hidden; hidden++) {
		size_t n = strlen(*hidden);

		if (!strncmp(rule->path, *hidden, n) &&
		    (rule->path[n] == '\0' || rule->path[n] == '/'))
			return true;
	}
	return false;
}

/*
 * A part [lo, hi) of a list, added by one thread: each entry opened (O_PATH,
 * below its directory's fd), its rule added, its fd closed (a run at a
 * time). What an entry could not be is left in res[i] (an enum ll_inexact,
 * 0 otherwise) for the caller to report in order; the part stops at its
 * first hard error (err_i, err, err_add: at landlock_add_rule, else at
 * the open). The kernel serialises landlock_add_rule on the ruleset.
 */
struct ll_part {
	const struct rf_landlock *ll;
	const struct rf_path_list *list;
	const char *const *hidden;
	uint64_t file_access, dir_access;
	const struct rf_policy *unix_names;   /* non-NULL: LL_FS_UNIX_NAMES withheld */
	size_t lo, hi;
	int8_t *res;
	size_t err_i, n_rules;
	int err;
	bool err_add;
};

static int ll_add_rule(const struct rf_landlock *ll, int fd, uint64_t access)
{
	struct ll_path_beneath_attr attr = {
		.allowed_access = access & ll->handled_fs,
		.parent_fd = fd,
	};

	return syscall(__NR_landlock_add_rule, ll->ruleset_fd, LL_RULE_PATH_BENEATH, &attr, 0) < 0 ?
	       -errno : 0;
}

static void *ll_part_run(void *arg)
{
	struct ll_part *pt = arg;
	struct ll_fd_run run = { 0, 0 };
	struct ll_dirs *dirs = malloc(sizeof(*dirs));
	size_t i;
	int fd = -1, r;

	pt->err_i = pt->hi;
	if (!dirs) {
		pt->err_i = pt->lo;
		pt->err = -ENOMEM;
		return NULL;
	}
	ll_dirs_init(dirs);
	for (i = pt->lo; i < pt->hi; i++) {
		const struct rf_path_rule *rule = &pt->list->v[i];

		pt->res[i] = 0;
		if (ll_hidden(rule, pt->hidden))
			continue;
		r = ll_open_entry(rule, dirs, &fd);
		if (r > 0) {
			pt->res[i] = (int8_t)r;
			continue;
		}
		if (r == 0) {
			uint64_t a = rule->subtree ? pt->dir_access : pt->file_access;

			if (pt->unix_names && policy__unix_name_in_write(pt->unix_names, rule))
				a &= ~(uint64_t)LL_FS_UNIX_NAMES;
			r = ll_add_rule(pt->ll, fd, a);
			ll_fd_run_add(&run, fd);
			pt->err_add = r < 0;
			pt->n_rules += !r;
		}
		if (r < 0) {
			pt->err_i = i;
			pt->err = r;
			break;
		}
	}
	ll_fd_run_flush(&run);
	ll_dirs_close(dirs);
	free(dirs);
	return NULL;
}

/* Lists this long are added by two threads (each opens, fstats and adds
 * half of the entries), shorter ones by this thread alone. */
#define LL_PARALLEL_MIN 4096

/* The parts of a list run, the second in a thread of its own when there
 * are two (or here, when no thread can be made). */
static void ll_parts_run(struct ll_part *pt, size_t n_parts)
{
	sigset_t all, old;
	pthread_t t;
	int err = -1;

	if (n_parts == 2) {
		/* signals stay the main thread's */
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = pthread_create(&t, NULL, ll_part_run, &pt[1]);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	ll_part_run(&pt[0]);
	if (n_parts == 2 && !err)
		pthread_join(t, NULL);
	else if (n_parts == 2)
		ll_part_run(&pt[1]);
}

/* The entries of list, in order: the inexact ones refused or (with
 * "approximate") dropped, up to the first hard error, which fails the
 * list. The error texts are made only for an entry that fails. Entries
 * under the scratch path get none (the one on the path itself is added in
 * the child, on the tmpfs: ll_scratch_access). */
static int ll_add_list(struct rf_landlock *ll, const struct rf_landlock_opts *opts,
		       const struct rf_path_list *list, const char *where_base,
		       uint64_t file_access, uint64_t dir_access, const char *const *hidden,
		       const struct rf_policy *unix_names, struct rf_error *err)
{
	char where[64], entry[sizeof(where) + RF_POLICY_PATH_MAX + 4];
	struct ll_part pt[2];
	size_t n_parts = list->n >= LL_PARALLEL_MIN ? 2 : 1, k, i, stop;
	const struct ll_part *bad = NULL;
	int8_t *res;
	int r;

	if (!list->n)
		return 0;
	res = malloc(list->n);
	if (!res)
		return rf_error_set(err, -ENOMEM, where_base, "out of memory");
	for (k = 0; k < n_parts; k++)
		pt[k] = (struct ll_part){
			.ll = ll, .list = list, .hidden = hidden, .file_access = file_access,
			.dir_access = dir_access, .unix_names = unix_names,
			.lo = list->n * k / n_parts,
			.hi = list->n * (k + 1) / n_parts, .res = res,
		};
	ll_parts_run(pt, n_parts);
	for (k = 0; k < n_parts; k++) {
		ll->n_fs_rules += pt[k].n_rules;
		if (!bad && pt[k].err)
			bad = &pt[k];
	}
	stop = bad ? bad->err_i : list->n;
	for (i = 0, r = 0; i < stop && r >= 0; i++) {
		const struct rf_path_rule *rule = &list->v[i];

		if (res[i] <= 0)
			continue;
		ll_entry_name(where_base, i, rule->path, entry, sizeof(entry));
		if (!opts->approximate) {
			r = ll_refuse(ll, rule, entry, res[i], err);
			continue;
		}
		snprintf(where, sizeof(where), "%s[%zu]", where_base, i);
		r = ll_add_approx(ll, where, ll_inexact_text[res[i]].what);
		if (r < 0)
			rf_error_set(err, r, where, "out of memory");
	}
	free(res);
	if (r < 0 || !bad)
		return r;
	if (bad->err_i >= list->n)   /* no entry: out of memory */
		return rf_error_set(err, bad->err, where_base, "out of memory");
	ll_entry_name(where_base, bad->err_i, list->v[bad->err_i].path, entry, sizeof(entry));
	if (bad->err_add)
		return rf_error_set(err, bad->err, entry, "landlock_add_rule: %s",
				    strerror(-bad->err));
	return rf_error_set(err, bad->err, entry, "cannot open: %s", strerror(-bad->err));
}

/*
 * Files and exec share one ruleset and one handled_access_fs mask, and
 * Landlock cannot leave one class unhandled while handling the other through
 * it: REFER is implicitly handled by every domain (cross-directory renames
 * fail unless granted), and execve needs READ_FILE as well as EXECUTE. So
 * the mask always holds every right of the ABI, and an unrestricted class
 * gets a rule on "/" with all of its rights. A DENY_ALL class gets no rules.
 */
static int ll_plan_fs(const struct rf_policy *policy, const struct rf_landlock_opts *opts,
		      struct rf_landlock *ll, struct rf_error *err)
{
	bool files_free = policy->files == RF_CONFINE_UNRESTRICTED;
	bool exec_free = policy->exec == RF_CONFINE_UNRESTRICTED;

	if (files_free && exec_free)
		return 0;
	/* Unhandled TRUNCATE lets truncate() shorten any file the user may
	 * write by DAC: broader than the policy, so no approximation. */
	if (!files_free && opts->abi < 3) {
		rf_error_set(err, -EOPNOTSUPP, "$.files",
			     "Landlock ABI %d cannot confine truncate()", opts->abi);
		return rf_error_hint(err, "files needs ABI 3+");
	}
	/* Without REFER, Landlock denies every cross-directory rename and
	 * link (EXDEV): narrower than a writable area, so approximable. */
	if (opts->abi < 2 && (files_free || policy->files_write.n > 0)) {
		const char *where = files_free ? "$.files" : "$.files.write";

		if (!opts->approximate) {
			return rf_error_set(err, -EINVAL, where,
					    "Landlock ABI %d cannot allow renames or links across "
					    "directories (REFER needs ABI 2+) (or set \"approximate\": "
					    "true)", opts->abi);
		}
		if (ll_add_approx(ll, where,
				  "narrowed: renames and links across directories fail with EXDEV "
				  "(Landlock ABI 1 has no REFER right)") < 0)
			return rf_error_set(err, -ENOMEM, where, "out of memory");
	}
	ll->handled_fs = ll_fs_rights(opts->abi);
	return 0;
}

static int ll_add_fs_rules(const struct rf_policy *policy, const struct rf_landlock_opts *opts,
			   struct rf_landlock *ll, struct rf_error *err)
{
	/* The mounts the child makes: the scratch, /dev/shm, a private /tmp,
	 * /proc, the sandbox's devpts (what they hide gets no rule). */
	const char *scratch[6] = { "/dev/shm", "/proc", "/dev/pts" };
	uint64_t all = ll->handled_fs;
	size_t nh = 3;

	if (policy->limits.scratch.set)
		scratch[nh++] = policy->limits.scratch.path;
	if (opts->private_tmp)
		scratch[nh++] = "/tmp";
	scratch[nh] = NULL;
	int r;

	if (policy->files == RF_CONFINE_UNRESTRICTED) {
		r = ll_add_root(ll, all & ~LANDLOCK_ACCESS_FS_EXECUTE, err);
		if (r < 0)
			return r;
	} else if (policy->files == RF_CONFINE_ALLOWLIST) {
		r = ll_add_list(ll, opts, &policy->files_read, "$.files.read",
				LANDLOCK_ACCESS_FS_READ_FILE, LL_FS_READ_DIR, scratch, NULL, err);
		if (r < 0)
			return r;
		r = ll_add_list(ll, opts, &policy->files_write, "$.files.write",
				(LANDLOCK_ACCESS_FS_READ_FILE | LL_FS_WRITE_DIR) & LL_FS_FILE,
				LL_FS_READ_DIR | LL_FS_WRITE_DIR, scratch,
				opts->unix_names ? policy : NULL, err);
		if (r < 0)
			return r;
	}

	/* Exec also grants READ_FILE: the kernel opens the binary for reading
	 * (Landlock checks READ_FILE on execve too), and ld.so and script
	 * interpreters read what they run. */
	if (policy->exec == RF_CONFINE_UNRESTRICTED) {
		r = ll_add_root(ll, LANDLOCK_ACCESS_FS_EXECUTE, err);
		if (r < 0)
			return r;
	} else if (policy->exec == RF_CONFINE_ALLOWLIST) {
		uint64_t x = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE;

		r = ll_add_list(ll, opts, &policy->exec_paths, "$.exec", x, x, scratch, NULL, err);
		if (r < 0) {
			ll->refused_class = RF_CLASS_EXEC;
			return r;
		}
	}
	if (ll->n_refusals) {
		ll->refused_class = ll->refusals[0].cls;
		return -EINVAL;
	}
	return 0;
}

/* The entries strictly below /proc/, with the rights ll_add_fs_rules
 * would give them, for the child (rf_landlock_later). */
static int ll_later_list(struct rf_landlock *ll, const struct rf_path_list *list,
			 uint64_t file_access, uint64_t dir_access)
{
	for (size_t i = 0; i < list->n; i++) {
		const struct rf_path_rule *r = &list->v[i];
		struct rf_landlock_later *v;

		if (strncmp(r->path, "/proc/", 6) || !r->path[6])
			continue;
		v = realloc(ll->later, (ll->n_later + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ll->later = v;
		v[ll->n_later++] = (struct rf_landlock_later){
			r->path, (r->subtree ? dir_access : file_access) & ll->handled_fs, r->subtree };
	}
	return 0;
}

static int ll_later_lists(const struct rf_policy *p, struct rf_landlock *ll)
{
	uint64_t x = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE;
	int r = 0;

	if (p->files == RF_CONFINE_ALLOWLIST) {
		r = ll_later_list(ll, &p->files_read, LANDLOCK_ACCESS_FS_READ_FILE, LL_FS_READ_DIR);
		if (!r)
			r = ll_later_list(ll, &p->files_write,
					  (LANDLOCK_ACCESS_FS_READ_FILE | LL_FS_WRITE_DIR) & LL_FS_FILE,
					  LL_FS_READ_DIR | LL_FS_WRITE_DIR);
	}
	if (!r && p->exec == RF_CONFINE_ALLOWLIST)
		r = ll_later_list(ll, &p->exec_paths, x, x);
	return r;
}

int sandbox_landlock__add_later(int ruleset_fd, const struct rf_landlock_later *e)
{
	struct ll_path_beneath_attr attr = { .allowed_access = e->access };
	int r = 0;

	attr.parent_fd = open(e->path, O_PATH | O_CLOEXEC | (e->subtree ? O_DIRECTORY : 0));
	if (attr.parent_fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
	if (syscall(__NR_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &attr, 0) < 0)
		r = -errno;
	close(attr.parent_fd);
	return r;
}

/* "/tmp/" names scratch path "/tmp": a subtree entry of exactly that directory. */
static bool ll_names_dir(const struct rf_path_rule *rule, const char *dir)
{
	size_t n = strlen(dir);

	return rule->subtree && !strncmp(rule->path, dir, n) && !strcmp(rule->path + n, "/");
}

/* The rights ll_add_fs_rules gave entries on directory dir itself. */
static uint64_t ll_dir_access(const struct rf_policy *p, const struct rf_landlock_opts *opts,
			      const char *dir, uint64_t handled)
{
	uint64_t a = 0;
	size_t i;

	for (i = 0; p->files == RF_CONFINE_ALLOWLIST && i < p->files_read.n; i++)
		if (ll_names_dir(&p->files_read.v[i], dir))
			a |= LL_FS_READ_DIR;
	for (i = 0; p->files == RF_CONFINE_ALLOWLIST && i < p->files_write.n; i++) {
		const struct rf_path_rule *w = &p->files_write.v[i];

		if (ll_names_dir(w, dir))
			a |= LL_FS_READ_DIR |
			     (opts->unix_names && policy__unix_name_in_write(p, w) ?
			      LL_FS_WRITE_DIR & ~(uint64_t)LL_FS_UNIX_NAMES : LL_FS_WRITE_DIR);
	}
	for (i = 0; p->exec == RF_CONFINE_ALLOWLIST && i < p->exec_paths.n; i++)
		if (ll_names_dir(&p->exec_paths.v[i], dir))
			a |= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE;
	return a & handled;
}

int sandbox_landlock__add_path(int ruleset_fd, const char *path, uint64_t access)
{
	struct ll_path_beneath_attr attr = { .allowed_access = access };
	int r = 0;

	attr.parent_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (attr.parent_fd < 0)
		return -errno;
	if (syscall(__NR_landlock_add_rule, ruleset_fd, LL_RULE_PATH_BENEATH, &attr, 0) < 0)
		r = -errno;
	close(attr.parent_fd);
	return r;
}

/* A failed port rule, named by the first connect entry that lists port. */
static int ll_port_error(const struct rf_policy *policy, unsigned int port, int r,
			 struct rf_error *err)
{
	char where[64 + RF_DNS_NAME_MAX];
	size_t i = 0;

	while (i + 1 < policy->n_connect &&
	       (port < policy->connect[i].port_lo || port > policy->connect[i].port_hi))
		i++;
	snprintf(where, sizeof(where), "$.network.connect[%zu] \"%s\"", i,
		 policy->connect[i].text);
	return rf_error_set(err, r, where, "landlock_add_rule port %u: %s", port, strerror(-r));
}

/* Landlock knows ports, not addresses: this is a second, port-only layer
 * under the cgroup programs. One rule per distinct port: the entries'
 * ranges merged first. */
static int ll_add_net_rules(const struct rf_policy *policy, struct rf_landlock *ll,
			    struct rf_error *err)
{
	_cleanup_free_ struct rf_port_range *r = NULL;
	struct ll_net_port_attr attr = { .allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP };
	size_t i, n = policy->n_connect;
	unsigned int port;

	r = malloc((n ? n : 1) * sizeof(*r));
	if (!r)
		return rf_error_set(err, -ENOMEM, "$.network.connect", "out of memory");
	for (i = 0; i < n; i++)
		r[i] = (struct rf_port_range){ policy->connect[i].port_lo,
					       policy->connect[i].port_hi };
	n = netrules__merge_ports(r, n);
	for (i = 0; i < n; i++)
		for (port = r[i].lo; port <= r[i].hi; port++) {
			attr.port = port;
			if (syscall(__NR_landlock_add_rule, ll->ruleset_fd, LL_RULE_NET_PORT,
				    &attr, 0) < 0)
				return ll_port_error(policy, port, -errno, err);
			ll->n_net_rules++;
		}
	return 0;
}

void sandbox_landlock__free(struct rf_landlock *ll)
{
	if (!ll)
		return;
	if (ll->ruleset_fd >= 3)
		close(ll->ruleset_fd);
	free(ll->approx);
	free(ll->later);
	memset(ll, 0, sizeof(*ll));
	ll->ruleset_fd = -1;
}

int sandbox_landlock__build(const struct rf_policy *policy,
			    const struct rf_landlock_opts *opts,
			    struct rf_landlock *ret, struct rf_error *err)
{
	struct ll_ruleset_attr attr = { 0 };
	struct rf_landlock ll = { .ruleset_fd = -1, .refused_class = RF_CLASS_FILE };
	struct rf_landlock_refusal refusals[RF_LANDLOCK_REFUSALS_MAX];
	size_t n_refusals;
	enum rf_class refused;
	int fd, r;

	if (!policy || !opts || !ret)
		return -EINVAL;
	*ret = ll;
	ll.abi = opts->abi;

	if ((opts->fs || opts->net_connect || opts->scope_abstract_unix ||
	     opts->scope_signal) && opts->abi < 1) {
		return rf_error_set(err, -EOPNOTSUPP, NULL,
				    "Landlock is not available on this kernel");
	}
	if (opts->fs) {
		r = ll_plan_fs(policy, opts, &ll, err);
		if (r < 0)
			goto fail;
	}
	/* Binding stays free: ringfence does not confine listening. */
	if (opts->net_connect && opts->abi >= 4 &&
	    policy->net_connect != RF_CONFINE_UNRESTRICTED)
		ll.handled_net = LANDLOCK_ACCESS_NET_CONNECT_TCP;
	if (opts->abi >= 6) {
		if (opts->scope_abstract_unix)
			ll.scoped |= LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
		if (opts->scope_signal)
			ll.scoped |= LANDLOCK_SCOPE_SIGNAL;
	}
	if (!ll.handled_fs && !ll.handled_net && !ll.scoped) {
		*ret = ll;
		return 0;
	}

	attr.handled_access_fs = ll.handled_fs;
	attr.handled_access_net = ll.handled_net;
	attr.scoped = ll.scoped;
	fd = syscall(__NR_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0) {
		r = -errno;
		rf_error_set(err, r, NULL, "landlock_create_ruleset (ABI %d): %s", opts->abi,
			     strerror(-r));
		goto fail;
	}
	/* Keep it off stdio (see the conventions above). */
	if (fd < 3) {
		int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);

		r = -errno;
		close(fd);
		if (moved < 0) {
			rf_error_set(err, r, "landlock", "move ruleset fd: %s", strerror(-r));
			goto fail;
		}
		fd = moved;
	}
	ll.ruleset_fd = fd;

	if (ll.handled_fs) {
		r = ll_add_fs_rules(policy, opts, &ll, err);
		if (r < 0)
			goto fail;
		if (policy->limits.scratch.set)
			ll.scratch_access = ll_dir_access(policy, opts, policy->limits.scratch.path,
							  ll.handled_fs);
		ll.proc_access = ll_dir_access(policy, opts, "/proc", ll.handled_fs);
		r = ll_later_lists(policy, &ll);
		if (r < 0) {
			rf_error_set(err, r, "landlock", "out of memory");
			goto fail;
		}
		ll.shm_access = ll_dir_access(policy, opts, "/dev/shm", ll.handled_fs);
		ll.devpts_access = ll_dir_access(policy, opts, "/dev/pts", ll.handled_fs);
		ll.tmp_access = opts->private_tmp ? ll_dir_access(policy, opts, "/tmp", ll.handled_fs) : 0;
	}
	if (ll.handled_net) {
		r = ll_add_net_rules(policy, &ll, err);
		if (r < 0)
			goto fail;
	}
	*ret = ll;
	return 0;

fail:
	refused = ll.refused_class;
	n_refusals = ll.n_refusals;
	memcpy(refusals, ll.refusals, sizeof(refusals));
	sandbox_landlock__free(&ll);
	ret->refused_class = refused;
	ret->n_refusals = n_refusals;
	memcpy(ret->refusals, refusals, sizeof(refusals));
	return r;
}

/* Syscall only: callable between clone3 and execve. The ruleset fd is
 * O_CLOEXEC and left open for the caller. */
int sandbox_landlock__restrict(int ruleset_fd)
{
	if (ruleset_fd < 0)
		return 0;
	/* ABI 7: also log denials after the exec, i.e. the command's own (by
	 * default only the restricting program's are); they reach the audit
	 * stream only while the kernel's audit is on. An older kernel knows
	 * no flags: EINVAL, then without. */
	if (syscall(__NR_landlock_restrict_self, ruleset_fd,
		    RF_LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0) < 0)
		return -errno;
	return 0;
}
