/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Helpers for the BPF program tests (tests/bpf, cmocka, root), in the
 * manner of the kernel's BPF selftests: a scratch cgroup of our own on the
 * host's cgroup2 (never MOUNT/ringfence, never RF_PIN_DIR), children that
 * act from inside it, and small readers of the skeleton's maps.
 */
#ifndef RF_BPFTEST_H
#define RF_BPFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cmocka.h>

#include "cgroup.h"
#include "rf_abi.h"

#define BT_PREFIX "rf-bpftest-"

struct bt_cgroup {
	char path[512];         /* MOUNT/rf-bpftest-XXXXXXXX[/sub] */
	int fd;                 /* O_DIRECTORY, -1 when not made */
	uint64_t id;
};

static inline void bt_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* mkdir PARENT/NAME and note its fd and id. 0 or -errno. */
static inline int bt_cgroup_make(const char *parent, const char *name, struct bt_cgroup *cg)
{
	struct stat st;

	memset(cg, 0, sizeof(*cg));
	cg->fd = -1;
	if ((size_t)snprintf(cg->path, sizeof(cg->path), "%s/%s", parent, name) >= sizeof(cg->path))
		return -ENAMETOOLONG;
	if (mkdir(cg->path, 0755))
		return -errno;
	cg->fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0 || fstat(cg->fd, &st)) {
		int err = -errno;

		if (cg->fd >= 0)
			close(cg->fd);
		cg->fd = -1;
		rmdir(cg->path);
		return err;
	}
	cg->id = (uint64_t)st.st_ino;
	return 0;
}

/* A fresh MOUNT/rf-bpftest-<random> on the host's cgroup2. */
static inline int bt_cgroup_scratch(struct bt_cgroup *cg)
{
	char mount[256], name[64];
	unsigned int r;
	int err;

	err = cgroup__find_v2_mount(mount, sizeof(mount));
	if (err)
		return err;
	if (getentropy(&r, sizeof(r)))
		r = (unsigned int)getpid() ^ (unsigned int)time(NULL);
	snprintf(name, sizeof(name), BT_PREFIX "%08x", r);
	return bt_cgroup_make(mount, name, cg);
}

/* Kill whatever is left in it (cgroup.kill), then rmdir, retrying the
 * EBUSY a just-emptied cgroup gives for a moment. Accepts one never made. */
static inline void bt_cgroup_remove(struct bt_cgroup *cg)
{
	char p[600];
	int fd;

	if (!cg || cg->fd < 0)
		return;
	snprintf(p, sizeof(p), "%s/cgroup.kill", cg->path);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			fprintf(stderr, "bpftest: %s: %s\n", p, strerror(errno));
		close(fd);
	}
	for (int i = 0; i < 200 && rmdir(cg->path) && errno == EBUSY; i++)
		bt_sleep_ms(10);
	close(cg->fd);
	cg->fd = -1;
}

/* In a child: move ourselves into cg ("0" moves the writer) and check
 * the kernel agrees. Returns 0 or a distinct exit status. */
