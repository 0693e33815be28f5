// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/stat.h>
#include <sys/socket.h>

#include "fileio.h"
#include "names.h"
#include "sysnames.h"
#include "timefmt.h"
#include "trace.h"

struct rf_trace {
	int fd;                  /* -1: events are dropped */
	bool cut;                /* a regular file: a half-written line is cut off */
	off_t whole;             /* bytes of whole lines written */
	uint64_t seq;
	uint64_t written;        /* lines written whole */
	int err;                 /* the first write error: nothing is written after it */
	char sandbox[128];
	pthread_mutex_t lock;    /* the DNS gate's thread writes too (dnsgate.c) */
};

int trace__open(const char *path, const char *sandbox, struct rf_trace **ret_trace)
{
	struct rf_trace *t = calloc(1, sizeof(*t));
	struct stat st;
	int err;

	if (!t)
		return -ENOMEM;
	t->fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	snprintf(t->sandbox, sizeof(t->sandbox), "%s", sandbox);
	if (path) {
		/* CLOEXEC: the sandbox must never inherit its own trace.
		 * NONBLOCK: a FIFO nobody reads is ENXIO now, not a hang
		 * before the command starts; writes block again below. */
		t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
		if (t->fd < 0 || fcntl(t->fd, F_SETFL, fcntl(t->fd, F_GETFL) & ~O_NONBLOCK) < 0 ||
		    fstat(t->fd, &st) < 0) {
			err = -errno;
			trace__close(t);
			return err;
		}
		t->cut = S_ISREG(st.st_mode);
	}
	*ret_trace = t;
	return 0;
}

void trace__close(struct rf_trace *t)
{
	if (t && t->fd >= 0)
		close(t->fd);
	free(t);
}

int trace__error(const struct rf_trace *t, uint64_t *ret_written)
{
	if (ret_written)
		*ret_written = t ? t->written : 0;
	return t ? t->err : 0;
}

/*
 * One line, whole or (on a regular file) not at all: a failed write is
 * cut off again so the trace stays JSON lines up to where it stopped. A
 * FIFO whose reader went away is EPIPE here, not a SIGPIPE that would end
 * the supervisor without a word: the signal is blocked around the write
 * and the one it raised is taken back.
 */
static int write_line(struct rf_trace *t, const char *line)
{
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old;
	size_t len = strlen(line);
	int err;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	err = fileio__write_all(t->fd, line, len);
	if (err == -EPIPE && !sigismember(&old, SIGPIPE))
		sigtimedwait(&pipe_set, NULL, &zero);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err) {
		if (t->cut && ftruncate(t->fd, t->whole) == 0)
			lseek(t->fd, t->whole, SEEK_SET);
		return err;
	}
	t->whole += (off_t)len;
	return 0;
}

void trace__format_ts(const struct timespec *ts, char *buf, size_t len)
{
	timefmt__rfc3339(ts->tv_sec, ts->tv_nsec, 9, buf, len);
}

bool trace__on(const struct rf_trace *t)
{
	return t && t->fd >= 0 && !t->err;
}

int trace__emit(struct rf_trace *t, const char *event, json_t *fields)
{
	struct timespec now;
	char ts[64], *line;

	if (!fields)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &now);
	trace__format_ts(&now, ts, sizeof(ts));
	json_object_set_new(fields, "ts", json_string(ts));
	pthread_mutex_lock(&t->lock);
	json_object_set_new(fields, "seq", json_integer((json_int_t)t->seq++));
	json_object_set_new(fields, "sandbox", json_string(t->sandbox));
	json_object_set_new(fields, "event", json_string(event));
	if (t->fd >= 0 && !t->err) {
		line = json_dumps(fields, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!line)
			t->err = -ENOMEM;
		else {
			char *nl = realloc(line, strlen(line) + 2);

			if (!nl) {
				t->err = -ENOMEM;
			} else {
				line = nl;
				strcat(line, "\n");
				t->err = write_line(t, line);
				t->written += !t->err;
			}
		}
		free(line);
	}
	pthread_mutex_unlock(&t->lock);
	json_decref(fields);
	return t->fd >= 0 ? t->err : 0;
}

/* Kernel boot-time stamp -> wall clock, for the record's own time. */
static void boot_to_real(uint64_t boot_ns, struct timespec *out)
{
	struct timespec real, boot;
	int64_t delta;
	uint64_t ns;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	delta = ((int64_t)boot.tv_sec * 1000000000LL + boot.tv_nsec) - (int64_t)boot_ns;
	ns = (uint64_t)real.tv_sec * 1000000000ULL + real.tv_nsec - (uint64_t)delta;
	out->tv_sec = ns / 1000000000ULL;
	out->tv_nsec = ns % 1000000000ULL;
}

/* Kernel strings are bytes; the trace is UTF-8 JSON: keep printable ASCII. */
static void printable(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
	dst[n] = 0;
}

/* rf_access bits as names, in a fixed order. */
static json_t *access_json(uint32_t bits)
{
	json_t *a = json_array();

	if (bits & RF_ACC_READ)
		json_array_append_new(a, json_string("read"));
	if (bits & RF_ACC_WRITE)
		json_array_append_new(a, json_string("write"));
	if (bits & RF_ACC_EXEC)
		json_array_append_new(a, json_string("exec"));
	return a;
}

/* file and exec: the resolved path, the access the operation needed and
 * what the longest matching rule grants (null: no rule covers the path). */
