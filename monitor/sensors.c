// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* skeleton open -> sizes and rodata -> load -> (seed maps) -> attach -> destroy */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpfutil.h"
#include "sensors.h"
#include "monitor.skel.h"

struct rf_sensors {
	struct monitor_bpf *skel;
	struct ring_buffer *rb;
	int ncpu;
	struct rf_mon_oncpu *oncpu;     /* per-CPU snapshot */
	struct bpf_link *sys_exit;      /* the syscall sensor, while wanted */
};

int sensors__open(size_t ringbuf_bytes, ring_buffer_sample_fn fn, void *ctx,
		  struct rf_sensors **ret, struct rf_error *e)
{
	struct rf_sensors *s = calloc(1, sizeof(*s));
	long page = sysconf(_SC_PAGESIZE);
	size_t rb = 4096;
	int err, shift = 0;

	if (!s)
		return -ENOMEM;
	s->ncpu = libbpf_num_possible_cpus();
	if (s->ncpu <= 0) {
		err = s->ncpu ? s->ncpu : -EINVAL;
		rf_error_set(e, err, NULL, "number of CPUs: %s", strerror(-err));
		free(s);
		return err;
	}
	s->oncpu = calloc((size_t)s->ncpu, sizeof(*s->oncpu));
	if (!s->oncpu) {
		err = rf_error_set(e, -ENOMEM, NULL, "the monitor's sensors: %s", strerror(ENOMEM));
		goto fail;
	}
	s->skel = monitor_bpf__open();
	if (!s->skel) {
		err = rf_error_set(e, -errno, NULL, "open the monitor's BPF object: %s",
				   strerror(errno));
		goto fail;
	}
	while ((1L << shift) < page)
		shift++;
	s->skel->rodata->rf_page_shift = (uint32_t)shift;
	while (rb < ringbuf_bytes && rb < (1UL << 30))
		rb *= 2;            /* a power of two, at least a page */
	bpf_map__set_max_entries(s->skel->maps.rf_mon_events, (uint32_t)rb);
	err = monitor_bpf__load(s->skel);
	if (err) {
		rf_error_set(e, err, NULL, "load the monitor's BPF programs (tp_btf sys_exit, "
			     "sched_*, rss_stat): %s", strerror(-err));
		goto fail;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.rf_mon_events), fn, ctx, NULL);
	if (!s->rb) {
		err = rf_error_set(e, -errno, NULL, "ring buffer: %s", strerror(errno));
		goto fail;
	}
	*ret = s;
	return 0;
fail:
	sensors__close(s);
	return err;
}

int sensors__attach(struct rf_sensors *s, bool cpu_switch, struct rf_error *e)
{
	int err;

	/* sched_switch runs on every context switch of the host: only where
	 * the cgroup cannot tell CPU time itself. */
	bpf_program__set_autoattach(s->skel->progs.rf_mon_switch, cpu_switch);
	/* sys_exit slows every syscall of the host: sensors__syscalls. */
	bpf_program__set_autoattach(s->skel->progs.rf_mon_sys_exit, false);
	err = monitor_bpf__attach(s->skel);

	if (err)
		return rf_error_set(e, err, NULL, "attach the monitor's BPF programs: %s",
				    strerror(-err));
	return 0;
}

void sensors__close(struct rf_sensors *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	bpf_link__destroy(s->sys_exit);
	monitor_bpf__destroy(s->skel);
	free(s->oncpu);
	free(s);
}

int sensors__syscalls(struct rf_sensors *s, bool on)
{
	if (on == (s->sys_exit != NULL))
		return 0;
	if (!on) {
		bpf_link__destroy(s->sys_exit);
		s->sys_exit = NULL;
		return 0;
	}
	s->sys_exit = bpf_program__attach(s->skel->progs.rf_mon_sys_exit);
	return s->sys_exit ? 0 : -errno;
}

bool sensors__syscalls_on(const struct rf_sensors *s)
{
	return s->sys_exit != NULL;
}

