// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * monitor.files through fanotify (filewatch.h). The group is the
 * supervisor's; the child marks its own mounts with it (launch_child.c),
 * so its marks are on the sandbox's mount namespace only. Each event
 * carries an fd of the file opened (read-only, non-blocking, never
 * reported itself); its path as the sandbox sees it is the fd's link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fanotify.h>
#include <bpf/bpf.h>

#include "filewatch.h"
#include "log.h"
#include "pins.h"
#include "policy/policy.h"
#include "rf_abi.h"
#include "sandbox.h"

#define SENT_SLOTS (2 * RF_FILEWATCH_SEND_MAX)
/* The kinds of access reported, and what each is in a record. */
#define FW_MASK (FAN_OPEN | FAN_OPEN_EXEC | FAN_ACCESS | FAN_MODIFY)

uint64_t filewatch__mask(void)
{
	return FW_MASK;
}

bool filewatch__expected(char *const *files, size_t n, const char *path)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		len = strlen(files[i]);
		if (files[i][len - 1] == '/' ? !strncmp(path, files[i], len)
					     : !strcmp(path, files[i]))
			return true;
	}
	return false;
}

int filewatch__start(struct sandbox *sb)
{
	struct rf_file_watch *w = &sb->files;

	memset(w, 0, sizeof(*w));
	w->fd = w->note_fd = -1;
	if (!sb->policy->monitor.has_files)
		return 0;
	/* A bounded queue: an overflow is one event, counted. */
	w->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
			      O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_LARGEFILE);
	if (w->fd < 0)
		return -errno;
	w->sent = calloc(SENT_SLOTS, sizeof(*w->sent));
	if (!w->sent) {
		close(w->fd);
		return -ENOMEM;
	}
	w->note_fd = rf_pins__get(RF_PIN_DNS_NOTE);
	if (w->note_fd < 0)
		rf_info("monitor.files: %s/%s missing: unexpected opens reach no monitor",
			rf_pins__dir(), RF_PIN_DNS_NOTE);
	w->on = true;
	return 0;
}

int filewatch__fd(const struct sandbox *sb)
{
	return sb->files.on ? sb->files.fd : -1;
}

/* FNV-1a of the path and the access bits: true when newly added. */
static bool sent_add(struct rf_file_watch *w, const char *path, uint32_t access)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (; *path; path++)
		h = (h ^ (unsigned char)*path) * 0x100000001b3ULL;
	h = ((h ^ access) * 0x100000001b3ULL) | 1;   /* 0 marks a free slot */
	for (i = h % SENT_SLOTS;; i = (i + 1) % SENT_SLOTS) {
		if (w->sent[i] == h)
			return false;
		if (!w->sent[i])
			break;
	}
	w->sent[i] = h;
	return true;
}

static uint32_t access_of(uint64_t mask)
{
	return (mask & FAN_ACCESS ? RF_ACC_READ : 0) | (mask & FAN_MODIFY ? RF_ACC_WRITE : 0) |
	       (mask & FAN_OPEN_EXEC ? RF_ACC_EXEC : 0);
}

/* The process's name and parent, read now (it may be gone: left empty). */
static void proc_of(uint32_t pid, struct rf_event *ev)
{
	char p[64], buf[512], *s;
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%u/stat", pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	/* "pid (comm) state ppid": comm may hold ')' itself */
	s = strrchr(buf, ')');
	if (!s || !strchr(buf, '('))
		return;
	*s = 0;
	snprintf(ev->comm, sizeof(ev->comm), "%s", strchr(buf, '(') + 1);
	if (sscanf(s + 1, " %*c %u", &ev->target_pid) != 1)
		ev->target_pid = 0;
}

/* The record of an unexpected open on the monitor's stream (rf_dns_note:
 * RF_EVF_UNEXPECTED, the parent pid in target_pid). */
