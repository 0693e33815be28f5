// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every pinned set's decisions (pins.h: one set per build, an old one
 * beside a new one until its last sandbox ends): one ring buffer manager
 * over all their rings, rebuilt when a set comes or goes; the lost
 * counter summed over them, kept monotonic across those changes.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <bpf/bpf.h>

#include "pins.h"
#include "bpfutil.h"
#include "inotify_each.h"
#include "events.h"

/* Sets followed at once: two while an upgrade is under way; more only
 * when several builds run side by side (the rest wait for a free place). */
#define DEC_SETS 8
#define INO_MASK (IN_CREATE | IN_DELETE | IN_MOVED_TO)

struct dec_set {
	char name[RF_PIN_SET_LEN];
	int events_fd, stats_fd;
	uint32_t events_id, stats_id;
	uint64_t lost_seen;     /* its RF_STAT_RINGBUF_LOST counted so far */
};

struct rf_decisions {
	ring_buffer_sample_fn fn;
	void *ctx;
	struct ring_buffer *rb;
	struct dec_set s[DEC_SETS];
	size_t n;
	uint64_t lost;          /* summed over sets, never going back */
	uint32_t ident;         /* decisions__stats_id: the oldest set's stats id */
	int ino_fd;             /* bpffs changes: a set appears or goes */
	int ino_dir_wd;
};

static void set_close(struct dec_set *s)
{
	if (s->events_fd >= 0)
		close(s->events_fd);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	s->events_fd = s->stats_fd = -1;
}

struct rf_decisions *decisions__new(ring_buffer_sample_fn fn, void *ctx)
{
	struct rf_decisions *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->fn = fn;
	d->ctx = ctx;
	d->ino_dir_wd = -1;
	d->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->ino_fd >= 0) {
		inotify_add_watch(d->ino_fd, "/sys/fs/bpf", INO_MASK);
		d->ino_dir_wd = inotify_add_watch(d->ino_fd, RF_PIN_DIR, INO_MASK);
	}
	return d;
}

void decisions__detach(struct rf_decisions *d)
{
	size_t i;

	ring_buffer__free(d->rb);
	d->rb = NULL;
	for (i = 0; i < d->n; i++)
		set_close(&d->s[i]);
	d->n = 0;
}

void decisions__free(struct rf_decisions *d)
{
	if (!d)
		return;
	decisions__detach(d);
	if (d->ino_fd >= 0)
		close(d->ino_fd);
	free(d);
}

bool decisions__attached(const struct rf_decisions *d)
{
	return d->rb != NULL;
}

/* The sets pinned now, with their rings' ids: ret (up to DEC_SETS). */
struct scan {
	struct dec_set *v;
	size_t n;
	bool stale;             /* a set of another ABI was met */
	bool open;              /* open the maps too (else ids only) */
	int ino_fd;
};

static int scan_set(const char *name, void *ctx)
{
	struct scan *sc = ctx;
	struct dec_set *s = &sc->v[sc->n];
	struct rf_meta meta;
	char dir[PATH_MAX];
	int err, fd;

	if (sc->n == DEC_SETS)
		return 1;
	memset(s, 0, sizeof(*s));
	s->events_fd = s->stats_fd = -1;
	/* its meta is pinned last: a set being loaded shows up later */
	if (sc->ino_fd >= 0 && name[0])
		inotify_add_watch(sc->ino_fd, rf_pins__set_dir(name, dir, sizeof(dir)), INO_MASK);
	err = rf_pins__read_meta_in(name, &meta);
	if (err) {
		sc->stale |= err == -ESTALE;
		return 0;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	fd = rf_pins__get_in(name, rf_pin_maps[RF_PIN_EVENTS].pin);
	if (fd < 0)
		return 0;
	s->events_id = rf_pins__map_id(fd);
	if (!sc->open) {
		close(fd);
		sc->n++;
		return 0;
	}
	s->events_fd = fd;
	s->stats_fd = rf_pins__get_in(name, rf_pin_maps[RF_PIN_STATS].pin);
	if (s->stats_fd < 0) {
		set_close(s);
		return 0;
	}
	s->stats_id = rf_pins__map_id(s->stats_fd);
	sc->n++;
	return 0;
}

/* The same sets with the same rings as v. */
static bool same_sets(const struct dec_set *a, size_t na, const struct dec_set *b, size_t nb)
{
	size_t i, j;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && (strcmp(a[i].name, b[j].name) ||
				       a[i].events_id != b[j].events_id); j++)
			;
		if (j == nb)
			return false;
	}
	return true;
}

