/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `ringfence lint FILE...` (lint.c). */
#ifndef RF_LINT_H
#define RF_LINT_H

#include <stdbool.h>

/* The parser alone on each file: no root, no kernel, every invalid entry
 * with its JSON path. Text (one line an error, "FILE: ok" unless quiet)
 * or, with json, one JSON array of reports. 0: every file valid; 125
 * (RF_EXIT_USAGE): a file invalid or unreadable. */
int cmd_lint(int n, char *const *files, bool json, bool quiet);

#endif