static void send_record(struct rf_file_watch *w, uint64_t cgid, uint32_t pid,
			const char *path, uint64_t mask)
{
	struct rf_event ev = {
		.cgroup_id = cgid, .kind = RF_EV_DECISION, .class = RF_CLASS_FILE,
		.op = mask & FAN_OPEN_EXEC ? RF_OP_EXEC : RF_OP_FILE_OPEN,
		.flags = RF_EVF_UNEXPECTED, .pid = pid, .tid = pid, .need = access_of(mask),
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &ev, .ctx_size_in = sizeof(ev));
	size_t n = strlen(path);

	if (w->sent_n >= RF_FILEWATCH_SEND_MAX) {
		w->suppressed++;
		return;
	}
	if (!sent_add(w, path, ev.need | (uint32_t)ev.op << 8))
		return;
	w->sent_n++;
	proc_of(pid, &ev);
	ev.path_len = (uint32_t)(n < sizeof(ev.path) ? n : sizeof(ev.path) - 1);
	memcpy(ev.path, path, ev.path_len);
	if (w->note_fd < 0 || bpf_prog_test_run_opts(w->note_fd, &opts) || opts.retval)
		w->send_failed++;
}

/* The file's repeats of these kinds stop in the kernel: an ignore mark on
 * its inode (it survives writes), up to RF_FILEWATCH_IGNORE_MAX. */
static void ignore(struct rf_file_watch *w, int fd, uint64_t mask)
{
	if (w->ignores >= RF_FILEWATCH_IGNORE_MAX)
		return;
	if (!fanotify_mark(w->fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK |
			   FAN_MARK_IGNORED_SURV_MODIFY, mask, fd, NULL))
		w->ignores++;
}

static void one_event(struct sandbox *sb, const struct fanotify_event_metadata *m)
{
	struct rf_file_watch *w = &sb->files;
	const struct rf_monitor *mon = &sb->policy->monitor;
	char link[64], path[4096];
	ssize_t n;

	w->events++;
	if (m->mask & FAN_Q_OVERFLOW) {
		w->overflows++;
		return;
	}
	if (m->fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", m->fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = 0;
		if (filewatch__expected(mon->files, mon->n_files, path)) {
			ignore(w, m->fd, FW_MASK);   /* nothing of it is ever sent */
		} else {
			w->unexpected++;
			ignore(w, m->fd, m->mask & FW_MASK);
			send_record(w, sb->cgid, (uint32_t)m->pid, path, m->mask);
		}
	}
	close(m->fd);
}

void filewatch__drain(struct sandbox *sb)
{
	struct rf_file_watch *w = &sb->files;
	char buf[8192] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	const struct fanotify_event_metadata *m;
	ssize_t n;

	if (!w->on)
		return;
	while ((n = read(w->fd, buf, sizeof(buf))) > 0)
		for (m = (const void *)buf; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n))
			if (m->vers == FANOTIFY_METADATA_VERSION)
				one_event(sb, m);
}

void filewatch__finish(struct sandbox *sb, json_t *ex)
{
	struct rf_file_watch *w = &sb->files;

	if (!w->on)
		return;
	filewatch__drain(sb);
	if (ex)
		json_object_set_new(ex, "files_watch",
				    json_pack("{s:I, s:I, s:I, s:I, s:I}",
					      "events", (json_int_t)w->events,
					      "unexpected", (json_int_t)w->unexpected,
					      "sent", (json_int_t)(w->sent_n - w->send_failed),
					      "suppressed", (json_int_t)w->suppressed,
					      "overflows", (json_int_t)w->overflows));
}

void filewatch__stop(struct sandbox *sb)
{
	struct rf_file_watch *w = &sb->files;

	if (!w->on)
		return;
	close(w->fd);
	if (w->note_fd >= 0)
		close(w->note_fd);
	free(w->sent);
	memset(w, 0, sizeof(*w));
	w->fd = w->note_fd = -1;
}
