// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The boundary filter, compiled once per binary and boot (seccomp_cache.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <seccomp.h>

#include "policy/policy.h"
#include "runcache.h"
#include "seccomp_cache.h"

#define BLOB_MAGIC 0x72667363u  /* "rfsc" */

struct blob_head {
	uint32_t magic;
	uint16_t len;                       /* boundary instructions that follow */
	uint8_t notify;
	uint8_t pad;
	char summary[sizeof(((struct rf_seccomp *)0)->summary)];
};

#define BLOB_MAX (sizeof(struct blob_head) + BPF_MAXINSNS * sizeof(struct sock_filter))

static void kind_name(bool boundary, unsigned int holes, bool notify, char *buf, size_t len)
{
	const struct scmp_version *v = seccomp_version();

	snprintf(buf, len, "seccomp-%u.%u.%u-b%dh%un%d", v ? v->major : 0, v ? v->minor : 0,
		 v ? v->micro : 0, boundary, holes, notify);
}

static int from_blob(const uint8_t *b, long n, bool notify, struct rf_seccomp *ret)
{
	struct blob_head h;
	size_t size;

	if (n < (long)sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	size = (size_t)h.len * sizeof(struct sock_filter);
	if (h.magic != BLOB_MAGIC || !h.len || h.len > BPF_MAXINSNS || h.notify != notify ||
	    (size_t)n != sizeof(h) + size || memchr(h.summary, 0, sizeof(h.summary)) == NULL)
		return -EINVAL;
	memset(ret, 0, sizeof(*ret));
	ret->boundary.insns = malloc(size);
	if (!ret->boundary.insns)
		return -ENOMEM;
	memcpy(ret->boundary.insns, b + sizeof(h), size);
	ret->boundary.len = h.len;
	ret->notify = notify;
	memcpy(ret->summary, h.summary, sizeof(ret->summary));
	return 0;
}

static void to_cache(const char *kind, const struct rf_seccomp *f)
{
	size_t size = (size_t)f->boundary.len * sizeof(struct sock_filter);
	struct blob_head h = { .magic = BLOB_MAGIC, .len = f->boundary.len, .notify = f->notify };
	uint8_t *b;

	if (!f->boundary.len || f->allowlist.len)
		return;
	b = malloc(sizeof(h) + size);
	if (!b)
		return;
	memcpy(h.summary, f->summary, sizeof(h.summary));
	h.summary[sizeof(h.summary) - 1] = '\0';
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), f->boundary.insns, size);
	runcache__write(kind, b, sizeof(h) + size);
	free(b);
}

int seccomp_cache__build_notify(const struct rf_policy *policy, bool boundary,
				unsigned int holes, bool notify, struct rf_seccomp *ret,
				struct rf_error *err)
{
	char kind[64];
	uint8_t *b;
	long n;
	int r;

	if (!boundary || (policy && policy->syscalls.present))
		return sandbox_seccomp__build_notify(policy, boundary, holes, notify, ret, err);
	kind_name(boundary, holes, notify, kind, sizeof(kind));
	b = malloc(BLOB_MAX);
	n = b ? runcache__read(kind, b, BLOB_MAX) : -ENOMEM;
	r = n > 0 ? from_blob(b, n, notify, ret) : -ENOENT;
	free(b);
	if (!r)
		return 0;
	r = sandbox_seccomp__build_notify(policy, boundary, holes, notify, ret, err);
	if (!r)
		to_cache(kind, ret);
	return r;
}
