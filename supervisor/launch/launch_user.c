/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Users and groups: --user resolved to ids, passwd/group lookups with growing buffers. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cleanup.h"
#include "launch.h"
#include "launch_internal.h"

/* One passwd or group database query: by name (pw or gr) or by uid. */
struct db_query {
	const char *name;        /* NULL: passwd by uid */
	uid_t uid;
	struct passwd *pw;       /* NULL: a group query */
	struct group *gr;
};

static int db_call(const struct db_query *q, char *b, size_t len, bool *found)
{
	struct passwd *pres = NULL;
	struct group *gres = NULL;
	int e;

	if (!q->pw)
		e = getgrnam_r(q->name, q->gr, b, len, &gres);
	else if (q->name)
		e = getpwnam_r(q->name, q->pw, b, len, &pres);
	else
		e = getpwuid_r(q->uid, q->pw, b, len, &pres);
	*found = pres || gres;
	return e;
}

/* The query with a buffer (*buf, the caller frees) that grows on ERANGE.
 * 0, -ENOENT (no such entry) or another -errno. */
static int db_lookup(const struct db_query *q, char **buf)
{
	size_t len = 1024;

	for (;;) {
		char *b = realloc(*buf, len);
		bool found;
		int e;

		if (!b)
			return -ENOMEM;
		*buf = b;
		e = db_call(q, b, len, &found);
		if (e == ERANGE && len < (1U << 20)) {
			len *= 2;
			continue;
		}
		if (e == 0 && found)
			return 0;
		/* POSIX lets "not found" come back as any of these */
		if (e == 0 || e == ENOENT || e == ESRCH || e == EBADF || e == EPERM)
			return -ENOENT;
		return -e;
	}
}

int launch_user__pw_lookup(const char *name, uid_t uid, struct passwd *pw, char **buf)
{
	return db_lookup(&(struct db_query){ .name = name, .uid = uid, .pw = pw }, buf);
}

static int gr_lookup(const char *name, struct group *gr, char **buf)
{
	return db_lookup(&(struct db_query){ .name = name, .gr = gr }, buf);
}

/* A decimal id: digits only, no sign, and not (uid_t)-1, which the set*id
 * calls read as "leave unchanged". */
static int parse_id(const char *s, uint32_t *ret)
{
	unsigned long long v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(*p - '0');
		if (v >= UINT32_MAX)
			return -ERANGE;
	}
	*ret = (uint32_t)v;
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A failed lookup of a user or group name as --user's error. */
static int lookup_fail(int r, const char *kind, const char *name, struct rf_error *err)
{
	if (r == -ENOENT)
		return rf_error_set(err, -EINVAL, "--user", "unknown %s \"%s\"", kind, name);
	return rf_error_set(err, r, "--user", "looking up %s \"%s\": %s", kind, name,
			    strerror(-r));
}

/* A decimal uid or gid of --user. */
static int parse_user_id(const char *s, const char *kind, uint32_t *ret, struct rf_error *err)
{
	if (parse_id(s, ret) < 0)
		return rf_error_set(err, -EINVAL, "--user", "invalid %s \"%s\"", kind, s);
	return 0;
}

/* --user's user part: a name, or a uid (with its passwd gid when it has
 * an entry: *ret_have_gid). */
static int resolve_uid(const char *user, uint32_t *ret_u, uint32_t *ret_g, bool *ret_have_gid,
		       char **buf, struct rf_error *err)
{
	struct passwd pw;
	int r;

	if (all_digits(user)) {
		r = parse_user_id(user, "uid", ret_u, err);
		if (r < 0)
			return r;
		r = launch_user__pw_lookup(NULL, *ret_u, &pw, buf);
		if (r == -ENOENT)
			return 0;
		if (r < 0)
			return rf_error_set(err, r, "--user", "looking up uid %s: %s", user,
					    strerror(-r));
	} else {
		r = launch_user__pw_lookup(user, 0, &pw, buf);
		if (r < 0)
			return lookup_fail(r, "user", user, err);
		*ret_u = pw.pw_uid;
	}
	*ret_g = pw.pw_gid;
	*ret_have_gid = true;
	return 0;
}

/* --user's ":group" part: a name or a gid. */
static int resolve_gid(const char *group, const char *spec, uint32_t *ret_g, char **buf,
		       struct rf_error *err)
{
	struct group gr;
	int r;

	if (!*group)
		return rf_error_set(err, -EINVAL, "--user", "empty group in \"%s\"", spec);
	if (all_digits(group))
		return parse_user_id(group, "gid", ret_g, err);
	r = gr_lookup(group, &gr, buf);
	if (r < 0)
		return lookup_fail(r, "group", group, err);
	*ret_g = gr.gr_gid;
	return 0;
}

/* No --user: under sudo the real ids are root's; the invoker is in env. */
static void resolve_invoker(uid_t *ret_uid, gid_t *ret_gid)
{
	uint32_t su, sg;

	if (parse_id(getenv("SUDO_UID"), &su) == 0 &&
	    parse_id(getenv("SUDO_GID"), &sg) == 0) {
		*ret_uid = su;
		*ret_gid = sg;
	} else {
		*ret_uid = getuid();
		*ret_gid = getgid();
	}
}

int launch__resolve_user(const char *spec, uid_t *ret_uid, gid_t *ret_gid,
			 struct rf_error *err)
{
	_cleanup_free_ char *copy = NULL, *buf = NULL;
	char *user, *group;
	uint32_t u = 0, g = 0;
	bool have_gid = false;
	int r;

	if (!ret_uid || !ret_gid)
		return -EINVAL;
	if (!spec) {
		resolve_invoker(ret_uid, ret_gid);
		return 0;
	}
	copy = strdup(spec);
	if (!copy)
		return rf_error_set(err, -ENOMEM, "--user", "out of memory");
	user = copy;
	group = strchr(copy, ':');
	if (group)
		*group++ = '\0';
	if (!*user)
		return rf_error_set(err, -EINVAL, "--user", "empty user in \"%s\"", spec);
	r = resolve_uid(user, &u, &g, &have_gid, &buf, err);
	if (r < 0)
		return r;
	if (group) {
		r = resolve_gid(group, spec, &g, &buf, err);
		if (r < 0)
			return r;
		have_gid = true;
	}
	/* a numeric uid nobody has: its gid is the same number */
	if (!have_gid)
		g = u;
	if (u == (uint32_t)-1 || g == (uint32_t)-1)
		return rf_error_set(err, -EINVAL, "--user", "invalid id in \"%s\"", spec);
	*ret_uid = u;
	*ret_gid = g;
	return 0;
}
