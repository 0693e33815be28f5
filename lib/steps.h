/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A command as an ordered list of steps, each with its undo (bubblewrap's
 * setup ops): the engine runs them in order, remembers how far it got and
 * later runs the undos of the steps that succeeded, in reverse. A failing
 * step leaves its error and the exit status it calls for; nothing else
 * decides either.
 */
#ifndef RF_STEPS_H
#define RF_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include "error.h"

struct rf_step_error {
	struct rf_error e;       /* printed by the engine; empty why: the step
				  * reported it itself (e.g. the plan's reasons) */
	int exit;                /* exit status of the command (RF_EXIT_*) */
};

struct rf_step {
	const char *name;
	/* 0, or a negative errno with ret_err filled; ret_err->exit starts
	 * as .exit and the step may change it. */
	int (*run)(void *ctx, struct rf_step_error *ret_err);
	/* Release what run made; NULL: nothing to release. Runs only after
	 * run succeeded, unless owed_before. */
	void (*undo)(void *ctx);
	int exit;                /* exit status of this step's failures */
	/* The undo is owed from before run starts: it also runs when run
	 * fails, and copes with a step that stopped half-way (steps that
	 * create kernel state: cgroup, registry file, map entries). */
	bool owed_before;
};

struct rf_steps {
	const struct rf_step *steps;
	size_t n;
	size_t done;             /* steps[0..done) succeeded (or failed with
				  * owed_before): undos owed */
	struct rf_step_error err;
};

/*
 * Run steps in order up to and including the one named last (NULL: all),
 * stopping at the first failure, whose error is printed. Returns 0 or the
 * failing step's exit status. Test builds and CI fail a step on purpose
 * with RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_FAIL_STEP=<name>.
 */
int steps__run(struct rf_steps *s, void *ctx, const char *last);

/* Undo every step that succeeded, last first; s can be run again after. */
void steps__undo(struct rf_steps *s, void *ctx);

/* RINGFENCE_TIMINGS=1 in the environment: the steps' and the probe's
 * times on stderr ("ringfence: timing: ..."). */
bool steps__timings(void);

#endif
