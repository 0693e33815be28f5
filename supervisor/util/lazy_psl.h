/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libpsl, loaded on first use (lazylib.h): wildcards over public suffixes. */
#ifndef RF_LAZY_PSL_H
#define RF_LAZY_PSL_H

#include <libpsl.h>

#include "lazylib.h"

#define RF_LAZY_PSL_SONAME "libpsl.so.5"

/* Every function of it that ringfence calls: a call not listed here
 * fails the link (nothing links -lpsl). */
#define RF_LAZY_PSL_SYMBOLS(X) \
	X(psl_builtin) \
	X(psl_is_public_suffix) \
	X(psl_latest) \
	X(psl_registrable_domain)

RF_LAZYLIB_DECLARE(RF_LAZY_PSL_SYMBOLS)

/* Loads it once (0, or -ELIBACC with e set); call before any of them. */
int lazylib__psl(struct rf_error *e);

#ifndef RF_LAZYLIB_NO_REDIRECT
#define psl_builtin RF_LAZY(psl_builtin)
#define psl_is_public_suffix RF_LAZY(psl_is_public_suffix)
#define psl_latest RF_LAZY(psl_latest)
#define psl_registrable_domain RF_LAZY(psl_registrable_domain)
#endif

#endif
