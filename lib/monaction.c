// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "fileio.h"
#include "monaction.h"

static void file_of(const char *dir, const char *sandbox, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.json", dir, sandbox);
}

json_t *monaction__to_json(const struct rf_mon_action *a)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:b, s:I}", "action", a->action,
			      "rule", a->rule, "alert_uid", a->alert_uid, "result", a->result,
			      "ok", a->ok, "time_ms", (json_int_t)a->time_ms);

	if (o && a->process_tree[0])
		json_object_set_new(o, "process_tree", json_string(a->process_tree));
	return o;
}

int monaction__write(const char *dir, const char *sandbox, const struct rf_mon_action *a)
{
	struct fileio_atomic how = { .tmp = FILEIO_TMP_UNIQUE, .mode = 0644 };
	_cleanup_json_ json_t *o = monaction__to_json(a);
	_cleanup_free_ char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	char path[4096];

	if (!s)
		return -ENOMEM;
	if (strchr(sandbox, '/') || sandbox[0] == '.')
		return -EINVAL;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	file_of(dir, sandbox, path, sizeof(path));
	return fileio__write_atomic(path, s, strlen(s), &how);
}

static void str_of(json_t *o, const char *k, char *dst, size_t len)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(dst, len, "%s", s ? s : "");
}

int monaction__read(const char *dir, const char *sandbox, struct rf_mon_action *ret)
{
	_cleanup_json_ json_t *o = NULL;
	char path[4096];

	memset(ret, 0, sizeof(*ret));
	if (strchr(sandbox, '/') || sandbox[0] == '.')
		return -EINVAL;
	file_of(dir, sandbox, path, sizeof(path));
	if (access(path, F_OK))
		return -errno;
	o = json_load_file(path, 0, NULL);
	if (!json_is_object(o))
		return -EINVAL;
	str_of(o, "action", ret->action, sizeof(ret->action));
	str_of(o, "rule", ret->rule, sizeof(ret->rule));
	str_of(o, "alert_uid", ret->alert_uid, sizeof(ret->alert_uid));
	str_of(o, "result", ret->result, sizeof(ret->result));
	str_of(o, "process_tree", ret->process_tree, sizeof(ret->process_tree));
	ret->ok = json_is_true(json_object_get(o, "ok"));
	ret->time_ms = json_integer_value(json_object_get(o, "time_ms"));
	return ret->action[0] ? 0 : -EINVAL;
}

void monaction__remove(const char *dir, const char *sandbox)
{
	char path[4096];

	if (strchr(sandbox, '/') || sandbox[0] == '.')
		return;
	file_of(dir, sandbox, path, sizeof(path));
	unlink(path);
}
