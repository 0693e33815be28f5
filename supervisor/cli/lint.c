// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ringfence lint`: what an editor or a CI job asks of a policy. The same
 * parser `run` and `check` use, and nothing else: no root, no cgroup, no
 * BPF, no probe of the kernel (`check` is the kernel-aware answer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cleanup.h"
#include "error.h"
#include "lint.h"
#include "policy/policy.h"
#include "run/run.h"

/* One file's errors: all of them when the parser listed several, else the
 * one it stopped at. */
static json_t *lint_one(const char *file)
{
	_cleanup_free_ struct rf_policy_errors *all = calloc(1, sizeof(*all));
	struct rf_policy *p = NULL;
	struct rf_error e = { 0 };
	json_t *errs = json_array();
	size_t i;
	int r;

	if (!all || !errs) {
		json_decref(errs);
		return NULL;
	}
	r = policy__load_file_all(file, &p, &e, all);
	policy__free(p);
	for (i = 0; r && i < all->n; i++)
		json_array_append_new(errs, json_pack("{s:s, s:s}", "path", all->v[i].where,
						      "message", all->v[i].why));
	if (r && !all->n)
		json_array_append_new(errs, json_pack("{s:s, s:s}", "path", e.where[0] ? e.where : "$",
						      "message", e.why[0] ? e.why : strerror(-r)));
	return json_pack("{s:s, s:b, s:o, s:b}", "file", file, "valid", r == 0, "errors", errs,
			 "truncated", r && all->truncated);
}

static void print_text(const json_t *rep, bool quiet)
{
	const char *file = json_string_value(json_object_get(rep, "file"));
	json_t *errs = json_object_get(rep, "errors"), *v;
	size_t i;

	if (json_is_true(json_object_get(rep, "valid"))) {
		if (!quiet)
			printf("%s: ok\n", file);
		return;
	}
	json_array_foreach(errs, i, v)
		fprintf(stderr, "%s: %s: %s\n", file, json_string_value(json_object_get(v, "path")),
			json_string_value(json_object_get(v, "message")));
	if (json_is_true(json_object_get(rep, "truncated")))
		fprintf(stderr, "%s: (stopped after %zu; fix these and lint again)\n", file,
			json_array_size(errs));
}

int cmd_lint(int n, char *const *files, bool json, bool quiet)
{
	json_t *reports = json_array();
	int i, rc = 0;

	if (!reports)
		return 1;
	for (i = 0; i < n; i++) {
		json_t *rep = lint_one(files[i]);

		if (!rep) {
			fprintf(stderr, "ringfence: lint: out of memory\n");
			json_decref(reports);
			return 1;
		}
		if (!json_is_true(json_object_get(rep, "valid")))
			rc = RF_EXIT_USAGE;
		if (!json)
			print_text(rep, quiet);
		json_array_append_new(reports, rep);
	}
	if (json) {
		json_dumpf(reports, stdout, JSON_INDENT(2));
		putchar('\n');
	}
	json_decref(reports);
	return rc;
}
