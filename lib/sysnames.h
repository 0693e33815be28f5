/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Syscall numbers of the native architecture <-> names, from a table
 * generated at build time from <sys/syscall.h> (no libseccomp). */
#ifndef RF_SYSNAMES_H
#define RF_SYSNAMES_H

#include <stddef.h>

/* The name of nr, or "" when this architecture has none. */
const char *sysnames__name(int nr);
/* The number of a name, or -1. */
int sysnames__nr(const char *name);

#endif
