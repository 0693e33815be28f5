// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <bpf/bpf.h>

#include "pins.h"
#include "bpfutil.h"
#include "inotify_each.h"
#include "events.h"

struct rf_decisions {
	ring_buffer_sample_fn fn;
	void *ctx;
	struct ring_buffer *rb;
	int events_fd, stats_fd;
	uint32_t events_id, stats_id;
	int ino_fd;             /* bpffs changes: pinned set appears or is replaced */
	int ino_dir_wd;
};

struct rf_decisions *decisions__new(ring_buffer_sample_fn fn, void *ctx)
{
	struct rf_decisions *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->fn = fn;
	d->ctx = ctx;
	d->events_fd = d->stats_fd = -1;
	d->ino_dir_wd = -1;
	d->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (d->ino_fd >= 0) {
		inotify_add_watch(d->ino_fd, "/sys/fs/bpf", IN_CREATE | IN_DELETE | IN_MOVED_TO);
		d->ino_dir_wd = inotify_add_watch(d->ino_fd, RF_PIN_DIR,
						  IN_CREATE | IN_DELETE | IN_MOVED_TO);
	}
	return d;
}

void decisions__detach(struct rf_decisions *d)
{
	ring_buffer__free(d->rb);
	d->rb = NULL;
	if (d->events_fd >= 0)
		close(d->events_fd);
	if (d->stats_fd >= 0)
		close(d->stats_fd);
	d->events_fd = d->stats_fd = -1;
	d->events_id = d->stats_id = 0;
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

bool decisions__replaced(const struct rf_decisions *d)
{
	return d->rb && rf_pins__pinned_id(RF_PIN_EVENTS) != d->events_id;
}

int decisions__attach(struct rf_decisions *d)
{
	struct rf_meta meta;
	int err;

	if (d->rb)
		return 1;
	err = rf_pins__read_meta(&meta);
	if (err)
		return err;
	d->events_fd = rf_pins__open_map(RF_PIN_EVENTS);
	d->stats_fd = rf_pins__open_map(RF_PIN_STATS);
	if (d->events_fd < 0 || d->stats_fd < 0) {
		err = d->events_fd < 0 ? d->events_fd : d->stats_fd;
		decisions__detach(d);
		return err;
	}
	d->events_id = rf_pins__map_id(d->events_fd);
	d->stats_id = rf_pins__map_id(d->stats_fd);
	d->rb = ring_buffer__new(d->events_fd, d->fn, d->ctx, NULL);
	if (!d->rb) {
		err = -errno;
		decisions__detach(d);
		return err;
	}
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

int decisions__lost(const struct rf_decisions *d, uint64_t *ret)
{
	if (d->stats_fd < 0)
		return -ENOENT;
	return bpfutil__percpu_sum(d->stats_fd, RF_STAT_RINGBUF_LOST, ret);
}

uint32_t decisions__stats_id(const struct rf_decisions *d)
{
	return d->stats_id;
}

int decisions__notify_fd(const struct rf_decisions *d)
{
	return d->ino_fd;
}

static void pin_dir_event(const struct inotify_event *ev, void *ctx)
{
	struct rf_decisions *d = ctx;

	/* The pin directory appeared: watch it (the set inside may follow). */
	if (ev->len && !strcmp(ev->name, "ringfence") && (ev->mask & IN_CREATE))
		d->ino_dir_wd = inotify_add_watch(d->ino_fd, RF_PIN_DIR,
						  IN_CREATE | IN_DELETE | IN_MOVED_TO);
}

bool decisions__notified(struct rf_decisions *d)
{
	return inotify__each(d->ino_fd, pin_dir_event, d) > 0;
}