int sensors__epoll_fd(const struct rf_sensors *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

int sensors__poll(struct rf_sensors *s)
{
	return ring_buffer__consume(s->rb);
}

void sensors__set_parent(struct rf_sensors *s, uint64_t cgid)
{
	s->skel->bss->rf_parent_cgid = cgid;
}

int sensors__add(struct rf_sensors *s, uint64_t cgid, int64_t procs, bool armed)
{
	struct rf_mon_acct a;

	memset(&a, 0, sizeof(a));
	a.procs = procs;
	a.procs_peak = procs;
	a.peak_epoch = s->skel->bss->rf_epoch;
	a.flags = armed ? RF_MON_ACCT_ARMED : 0;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.rf_mon_acct), &cgid, &a, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

void sensors__remove(struct rf_sensors *s, uint64_t cgid)
{
	int fd = bpf_map__fd(s->skel->maps.rf_mon_procs);
	uint32_t key, next, dead[256];
	size_t n = 0, i;
	bool first = true;

	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.rf_mon_acct), &cgid);
	/* Its processes' entries (normally gone at exit already). */
	while (!bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		struct rf_mon_proc p;

		first = false;
		key = next;
		if (!bpf_map_lookup_elem(fd, &key, &p) && p.cgroup_id == cgid && n < 256)
			dead[n++] = key;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &dead[i]);
}

int sensors__acct(const struct rf_sensors *s, uint64_t cgid, struct rf_mon_acct *ret)
{
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.rf_mon_acct), &cgid, ret))
		return -errno;
	return 0;
}

size_t sensors__list(const struct rf_sensors *s, uint64_t *ids, size_t max)
{
	int fd = bpf_map__fd(s->skel->maps.rf_mon_acct);
	uint64_t key, next;
	size_t n = 0;
	bool first = true;

	while (n < max && !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		first = false;
		key = next;
		ids[n++] = key;
	}
	return n;
}

void sensors__next_epoch(struct rf_sensors *s)
{
	s->skel->bss->rf_epoch++;
}

uint64_t sensors__epoch(const struct rf_sensors *s)
{
	return s->skel->bss->rf_epoch;
}

void sensors__seed_proc(struct rf_sensors *s, uint32_t tgid, uint64_t cgid, uint64_t rss)
{
	struct rf_mon_proc p = { .cgroup_id = cgid, .rss_bytes = rss };

	bpf_map_update_elem(bpf_map__fd(s->skel->maps.rf_mon_procs), &tgid, &p, BPF_NOEXIST);
}

void sensors__mem_foreach(const struct rf_sensors *s,
			  void (*fn)(uint64_t cgid, uint64_t bytes, void *ctx), void *ctx)
{
	int fd = bpf_map__fd(s->skel->maps.rf_mon_procs);
	uint32_t key, next;
	bool first = true;
	size_t guard = 0;

	while (guard++ < 1000000 && !bpf_map_get_next_key(fd, first ? NULL : &key, &next)) {
		struct rf_mon_proc p;

		first = false;
		key = next;
		if (!bpf_map_lookup_elem(fd, &key, &p))
			fn(p.cgroup_id, p.rss_bytes, ctx);
	}
}

void sensors__cpu_snapshot(struct rf_sensors *s)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.rf_mon_oncpu), &zero, s->oncpu))
		memset(s->oncpu, 0, (size_t)s->ncpu * sizeof(*s->oncpu));
}

uint64_t sensors__cpu_running(const struct rf_sensors *s, uint64_t cgid, uint64_t now)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < s->ncpu; i++)
		if (s->oncpu[i].cgroup_id == cgid && now > s->oncpu[i].since_ns)
			sum += now - s->oncpu[i].since_ns;
	return sum;
}

uint64_t sensors__stat(const struct rf_sensors *s, uint32_t idx)
{
	uint64_t sum;

	return bpfutil__percpu_sum(bpf_map__fd(s->skel->maps.rf_mon_stats), idx, &sum) ? 0 : sum;
}
