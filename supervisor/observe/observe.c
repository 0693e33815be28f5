// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * observe.bpf.c reports failed syscalls of sandboxed tasks; only some are
 * the policy's doing. A path syscall that failed EACCES/EPERM is a policy
 * denial when the policy (the same model the BPF-LSM programs use,
 * pathrules.c) refuses the access it needed; a seccomp boundary syscall
 * that failed EPERM is one when the boundary filter refuses those
 * arguments. Everything else (file modes, a missing capability) is not
 * ringfence's and is only counted.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <seccomp.h>
#include <bpf/bpf.h>

#include "backends/boundary_consts.h"
#include "launch/dynuser.h"
#include "log.h"
#include "observe.h"
#include "pins.h"

#define ACC_RW (RF_ACC_READ | RF_ACC_WRITE)

bool observe__test_disabled(void)
{
	const char *gate = getenv("RINGFENCE_TEST_HOOKS");
	const char *off = getenv("RINGFENCE_TEST_NO_OBSERVE");

	return gate && !strcmp(gate, "1") && off && !strcmp(off, "1");
}

int observe__init(struct rf_observer *o, const struct rf_policy *p, const struct rf_plan *plan)
{
	memset(o, 0, sizeof(*o));
	o->policy = p;
	o->plan = plan;
	o->verdict_fd = -1;
	return 0;  /* the path model is built when a record first needs it */
}

uint32_t observe__have(struct rf_observer *o, const char *path)
{
	int err;

	if (path[0] != '/' || !o->policy)
		return 0;
	/* Most runs judge nothing: building the model up front cost every
	 * start ~1 us per file rule. */
	if (!o->paths_built) {
		err = pathrules__build(o->policy, &o->paths, &o->n_paths, NULL);
		if (err) {
			rf_err("observe: building the path model: %s (judged as no rule)",
			       strerror(-err));
			return 0;
		}
		o->paths_built = true;
	}
	return pathrules__lookup(o->paths, o->n_paths, path);
}

void observe__free(struct rf_observer *o)
{
	if (!o)
		return;
	free(o->paths);
	free(o->seen);
	if (o->verdict_fd >= 0)
		close(o->verdict_fd);
	o->verdict_fd = -1;
	o->paths = NULL;
	o->seen = NULL;
	o->n_paths = o->n_seen = 0;
	o->paths_built = false;
	o->policy = NULL;  /* freed: nothing more to build the model from */
}

int observe__open_verdicts(struct rf_observer *o)
{
	int fd = rf_pins__get(RF_PIN_OBS_VERDICT);

	if (fd < 0)
		return fd;
	if (o->verdict_fd >= 0)
		close(o->verdict_fd);
	o->verdict_fd = fd;
	return 0;
}

void observe__publish(struct rf_observer *o, const struct rf_event *ev)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = ev, .ctx_size_in = sizeof(*ev));

	/* retval: 0 published, 1 ring buffer full (counted host-wide as
	 * ringbuf_lost, which the monitor reports), 2 not a decision. */
	if (o->verdict_fd >= 0 && !bpf_prog_test_run_opts(o->verdict_fd, &run) && !run.retval)
		o->published++;
	else
		o->unpublished++;
}

#define SEEN_CAP 8192   /* distinct audited lines remembered; beyond, all traced */

/* An audited access traced before (true), or remember it. */
static bool seen_before(struct rf_observer *o, const struct rf_event *ev)
{
	uint64_t h = 1469598103934665603ULL;  /* FNV-1a */
	size_t i, n = strnlen(ev->path, sizeof(ev->path));

	for (i = 0; i < n; i++)
		h = (h ^ (uint8_t)ev->path[i]) * 1099511628211ULL;
	h = (h ^ (ev->class << 16 | ev->op << 4 | ev->need)) * 1099511628211ULL;
	h |= 1;  /* never 0, the empty slot */
	if (!o->seen && !(o->seen = calloc(SEEN_CAP, sizeof(*o->seen))))
		return false;
	for (i = h % SEEN_CAP; o->seen[i]; i = (i + 1) % SEEN_CAP)
		if (o->seen[i] == h)
			return true;
	if (o->n_seen >= SEEN_CAP / 2)
		return false;  /* full enough: trace, do not remember */
	o->seen[i] = h;
	o->n_seen++;
	return false;
}

/* Lexically clean an absolute path in place: "//", ".", ".." (the
 * kernel would walk ".." after symlinks; realpath below does that where
 * the names exist). */
static void clean_path(char *p)
{
	char buf[PATH_MAX];
	const char *s = p, *e;
	size_t o = 0, n;

	while (*s) {
		while (*s == '/')
			s++;
		e = strchrnul(s, '/');
		n = (size_t)(e - s);
		if (n == 0)
			break;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && buf[--o] != '/')
				;
		} else if (!(n == 1 && s[0] == '.') && o + 1 + n < sizeof(buf)) {
			buf[o++] = '/';
			memcpy(buf + o, s, n);
			o += n;
		}
		s = e;
	}
	if (!o)
		buf[o++] = '/';
	buf[o] = 0;
	memcpy(p, buf, o + 1);
}