bool decisions__replaced(const struct rf_decisions *d)
{
	struct dec_set now[DEC_SETS];
	struct scan sc = { .v = now, .ino_fd = -1 };

	if (!d->rb)
		return false;
	rf_pins__each_set(scan_set, &sc);
	return !same_sets(d->s, d->n, now, sc.n);
}

/* A set followed before keeps what of its lost counter was counted. */
static void carry_lost(const struct rf_decisions *d, struct dec_set *s)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->s[i].name, s->name) && d->s[i].stats_id == s->stats_id)
			s->lost_seen = d->s[i].lost_seen;
}

int decisions__attach(struct rf_decisions *d)
{
	struct dec_set now[DEC_SETS];
	struct scan sc = { .v = now, .open = true, .ino_fd = d->ino_fd };
	struct ring_buffer *rb = NULL;
	size_t i;
	int err = 0;

	rf_pins__each_set(scan_set, &sc);
	if (d->rb && same_sets(d->s, d->n, now, sc.n)) {
		for (i = 0; i < sc.n; i++)
			set_close(&now[i]);
		return 1;
	}
	for (i = 0; i < sc.n && !err; i++) {
		carry_lost(d, &now[i]);
		if (!rb) {
			rb = ring_buffer__new(now[i].events_fd, d->fn, d->ctx, NULL);
			err = rb ? 0 : -errno;
		} else {
			err = ring_buffer__add(rb, now[i].events_fd, d->fn, d->ctx);
		}
	}
	if (err || !sc.n) {
		ring_buffer__free(rb);
		for (i = 0; i < sc.n; i++)
			set_close(&now[i]);
		decisions__detach(d);
		return err ? err : sc.stale ? -ESTALE : -ENOENT;
	}
	decisions__detach(d);
	memcpy(d->s, now, sc.n * sizeof(now[0]));
	d->n = sc.n;
	d->rb = rb;
	/* The lost counter's identity for the monitor's saved state: the
	 * oldest set's (the lowest id), kept while sets come and go. */
	if (!d->ident)
		for (i = 0; i < d->n; i++)
			if (!d->ident || d->s[i].stats_id < d->ident)
				d->ident = d->s[i].stats_id;
	return 0;
}

int decisions__epoll_fd(const struct rf_decisions *d)
{
	return d->rb ? ring_buffer__epoll_fd(d->rb) : -1;
}

int decisions__poll(struct rf_decisions *d)
{
	return d->rb ? ring_buffer__consume(d->rb) : 0;
}

int decisions__lost(struct rf_decisions *d, uint64_t *ret)
{
	size_t i;
	uint64_t v;

	if (!d->n)
		return -ENOENT;
	/* Each set's growth since last seen; a set met first counts its
	 * whole counter (lost since it was loaded). One set: its counter. */
	for (i = 0; i < d->n; i++)
		if (!bpfutil__percpu_sum(d->s[i].stats_fd, RF_STAT_RINGBUF_LOST, &v) &&
		    v >= d->s[i].lost_seen) {
			d->lost += v - d->s[i].lost_seen;
			d->s[i].lost_seen = v;
		}
	*ret = d->lost;
	return 0;
}

uint32_t decisions__stats_id(const struct rf_decisions *d)
{
	return d->ident;
}

size_t decisions__sets(const struct rf_decisions *d)
{
	return d->n;
}

int decisions__notify_fd(const struct rf_decisions *d)
{
	return d->ino_fd;
}

static void pin_dir_event(const struct inotify_event *ev, void *ctx)
{
	struct rf_decisions *d = ctx;

	/* The pin directory appeared: watch it (the sets inside may follow;
	 * decisions__attach watches each set's directory). */
	if (ev->len && !strcmp(ev->name, "ringfence") && (ev->mask & IN_CREATE))
		d->ino_dir_wd = inotify_add_watch(d->ino_fd, RF_PIN_DIR, INO_MASK);
}

bool decisions__notified(struct rf_decisions *d)
{
	return inotify__each(d->ino_fd, pin_dir_event, d) > 0;
}
