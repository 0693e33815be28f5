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
#include <jansson.h>

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

static uint64_t u64_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static void str_of(json_t *o, const char *k, char *dst, size_t len)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(dst, len, "%s", s ? s : "");
}

static int parse(json_t *o, struct rf_sandbox_info *si, struct rf_reg_extra *x)
{
	json_t *m, *sc, *allow, *v;
	size_t i;

	memset(si, 0, sizeof(*si));
	memset(x, 0, sizeof(*x));
	if (!json_is_object(o))
		return -EINVAL;
	str_of(o, "sandbox", si->sandbox, sizeof(si->sandbox));
	str_of(o, "policy_id", si->policy_id, sizeof(si->policy_id));
	str_of(o, "cgroup_path", si->cgroup_path, sizeof(si->cgroup_path));
	si->cgroup_id = u64_of(o, "cgroup_id");
	if (!si->sandbox[0] || !si->cgroup_id)
		return -EINVAL;
	x->supervisor_pid = (pid_t)u64_of(o, "supervisor_pid");
	x->supervisor_start = u64_of(o, "supervisor_start");
	x->child_pid = (pid_t)u64_of(o, "pid");
	m = json_object_get(o, "monitor");
	if (json_is_object(m)) {
		json_t *b = json_object_get(m, "deny_burst");

		if (json_is_object(b) && u64_of(b, "count")) {
			si->burst_count = u64_of(b, "count");
			si->burst_window_ms = u64_of(b, "window_ms");
			if (!si->burst_window_ms)
				si->burst_window_ms = 1000;
		}
		si->cpu_percent = u64_of(m, "cpu_percent");
		si->memory_mb = u64_of(m, "memory_mb");
		si->pids = u64_of(m, "pids");
	}
	sc = json_object_get(o, "syscalls");
	if (json_is_object(sc)) {
		const char *ov = json_string_value(json_object_get(sc, "on_violation"));

		allow = json_object_get(sc, "allow");
		si->has_profile = true;
		si->alert_only = ov && !strcmp(ov, "alert");
		si->allow = calloc(json_array_size(allow) + 1, sizeof(char *));
		if (!si->allow)
			return -ENOMEM;
		json_array_foreach(allow, i, v) {
			if (!json_is_string(v))
				continue;
			si->allow[si->n_allow] = strdup(json_string_value(v));
			if (!si->allow[si->n_allow])
				return -ENOMEM;
			si->n_allow++;
		}
	}
	return 0;
}

int regwatch__parse_json(const char *text, struct rf_sandbox_info *si, struct rf_reg_extra *x)
{
	json_t *o = json_loads(text, 0, NULL);
	int err;

	if (!o) {
		memset(si, 0, sizeof(*si));
		return -EINVAL;
	}
	err = parse(o, si, x);
	json_decref(o);
	return err;
}

int regwatch__parse_file(const char *path, struct rf_sandbox_info *si, struct rf_reg_extra *x)
{
	json_t *o = json_load_file(path, 0, NULL);
	int err;

	if (!o) {
		memset(si, 0, sizeof(*si));
		return access(path, F_OK) ? -ENOENT : -EINVAL;
	}
	err = parse(o, si, x);
	json_decref(o);
	return err;
}

int regwatch__open(const char *dir, struct rf_regwatch **ret)
{
	struct rf_regwatch *w = calloc(1, sizeof(*w));
	char parent[256], *slash;
	int err;

	if (!w)
		return -ENOMEM;
	snprintf(w->dir, sizeof(w->dir), "%s", dir);
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = 0;
		if (mkdir(parent, 0755) && errno != EEXIST) {
			err = -errno;
			goto fail;
		}
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		err = -errno;
		goto fail;
	}
	w->v = calloc(REG_MAX, sizeof(*w->v));
	if (!w->v) {
		err = -ENOMEM;
		goto fail;
	}
	w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->fd < 0) {
		err = -errno;
		goto fail;
	}
	if (inotify_add_watch(w->fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
			      IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
		err = -errno;
		close(w->fd);
		goto fail;
	}
	*ret = w;
	return 0;
fail:
	free(w->v);
	free(w);
	return err;
}

void regwatch__close(struct rf_regwatch *w)
{
	if (!w)
		return;
	close(w->fd);
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

int regwatch__process(struct rf_regwatch *w, const struct rf_reg_ops *ops)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	char name[RF_SANDBOX_LEN];
	bool rescan = false;
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		char *p;

		for (p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;

			p += sizeof(*ev) + ev->len;
			if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF)) {
				rescan = true;
				continue;
			}
			if (!ev->len || !entry_name(ev->name, name, sizeof(name)))
				continue;
			if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				struct known *k = find(w, name);

				if (k)
					forget(w, k, ops);
			} else {
				load(w, name, ops);
			}
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return rescan ? regwatch__scan(w, ops) : 0;
}
