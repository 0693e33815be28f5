/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one error type of ringfence's user space. A module that fails fills
 * a struct rf_error (where, what, errno, what to do) and returns a negative
 * errno; the caller passes it up unchanged and only the edge (main, the
 * trace, the plan) renders it. No module prints.
 */
#ifndef RF_ERROR_H
#define RF_ERROR_H

#include <stddef.h>

struct rf_error {
	int err;                 /* negative errno, 0 when unset */
	char where[256];         /* JSON path ("$.network.connect[2]"), option
				  * ("--user"), or object ("cgroup /sys/fs/...") */
	char why[512];           /* what went wrong, one line, no trailing dot */
	char hint[256];          /* what to do about it; may be empty */
};

/* Fill e (NULL is allowed: nothing kept) and return err, so a failure is
 * `return rf_error_set(e, -EINVAL, "$.id", "must match %s", re);`.
 * where may be NULL or "". err must be negative. */
int rf_error_set(struct rf_error *e, int err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Add what to do; returns e->err. */
int rf_error_hint(struct rf_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix where with an outer context ("policy FILE", "$.files"):
 * "inner" becomes "outer: inner". Returns e->err. */
int rf_error_wrap(struct rf_error *e, const char *outer);

/* One line: "where: why[; hint]". buf is returned. */
const char *rf_error_str(const struct rf_error *e, char *buf, size_t len);

/* rf_err() of prefix (may be NULL) and the one line. */
void rf_error_print(const struct rf_error *e, const char *prefix);

#endif
