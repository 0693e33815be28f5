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

#define MAX_MAPPINGS 512

static bool droppable(const struct mapping *m)
{
	return m->candidate && !m->anon_kb && m->rss_kb;
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

/* The droppable mappings of /proc/self/smaps into v; how many. */
static size_t collect(struct mapping *v, size_t max)
{
	struct mapping m = { 0 };
	char line[512];
	bool have = false;
	size_t n = 0, kb;
	FILE *f = fopen("/proc/self/smaps", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		size_t key = strcspn(line, " ");
		struct mapping next;

		/* "Key: value" lines end their first word with ':' */
		if (key && line[key - 1] != ':' && parse_header(line, &next)) {
			if (have && droppable(&m) && n < max)
				v[n++] = m;
			m = next;
			have = true;
		} else if (sscanf(line, "Rss: %zu kB", &kb) == 1) {
			m.rss_kb = kb;
		} else if (sscanf(line, "Anonymous: %zu kB", &kb) == 1) {
			m.anon_kb = kb;
		}
	}
	if (have && droppable(&m) && n < max)
		v[n++] = m;
	fclose(f);
	return n;
}

size_t memtrim__idle(void)
{
	static struct mapping v[MAX_MAPPINGS];
	size_t n, i, dropped = 0;

	malloc_trim(0);
	n = collect(v, MAX_MAPPINGS);
	/* Last, in one tight loop: code run after it faults its pages (and
	 * their neighbours) back in. */
	for (i = 0; i < n; i++)
		if (!madvise((void *)v[i].start, v[i].end - v[i].start, MADV_DONTNEED))
			dropped += v[i].rss_kb;
	return dropped;
}