#define BT_EXIT_NOT_MOVED 200
static inline int bt_enter(const struct bt_cgroup *cg)
{
	char p[600], line[600];
	const char *rel;
	FILE *f;
	bool in = false;
	int fd;

	snprintf(p, sizeof(p), "%s/cgroup.procs", cg->path);
	fd = open(p, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0", 1) != 1)
		return BT_EXIT_NOT_MOVED;
	close(fd);
	/* The path relative to the mount: what /proc/self/cgroup shows. */
	rel = strstr(cg->path, "/" BT_PREFIX);
	f = fopen("/proc/self/cgroup", "re");
	while (rel && f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0::", 3) && !strcmp(line + 3, rel))
			in = true;
	}
	if (f)
		fclose(f);
	return in ? 0 : BT_EXIT_NOT_MOVED;
}

static pid_t bt_last_pid;       /* the child bt_run ran last */

/*
 * Run fn(arg) in a child that is in cg (NULL: stays where the test is).
 * fn returns 0 or a positive errno; that is what this returns (or -1 when
 * the child died otherwise). No assertion runs between fork and wait.
 */
static inline int bt_run(const struct bt_cgroup *cg, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status, r;

	bt_last_pid = pid;
	if (pid < 0)
		return -1;
	if (pid == 0) {
		r = cg ? bt_enter(cg) : 0;
		if (!r)
			r = fn(arg);
		_exit(r > 255 ? 255 : r);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Delete every entry of a hash or LPM map. */
static inline void bt_map_clear(int fd, size_t key_size)
{
	char key[512];

	assert_true(key_size <= sizeof(key));
	while (!bpf_map_get_next_key(fd, NULL, key))
		assert_int_equal(bpf_map_delete_elem(fd, key), 0);
}

/* Entries in a hash map. */
static inline int bt_map_count(int fd, size_t key_size)
{
	char key[512], next[512];
	int n = 0;

	assert_true(key_size <= sizeof(key));
	while (!bpf_map_get_next_key(fd, n ? key : NULL, next)) {
		memcpy(key, next, key_size);
		n++;
	}
	return n;
}

/* The object's rf_sb_slots and rf_slots (bt_use_slots): a sandbox's
 * inner maps are at its slot in every outer map (bpf/rf_sbmap.bpf.h). */
static int bt_sb_slots_fd = -1, bt_slots_fd = -1;

static inline void bt_use_slots(int sb_slots_fd, int slots_fd)
{
	bt_sb_slots_fd = sb_slots_fd;
	bt_slots_fd = slots_fd;
}

/* cgid's slot: -1 when it has none and make is false; else one of its
 * own (the next unused index), owned by it in rf_slots. */
static inline int bt_slot(uint64_t cgid, bool make)
{
	struct rf_sb_slot ref;
	struct rf_slot own = { .cgid = cgid, .state = RF_SLOT_OWNED };
	uint64_t key, next;
	bool first = true;
	__u32 used = 0;

	assert_true(bt_sb_slots_fd >= 0 && bt_slots_fd >= 0);
	if (!bpf_map_lookup_elem(bt_sb_slots_fd, &cgid, &ref))
		return (int)ref.slot;
	if (!make)
		return -1;
	while (!bpf_map_get_next_key(bt_sb_slots_fd, first ? NULL : &key, &next)) {
		first = false;
		assert_int_equal(bpf_map_lookup_elem(bt_sb_slots_fd, &next, &ref), 0);
		used = ref.slot + 1 > used ? ref.slot + 1 : used;
		key = next;
	}
	ref = (struct rf_sb_slot){ .slot = used };
	assert_int_equal(bpf_map_update_elem(bt_slots_fd, &used, &own, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(bt_sb_slots_fd, &cgid, &ref, BPF_NOEXIST), 0);
	return (int)used;
}

/* The inner map of cgid in a per-sandbox outer map (bpf/rf_sbmap.bpf.h):
 * an fd to close; created (type, sizes, max entries, BPF_F_NO_PREALLOC)
 * and inserted at its slot when missing, unless type is 0 (then -1). */
static inline int bt_inner(int outer, uint64_t cgid, enum bpf_map_type type, size_t ksz,
			   size_t vsz, uint32_t max)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	int slot = bt_slot(cgid, type != 0);
	__u32 id, i;
	int fd;

	if (slot < 0)
		return -1;
	i = (__u32)slot;
	if (!bpf_map_lookup_elem(outer, &i, &id))
		return bpf_map_get_fd_by_id(id);
	if (!type)
		return -1;
	fd = bpf_map_create(type, "bt_inner", ksz, vsz, max, &o);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_update_elem(outer, &i, &fd, BPF_ANY), 0);
	return fd;
}

/* Put key -> value into cgid's inner map of outer (of type, created if
 * need be). */
static inline void bt_inner_put(int outer, uint64_t cgid, enum bpf_map_type type,
				const void *key, size_t ksz, const void *value, size_t vsz)
{
	int fd = bt_inner(outer, cgid, type, ksz, vsz, 1024);

	assert_true(fd >= 0);
	assert_int_equal(bpf_map_update_elem(fd, key, value, BPF_ANY), 0);
	close(fd);
}

/* Apply fn to the inner map at every slot in use of an outer map. */
static inline int bt_outer_each(int outer, size_t inner_key_size, int (*fn)(int, size_t))
{
	uint64_t key, next;
	struct rf_sb_slot ref;
	bool first = true;
	int n = 0;

	while (!bpf_map_get_next_key(bt_sb_slots_fd, first ? NULL : &key, &next)) {
		__u32 id;

		first = false;
		key = next;
		if (bpf_map_lookup_elem(bt_sb_slots_fd, &next, &ref) ||
		    bpf_map_lookup_elem(outer, &ref.slot, &id))
			continue;
		int fd = bpf_map_get_fd_by_id(id);

		if (fd >= 0) {
			n += fn(fd, inner_key_size);
			close(fd);
		}
	}
	return n;
}

static inline int bt_clear_fn(int fd, size_t key_size)
{
	bt_map_clear(fd, key_size);
	return 0;
}

/* Entries of every inner map of an outer map, together. */
static inline int bt_outer_count(int outer, size_t inner_key_size)
{
	return bt_outer_each(outer, inner_key_size, bt_map_count);
}

/* Empty every inner map of an outer map (the slots stay, as a pool's do:
 * no outer-map write, no grace period). */
static inline void bt_outer_clear(int outer, size_t inner_key_size)
{
	bt_outer_each(outer, inner_key_size, bt_clear_fn);
}

/* Look key up in cgid's inner map of outer: 0 or -errno (-ENOENT: no
 * entry, or no inner map). */
static inline int bt_inner_lookup(int outer, uint64_t cgid, const void *key, void *value)
{
	int fd = bt_inner(outer, cgid, 0, 0, 0, 0), err;

	if (fd < 0)
		return -ENOENT;
	err = bpf_map_lookup_elem(fd, key, value) ? -errno : 0;
	close(fd);
	return err;
}

/* A samples map for cgid, as the supervisor gives each sandbox. */
static inline void bt_samples_make(int outer, uint64_t cgid)
{
	int fd = bt_inner(outer, cgid, BPF_MAP_TYPE_HASH, sizeof(struct rf_sample_key),
			  sizeof(struct rf_event), RF_SAMPLE_LIMIT_DEFAULT);

	assert_true(fd >= 0);
	close(fd);
}

/* Sum over CPUs of slot idx of a per-CPU __u64 array. */
static inline uint64_t bt_percpu_sum(int fd, uint32_t idx)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[ncpu > 0 ? ncpu : 1], sum = 0;

	assert_true(ncpu > 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &idx, vals), 0);
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}

/* Zero a per-CPU __u64 array of n slots. */
static inline void bt_percpu_zero(int fd, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[ncpu > 0 ? ncpu : 1];

	memset(vals, 0, sizeof(vals));
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(bpf_map_update_elem(fd, &i, vals, BPF_ANY), 0);
}

static inline int bt_require_root(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: the BPF program tests need root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return -1;
	}
	return 0;
}

#endif
