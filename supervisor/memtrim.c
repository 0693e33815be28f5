// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "memtrim.h"

struct mapping {
	unsigned long start, end;
	bool candidate;       /* read-only, private, file-backed */
	size_t rss_kb, anon_kb;
};

static void drop(const struct mapping *m, size_t *dropped)
{
	if (!m->candidate || m->anon_kb || !m->rss_kb)
		return;
	if (!madvise((void *)m->start, m->end - m->start, MADV_DONTNEED))
		*dropped += m->rss_kb;
}

/* One /proc/self/smaps header line: "start-end perms offset dev inode path". */
static bool parse_header(const char *line, struct mapping *m)
{
	char perms[8] = "", path[16] = "";
	unsigned long ino = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%lx-%lx %7s %*x %*s %lu %15s", &m->start, &m->end, perms, &ino,
		   path) < 4)
		return false;
	m->candidate = ino && path[0] == '/' && perms[0] == 'r' && perms[1] == '-' &&
		       perms[3] == 'p';
	return true;
}

size_t memtrim__idle(void)
{
	struct mapping m = { 0 };
	size_t dropped = 0, kb;
	char line[512];
	bool have = false;
	FILE *f;

	malloc_trim(0);
	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return 0;
	/* The whole file first: madvise while reading would change it. */
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	while (fgets(line, sizeof(line), f)) {
		struct mapping next;

		size_t key = strcspn(line, " ");

		/* "Key: value" lines end their first word with ':' */
		if (key && line[key - 1] != ':' && parse_header(line, &next)) {
			if (have)
				drop(&m, &dropped);
			m = next;
			have = true;
		} else if (sscanf(line, "Rss: %zu kB", &kb) == 1) {
			m.rss_kb = kb;
		} else if (sscanf(line, "Anonymous: %zu kB", &kb) == 1) {
			m.anon_kb = kb;
		}
	}
	if (have)
		drop(&m, &dropped);
	fclose(f);
	return dropped;
}
