// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Landlock's denial records from the kernel's audit stream. See
 * landlock_audit.h; record formats from security/landlock/audit.c:
 *   1423 "domain=%llx blockers=fs.read_file path=\"/etc/x\" dev=... ino=..."
 *   1424 "domain=%llx status=allocated mode=enforcing pid=%d uid=%u exe=... comm=..."
 *   1424 "domain=%llx status=deallocated denials=%llu"
 * The DOMAIN record follows the first ACCESS record of a domain.
 */
#include <errno.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "audit_nl.h"
#include "landlock_audit.h"

#ifndef AUDIT_NLGRP_READLOG
#define AUDIT_NLGRP_READLOG 1
#endif

/* The value of "key=" in text, copied raw (up to the next space) into
 * out; false when absent. */
static bool field(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), n;
	const char *p = text;

	while ((p = strstr(p, key))) {
		if ((p == text || p[-1] == ' ') && p[klen] == '=') {
			p += klen + 1;
			n = strcspn(p, " ");
			if (n >= len)
				n = len - 1;
			memcpy(out, p, n);
			out[n] = 0;
			return true;
		}
		p += klen;
	}
	return false;
}

/* audit_log_untrustedstring: "quoted" or, when it has spaces, quotes or
 * control characters, hex without quotes. */
static void untrusted(const char *text, const char *key, char *out, size_t len)
{
	char raw[2 * PATH_MAX + 3];
	size_t i, n;

	out[0] = 0;
	if (!field(text, key, raw, sizeof(raw)))
		return;
	n = strlen(raw);
	if (raw[0] == '"') {
		n = n >= 2 && raw[n - 1] == '"' ? n - 2 : n - 1;
		if (n >= len)
			n = len - 1;
		memcpy(out, raw + 1, n);
		out[n] = 0;
		return;
	}
	for (i = 0; i + 1 < n && i / 2 + 1 < len; i += 2) {
		unsigned int c;

		if (sscanf(raw + i, "%2x", &c) != 1)
			break;
		out[i / 2] = (char)c;
	}
	out[i / 2] = 0;
}

int landlock_audit__parse(int type, const char *text, size_t len, struct rf_ll_record *ret)
{
	char buf[8192], v[64];
	unsigned long long sec, msec;
	const char *body;

	memset(ret, 0, sizeof(*ret));
	if (type != RF_AUDIT_LANDLOCK_ACCESS && type != RF_AUDIT_LANDLOCK_DOMAIN)
		return -EINVAL;
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, text, len);
	buf[len] = 0;
	len = strnlen(buf, len);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == 0))
		buf[--len] = 0;
	ret->type = type;
	if (sscanf(buf, "audit(%llu.%llu:", &sec, &msec) == 2)
		ret->real_ns = sec * 1000000000ull + msec * 1000000ull;
	body = strstr(buf, "): ");
	body = body ? body + 3 : buf;
	if (!field(body, "domain", v, sizeof(v)) || sscanf(v, "%llx", &sec) != 1)
		return -EINVAL;
	ret->domain = sec;
	if (type == RF_AUDIT_LANDLOCK_ACCESS) {
		if (!field(body, "blockers", ret->blockers, sizeof(ret->blockers)))
			return -EINVAL;
		untrusted(body, "path", ret->path, sizeof(ret->path));
		if (!ret->path[0])  /* a dentry: only its name */
			untrusted(body, "name", ret->path, sizeof(ret->path));
		return 0;
	}
	if (!field(body, "status", v, sizeof(v)))
		return -EINVAL;
	ret->allocated = !strcmp(v, "allocated");
	if (ret->allocated) {
		if (!field(body, "pid", v, sizeof(v)))
			return -EINVAL;
		ret->pid = (pid_t)atoi(v);
		untrusted(body, "exe", ret->exe, sizeof(ret->exe));
		untrusted(body, "comm", ret->comm, sizeof(ret->comm));
	} else if (field(body, "denials", v, sizeof(v))) {
		ret->has_denials = true;
		ret->denials = strtoull(v, NULL, 10);
	}
	return 0;
}

