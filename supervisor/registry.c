// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <jansson.h>

#include "registry.h"

uint64_t registry__proc_start(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* comm may hold spaces and ')': fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* field 3 is state; starttime is field 22 */
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p - 0, " %llu", &start);
	return start;
}

static int ensure_dir(void)
{
	if (mkdir("/run/ringfence", 0755) && errno != EEXIST)
		return -errno;
	if (mkdir(RF_REGISTRY_DIR, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

static void opt_u64(json_t *o, const char *key, const struct rf_opt_u64 *v)
{
	if (v->set)
		json_object_set_new(o, key, json_integer((json_int_t)v->v));
}

/* "monitor": the policy's thresholds as given (absent ones omitted: the
 * monitor applies its defaults); "syscalls": the profile, if any. */
static void policy_extras(json_t *o, const struct rf_policy *p)
{
	json_t *m = json_object(), *allow;
	size_t i;

	if (p->monitor.present) {
		if (p->monitor.deny_burst_count.set)
			json_object_set_new(m, "deny_burst",
				json_pack("{s:I, s:I}", "count",
					  (json_int_t)p->monitor.deny_burst_count.v, "window_ms",
					  (json_int_t)p->monitor.deny_burst_window_ms.v));
		opt_u64(m, "cpu_percent", &p->monitor.cpu_percent);
		opt_u64(m, "memory_mb", &p->monitor.memory_mb);
		opt_u64(m, "pids", &p->monitor.pids);
	}
	json_object_set_new(o, "monitor", m);
	if (!p->syscalls.present)
		return;
	allow = json_array();
	for (i = 0; i < p->syscalls.n_allow; i++)
		json_array_append_new(allow, json_string(p->syscalls.allow[i]));
	json_object_set_new(o, "syscalls", json_pack("{s:o, s:s}", "allow", allow,
		"on_violation", p->syscalls.on_violation == RF_VIOLATION_ALERT ? "alert" : "deny"));
}

int registry__add(const struct rf_registry_entry *e)
{
	char path[512], tmp[600];
	json_t *o;
	int err;

	err = ensure_dir();
	if (err)
		return err;
	o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:I, s:i, s:s}",
		      "sandbox", e->sandbox, "policy_id", e->policy_id,
		      "policy_sha256", e->digest, "mode", e->mode,
		      "cgroup_path", e->cgroup_path, "cgroup_id", (json_int_t)e->cgroup_id,
		      "supervisor_pid", (int)e->supervisor_pid,
		      "supervisor_start", (json_int_t)e->supervisor_start,
		      "pid", (int)e->child_pid, "started", e->started);
	if (!o)
		return -ENOMEM;
	if (e->policy)
		policy_extras(o, e->policy);
	snprintf(path, sizeof(path), RF_REGISTRY_DIR "/%s.json", e->sandbox);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	err = json_dump_file(o, tmp, JSON_COMPACT) ? -EIO : 0;
	json_decref(o);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int registry__remove(const char *sandbox)
{
	char path[512];

	snprintf(path, sizeof(path), RF_REGISTRY_DIR "/%s.json", sandbox);
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

static void copy_str(json_t *o, const char *key, char *dst, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(dst, len, "%s", s ? s : "");
}

int registry__list(struct rf_registry_entry **ret_v, size_t *ret_n)
{
	struct rf_registry_entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int err = 0;

	*ret_v = NULL;
	*ret_n = 0;
	d = opendir(RF_REGISTRY_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char path[512];
		size_t l = strlen(de->d_name);
		json_t *o;

		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), RF_REGISTRY_DIR "/%s", de->d_name);
		o = json_load_file(path, 0, NULL);
		if (!o)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 8;
			void *p = realloc(v, c * sizeof(*v));

			if (!p) {
				json_decref(o);
				err = -ENOMEM;
				break;
			}
			v = p;
			cap = c;
		}
		memset(&v[n], 0, sizeof(v[n]));
		copy_str(o, "sandbox", v[n].sandbox, sizeof(v[n].sandbox));
		copy_str(o, "policy_id", v[n].policy_id, sizeof(v[n].policy_id));
		copy_str(o, "policy_sha256", v[n].digest, sizeof(v[n].digest));
		copy_str(o, "mode", v[n].mode, sizeof(v[n].mode));
		copy_str(o, "cgroup_path", v[n].cgroup_path, sizeof(v[n].cgroup_path));
		copy_str(o, "started", v[n].started, sizeof(v[n].started));
		v[n].cgroup_id = (uint64_t)json_integer_value(json_object_get(o, "cgroup_id"));
		v[n].supervisor_pid = (pid_t)json_integer_value(json_object_get(o, "supervisor_pid"));
		v[n].supervisor_start =
			(uint64_t)json_integer_value(json_object_get(o, "supervisor_start"));
		v[n].child_pid = (pid_t)json_integer_value(json_object_get(o, "pid"));
		json_decref(o);
		n++;
	}
	closedir(d);
	if (err) {
		free(v);
		return err;
	}
	*ret_v = v;
	*ret_n = n;
	return 0;
}

bool registry__supervisor_alive(const struct rf_registry_entry *e)
{
	uint64_t start;

	if (e->supervisor_pid <= 0)
		return false;
	start = registry__proc_start(e->supervisor_pid);
	return start && start == e->supervisor_start;
}
