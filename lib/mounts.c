// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mounts.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

void mounts__free(char **paths)
{
	char **p;

	if (!paths)
		return;
	for (p = paths; *p; p++)
		free(*p);
	free(paths);
}

/* type is one of the comma-separated fstypes */
static bool type_in(const char *type, const char *fstypes)
{
	size_t n = strlen(type);
	const char *p = fstypes;

	if (!strcmp(fstypes, "*"))
		return true;
	for (;;) {
		if (!strncmp(p, type, n) && (p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
}

/* One mount point more at the end of *v (n so far, cap slots). */
static int push(char ***v, size_t *n, size_t *cap, const char *mnt)
{
	if (*n + 2 > *cap) {
		size_t c = *cap ? *cap * 2 : 8;
		void *p = realloc(*v, c * sizeof(**v));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[*n] = strdup(mnt);
	if (!(*v)[*n])
		return -ENOMEM;
	(*v)[++*n] = NULL;
	return 0;
}

/* NULL-terminated, and allocated even when empty. */
static int finish(char ***v, size_t n, int err)
{
	if (!err && !*v) {
		*v = calloc(1, sizeof(**v));
		if (!*v)
			err = -ENOMEM;
	}
	if (err && *v) {
		(*v)[n] = NULL;
		mounts__free(*v);
		*v = NULL;
	}
	return err;
}

int mounts__list2(const char *types_a, char ***ret_a, const char *types_b, char ***ret_b)
{
	char **v[2] = { NULL, NULL }, *line = NULL;
	size_t n[2] = { 0, 0 }, cap[2] = { 0, 0 }, lcap = 0;
	const char *types[2] = { types_a, types_b };
	FILE *f;
	int err = 0, i;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	/* one read(): /proc says 1 KiB blocks, and each further read walks
	 * the mount list from its start again */
	setvbuf(f, NULL, _IOFBF, 64 << 10);
	while (!err && getline(&line, &lcap, f) > 0) {
		char mnt[4096], type[256], *sep;

		/* id parent maj:min root MOUNTPOINT opts [tags...] - TYPE src sopts */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%255s", type) != 1)
			continue;
		unescape(mnt);
		for (i = 0; i < 2 && !err; i++)
			if (types[i] && type_in(type, types[i]))
				err = push(&v[i], &n[i], &cap[i], mnt);
	}
	free(line);
	fclose(f);
	for (i = 0; i < 2; i++)
		if (types[i])
			err = finish(&v[i], n[i], err);
	if (err) {
		mounts__free(v[0]);
		mounts__free(v[1]);
		return err;
	}
	*ret_a = v[0];
	if (types_b)
		*ret_b = v[1];
	return 0;
}

int mounts__list(const char *fstype, char ***ret_paths)
{
	return mounts__list2(fstype, ret_paths, NULL, NULL);
}
