// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Names computed from this build's BPF objects, per boot (namecache.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "namecache.h"
#include "runcache.h"

#define NAMES_MAX 256
#define NAME_LEN 64
#define END_LINE "."

static bool name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return i > 0 && i < NAME_LEN;
}

static void names_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* One name a line, then END_LINE: a file cut short is not taken. */
static int parse(char *text, char ***ret_v, size_t *ret_n)
{
	char **v = calloc(NAMES_MAX, sizeof(*v)), *line, *save = NULL;
	size_t n = 0;
	bool end = false;

	if (!v)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (end || (!strcmp(line, END_LINE) && (end = true)))
			continue;
		if (n == NAMES_MAX || !name_ok(line) || !(v[n] = strdup(line))) {
			names_free(v, n);
			return -EINVAL;
		}
		n++;
	}
	if (!end || !n) {
		names_free(v, n);
		return -EINVAL;
	}
	*ret_v = v;
	*ret_n = n;
	return 0;
}

static void kind_name(const char *kind, char *buf, size_t len)
{
	snprintf(buf, len, "names-%s", kind);
}

int namecache__read(const char *kind, char ***ret_v, size_t *ret_n)
{
	char name[64], text[NAMES_MAX * NAME_LEN];
	long n;

	kind_name(kind, name, sizeof(name));
	n = runcache__read(name, text, sizeof(text) - 1);
	if (n < 0)
		return (int)n;
	text[n] = '\0';
	return parse(text, ret_v, ret_n);
}

void namecache__write(const char *kind, char *const *v, size_t n)
{
	char name[64], text[NAMES_MAX * NAME_LEN];
	size_t i, used = 0;
	int k;

	if (n > NAMES_MAX)
		return;
	for (i = 0; i < n; i++) {
		k = snprintf(text + used, sizeof(text) - used, "%s\n", v[i]);
		if (k < 0 || (size_t)k >= sizeof(text) - used)
			return;
		used += (size_t)k;
	}
	k = snprintf(text + used, sizeof(text) - used, END_LINE "\n");
	if (k < 0 || (size_t)k >= sizeof(text) - used)
		return;
	kind_name(kind, name, sizeof(name));
	runcache__write(name, text, used + (size_t)k);
}
