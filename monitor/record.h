/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --record / --replay: the detectors' input as JSON lines. The first line
 * is a header (clock offset, the defaults in force); then one input record
 * per line with its own timestamp "t" (CLOCK_BOOTTIME ns). Replaying a file
 * runs the detectors on those timestamps only, so it is deterministic.
 */
#ifndef RF_MON_RECORD_H
#define RF_MON_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include "detect.h"
#include "error.h"
#include "input.h"

#define RF_RECORD_FORMAT 1

struct rf_record_header {
	int64_t boot_to_real_ns;        /* CLOCK_REALTIME - CLOCK_BOOTTIME */
	bool ticks;                     /* the file holds the live run's ticks */
	uint64_t tick_ms;               /* their period (synthesized when !ticks) */
	struct rf_detect_opts defaults; /* thresholds and timers in force */
};

struct rf_recorder;

/* Truncates path. 0 or -errno. */
int record__open(const char *path, const struct rf_record_header *h,
		 struct rf_recorder **ret);
int record__write(struct rf_recorder *r, const struct rf_input *in);
/* Make what was written so far readable (every interval). */
void record__flush(struct rf_recorder *r);
void record__close(struct rf_recorder *r);

/* One input record as JSON / back. from_json fills *in; a SANDBOX record's
 * info goes to *si (caller clears it). 0 or -EINVAL. */
json_t *record__to_json(const struct rf_input *in);
int record__from_json(json_t *o, struct rf_input *in, struct rf_sandbox_info *si);

typedef void (*rf_replay_fn)(const struct rf_input *in, void *ctx);

/*
 * Read a record file: the header into *ret_h (before the first callback,
 * through on_header), then every input in order. Ticks missing from the
 * file are synthesized every tick_ms; after the last record, ticks go on
 * for tail_ms of virtual time so alerts can close by themselves.
 * 0, or -errno / -EINVAL with e (where: "file:line").
 */
int replay__file(const char *path, uint64_t tail_ms,
		 void (*on_header)(const struct rf_record_header *h, void *ctx),
		 rf_replay_fn fn, void *ctx, struct rf_error *e);

#endif
