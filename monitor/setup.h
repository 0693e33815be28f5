/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The live monitor's start and stop as steps, each with its undo (the
 * supervisor's step engine, lib/steps.h): the lock, the outputs, the
 * detectors, the sensors, the registry, the loop's fds. They run in
 * order; the loop runs; the undos run in reverse, also after a step
 * failed (then for the steps done).
 */
#ifndef RF_MON_SETUP_H
#define RF_MON_SETUP_H

#include "engine.h"

/* Runs until SIGINT/SIGTERM. Returns the exit status (0, or 1 when it
 * could not start). RINGFENCE_TEST_HOOKS=1 RINGFENCE_TEST_FAIL_STEP=<name>
 * fails a step on purpose (tests). */
int setup__run(const struct rf_engine_opts *o);

#endif
