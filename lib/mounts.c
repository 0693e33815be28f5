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

	for (;;) {
		if (!strncmp(p, type, n) && (p[n] == ',' || !p[n]))
			return true;
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
}

int mounts__list(const char *fstype, char ***ret_paths)
{
	char **v = NULL, *line = NULL;
	size_t n = 0, cap = 0, lcap = 0;
	FILE *f;
	int err = 0;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (getline(&line, &lcap, f) > 0) {
		char mnt[4096], type[256], *sep;

		/* id parent maj:min root MOUNTPOINT opts [tags...] - TYPE src sopts */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%255s", type) != 1 || !type_in(type, fstype))
			continue;
		unescape(mnt);
		if (n + 2 > cap) {
			size_t c = cap ? cap * 2 : 8;
			void *p = realloc(v, c * sizeof(*v));

			if (!p) {
				err = -ENOMEM;
				break;
			}
			v = p;
			cap = c;
		}
		v[n] = strdup(mnt);
		if (!v[n]) {
			err = -ENOMEM;
			break;
		}
		v[++n] = NULL;
	}
	free(line);
	fclose(f);
	if (!err && !v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			err = -ENOMEM;
	}
	if (err) {
		if (v)
			v[n] = NULL;
		mounts__free(v);
		return err;
	}
	*ret_paths = v;
	return 0;
}
