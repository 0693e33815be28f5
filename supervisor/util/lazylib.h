/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Libraries only some runs need, loaded with dlopen on first use, as
 * systemd does for its optional ones: libldns (and with it libssl and
 * libcrypto) for the DNS gate, libsystemd for a transient scope, libpsl
 * for wildcard names. Linked normally, the dynamic loader mapped and
 * relocated all of them (about 30,000 relocations, two thirds of its
 * work) in every `ringfence` process, used or not.
 *
 * A library's header (lazy_ldns.h, ...) lists the functions ringfence
 * calls and turns each name into a call through a pointer that
 * lazylib__NAME() fills; the code that calls them includes it after the
 * library's own header, and calls lazylib__NAME() at its entry point,
 * which fails closed with the loader's reason.
 */
#ifndef RF_LAZYLIB_H
#define RF_LAZYLIB_H

#include "error.h"

#define RF_LAZY(sym) (*rf_lazy_##sym)
#define RF_LAZYLIB_DECL_ONE(sym) extern __typeof__(sym) *rf_lazy_##sym;
#define RF_LAZYLIB_DECLARE(list) list(RF_LAZYLIB_DECL_ONE)

#endif
