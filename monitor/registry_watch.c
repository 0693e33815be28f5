// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include "cleanup.h"
#include "inotify_each.h"
#include "registry_watch.h"

#define REG_MAX 4096

struct known {
	char name[RF_SANDBOX_LEN];  /* file name without .json */
	uint64_t cgid;
	ino_t ino;                  /* a rewrite is a new inode (rename) */
	bool seen;                  /* scan bookkeeping */
};

struct rf_regwatch {
	char dir[256];
	int fd;
	struct known *v;
	size_t n;
};

int regwatch__info(const struct rf_registry_entry *e, struct rf_sandbox_info *si,
		   struct rf_reg_extra *x)
{
	const struct rf_reg_monitor *m = &e->monitor;
	const struct rf_reg_syscalls *sc = &e->syscalls;
	size_t i;
	int oa;

	memset(si, 0, sizeof(*si));
	snprintf(si->sandbox, sizeof(si->sandbox), "%s", e->sandbox);
	snprintf(si->policy_id, sizeof(si->policy_id), "%s", e->policy_id);
	snprintf(si->cgroup_path, sizeof(si->cgroup_path), "%s", e->cgroup_path);
	si->cgroup_id = e->cgroup_id;
	si->n_labels = (uint32_t)e->labels.n;
	memcpy(si->labels, e->labels.v, sizeof(si->labels));
	snprintf(si->traceparent, sizeof(si->traceparent), "%s", e->traceparent);
	if (x) {
		x->supervisor_pid = e->supervisor_pid;
		x->supervisor_start = e->supervisor_start;
		x->child_pid = e->child_pid;
	}
	/* 0: absent, the monitor's defaults apply */
	if (m->burst_count.set && m->burst_count.v) {
		si->burst_count = m->burst_count.v;
		si->burst_window_ms = m->burst_window_ms.v ? m->burst_window_ms.v : 1000;
	}
	si->cpu_percent = m->cpu_percent.set ? m->cpu_percent.v : 0;
	si->memory_mb = m->memory_mb.set ? m->memory_mb.v : 0;
	si->pids = m->pids.set ? m->pids.v : 0;
	if (m->dns_names_count.set && m->dns_names_count.v) {
		si->dns_names = m->dns_names_count.v;
		si->dns_window_ms = m->dns_names_window_ms.v ? m->dns_names_window_ms.v : 60000;
	}
	si->dns_label_len = m->dns_label_len.set ? m->dns_label_len.v : 0;
	si->disk_write_mb = m->disk_write_mb.set ? m->disk_write_mb.v : 0;
	si->egress_bytes = m->egress_bytes.set ? m->egress_bytes.v : 0;
	si->egress_window_ms = m->egress_window_ms.set ? m->egress_window_ms.v : 0;
	oa = rf_response_parse(m->on_alert);
	si->on_alert = oa > 0 ? (enum rf_mon_response)oa : RF_RESP_ALERT;
	if (m->has_exec) {
		si->has_exec = true;
		si->exec = calloc(m->n_exec + 1, sizeof(char *));
		if (!si->exec)
			return -ENOMEM;
		for (i = 0; i < m->n_exec; i++) {
			si->exec[i] = strdup(m->exec[i]);
			if (!si->exec[i])
				return -ENOMEM;
			si->n_exec++;
		}
	}
	if (e->limit_exceeded.present) {
		snprintf(si->cap_limit, sizeof(si->cap_limit), "%s", e->limit_exceeded.limit);
		snprintf(si->cap_unit, sizeof(si->cap_unit), "%s", e->limit_exceeded.unit);
		si->cap_value = e->limit_exceeded.value;
		si->cap_threshold = e->limit_exceeded.threshold;
	}
	if (!sc->present)
		return 0;
	si->has_profile = true;
	si->alert_only = sc->alert;
	si->allow = calloc(sc->n_allow + 1, sizeof(char *));
	if (!si->allow)
		return -ENOMEM;
	for (i = 0; i < sc->n_allow; i++) {
		si->allow[i] = strdup(sc->allow[i]);
		if (!si->allow[i])
			return -ENOMEM;
		si->n_allow++;
	}
	return 0;
}

/* Through lib/registry (the only reader), then as the detectors' input. */
static int info_of(int err, struct rf_registry_entry *e, struct rf_sandbox_info *si,
		   struct rf_reg_extra *x)
{
	memset(si, 0, sizeof(*si));
	memset(x, 0, sizeof(*x));
	if (!err)
		err = regwatch__info(e, si, x);
	registry__entry_clear(e);
	return err;
}

int regwatch__parse_json(const char *text, struct rf_sandbox_info *si, struct rf_reg_extra *x)
{
	struct rf_registry_entry e;

	return info_of(registry__parse(text, &e), &e, si, x);
}

int regwatch__parse_file(const char *path, struct rf_sandbox_info *si, struct rf_reg_extra *x)
{
	struct rf_registry_entry e;

	return info_of(registry__read_file(path, &e), &e, si, x);
}

