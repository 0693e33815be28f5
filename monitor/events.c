// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <bpf/bpf.h>

#include "rf_abi.h"
#include "paths.h"
#include "events.h"

struct rf_decisions {
	ring_buffer_sample_fn fn;
	void *ctx;
	struct ring_buffer *rb;
	int events_fd, stats_fd;
	uint32_t events_id, stats_id;
	int ncpu;
	uint64_t *vals;
	int ino_fd;             /* bpffs changes: pinned set appears or is replaced */
	int ino_dir_wd;
};

static uint32_t map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

struct rf_decisions *decisions__new(ring_buffer_sample_fn fn, void *ctx)
{
	struct rf_decisions *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->fn = fn;
	d->ctx = ctx;
	d->events_fd = d->stats_fd = -1;
	d->ncpu = libbpf_num_possible_cpus();
	if (d->ncpu <= 0)
		d->ncpu = 1;
	d->vals = calloc((size_t)d->ncpu, sizeof(*d->vals));
	if (!d->vals) {
		free(d);
		return NULL;
	}
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
	free(d->vals);
	free(d);
}

bool decisions__attached(const struct rf_decisions *d)
{
	return d->rb != NULL;
}

static int pinned_id(const char *name)
{
	char path[256];
	int fd;
	uint32_t id;

	snprintf(path, sizeof(path), RF_PIN_DIR "/%s", name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	id = map_id(fd);
	close(fd);
	return (int)id;
}

bool decisions__replaced(const struct rf_decisions *d)
{
	return d->rb && (uint32_t)pinned_id("events") != d->events_id;
}

int decisions__attach(struct rf_decisions *d)
{
	struct rf_meta meta;
	__u32 zero = 0;
	int fd, err;

	if (d->rb)
		return 1;
	fd = bpf_obj_get(RF_PIN_DIR "/meta");
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	err = bpf_map_lookup_elem(fd, &zero, &meta) ? -errno : 0;
	close(fd);
	if (err)
		return err;
	if (meta.abi_version != RF_ABI_VERSION)
		return -ESTALE;
	d->events_fd = bpf_obj_get(RF_PIN_DIR "/events");
	d->stats_fd = bpf_obj_get(RF_PIN_DIR "/stats");
	if (d->events_fd < 0 || d->stats_fd < 0) {
		err = -errno;
		decisions__detach(d);
		return err;
	}
	d->events_id = map_id(d->events_fd);
	d->stats_id = map_id(d->stats_fd);
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
	__u32 idx = RF_STAT_RINGBUF_LOST;
	uint64_t sum = 0;
	int i;

	if (d->stats_fd < 0)
		return -ENOENT;
	if (bpf_map_lookup_elem(d->stats_fd, &idx, d->vals))
		return -errno;
	for (i = 0; i < d->ncpu; i++)
		sum += d->vals[i];
	*ret = sum;
	return 0;
}

uint32_t decisions__stats_id(const struct rf_decisions *d)
{
	return d->stats_id;
}

int decisions__notify_fd(const struct rf_decisions *d)
{
	return d->ino_fd;
}

bool decisions__notified(struct rf_decisions *d)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t n;

	while ((n = read(d->ino_fd, buf, sizeof(buf))) > 0) {
		char *p;

		for (p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			p += sizeof(*ev) + ev->len;
			any = true;
			if (ev->len && !strcmp(ev->name, "ringfence") && (ev->mask & IN_CREATE))
				d->ino_dir_wd = inotify_add_watch(d->ino_fd, RF_PIN_DIR,
								  IN_CREATE | IN_DELETE |
								  IN_MOVED_TO);
		}
	}
	return any;
}
