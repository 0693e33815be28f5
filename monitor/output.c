// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "output.h"

#define CHUNK 4096      /* <= PIPE_BUF: a pipe that polls writable takes it whole */

struct rf_output {
	char *path;
	int fd;
	bool regular;
	char *buf;
	size_t cap, head, len;  /* ring of bytes */
	uint64_t dropped;
};

static int open_path(const char *path, int *ret_fd, bool *ret_regular)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY, 0640);

	if (fd < 0)
		return -errno;
	*ret_regular = !fstat(fd, &st) && S_ISREG(st.st_mode);
	*ret_fd = fd;
	return 0;
}

/* Release without flushing (a queue that never opened, or after the flush). */
static void output_free(struct rf_output *o)
{
	if (!o)
		return;
	if (o->path && o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o->buf);
	free(o);
}
RF_DEFINE_CLEANUP(struct rf_output, output_free)

int output__open(const char *path, size_t max_bytes, struct rf_output **ret)
{
	_cleanup_(output_freep) struct rf_output *o = calloc(1, sizeof(*o));
	struct stat st;
	int err;

	if (!o)
		return -ENOMEM;
	o->fd = -1;
	o->cap = max_bytes ? max_bytes : 8u << 20;
	o->buf = malloc(o->cap);
	if (!o->buf)
		return -ENOMEM;
	if (path) {
		o->path = strdup(path);
		err = o->path ? open_path(path, &o->fd, &o->regular) : -ENOMEM;
		if (err)
			return err;
	} else {
		o->fd = STDOUT_FILENO;
		o->regular = !fstat(o->fd, &st) && S_ISREG(st.st_mode);
	}
	*ret = TAKE_PTR(o);
	return 0;
}

int output__reopen(struct rf_output *o)
{
	int fd, err;
	bool regular;

	if (!o->path)
		return 0;
	output__flush(o, 200);
	err = open_path(o->path, &fd, &regular);
	if (err)
		return err;   /* keep writing to the old one */
	close(o->fd);
	o->fd = fd;
	o->regular = regular;
	return 0;
}

void output__close(struct rf_output *o)
{
	if (!o)
		return;
	output__flush(o, 2000);
	output_free(o);
}

bool output__push(struct rf_output *o, const char *line)
{
	size_t n = strlen(line), i, tail;

	if (n > o->cap - o->len) {
		o->dropped++;
		return false;
	}
	tail = (o->head + o->len) % o->cap;
	i = o->cap - tail < n ? o->cap - tail : n;
	memcpy(o->buf + tail, line, i);
	memcpy(o->buf, line + i, n - i);
	o->len += n;
	return true;
}

/* The reader is gone: every queued record is lost. */
static void drop_all(struct rf_output *o)
{
	size_t i;

	for (i = 0; i < o->len; i++)
		o->dropped += o->buf[(o->head + i) % o->cap] == '\n';
	o->len = 0;
	o->head = 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void output__flush(struct rf_output *o, int wait_ms)
{
	uint64_t deadline = now_ms() + (wait_ms > 0 ? (uint64_t)wait_ms : 0);

	while (o->len) {
		size_t n = o->cap - o->head < o->len ? o->cap - o->head : o->len;
		ssize_t w;

		if (!o->regular) {
			struct pollfd p = { .fd = o->fd, .events = POLLOUT };
			int64_t left = (int64_t)(deadline - now_ms());

			if (poll(&p, 1, wait_ms > 0 && left > 0 ? (int)left : 0) <= 0)
				return;
			if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
				drop_all(o);
				return;
			}
			if (n > CHUNK)
				n = CHUNK;
		}
		w = write(o->fd, o->buf + o->head, n);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			drop_all(o);
			return;
		}
		o->head = (o->head + (size_t)w) % o->cap;
		o->len -= (size_t)w;
		if (wait_ms > 0 && now_ms() > deadline)
			return;
	}
	o->head = 0;
}

bool output__pending(const struct rf_output *o)
{
	return o->len > 0;
}

int output__fd(const struct rf_output *o)
{
	return o->fd;
}

uint64_t output__dropped(const struct rf_output *o)
{
	return o->dropped;
}
