// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-rules POLICY REPS: the start-up phases that grow with the number of
 * rules, timed one by one in this process with the supervisor's own code
 * (make bench, tests/bench/rules.sh). Prints one line of medians over REPS
 * repetitions, in microseconds:
 *   parse_us compile_us load_us remove_us landlock_us
 * parse: policy__load_file; compile: names resolved, map entries built and
 * their fit checked (run's network-rules step), and the file rules' path
 * entries built (the BPF-LSM's keys; a run under Landlock builds them only
 * when it judges a denial, observe.c); load: sbmaps__install
 * into the pinned maps under a cgroup id no cgroup has (the programs never
 * match it); remove: sbmaps__remove; landlock: the Landlock ruleset of the
 * files and exec rules built (run's plan step on a host without BPF-LSM;
 * 0 when the kernel has no Landlock). Needs root and the pinned set. The
 * first repetition is the start-up's cost: rules.sh runs REPS=1 in fresh
 * processes, so no repetition finds the heap of an earlier one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <sys/syscall.h>

#include "backends/enforcer.h"
#include "rules/netrules.h"
#include "rules/pathrules.h"
#include "policy/policy.h"
#include "backends/sandbox_landlock.h"
#include "backends/sbmaps.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct compiled {
	struct rf_addr_rule *rules;
	struct rf_resolved *res;
	struct rf_net_entry *entries;
	size_t n_rules, n_res, n_entries;
};

static int compile(const struct rf_policy *p, struct compiled *c, struct rf_error *e)
{
	struct rf_path_entry *paths = NULL;
	size_t n_paths = 0;
	int err = 0;

	memset(c, 0, sizeof(*c));
	err = pathrules__build(p, &paths, &n_paths, NULL);
	free(paths);
	if (!err && p->net_connect == RF_CONFINE_ALLOWLIST)
		err = netrules__resolve(p, &c->rules, &c->n_rules, &c->res, &c->n_res, e);
	if (!err && p->net_connect == RF_CONFINE_ALLOWLIST)
		err = netrules__build(c->rules, c->n_rules, &c->entries, &c->n_entries, e);
	if (!err)
		err = sbmaps__capacity(0, c->entries, c->n_entries, p, e);
	return err;
}

static void compiled_free(struct compiled *c)
{
	free(c->rules);
	free(c->res);
	free(c->entries);
}

/* The Landlock ruleset of p's files and exec rules, built and closed. */
static int landlock(const struct rf_policy *p, int abi)
{
	struct rf_landlock_opts lo = {
		.abi = abi,
		.fs = p->files != RF_CONFINE_UNRESTRICTED || p->exec != RF_CONFINE_UNRESTRICTED,
		.approximate = p->approximate,
	};
	struct rf_landlock ll = { .ruleset_fd = -1 };
	struct rf_error e = { 0 };
	int err;

	if (abi < 1 || !lo.fs)
		return 0;
	err = sandbox_landlock__build(p, &lo, &ll, &e);
	if (err)
		rf_error_print(&e, NULL);
	sandbox_landlock__free(&ll);
	return err;
}

/* One repetition: the five phases into t[0..4]. */
static int rep(const char *path, const struct rf_enforcer *enf, uint64_t cgid, int abi,
	       double t[5])
{
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };
	struct compiled c;
	const char *map = NULL;
	double t0 = now_us();
	int err;

	err = policy__load_file(path, &p, &e);
	t[0] = now_us() - t0;
	if (err) {
		rf_error_print(&e, NULL);
		return err;
	}
	t0 = now_us();
	err = compile(p, &c, &e);
	t[1] = now_us() - t0;
	if (!err) {
		t0 = now_us();
		err = sbmaps__install(enf, cgid, 0, c.entries, c.n_entries, p, &map, NULL);
		t[2] = now_us() - t0;
		if (err)
			fprintf(stderr, "rf-rules: install (%s): %s\n", map ? map : "-", strerror(-err));
		t0 = now_us();
		sbmaps__remove(enf, cgid);
		t[3] = now_us() - t0;
		t0 = now_us();
		if (!err)
			err = landlock(p, abi);
		t[4] = now_us() - t0;
	} else {
		rf_error_print(&e, NULL);
	}
	compiled_free(&c);
	policy__free(p);
	return err;
}

int main(int argc, char **argv)
{
	struct rf_enforcer *enf = NULL;
	/* high bit set: no cgroup has this id (kernfs ids count up from 1) */
	uint64_t cgid = (1ULL << 63) | (uint64_t)getpid();
	double *t[5];
	int reps, i, k, err, abi;

	if (argc != 3 || (reps = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: rf-rules POLICY REPS\n");
		return 2;
	}
	err = enforcer__open_pinned(&enf);
	if (err) {
		fprintf(stderr, "rf-rules: the pinned set: %s (run ringfence once)\n", strerror(-err));
		return 1;
	}
	abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	for (k = 0; k < 5; k++)
		t[k] = calloc((size_t)reps, sizeof(double));
	for (i = 0; i < reps; i++) {
		double one[5];

		if (rep(argv[1], enf, cgid, abi, one))
			return 1;
		for (k = 0; k < 5; k++)
			t[k][i] = one[k];
	}
	printf("%.0f %.0f %.0f %.0f %.0f\n", median(t[0], reps), median(t[1], reps),
	       median(t[2], reps), median(t[3], reps), median(t[4], reps));
	enforcer__close(enf);
	return 0;
}
