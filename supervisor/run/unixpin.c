// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Which directories on the way to an allowed unix name are pinned (unixpin.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/policy.h"
#include "unixpin.h"

static const char *const why_text[] = {
	[UNIXPIN_ABSENT] = "absent at start",
	[UNIXPIN_SYMLINK] = "a symlink",
	[UNIXPIN_NOT_DIR] = "not a directory",
	[UNIXPIN_BELOW] = "below a directory not pinned",
	[UNIXPIN_PRIVATE] = "in a private mount",
};
_Static_assert(sizeof(why_text) / sizeof(why_text[0]) == UNIXPIN_PRIVATE + 1,
	       "why_text covers enum unixpin_why");

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct unixpin_dir *)a)->path, ((const struct unixpin_dir *)b)->path);
}

/* name's directories below the write subtree w's root: each '/' after it. */
static int add_way(struct rf_unix_pins *pins, size_t *cap, const char *name, const char *w)
{
	size_t n = strlen(w), k;

	if (strncmp(name, w, n))
		return 0;
	for (k = n; name[k]; k++) {
		struct unixpin_dir *d;

		if (name[k] != '/')
			continue;
		if (pins->n == *cap) {
			size_t nc = *cap ? *cap * 2 : 8;

			d = realloc(pins->v, nc * sizeof(*d));
			if (!d)
				return -ENOMEM;
			pins->v = d;
			*cap = nc;
		}
		d = &pins->v[pins->n];
		d->path = strndup(name, k);
		if (!d->path)
			return -ENOMEM;
		d->pinned = false;
		d->why = UNIXPIN_ABSENT;
		pins->n++;
	}
	return 0;
}

static void dedupe(struct rf_unix_pins *pins)
{
	size_t i, o = 0;

	qsort(pins->v, pins->n, sizeof(*pins->v), by_path);
	for (i = 0; i < pins->n; i++) {
		if (o && !strcmp(pins->v[o - 1].path, pins->v[i].path)) {
			free(pins->v[i].path);
			continue;
		}
		pins->v[o++] = pins->v[i];
	}
	pins->n = o;
}

/* Looked at in order: a parent's verdict reaches its children. */
static void judge(struct rf_unix_pins *pins, const struct launch_mount *m, size_t n_m,
		  const char *scratch)
{
	for (size_t i = 0; i < pins->n; i++) {
		struct unixpin_dir *d = &pins->v[i];
		struct stat st;

		for (size_t j = 0; j < i; j++)
			if (!pins->v[j].pinned && pins->v[j].why != UNIXPIN_PRIVATE &&
			    launch__path_within(d->path, pins->v[j].path))
				d->why = UNIXPIN_BELOW;
		if (d->why == UNIXPIN_BELOW)
			;
		else if (launch__private_below(m, n_m, scratch, d->path))
			d->why = UNIXPIN_PRIVATE;
		else if (lstat(d->path, &st) < 0)
			d->why = UNIXPIN_ABSENT;
		else if (S_ISLNK(st.st_mode))
			d->why = UNIXPIN_SYMLINK;
		else if (!S_ISDIR(st.st_mode))
			d->why = UNIXPIN_NOT_DIR;
		else
			d->pinned = true;
		pins->n_open += !d->pinned && d->why != UNIXPIN_PRIVATE;
	}
}

int unixpin__plan(const struct rf_policy *p, const struct launch_mount *m, size_t n_m,
		  const char *scratch, struct rf_unix_pins *ret)
{
	const struct rf_path_list *w = &p->files_write;
	size_t cap = 0, i, k, n = 0;
	int err = 0;

	*ret = (struct rf_unix_pins){ 0 };
	for (i = 0; !err && i < p->n_unix; i++)
		for (k = 0; !err && k < w->n; k++)
			if (!p->unix_rules[i].abstract && w->v[k].subtree)
				err = add_way(ret, &cap, p->unix_rules[i].name, w->v[k].path);
	if (err)
		goto fail;
	dedupe(ret);
	judge(ret, m, n_m, scratch);
	ret->pin_dirs = calloc(ret->n + 1, sizeof(*ret->pin_dirs));
	if (!ret->pin_dirs) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < ret->n; i++)
		if (ret->v[i].pinned)
			ret->pin_dirs[n++] = ret->v[i].path;
	return 0;
fail:
	unixpin__free(ret);
	return err;
}

void unixpin__free(struct rf_unix_pins *pins)
{
	for (size_t i = 0; i < pins->n; i++)
		free(pins->v[i].path);
	free(pins->v);
	free(pins->pin_dirs);
	*pins = (struct rf_unix_pins){ 0 };
}

json_t *unixpin__json(const struct rf_unix_pins *pins)
{
	json_t *pinned = json_array(), *priv = json_array(), *open = json_array();

	for (size_t i = 0; i < pins->n; i++) {
		const struct unixpin_dir *d = &pins->v[i];

		if (d->pinned)
			json_array_append_new(pinned, json_string(d->path));
		else if (d->why == UNIXPIN_PRIVATE)
			json_array_append_new(priv, json_string(d->path));
		else
			json_array_append_new(open, json_pack("{s:s, s:s}", "path", d->path,
							      "why", why_text[d->why]));
	}
	return json_pack("{s:o, s:o, s:o}", "pinned", pinned, "private", priv, "unpinned", open);
}
