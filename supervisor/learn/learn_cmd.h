/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `ringfence learn`: the runs around learn.h's pure part. */
#ifndef RF_LEARN_CMD_H
#define RF_LEARN_CMD_H

#include <stdbool.h>

#include "run/run.h"

/* The learn command's options (main.c fills them). */
struct learn_opts {
	struct run_opts run;      /* policy_path: BASE (may be NULL), argv, user */
	const char *out;          /* NULL: stdout */
	bool verify;
	bool wildcards;           /* names as *.registrable-domain */
};

/* learn_cmd.c: `ringfence learn`. */
int cmd_learn(const struct learn_opts *o);

#endif
