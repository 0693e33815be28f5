/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ringfence-monitor's options as one table (lib/cli.h), from which its
 * parsing and --help come and tests/build/cli_dump prints what the man
 * page and the completions must name.
 */
#ifndef RF_MON_OPTIONS_H
#define RF_MON_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "detect.h"
#include "engine.h"

#define EXIT_USAGE 125

/* Thresholds the command line did not give stay UNSET until a mode picks
 * its default (no bound reaches it). */
#define UNSET UINT64_MAX

struct cli {
	struct rf_engine_opts o;
	struct rf_detect_opts detect;
	uint64_t ringbuf_kb, queue_kb;
	uint64_t boost;                 /* --priority-boost */
	const char *replay, *profile;
	bool top, once;
	bool journal;                   /* --journal */
	uint64_t spool_mb;
	int verbosity;
};

extern const struct rf_cli options__cli;

/* argv into c (its defaults set). Returns -1 to go on, else the exit
 * status (--help, --version: 0; a usage error: EXIT_USAGE, said). */
int options__parse(struct cli *c, int argc, char **argv);

/* Options that do not go together. Returns 0 or EXIT_USAGE (said). */
int options__check(const struct cli *c);

#endif