/* Landlock's access names (uapi/linux/landlock.h order) as ringfence ops. */
static const struct {
	const char *name;
	uint32_t op, need;
} blockers[] = {
	{ "fs.execute", RF_OP_EXEC, RF_ACC_EXEC },
	{ "fs.write_file", RF_OP_FILE_OPEN, RF_ACC_WRITE },
	{ "fs.read_file", RF_OP_FILE_OPEN, RF_ACC_READ },
	{ "fs.read_dir", RF_OP_FILE_OPEN, RF_ACC_READ },
	{ "fs.remove_dir", RF_OP_RMDIR, RF_ACC_WRITE },
	{ "fs.remove_file", RF_OP_UNLINK, RF_ACC_WRITE },
	{ "fs.make_char", RF_OP_MKNOD, RF_ACC_WRITE },
	{ "fs.make_dir", RF_OP_MKDIR, RF_ACC_WRITE },
	{ "fs.make_reg", RF_OP_CREATE, RF_ACC_WRITE },
	{ "fs.make_sock", RF_OP_MKNOD, RF_ACC_WRITE },
	{ "fs.make_fifo", RF_OP_MKNOD, RF_ACC_WRITE },
	{ "fs.make_block", RF_OP_MKNOD, RF_ACC_WRITE },
	{ "fs.make_sym", RF_OP_SYMLINK, RF_ACC_WRITE },
	{ "fs.refer", RF_OP_RENAME, RF_ACC_WRITE },
	{ "fs.truncate", RF_OP_TRUNCATE, RF_ACC_WRITE },
	{ "fs.ioctl_dev", RF_OP_FILE_OPEN, RF_ACC_WRITE },
};

bool landlock_audit__to_event(const struct rf_ll_record *r, struct rf_event *ev)
{
	char list[sizeof(r->blockers)], *tok, *save = NULL;
	size_t i;

	memset(ev, 0, sizeof(*ev));
	if (r->type != RF_AUDIT_LANDLOCK_ACCESS)
		return false;
	snprintf(list, sizeof(list), "%s", r->blockers);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(blockers) / sizeof(blockers[0]); i++) {
			if (strcmp(tok, blockers[i].name))
				continue;
			/* execve's open names execute (and read): an exec denial */
			if (!ev->op || blockers[i].op == RF_OP_EXEC)
				ev->op = blockers[i].op;
			ev->need |= blockers[i].need;
		}
	}
	if (!ev->op)
		return false;  /* net.*, scope.*, ptrace: not traced from here */
	ev->class = ev->op == RF_OP_EXEC ? RF_CLASS_EXEC : RF_CLASS_FILE;
	ev->verdict = RF_VERDICT_DENIED;
	snprintf(ev->path, sizeof(ev->path), "%s", r->path);
	ev->path_len = strlen(ev->path);
	return true;
}

/* audit_status.lost from one AUDIT_GET; -errno on failure. */
static int64_t audit_lost(void)
{
	struct audit_status st;
	int err = audit_nl__status(&st, NULL);

	return err ? err : (int64_t)st.lost;
}

int landlock_audit__open(struct rf_ll_audit *a)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1u << (AUDIT_NLGRP_READLOG - 1) };
	int fd, size = 4 << 20;
	int64_t lost;
	ssize_t n;

	memset(a, 0, sizeof(*a));
	a->fd = -1;
	a->lost_during = -1;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_AUDIT);
	if (fd < 0)
		return -errno;
	/* A burst of denials must not overrun us: as large as root may. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	n = readlink("/proc/self/exe", a->self_exe, sizeof(a->self_exe) - 1);
	a->self_exe[n > 0 ? n : 0] = 0;
	lost = audit_lost();
	a->lost_at_open = lost >= 0 ? (uint32_t)lost : 0;
	a->lost_during = lost >= 0 ? 0 : -1;
	a->fd = fd;
	return 0;
}

void landlock_audit__discard(struct rf_ll_audit *a)
{
	char buf[16384];
	int64_t lost;

	if (a->fd < 0)
		return;
	for (;;) {
		ssize_t n = recv(a->fd, buf, sizeof(buf), MSG_DONTWAIT);

		/* ENOBUFS (an overrun) is reported once, then the queue reads on */
		if (n <= 0 && !(n < 0 && (errno == ENOBUFS || errno == EINTR)))
			break;
	}
	lost = audit_lost();
	a->lost_at_open = lost >= 0 ? (uint32_t)lost : 0;
	a->lost_during = lost >= 0 ? 0 : -1;
}