/* The absolute path of a record, as the kernel would resolve it as far as
 * it can be seen from here: relative names against the process's cwd or
 * dirfd (while it lives), symlinks resolved where they exist. */
static void resolve_path(const struct rf_event *ev, char *out, size_t len)
{
	char raw[RF_EVENT_PATH_LEN + 1], base[PATH_MAX] = "", link[64], *slash, *real;
	uint32_t n = ev->path_len < RF_EVENT_PATH_LEN ? ev->path_len : RF_EVENT_PATH_LEN;
	ssize_t b;

	memcpy(raw, ev->path, n);
	raw[n] = 0;
	if (raw[0] != '/') {
		if ((int32_t)ev->target_pid == -100)
			snprintf(link, sizeof(link), "/proc/%u/cwd", ev->pid);
		else
			snprintf(link, sizeof(link), "/proc/%u/fd/%d", ev->pid, (int)ev->target_pid);
		b = readlink(link, base, sizeof(base) - 1);
		base[b > 0 ? b : 0] = 0;
	}
	snprintf(out, len, "%s%s%s", base, base[0] && raw[0] ? "/" : "", raw);
	if (out[0] != '/')
		return;  /* its directory is gone: the name as given */
	clean_path(out);
	real = realpath(out, NULL);
	if (!real) {
		/* A name to be created: resolve its directory. */
		slash = strrchr(out, '/');
		if (slash && slash != out) {
			*slash = 0;
			real = realpath(out, NULL);
			*slash = '/';
			if (real) {
				char *joined = NULL;

				if (asprintf(&joined, "%s%s", strcmp(real, "/") ? real : "", slash) < 0)
					joined = NULL;
				free(real);
				real = joined;
			}
		}
	}
	if (real && strlen(real) < len)
		snprintf(out, len, "%s", real);
	free(real);
}

/* The access a path syscall needs, as the BPF-LSM programs count it. */
static uint32_t path_need(struct rf_event *ev, const char *path)
{
	uint32_t fl = ev->arg;

	switch (ev->op) {
	case RF_OP_EXEC:
		return RF_ACC_EXEC;
	case RF_OP_FILE_OPEN:
		if (fl & O_PATH)
			return 0;  /* no access to the file: nothing judged */
		if ((fl & O_CREAT) && access(path, F_OK)) {
			ev->op = RF_OP_CREATE;
			return RF_ACC_WRITE;
		}
		if ((fl & O_ACCMODE) == O_RDONLY && !(fl & O_TRUNC))
			return RF_ACC_READ;
		return (fl & O_ACCMODE) == O_WRONLY ? RF_ACC_WRITE : ACC_RW;
	case RF_OP_UNLINK:
		if (ev->arg & AT_REMOVEDIR)
			ev->op = RF_OP_RMDIR;
		return RF_ACC_WRITE;
	default:
		return RF_ACC_WRITE;
	}
}

int observe__interpreter(const char *path, char *out, size_t len)
{
	unsigned char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);
	const Elf64_Ehdr *eh = (const void *)buf;
	int i, err = -ENOENT;

	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		size_t s = 2, e;

		buf[n] = 0;
		while (buf[s] == ' ' || buf[s] == '\t')
			s++;
		for (e = s; buf[e] && buf[e] != ' ' && buf[e] != '\t' && buf[e] != '\n'; e++)
			;
		if (e > s && e - s < len) {
			memcpy(out, buf + s, e - s);
			out[e - s] = 0;
			err = 0;
		}
	} else if (n >= (ssize_t)sizeof(*eh) && !memcmp(buf, ELFMAG, SELFMAG) &&
		   buf[EI_CLASS] == ELFCLASS64) {
		for (i = 0; i < eh->e_phnum && err; i++) {
			Elf64_Phdr ph;

			if (pread(fd, &ph, sizeof(ph), eh->e_phoff + (off_t)i * eh->e_phentsize) !=
			    sizeof(ph) || ph.p_type != PT_INTERP)
				continue;
			if (ph.p_filesz == 0 || ph.p_filesz > len ||
			    pread(fd, out, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz)
				break;
			out[ph.p_filesz - 1] = 0;
			err = 0;
		}
	}
	if (fd >= 0)
		close(fd);
	return err;
}

/* A dynamic uid's EACCES that file modes gave (a directory on the way it
 * may not search, a file's mode), outside the write areas (id-mapped: root's
 * files there are its own): the kernel checks them before Landlock's hooks
 * run, so the policy did not refuse it. */
