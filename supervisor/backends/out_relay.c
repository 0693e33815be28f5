// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ringfence's stdout and stderr as the output relay's destination, never
 * blocking (out_relay.h). A pipe is reopened, as the pty relay reopens the
 * caller's terminal: O_NONBLOCK set on the inherited description would
 * reach every process that shares it (the shell, the rest of a pipeline).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "out_relay.h"

static int reopen_pipe(int dest)
{
	char p[32];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", dest);
	return open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

/* A dup of dest, its shared description made non-blocking (*old_fl). */
static int shared_nonblocking(int dest, int *old_fl)
{
	int fl = fcntl(dest, F_GETFL), fd;

	if (fl < 0)
		return -errno;
	fd = fcntl(dest, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -errno;
	if (!(fl & O_NONBLOCK)) {
		if (fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		*old_fl = fl;
	}
	return fd;
}

int out_relay__open(struct rf_out_relay *o, int dest)
{
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	o->fd = o->restore_fl = -1;
	if (fstat(dest, &st) < 0)
		return -errno;
	o->data = malloc(RF_OUT_RELAY_BUF);
	if (!o->data)
		return -ENOMEM;
	if (S_ISFIFO(st.st_mode) && (fd = reopen_pipe(dest)) >= 0) {
		o->own = true;
	} else if (S_ISSOCK(st.st_mode) || S_ISREG(st.st_mode)) {
		/* A regular file never makes a writer wait for a reader. */
		o->sock = S_ISSOCK(st.st_mode);
		fd = fcntl(dest, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			fd = -errno;
	} else {
		fd = shared_nonblocking(dest, &o->restore_fl);
	}
	if (fd < 0) {
		free(o->data);
		o->data = NULL;
		return fd;
	}
	o->fd = fd;
	return 0;
}

char *out_relay__tail(struct rf_out_relay *o, size_t *ret_room)
{
	if (o->off) {
		memmove(o->data, o->data + o->off, o->len);
		o->off = 0;
	}
	*ret_room = o->data ? RF_OUT_RELAY_BUF - o->len : 0;
	return o->data ? o->data + o->len : NULL;
}

void out_relay__commit(struct rf_out_relay *o, size_t n)
{
	o->len += n;
}

size_t out_relay__drop(struct rf_out_relay *o)
{
	size_t n = o->len;

	o->off = o->len = 0;
	return n;
}

bool out_relay__flush(struct rf_out_relay *o)
{
	while (o->len && !o->dead) {
		const char *p = o->data + o->off;
		ssize_t n = o->sock ? send(o->fd, p, o->len, MSG_DONTWAIT | MSG_NOSIGNAL) :
				      write(o->fd, p, o->len);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (n <= 0) {
			o->dead = true;
			out_relay__drop(o);
			break;
		}
		o->off += (size_t)n;
		o->len -= (size_t)n;
	}
	if (!o->len)
		o->off = 0;
	return !o->dead;
}

void out_relay__own_stderr(const struct rf_out_relay *o, int *ret_saved)
{
	*ret_saved = -1;
	if (!o->own || o->fd < 0)
		return;
	*ret_saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
	if (*ret_saved >= 0 && dup2(o->fd, 2) < 0) {
		close(*ret_saved);
		*ret_saved = -1;
	}
}

void out_relay__close(struct rf_out_relay *o)
{
	if (o->fd >= 0 && o->restore_fl >= 0)
		fcntl(o->fd, F_SETFL, o->restore_fl);
	if (o->fd >= 0)
		close(o->fd);
	o->fd = o->restore_fl = -1;
	free(o->data);
	o->data = NULL;
	o->off = o->len = 0;
}
