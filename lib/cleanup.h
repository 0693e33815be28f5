/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Scope-bound cleanup (systemd's _cleanup_ idiom): a variable declared
 * `_cleanup_free_ char *s = NULL;` is freed when it goes out of scope, an
 * fd declared `_cleanup_close_ int fd = -1;` is closed, a JSON value
 * declared `_cleanup_json_ json_t *o = NULL;` is released. TAKE_PTR/TAKE_FD
 * hand ownership to the caller and leave the variable empty, so nothing
 * is released twice.
 */
#ifndef RF_CLEANUP_H
#define RF_CLEANUP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <jansson.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void rf_freep(void *p)
{
	free(*(void **)p);
}

static inline void rf_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void rf_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void rf_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/* json_decref accepts NULL. */
static inline void rf_json_decrefp(json_t **j)
{
	json_decref(*j);
}

#define _cleanup_free_ _cleanup_(rf_freep)
#define _cleanup_close_ _cleanup_(rf_closep)
#define _cleanup_fclose_ _cleanup_(rf_fclosep)
#define _cleanup_json_ _cleanup_(rf_json_decrefp)
#define _cleanup_closedir_ _cleanup_(rf_closedirp)

/* Declare a cleanup function for a type whose destructor takes T * and
 * accepts NULL: RF_DEFINE_CLEANUP(struct net_bpf, net_bpf__destroy) gives
 * net_bpf__destroyp for _cleanup_(net_bpf__destroyp). */
#define RF_DEFINE_CLEANUP(type, fn)                 \
	static inline void fn##p(type **p)          \
	{                                           \
		if (*p)                             \
			fn(*p);                     \
	}

/* Return *p and leave NULL in it: ownership moves to the caller. */
#define TAKE_PTR(p)                                          \
	({                                                   \
		__typeof__(p) *_pp = &(p);                   \
		__typeof__(p) _p = *_pp;                     \
		*_pp = NULL;                                 \
		_p;                                          \
	})

/* Return fd and leave -1 in it. */
#define TAKE_FD(fd)                                          \
	({                                                   \
		int *_pfd = &(fd);                           \
		int _fd = *_pfd;                             \
		*_pfd = -1;                                  \
		_fd;                                         \
	})

#endif