static bool by_file_modes(const struct rf_observer *o, const struct rf_event *ev,
			  const char *path, uint32_t need)
{
	const struct rf_path_list *w = &o->policy->files_write;
	const char *areas[64];
	size_t n = 0;
	char why[64];

	if (!o->dynamic_uid || ev->flags & (RF_EVF_ACCESS | RF_EVF_ERRNO_EPERM) ||
	    path[0] != '/')
		return false;
	for (size_t i = 0; i < w->n && n < sizeof(areas) / sizeof(areas[0]); i++)
		areas[n++] = w->v[i].path;
	return dynuser__refused(path, (need & RF_ACC_READ ? R_OK : 0) |
				(need & RF_ACC_WRITE ? W_OK : 0) | (need & RF_ACC_EXEC ? X_OK : 0),
				areas, n, why, sizeof(why)) == 1;
}

/* Judge a path record: fill need/have/reason and the path; true when the
 * policy refuses it. */
static bool judge_path(struct rf_observer *o, struct rf_event *ev)
{
	char path[PATH_MAX], interp[PATH_MAX];
	enum rf_class c = ev->class;
	uint32_t need, have;

	if (!plan__observed_class(o->plan, c) || !ev->path_len)
		return false;
	resolve_path(ev, path, sizeof(path));
	need = path_need(ev, path);
	have = observe__have(o, path);
	/* An allowed binary that failed to exec: its loader or #! interpreter
	 * is what was refused (execve opens it under the same rules). */
	if (c == RF_CLASS_EXEC && (have & need) == need && !(ev->flags & RF_EVF_ACCESS) &&
	    !observe__interpreter(path, interp, sizeof(interp))) {
		/* as the kernel opens it: symlinks resolved */
		if (!realpath(interp, path))
			snprintf(path, sizeof(path), "%s", interp);
		have = observe__have(o, path);
	}
	/* Landlock has no rules for these: only an audit can say. */
	if (!(ev->flags & RF_EVF_ACCESS) &&
	    (ev->op == RF_OP_CHMOD || ev->op == RF_OP_CHOWN || ev->op == RF_OP_UTIMES))
		return false;
	if (!need || (path[0] == '/' && (have & need) == need))
		return false;
	if (by_file_modes(o, ev, path, need)) {
		o->file_modes++;
		return false;
	}
	ev->need = need;
	ev->have = have;
	/* A relative name whose process (or directory) was gone before it
	 * could be placed: the policy cannot say; traced as unresolved. */
	ev->reason = path[0] != '/' ? RF_REASON_BAD_PATH :
		     have ? RF_REASON_ACCESS : RF_REASON_NO_RULE;
	memset(ev->path, 0, sizeof(ev->path));
	snprintf(ev->path, sizeof(ev->path), "%s", path);
	ev->path_len = strlen(ev->path);
	ev->flags &= ~RF_EVF_DIRFD;
	return true;
}

/* A boundary record: refused by the filter for these arguments? */
static bool judge_boundary(struct rf_observer *o, struct rf_event *ev)
{
	if (!o->plan->install.seccomp_boundary)
		return false;
	switch (ev->op) {
	case RF_OP_NAMESPACE:
		if (!(ev->arg & RF_NS_FLAGS))
			return false;
		if (ev->arg & CLONE_NEWUSER)
			ev->op = RF_OP_USERNS;
		return true;
	case RF_OP_TTY_IOCTL:
		return ev->arg == TIOCSTI || ev->arg == TIOCLINUX;
	case RF_OP_PERSONALITY:
		return ev->arg != 0 && ev->arg != 0xffffffffu;
	default:
		return true;
	}
}

bool observe__judge(struct rf_observer *o, struct rf_event *ev)
{
	bool access = ev->flags & RF_EVF_ACCESS, deny;

	if (!(ev->flags & RF_EVF_INFERRED) || ev->class >= RF_CLASS_KERNEL_MAX)
		return false;
	/* the seccomp boundary's, its hole rules' (any class) included */
	deny = ev->reason == RF_REASON_BOUNDARY ? !access && judge_boundary(o, ev)
						: judge_path(o, ev);
	if (!deny) {
		if (!access)
			o->not_policy++;
		return false;
	}
	if (access) {
		ev->verdict = RF_VERDICT_AUDITED;
		if (seen_before(o, ev)) {
			o->repeats++;
			return false;
		}
		o->audited[ev->class]++;
	} else {
		ev->verdict = RF_VERDICT_DENIED;
		o->inferred[ev->class]++;
		if (ev->class == RF_CLASS_EXEC && ev->path[0])
			snprintf(o->exec_denied, sizeof(o->exec_denied), "%s", ev->path);
	}
	return true;
}

const char *observe__backend(const struct rf_observer *o, const struct rf_event *ev,
			     char *buf, size_t len)
{
	if (!(ev->flags & RF_EVF_INFERRED))
		return NULL;
	if (ev->reason == RF_REASON_BOUNDARY)
		snprintf(buf, len, "seccomp");
	else
		plan__backend_text(o->plan, ev->class, buf, len);
	return buf;
}