static json_t *file_destination(const struct rf_event *ev)
{
	char path[RF_EVENT_PATH_LEN + 1];
	uint32_t n = ev->path_len < RF_EVENT_PATH_LEN ? ev->path_len : RF_EVENT_PATH_LEN;
	json_t *dst = json_object();

	printable(path, ev->path, strnlen(ev->path, n));
	json_object_set_new(dst, "path", json_string(path));
	json_object_set_new(dst, "need", access_json(ev->need));
	json_object_set_new(dst, "rule", ev->reason == RF_REASON_ACCESS ? access_json(ev->have)
								       : json_null());
	return dst;
}

/* process: what the operation aimed at, where the kernel says. */
static json_t *process_destination(const struct rf_event *ev)
{
	char path[RF_EVENT_PATH_LEN + 1];
	uint32_t n = ev->path_len < RF_EVENT_PATH_LEN ? ev->path_len : RF_EVENT_PATH_LEN;
	const char *arg = ev->flags & RF_EVF_INFERRED ? names__op_syscall_arg(ev->op)
						      : names__op_arg(ev->op);
	json_t *dst = json_object();

	if (ev->op == RF_OP_KILL || ev->op == RF_OP_PTRACE || ev->op == RF_OP_SETNICE ||
	    ev->op == RF_OP_SETIOPRIO || ev->op == RF_OP_SETSCHEDULER || ev->op == RF_OP_SETRLIMIT ||
	    ((ev->flags & RF_EVF_INFERRED) && ev->op == RF_OP_PROCESS_VM))
		json_object_set_new(dst, "target_pid", json_integer(ev->target_pid));
	if (arg)
		json_object_set_new(dst, arg, json_integer(ev->arg));
	switch (ev->op) {
	case RF_OP_PSEUDO_FS_WRITE:
		json_object_set_new(dst, "operation", json_string(names__op(ev->arg)));
		break;
	case RF_OP_CGROUP_WRITE:
		printable(path, ev->path, strnlen(ev->path, n));
		json_object_set_new(dst, "path", json_string(path));
		break;
	}
	return dst;
}

/* The backend whose decision a kernel record is: the op says which
 * programs made it. */
static const char *record_backend(const struct rf_event *ev)
{
	if (ev->flags & RF_EVF_INFERRED)
		return ev->class == RF_CLASS_PROCESS ? "seccomp" : "landlock";
	if (ev->class == RF_CLASS_SYSCALLS)
		return names__backend(RF_BE_SECCOMP);   /* its listener's answer */
	if (ev->op >= RF_OP_CONNECT4 && ev->op <= RF_OP_SOCK_CREATE)
		return names__backend(RF_BE_CGROUP_SOCK_ADDR);
	return names__backend(RF_BE_BPF_LSM);
}

json_t *trace__event_json(const struct rf_event *ev)
{
	return trace__deny_json(ev, NULL);
}

json_t *trace__deny_json(const struct rf_event *ev, const char *backend)
{
	char path[RF_UNIX_PATH_MAX + 1];
	char addr[INET6_ADDRSTRLEN] = "", ts[64], comm[RF_COMM_LEN + 1];
	json_t *o, *dst;
	struct timespec t;
	const char *proto;

	boot_to_real(ev->ts_boot_ns, &t);
	trace__format_ts(&t, ts, sizeof(ts));
	printable(comm, ev->comm, strnlen(ev->comm, RF_COMM_LEN));

	if (ev->class == RF_CLASS_FILE || ev->class == RF_CLASS_EXEC)
		dst = file_destination(ev);
	else if (ev->class == RF_CLASS_PROCESS)
		dst = process_destination(ev);
	else
		dst = json_object();
	if (ev->class != RF_CLASS_NET && ev->class != RF_CLASS_UNIX) {
		/* decoded above */
	} else if (ev->family == AF_INET || ev->family == AF_INET6) {
		json_object_set_new(dst, "family", json_string(ev->family == AF_INET ? "ipv4" : "ipv6"));
		if (ev->op != RF_OP_SOCK_CREATE) {
			inet_ntop(ev->family, ev->addr, addr, sizeof(addr));
			json_object_set_new(dst, "address", json_string(addr));
			json_object_set_new(dst, "port", json_integer(ev->port));
		} else {
			json_object_set_new(dst, "socket_type", json_integer(ev->protocol >> 16));
		}
		proto = names__proto(ev->protocol & 0xffff);
		if (proto)
			json_object_set_new(dst, "protocol", json_string(proto));
		else
			json_object_set_new(dst, "protocol", json_integer(ev->protocol & 0xffff));
	} else if (ev->family == AF_UNIX) {
		uint32_t n = ev->path_len < RF_UNIX_PATH_MAX ? ev->path_len : RF_UNIX_PATH_MAX;

		json_object_set_new(dst, "family", json_string("unix"));
		printable(path, ev->path, n);
		json_object_set_new(dst, "path", json_string(path));
		json_object_set_new(dst, "socket_type", json_string(names__sock_type(ev->protocol)));
	}
	if ((ev->flags & RF_EVF_SYSCALL) && sysnames__name(ev->syscall)[0])
		json_object_set_new(dst, "syscall", json_string(sysnames__name(ev->syscall)));
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s%, s:I, s:o}",
		      "class", names__class(ev->class),
		      "op", names__op(ev->op),
		      "verdict", names__verdict(ev->verdict),
		      "reason", names__reason(ev->reason),
		      "backend", backend ? backend : record_backend(ev),
		      "attribution", ev->flags & RF_EVF_INFERRED ? "inferred" : "kernel",
		      "kernel_ts", ts,
		      "pid", (json_int_t)ev->pid,
		      "tid", (json_int_t)ev->tid,
		      "uid", (json_int_t)ev->uid,
		      "cgroup_id", (json_int_t)ev->cgroup_id,
		      "comm", comm, strlen(comm),
		      "kernel_seq", (json_int_t)ev->seq,
		      "destination", dst);
	return o;
}
