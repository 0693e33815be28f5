// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "steps.h"

/* The failure a test asked for, behind the same kind of opt-in as
 * --keep-caps: never by accident, never from one stray variable. */
static bool fail_on_purpose(const char *name)
{
	const char *gate = getenv("RINGFENCE_TEST_HOOKS");
	const char *step = getenv("RINGFENCE_TEST_FAIL_STEP");

	return gate && !strcmp(gate, "1") && step && !strcmp(step, name);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool steps__timings(void)
{
	const char *v = getenv("RINGFENCE_TIMINGS");

	return v && !strcmp(v, "1");
}

/* RINGFENCE_TIMINGS=1: what each step cost, for profiling start-up and
 * teardown (not under -v: its output is the user's). */
static void say_took(const char *what, const char *name, double t0)
{
	if (steps__timings())
		fprintf(stderr, "ringfence: timing: %s %s: %.3f ms\n", what, name, now_ms() - t0);
}

int steps__run(struct rf_steps *s, void *ctx, const char *last)
{
	const struct rf_step *st;
	int err;

	while (s->done < s->n) {
		st = &s->steps[s->done];
		memset(&s->err, 0, sizeof(s->err));
		s->err.exit = st->exit;
		if (fail_on_purpose(st->name))
			err = rf_error_set(&s->err.e, -ECANCELED, "RINGFENCE_TEST_FAIL_STEP",
					   "step %s failed on purpose", st->name);
		else {
			double t0 = now_ms();

			err = st->run(ctx, &s->err);
			say_took("step", st->name, t0);
		}
		if (err) {
			if (st->owed_before)
				s->done++;
			if (s->err.e.why[0])
				rf_error_print(&s->err.e, NULL);
			return s->err.exit;
		}
		s->done++;
		if (last && !strcmp(st->name, last))
			break;
	}
	return 0;
}

void steps__undo(struct rf_steps *s, void *ctx)
{
	while (s->done > 0) {
		const struct rf_step *st = &s->steps[--s->done];

		double t0 = now_ms();

		if (st->undo) {
			st->undo(ctx);
			say_took("undo", st->name, t0);
		}
	}
}
