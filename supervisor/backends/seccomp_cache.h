/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * sandbox_seccomp__build_notify, with the boundary filter kept for the
 * next runs (runcache.h): it depends only on (boundary, holes, notify),
 * this binary, libseccomp's version and the kernel, so compiling it in
 * every run (libseccomp's database, its BPF generation) is work done
 * again for the same answer. A policy with a "syscalls" section is
 * compiled every time.
 */
#ifndef RF_SECCOMP_CACHE_H
#define RF_SECCOMP_CACHE_H

#include <stdbool.h>

#include "sandbox_seccomp.h"

int seccomp_cache__build_notify(const struct rf_policy *policy, bool boundary,
				unsigned int holes, bool notify, struct rf_seccomp *ret,
				struct rf_error *err);

#endif