RF_DEFINE_CLEANUP(struct rf_regwatch, regwatch__close)

int regwatch__open(const char *dir, struct rf_regwatch **ret)
{
	_cleanup_(regwatch__closep) struct rf_regwatch *w = calloc(1, sizeof(*w));
	char parent[256], *slash;

	if (!w)
		return -ENOMEM;
	w->fd = -1;
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = 0;
		if (mkdir(parent, 0755) && errno != EEXIST)
			return -errno;
	}
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	w->v = calloc(REG_MAX, sizeof(*w->v));
	if (!w->v)
		return -ENOMEM;
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	if (inotify_add_watch(w->fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
			      IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF) < 0)
		return -errno;
	*ret = TAKE_PTR(w);
	return 0;
}

void regwatch__close(struct rf_regwatch *w)
{
	if (w && w->fd >= 0)
		close(w->fd);
	if (w)
		free(w->v);
	free(w);
}

int regwatch__fd(const struct rf_regwatch *w)
{
	return w->fd;
}

size_t regwatch__count(const struct rf_regwatch *w)
{
	return w->n;
}

/* "<name>.json" -> name; other files (the supervisor's .tmp) are not ours. */
static bool entry_name(const char *file, char *name, size_t len)
{
	size_t l = strlen(file);

	if (l < 6 || l - 5 >= len || strcmp(file + l - 5, ".json"))
		return false;
	memcpy(name, file, l - 5);
	name[l - 5] = 0;
	return true;
}

static struct known *find(struct rf_regwatch *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].name, name))
			return &w->v[i];
	return NULL;
}

static void forget(struct rf_regwatch *w, struct known *k, const struct rf_reg_ops *ops)
{
	char name[RF_SANDBOX_LEN];
	uint64_t cgid = k->cgid;

	snprintf(name, sizeof(name), "%s", k->name);
	*k = w->v[--w->n];
	ops->remove(name, cgid, ops->ctx);
}

/* (Re)read one entry; a file that vanished in between is a removal. */
static void load(struct rf_regwatch *w, const char *name, const struct rf_reg_ops *ops)
{
	struct rf_sandbox_info si;
	struct rf_reg_extra x;
	char path[512];
	struct known *k = find(w, name);
	struct stat st;
	int err;

	snprintf(path, sizeof(path), "%s/%s.json", w->dir, name);
	if (stat(path, &st)) {
		if (k)
			forget(w, k, ops);
		return;
	}
	if (k && k->ino == st.st_ino) {
		k->seen = true;
		return;
	}
	err = regwatch__parse_file(path, &si, &x);
	if (err) {
		rf_sandbox_info_clear(&si);
		if (err == -ENOENT && k)
			forget(w, k, ops);
		return;
	}
	if (k && k->cgid != si.cgroup_id) {
		forget(w, k, ops);  /* the same name, another cgroup: a new sandbox */
		k = NULL;
	}
	if (!k) {
		if (w->n == REG_MAX) {
			rf_sandbox_info_clear(&si);
			return;
		}
		k = &w->v[w->n++];
		snprintf(k->name, sizeof(k->name), "%s", name);
	}
	k->cgid = si.cgroup_id;
	k->ino = st.st_ino;
	k->seen = true;
	ops->add(&si, &x, ops->ctx);
	rf_sandbox_info_clear(&si);
}

int regwatch__scan(struct rf_regwatch *w, const struct rf_reg_ops *ops)
{
	char name[RF_SANDBOX_LEN];
	struct dirent *de;
	size_t i;
	DIR *d;

	d = opendir(w->dir);
	if (!d)
		return -errno;
	for (i = 0; i < w->n; i++)
		w->v[i].seen = false;
	while ((de = readdir(d)))
		if (entry_name(de->d_name, name, sizeof(name)))
			load(w, name, ops);
	closedir(d);
	for (i = w->n; i > 0; i--)
		if (!w->v[i - 1].seen)
			forget(w, &w->v[i - 1], ops);
	return 0;
}

struct reg_batch {
	struct rf_regwatch *w;
	const struct rf_reg_ops *ops;
	bool rescan;
};

static void reg_event(const struct inotify_event *ev, void *ctx)
{
	struct reg_batch *b = ctx;
	char name[RF_SANDBOX_LEN];

	if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF)) {
		b->rescan = true;
		return;
	}
	if (!ev->len || !entry_name(ev->name, name, sizeof(name)))
		return;
	/* Whatever happened to the name, what is there now decides: a
	 * removal forgets it, but the supervisor's update exchanges the new
	 * file in (RENAME_EXCHANGE: the entry's name moves away as the new
	 * one arrives), which is a reload. */
	load(b->w, name, b->ops);
}

int regwatch__process(struct rf_regwatch *w, const struct rf_reg_ops *ops)
{
	struct reg_batch b = { .w = w, .ops = ops };
	int n = inotify__each(w->fd, reg_event, &b);

	if (n < 0)
		return n;
	return b.rescan ? regwatch__scan(w, ops) : 0;
}
