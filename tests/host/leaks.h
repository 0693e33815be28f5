/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a run can leave behind, for host tests that check nothing is: the
 * cgroup ids that have keys in the pinned maps keyed by cgroup id (every
 * map lib/pins.h gives a key size, so a new map is covered without a test
 * change) and in the inner maps of free pool slots, and a sandbox's
 * registry file; harness.h counts a directory's
 * entries with a name prefix.
 */
#ifndef RF_TEST_LEAKS_H
#define RF_TEST_LEAKS_H

#include <dirent.h>
#include <bpf/bpf.h>

#include "paths.h"
#include "pins.h"
#include "rf_abi.h"

struct h_idset {
	uint64_t id[16384];
	size_t n;
};

static inline bool h_idset_has(const struct h_idset *s, uint64_t id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

static inline void h_idset_add(struct h_idset *s, uint64_t id)
{
	if (h_idset_has(s, id))
		return;
	assert_true(s->n < sizeof(s->id) / sizeof(s->id[0]));
	s->id[s->n++] = id;
}

/* Every cgroup id with a key in one pinned map (absent map: none). */
static inline void h_walk_map(const struct rf_pin_map_def *m, struct h_idset *s)
{
	unsigned char key[sizeof(struct rf_path_key)], next[sizeof(struct rf_path_key)];
	char path[256];
	bool first = true;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", rf_pins__dir(), m->pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return;
	assert_true(m->key_size <= sizeof(key));
	while (!bpf_map_get_next_key(fd, first ? NULL : key, next)) {
		uint64_t id;

		first = false;
		memcpy(&id, next + m->cgid_off, sizeof(id));
		h_idset_add(s, id);
		memcpy(key, next, m->key_size);
	}
	close(fd);
}

/* Every cgroup id with a key in an inner map of a FREE pool slot: a slot
 * handed back must be empty (the inner keys carry their owner's cgroup id:
 * after the 4-byte prefix length of the LPM layouts, first in samples). */
static inline void h_walk_free_slots(struct h_idset *s)
{
	unsigned char key[sizeof(struct rf_path_key)], next[sizeof(struct rf_path_key)];
	char path[256];
	int slots;
	__u32 i;

	snprintf(path, sizeof(path), "%s/%s", rf_pins__dir(), rf_pin_maps[RF_PIN_SLOTS].pin);
	slots = bpf_obj_get(path);
	if (slots < 0)
		return;
	for (i = 0; i < RF_MAX_SANDBOXES; i++) {
		struct rf_slot sl;

		if (bpf_map_lookup_elem(slots, &i, &sl) || sl.state == RF_SLOT_EMPTY)
			break;
		if (sl.state != RF_SLOT_FREE)
			continue;
		for (size_t m = 0; m < RF_PIN_MAP_MAX; m++) {
			size_t off = m == RF_PIN_SAMPLES ? 0 : 4;
			int outer, fd;
			bool first = true;
			__u32 id;

			if (!(rf_pin_maps[m].flags & RF_PINF_PER_SB))
				continue;
			snprintf(path, sizeof(path), "%s/%s", rf_pins__dir(), rf_pin_maps[m].pin);
			outer = bpf_obj_get(path);
			if (outer < 0)
				continue;
			fd = bpf_map_lookup_elem(outer, &i, &id) ? -1 : bpf_map_get_fd_by_id(id);
			close(outer);
			while (fd >= 0 && !bpf_map_get_next_key(fd, first ? NULL : key, next)) {
				uint64_t cg;

				first = false;
				memcpy(&cg, next + off, sizeof(cg));
				h_idset_add(s, cg);
				memcpy(key, next, sizeof(key));
			}
			if (fd >= 0)
				close(fd);
		}
	}
	close(slots);
}

/* The cgroup ids every per-sandbox pinned map holds keys for. */
static inline void h_map_ids(struct h_idset *s)
{
	size_t i;

	s->n = 0;
	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		if (rf_pin_maps[i].key_size)
			h_walk_map(&rf_pin_maps[i], s);
	h_walk_free_slots(s);
}

/* A process that is gone or a zombie (exited; its parent has not reaped it). */
static inline bool h_dead(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	bool z = true;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return true;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		z = p[2] == 'Z' || p[2] == 'X';
	fclose(f);
	return z;
}

/* The registry file of the sandbox named prefix*, once its command runs
 * (within 5 s, or the test fails). */
static inline json_t *h_wait_registered(const char *prefix)
{
	char path[600];
	struct dirent *de;
	int tries;

	for (tries = 0; tries < 200; tries++, usleep(25 * 1000)) {
		DIR *d = opendir(RF_REGISTRY_DIR);
		json_t *o = NULL;

		while (d && (de = readdir(d))) {
			size_t l = strlen(de->d_name);

			if (strncmp(de->d_name, prefix, strlen(prefix)) || l < 5 ||
			    strcmp(de->d_name + l - 5, ".json"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", RF_REGISTRY_DIR, de->d_name);
			o = json_load_file(path, 0, NULL);
			if (o && json_integer_value(json_object_get(o, "pid")) > 0)
				break;
			json_decref(o);
			o = NULL;
		}
		if (d)
			closedir(d);
		if (o)
			return o;
	}
	fail_msg("no registry file %s* with a running command", prefix);
	return NULL;
}

#endif
