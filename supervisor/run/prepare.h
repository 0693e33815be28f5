/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What `ringfence run` does before anything is created (prepare.c). */
#ifndef RF_PREPARE_H
#define RF_PREPARE_H

struct rf_error;
struct rf_landlock;
struct rf_plan;
struct rf_plan_opts;
struct rf_policy;
struct rf_seccomp;

/* 0 or -errno with e filled */
int prepare__load_policy(const char *path, struct rf_policy **ret, struct rf_error *e);
void prepare__print_refusal(const struct rf_plan *plan);
unsigned int prepare__probe_flags(const struct rf_policy *p, const struct rf_plan_opts *o);
int prepare__backends(const struct rf_policy *p, struct rf_plan *plan,
		      struct rf_landlock *ll, struct rf_seccomp *sc, struct rf_error *e);

#endif