void landlock_audit__close(struct rf_ll_audit *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	a->fd = -1;
}

/* Ours: restricted by the launched child, which was still ringfence. */
static bool domain_is_ours(const struct rf_ll_audit *a, const struct rf_ll_record *r)
{
	return a->child > 0 && r->allocated && r->pid == a->child &&
	       (!a->self_exe[0] || !r->exe[0] || !strcmp(r->exe, a->self_exe));
}

static void on_record(struct rf_ll_audit *a, const struct rf_ll_record *r,
		      void (*fn)(void *ctx, const struct rf_ll_record *r), void *ctx)
{
	size_t i, j;

	if (r->type == RF_AUDIT_LANDLOCK_ACCESS) {
		if (a->domain && r->domain == a->domain) {
			a->records++;
			fn(ctx, r);
		} else if (!a->domain) {
			/* Its DOMAIN record comes right after the first one. */
			if (a->n_held == RF_LL_AUDIT_HELD_MAX) {
				memmove(a->held, a->held + 1, sizeof(a->held[0]) * (a->n_held - 1));
				a->n_held--;
				a->overruns++;
			}
			a->held[a->n_held++] = *r;
		}
		return;
	}
	if (a->domain && r->domain == a->domain) {
		if (!r->allocated && r->has_denials) {
			a->domain_freed = true;
			a->kernel_denials = r->denials;
		}
		return;
	}
	if (a->domain || !domain_is_ours(a, r)) {
		/* another domain: what was held for it is not ours */
		for (i = j = 0; i < a->n_held; i++)
			if (a->held[i].domain != r->domain)
				a->held[j++] = a->held[i];
		a->n_held = j;
		return;
	}
	a->domain = r->domain;
	for (i = j = 0; i < a->n_held; i++) {
		if (a->held[i].domain == a->domain) {
			a->records++;
			fn(ctx, &a->held[i]);
		} else {
			a->held[j++] = a->held[i];
		}
	}
	a->n_held = j;
}

void landlock_audit__read(struct rf_ll_audit *a, int wait_ms,
			  void (*fn)(void *ctx, const struct rf_ll_record *r), void *ctx)
{
	_Alignas(struct nlmsghdr) char buf[16384];
	struct pollfd pfd = { .fd = a->fd, .events = POLLIN };
	struct rf_ll_record rec;
	struct nlmsghdr *nh;
	ssize_t n;

	if (a->fd < 0)
		return;
	for (;;) {
		n = recv(a->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			a->overruns++;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (wait_ms <= 0 || poll(&pfd, 1, wait_ms) <= 0)
				return;
			wait_ms = 0;  /* one wait: then what arrived */
			continue;
		}
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (landlock_audit__parse(nh->nlmsg_type, NLMSG_DATA(nh),
						  nh->nlmsg_len - NLMSG_HDRLEN, &rec))
				continue;
			on_record(a, &rec, fn, ctx);
		}
	}
}

void landlock_audit__finish(struct rf_ll_audit *a, int wait_ms,
			    void (*fn)(void *ctx, const struct rf_ll_record *r), void *ctx)
{
	struct timespec t0, t;
	int64_t lost;
	int left = wait_ms;

	if (a->fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* The deallocated record comes from a work queue after the last
	 * process of the domain is gone: worth a short wait, only when the
	 * domain logged something (no record otherwise). */
	do {
		landlock_audit__read(a, a->domain && !a->domain_freed ? left : 0, fn, ctx);
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = wait_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				       (t.tv_nsec - t0.tv_nsec) / 1000000);
	} while (a->domain && !a->domain_freed && left > 0);
	lost = audit_lost();
	if (lost >= 0 && a->lost_during >= 0)
		a->lost_during = (uint32_t)lost - a->lost_at_open;
}

bool landlock_audit__complete(const struct rf_ll_audit *a)
{
	return a->domain_freed && a->kernel_denials == a->records && !a->overruns;
}

uint64_t landlock_audit__missing(const struct rf_ll_audit *a)
{
	return a->domain_freed && a->kernel_denials > a->records ?
	       a->kernel_denials - a->records : 0;
}
