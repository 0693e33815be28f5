/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --replay FILE: the detectors over a recorded file, in its own time. */
#ifndef RF_MON_REPLAY_H
#define RF_MON_REPLAY_H

#include "detect.h"
#include "sinks.h"

/* Alerts of the file to output (NULL: stdout). over: options given on the
 * command line (non-zero fields win over the file's header). metrics_file:
 * activity: where DNS records become activity records (NULL: nowhere).
 * when set, the metrics of the whole replay are written there at its end
 * (Prometheus text; no process_* metrics). Exit status: 0, 1 (file
 * unreadable or invalid, metrics file not written). */
int replay__run(const char *file, const char *output, const char *activity,
		const struct rf_detect_opts *over, const char *metrics_file);
/* The same, the records also to the sinks on in sinks (NULL: none); their
 * final counts are in the metrics file. */
int replay__run_sinks(const char *file, const char *output, const char *activity,
		      const struct rf_detect_opts *over, const char *metrics_file,
		      const struct rf_sinks_opts *sinks);

/* The syscalls a sandbox (by sandbox name or policy id) made, as a policy
 * "syscalls" object on stdout: a recorded profile. Exit status 0 or 1. */
int replay__profile(const char *file, const char *who);

#endif
