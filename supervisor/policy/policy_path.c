/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one rule for a path in a policy: absolute, no wildcards, no "." or
 * ".." components (a leaf: the class parsers and learn use it). */
#include <errno.h>
#include <string.h>

#include "policy.h"

int policy__check_path(const char *path, struct rf_error *err)
{
	const char *p, *fmt = NULL;
	size_t len;

	if (!path || !*path)
		fmt = "path must not be empty";
	else if (path[0] != '/')
		fmt = "path must be absolute";
	else if ((len = strlen(path)) > RF_POLICY_PATH_MAX)
		fmt = "path must be at most 255 bytes";
	else if (strpbrk(path, "*?"))
		fmt = "path must not contain wildcards ('*', '?')";
	else if (strstr(path, "//"))
		fmt = "path must not contain \"//\"";

	/* Components between slashes: "." and ".." would let one entry
	 * name a different file than it appears to. */
	for (p = path; !fmt && p && *p; ) {
		const char *end = strchr(p + 1, '/');
		size_t n = end ? (size_t)(end - p - 1) : strlen(p + 1);

		if (n == 1 && p[1] == '.')
			fmt = "path must not contain \".\" components";
		else if (n == 2 && p[1] == '.' && p[2] == '.')
			fmt = "path must not contain \"..\" components";
		p = end;
	}
	/* The caller knows the JSON path and puts it in err->where. */
	if (fmt)
		return rf_error_set(err, -EINVAL, NULL, "%s", fmt);
	return 0;
}

bool policy__unix_name_in_write(const struct rf_policy *p, const struct rf_path_rule *w)
{
	size_t i, n = strlen(w->path);

	if (!w->subtree)
		return false;  /* a file rule makes no names */
	for (i = 0; i < p->n_unix; i++) {
		const struct rf_unix_rule *u = &p->unix_rules[i];

		if (!u->abstract && (!strncmp(u->name, w->path, n) ||
				     (u->subtree && !strncmp(w->path, u->name, strlen(u->name)))))
			return true;
	}
	return false;
}
