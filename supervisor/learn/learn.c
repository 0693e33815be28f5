// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * learn, the pure part: trace events -> policy entries -> a policy. No
 * I/O but the FILE a trace is read from; what a path is after the run
 * comes from the caller (rf_learn_kind_fn).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <arpa/inet.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "learn.h"
#include "observe/observe.h"
#include "names.h"
#include "policy/policy.h"


#define RF_UNIX_NAME_MAX 107      /* sun_path without its NUL */

int learn__init(struct rf_learn *l)
{
	bool ok;
	int i;

	memset(l, 0, sizeof(*l));
	l->notes = json_object();
	l->denials = json_array();
	l->names = json_object();
	l->private_addrs = json_object();
	ok = l->notes && l->denials && l->names && l->private_addrs;
	for (i = 0; i < RF_LEARN_LIST_MAX; i++) {
		l->set[i] = json_object();
		ok = ok && l->set[i];
	}
	if (!ok)
		learn__fini(l);  /* what was made */
	return ok ? 0 : -ENOMEM;
}

void learn__fini(struct rf_learn *l)
{
	int i;

	if (!l)
		return;
	for (i = 0; i < RF_LEARN_LIST_MAX; i++)
		json_decref(TAKE_PTR(l->set[i]));
	json_decref(TAKE_PTR(l->notes));
	json_decref(TAKE_PTR(l->denials));
	json_decref(TAKE_PTR(l->names));
	json_decref(TAKE_PTR(l->private_addrs));
	json_decref(TAKE_PTR(l->env_pass));
}

static int set_add(json_t *set, const char *entry)
{
	return json_object_set_new(set, entry, json_true()) ? -ENOMEM : 0;
}

/* Notes are a set too: one line per distinct thing not learned. */
static int note(struct rf_learn *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(struct rf_learn *l, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return set_add(l->notes, buf);
}

static const char *str_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* network: the exact address and port, as a connect entry. */
static int learn_net(struct rf_learn *l, const char *op, const json_t *dst)
{
	const char *family = str_at(dst, "family"), *addr = str_at(dst, "address");
	json_t *port = json_object_get(dst, "port");
	struct rf_endpoint ep;
	char entry[INET6_ADDRSTRLEN + 16];
	int err;

	if (!family || !addr || !json_is_integer(port)) {
		/* sock_create: a socket type a confined network never allows */
		return note(l, "network: %s of a %s socket (type %lld): not allowed by any "
			    "network.connect entry; only \"connect\": \"unrestricted\" allows it",
			    op, family ? family : "?",
			    (long long)json_integer_value(json_object_get(dst, "socket_type")));
	}
	snprintf(entry, sizeof(entry), strcmp(family, "ipv6") ? "%s:%lld" : "[%s]:%lld", addr,
		 (long long)json_integer_value(port));
	err = endpoint__parse(entry, &ep, NULL);
	if (err == -ENOMEM)
		return err;
	if (err)
		return note(l, "network: %s to %s: no network.connect entry can name it", op, entry);
	endpoint__clear(&ep);
	l->learned++;
	/* the destination, for the names the gate answered (learn__build) */
	return json_object_set_new(l->set[RF_LEARN_CONNECT], entry,
				   json_pack("{s:s, s:O}", "address", addr, "port", port)) ?
	       -ENOMEM : 0;
}

static bool abstract_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (n < 1 || n > RF_UNIX_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (name[i] < 0x21 || name[i] > 0x7e)
			return false;
	return true;
}

/* unix: the pathname or @abstract name, exactly. */
static int learn_unix(struct rf_learn *l, const char *op, const json_t *dst)
{
	const char *path = str_at(dst, "path");
	bool ok;

	if (!path)
		return note(l, "unix: %s without a name: not learnable", op);
	if (path[0] == '@')
		ok = abstract_name_ok(path + 1);
	else
		ok = strlen(path) <= RF_UNIX_NAME_MAX && !policy__check_path(path, NULL) &&
		     path[strlen(path) - 1] != '/';
	if (!ok)
		return note(l, "unix: %s to \"%s\": no network.unix entry can name it", op, path);
	l->learned++;
	return set_add(l->set[RF_LEARN_UNIX], path);
}

/* "need": ["read", "write", "exec"] (trace.c); "access" accepted too. */
static unsigned int need_bits(const json_t *dst)
{
	const json_t *need = json_object_get(dst, "need"), *v;
	unsigned int bits = 0;
	size_t i;

	if (!need)
		need = json_object_get(dst, "access");
	if (json_is_string(need)) {
		const char *s = json_string_value(need);

		return (strstr(s, "read") ? RF_ACC_READ : 0) | (strstr(s, "write") ? RF_ACC_WRITE : 0) |
		       (strstr(s, "exec") ? RF_ACC_EXEC : 0);
	}
	json_array_foreach(need, i, v) {
		const char *s = json_string_value(v);

		if (!s)
			continue;
		bits |= !strcmp(s, "read") ? RF_ACC_READ : !strcmp(s, "write") ? RF_ACC_WRITE :
			!strcmp(s, "exec") ? RF_ACC_EXEC : 0;
	}
	return bits;
}

/* An executable and what execve opens for it without a syscall of the
 * command's: the ELF loader or #! interpreter, each level (Landlock
 * checks execute on them; audit mode never sees them refused). */
static int learn_exec(struct rf_learn *l, const char *path)
{
	char cur[PATH_MAX], interp[PATH_MAX];
	int err = set_add(l->set[RF_LEARN_EXEC], path), level;

	snprintf(cur, sizeof(cur), "%s", path);
	for (level = 0; !err && level < 4; level++) {
		/* as the kernel resolves it: /lib64/ld-linux... is a symlink */
		if (observe__interpreter(cur, interp, sizeof(interp)) || interp[0] != '/' ||
		    !realpath(interp, cur) || json_object_get(l->set[RF_LEARN_EXEC], cur))
			break;
		err = set_add(l->set[RF_LEARN_EXEC], cur);
	}
	return err;
}

/* Ops that add or remove a file's name in a directory: BPF-LSM and
 * Landlock both want that directory writable, not only the name. A
 * directory made or removed is not one: its parent stays as narrow as
 * the rest of the policy (a job that makes its output directory does not
 * get the whole parent). */
static bool names_in_dir(const char *op)
{
	static const char *const ops[] = { "create", "unlink", "rename", "symlink", "link",
					   "mknod" };
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

/* The directory a name was made or removed in ("/srv/out", which the
 * collapse makes the subtree "/srv/out/"): a directory the command
 * touched, never "/". */
static int learn_parent_dir(struct rf_learn *l, const char *path)
{
	char dir[PATH_MAX];
	struct stat st;
	char *slash;

	/* BPF-LSM records a refused directory check with the directory's own
	 * path: that directory is the entry, not its parent. */
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	json_object_del(l->set[RF_LEARN_READ], dir);
	return set_add(l->set[RF_LEARN_WRITE], dir);
}

/* file and exec: the path, into the list its need calls for. */
static int learn_path(struct rf_learn *l, const char *cls, const char *op, const json_t *dst)
{
	const char *path = str_at(dst, "path");
	unsigned int need = need_bits(dst);
	bool is_exec = !strcmp(cls, names__class(RF_CLASS_EXEC));
	int err = 0;

	if (!path || policy__check_path(path, NULL))
		return note(l, "%s: %s of \"%s\": no policy entry can name it", cls, op,
			    path ? path : "(no path)");
	if (!strcmp(path, "/"))
		return note(l, "%s: %s of / itself: never allowed by a learned policy", cls, op);
	if (is_exec)
		need |= RF_ACC_EXEC;
	else if (!need)
		need = RF_ACC_READ;
	if (need & RF_ACC_EXEC)
		err = learn_exec(l, path);
	/* write implies read: a path is in one of the two */
	if (!err && (need & RF_ACC_WRITE)) {
		err = set_add(l->set[RF_LEARN_WRITE], path);
		json_object_del(l->set[RF_LEARN_READ], path);
		if (!err && names_in_dir(op))
			err = learn_parent_dir(l, path);
	} else if (!err && (need & RF_ACC_READ) && !json_object_get(l->set[RF_LEARN_WRITE], path)) {
		err = set_add(l->set[RF_LEARN_READ], path);
	}
	if (!err)
		l->learned++;
	return err;
}

/* A denial as one line: "network connect4 127.0.0.1:9". */
static int denied(struct rf_learn *l, const char *cls, const char *op, const json_t *dst)
{
	const char *path = str_at(dst, "path"), *addr = str_at(dst, "address");
	char buf[512];

	if (addr)
		snprintf(buf, sizeof(buf), strchr(addr, ':') ? "%s %s [%s]:%lld" : "%s %s %s:%lld",
			 cls, op, addr, (long long)json_integer_value(json_object_get(dst, "port")));
	else
		snprintf(buf, sizeof(buf), "%s %s%s%s", cls, op, path ? " " : "", path ? path : "");
	l->denied++;
	return json_array_size(l->denials) < RF_LEARN_DENIALS_KEPT &&
	       json_array_append_new(l->denials, json_string(buf)) ? -ENOMEM : 0;
}

static void exit_event(struct rf_learn *l, const json_t *ev)
{
	if (json_object_get(ev, "failed_stage"))
		return;  /* the command never ran */
	l->ran = true;
	l->exit_code = (int)json_integer_value(json_object_get(ev, "exit_code"));
	l->signal = (int)json_integer_value(json_object_get(ev, "signal"));  /* null: 0 */
	l->limit = json_object_get(ev, "limit") != NULL;
	l->not_in_trace = (uint64_t)json_integer_value(json_object_get(ev, "denials_not_in_trace"));
	l->file_modes = (uint64_t)json_integer_value(json_object_get(ev, "inferred_file_modes"));
}

bool learn__succeeded(const struct rf_learn *l)
{
	return l->ran && l->exit_code == 0 && !l->signal && !l->limit;
}

void learn__outcome(const struct rf_learn *l, char *buf, size_t len)
{
	if (!l->ran)
		snprintf(buf, len, "did not start");
	else if (l->limit)
		snprintf(buf, len, "was ended by a limit (exit %d)", l->exit_code);
	else if (l->signal)
		snprintf(buf, len, "was killed by signal %d (%s)", l->signal, strsignal(l->signal));
	else
		snprintf(buf, len, "exited %d", l->exit_code);
}

/* One name the gate answered with these addresses (strings, or objects
 * with "address"); private: addresses it found private (rebinding). */
static int dns_answer(struct rf_learn *l, const char *name, const json_t *addrs, bool private)
{
	const json_t *v;
	size_t i;

	if (!name || !name[0])
		return 0;
	json_array_foreach(addrs, i, v) {
		const char *a = json_is_string(v) ? json_string_value(v) : str_at(v, "address");
		json_t *names;

		if (!a)
			continue;
		names = json_object_get(l->names, a);
		if (!names) {
			names = json_object();
			if (json_object_set_new(l->names, a, names))
				return -ENOMEM;
		}
		if (set_add(names, name) || (private && set_add(l->private_addrs, a)))
			return -ENOMEM;
	}
	return 0;
}

/* dns.query: the gate answered (allowed or audited); dns.deny of private
 * addresses in audit mode: answered all the same. */
static int dns_event(struct rf_learn *l, const char *event, const json_t *ev)
{
	const char *verdict = str_at(ev, "verdict"), *reason = str_at(ev, "reason");

	if (!strcmp(event, "dns.query"))
		return dns_answer(l, str_at(ev, "name"), json_object_get(ev, "granted"), false);
	if (verdict && !strcmp(verdict, names__verdict(RF_VERDICT_AUDITED)) && reason &&
	    !strcmp(reason, names__reason(RF_REASON_DNS_REBIND)))
		return dns_answer(l, str_at(ev, "name"), json_object_get(ev, "addresses"), true);
	return 0;
}

int learn__add_event(struct rf_learn *l, const json_t *ev)
{
	const char *event = str_at(ev, "event"), *verdict, *cls, *op;
	const json_t *dst;

	if (!event)
		return 0;
	if (!strcmp(event, "sandbox.exit")) {
		exit_event(l, ev);
		return 0;
	}
	if (!strcmp(event, "dns.query") || !strcmp(event, "dns.deny"))
		return dns_event(l, event, ev);
	if (strcmp(event, "kernel.deny"))
		return 0;
	verdict = str_at(ev, "verdict");
	cls = str_at(ev, "class");
	op = str_at(ev, "op");
	dst = json_object_get(ev, "destination");
	if (!verdict || !cls || !op)
		return 0;
	if (strcmp(verdict, names__verdict(RF_VERDICT_AUDITED)))
		return denied(l, cls, op, dst);
	/* already writable: what refuses it is an allowed unix name, kept */
	if (str_at(ev, "reason") && !strcmp(str_at(ev, "reason"), names__reason(RF_REASON_UNIX_NAME)))
		return note(l, "%s: %s at an allowed network.unix name (or on its way): "
			    "only its server makes it; a policy cannot allow it", cls, op);
	if (!strcmp(cls, names__class(RF_CLASS_NET)))
		return learn_net(l, op, dst);
	if (!strcmp(cls, names__class(RF_CLASS_UNIX)))
		return learn_unix(l, op, dst);
	if (!strcmp(cls, names__class(RF_CLASS_FILE)) || !strcmp(cls, names__class(RF_CLASS_EXEC)))
		return learn_path(l, cls, op, dst);
	return note(l, "%s: %s: outside the policy's allowlists (the process boundary is "
		    "always on); a policy cannot allow it", cls, op);
}

int learn__add_trace(struct rf_learn *l, FILE *f)
{
	char *line = NULL;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, f) > 0) {
		json_t *ev;

		if (line[0] == '\n')
			continue;
		ev = json_loads(line, 0, NULL);
		if (!ev) {
			err = -EBADMSG;
			break;
		}
		err = learn__add_event(l, ev);
		json_decref(ev);
	}
	free(line);
	return err;
}

/* ---- the directory rule ---- */

/* "/a/b/c" -> "/a/b/" in buf; false for a path directly in "/". */
static bool parent_dir(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) + 1 : 0;

	if (n <= 1 || n >= len)
		return false;
	memcpy(buf, path, n);
	buf[n] = 0;
	return true;
}

/* "/a/b/" is two levels deep: the rule's siblings never widen to "/a/". */
static int depth(const char *dir)
{
	int d = 0;

	for (; *dir; dir++)
		d += *dir == '/';
	return d - 1;
}

/* Covered by a subtree entry of set other than itself. */
static bool covered(const json_t *set, const char *entry)
{
	char buf[RF_POLICY_PATH_MAX + 2];
	size_t n = strlen(entry);

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, entry, n + 1);
	if (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;  /* a subtree is covered by a wider one only */
	while (n > 1) {
		while (n > 1 && buf[n - 1] != '/')
			n--;
		if (n <= 1)
			break;
		buf[n] = 0;  /* "/a/b/" */
		if (json_object_get(set, buf))
			return true;
		buf[--n] = 0;  /* drop the '/' and go up */
	}
	return false;
}

bool learn__is_shared_lib(const char *path)
{
	const char *base = strrchr(path, '/'), *so;

	base = base ? base + 1 : path;
	so = strstr(base, ".so");
	while (so && so[3] && so[3] != '.')
		so = strstr(so + 1, ".so");  /* ".so" inside a name: "x.sock" */
	if (!so || so == base)
		return false;
	for (so += 3; *so; so++)
		if (*so != '.' && (*so < '0' || *so > '9'))
			return false;
	return true;
}

/* First pass: each exact path as the entry that allows it (buf holds
 * RF_POLICY_PATH_MAX + 1 bytes). */
static void entry_for(const char *path, rf_learn_kind_fn kind, bool libdirs, char *buf,
		      size_t len)
{
	enum rf_learn_kind k = kind ? kind(path) : RF_LEARN_FILE;

	/* Landlock takes a directory only as "dir/"; one byte too long for
	 * a policy entry, it stays exact. */
	if (k == RF_LEARN_DIR && strlen(path) < RF_POLICY_PATH_MAX) {
		snprintf(buf, len, "%s/", path);
		return;
	}
	/* Gone after the run (a temporary file): its directory, whose
	 * next names the command chooses anew. */
	if (k == RF_LEARN_MISSING && parent_dir(path, buf, len))
		return;
	/* A library: its directory, which the next version of the package
	 * fills again (libpcre2-8.so.0.11.2 becomes .0.11.3; the soname link
	 * would do for Landlock, which follows it at load, but BPF-LSM judges
	 * the file the kernel resolved, whose name changes). */
	if (k != RF_LEARN_DIR && libdirs && learn__is_shared_lib(path) &&
	    parent_dir(path, buf, len) && depth(buf) >= 2)
		return;
	snprintf(buf, len, "%s", path);
}

json_t *learn__collapse(const json_t *set, rf_learn_kind_fn kind, bool libdirs)
{
	json_auto_t *first = json_object(), *count = json_object();
	json_t *out = json_object(), *v;
	char buf[RF_POLICY_PATH_MAX + 2], dir[RF_POLICY_PATH_MAX + 2];
	const char *p;

	if (!first || !count || !out)
		goto oom;
	json_object_foreach((json_t *)set, p, v) {
		entry_for(p, kind, libdirs, buf, sizeof(buf));
		if (set_add(first, buf))
			goto oom;
	}
	/* Siblings: entries directly inside one directory, counted once. */
	json_object_foreach(first, p, v) {
		char tmp[RF_POLICY_PATH_MAX + 2];

		snprintf(tmp, sizeof(tmp), "%s", p);
		if (tmp[strlen(tmp) - 1] == '/')
			tmp[strlen(tmp) - 1] = 0;
		if (!parent_dir(tmp, dir, sizeof(dir)) || depth(dir) < 2)
			continue;
		json_object_set_new(count, dir, json_integer(json_integer_value(
					json_object_get(count, dir)) + 1));
	}
	json_object_foreach(first, p, v)
		if (set_add(out, p))
			goto oom;
	json_object_foreach(count, p, v)
		if (json_integer_value(v) >= RF_LEARN_COLLAPSE_MIN && set_add(out, p))
			goto oom;
	/* What a subtree entry covers goes (safe: iterating a copy). */
	{
		json_auto_t *copy = json_copy(out);

		if (!copy)
			goto oom;
		json_object_foreach(copy, p, v)
			if (covered(out, p))
				json_object_del(out, p);
	}
	return out;
oom:
	json_decref(out);
	return NULL;
}

/* ---- the environment ---- */

static json_t *sorted_array(const json_t *set);

/* Names that hold a secret, or reach an agent that holds one: never
 * passed by a learned policy (a command that needs one gets it through
 * BASE's env). Matched case-insensitively. */
static const struct {
	enum { SECRET_EXACT, SECRET_PART, SECRET_SUFFIX } how;
	const char *text;
} env_secrets[] = {
	{ SECRET_PART, "TOKEN" },        /* GITHUB_TOKEN, VAULT_TOKEN, ... */
	{ SECRET_PART, "SECRET" },       /* AWS_SECRET_ACCESS_KEY, CLIENT_SECRET */
	{ SECRET_PART, "PASSWORD" },
	{ SECRET_PART, "PASSWD" },
	{ SECRET_PART, "PASSPHRASE" },
	{ SECRET_PART, "CREDENTIAL" },   /* GOOGLE_APPLICATION_CREDENTIALS */
	{ SECRET_PART, "COOKIE" },
	{ SECRET_PART, "PRIVATE_KEY" },
	{ SECRET_PART, "API_KEY" },
	{ SECRET_PART, "APIKEY" },
	{ SECRET_PART, "ACCESS_KEY" },
	{ SECRET_SUFFIX, "_KEY" },       /* OPENAI_KEY, SIGNING_KEY */
	{ SECRET_SUFFIX, "_AUTH" },      /* NPM_CONFIG__AUTH */
	{ SECRET_SUFFIX, "_PAT" },       /* personal access tokens */
	{ SECRET_EXACT, "SSH_AUTH_SOCK" },   /* the ssh agent's socket */
	{ SECRET_EXACT, "SSH_AGENT_PID" },
	{ SECRET_EXACT, "GPG_AGENT_INFO" },
	{ SECRET_EXACT, "XAUTHORITY" },  /* the X server's cookie file */
	{ SECRET_EXACT, "KRB5CCNAME" },  /* Kerberos tickets */
	{ SECRET_EXACT, "DBUS_SESSION_BUS_ADDRESS" },  /* the keyring's bus */
};

bool learn__env_secret(const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < sizeof(env_secrets) / sizeof(env_secrets[0]); i++) {
		const char *t = env_secrets[i].text;
		size_t m = strlen(t);

		if (env_secrets[i].how == SECRET_EXACT ? !strcasecmp(name, t) :
		    env_secrets[i].how == SECRET_PART ? strcasestr(name, t) != NULL :
		    n >= m && !strcasecmp(name + n - m, t))
			return true;
	}
	return false;
}

/* [A-Za-z_][A-Za-z0-9_]*, at most RF_LEARN_ENV_NAME_MAX bytes: what
 * env.pass accepts (policy_classes.c). */
#define RF_LEARN_ENV_NAME_MAX 255

static bool env_name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n > RF_LEARN_ENV_NAME_MAX || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

json_t *learn__env_names(char *const *envp)
{
	json_auto_t *set = json_object();
	char name[RF_LEARN_ENV_NAME_MAX + 1];

	if (!set)
		return NULL;
	for (; envp && *envp; envp++) {
		const char *eq = strchr(*envp, '=');
		size_t n = eq ? (size_t)(eq - *envp) : 0;

		if (!env_name_ok(*envp, n))
			continue;
		memcpy(name, *envp, n);
		name[n] = 0;
		if (!learn__env_secret(name) && set_add(set, name))
			return NULL;
	}
	return sorted_array(set);
}

/* ---- the policies ---- */

/* A sorted array of a set's keys (json_object keys are unordered). */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *sorted_array(const json_t *set)
{
	size_t n = json_object_size(set), i = 0;
	_cleanup_free_ const char **keys = calloc(n ? n : 1, sizeof(*keys));
	json_t *a = json_array(), *v;
	const char *k;

	if (!keys || !a) {
		json_decref(a);
		return NULL;
	}
	json_object_foreach((json_t *)set, k, v)
		keys[i++] = k;
	qsort(keys, n, sizeof(*keys), cmp_str);
	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(keys[i]));
	return a;
}

/* Where each list lives in a policy: key, and sub-key of that object. */
static const struct {
	const char *key, *sub;
} list_at[RF_LEARN_LIST_MAX] = {
	[RF_LEARN_READ] = { "files", "read" },
	[RF_LEARN_WRITE] = { "files", "write" },
	[RF_LEARN_EXEC] = { "exec", NULL },
	[RF_LEARN_CONNECT] = { "network", "connect" },
	[RF_LEARN_UNIX] = { "network", "unix" },
};

/*
 * A list's value in a policy: an array, "unrestricted", or NULL when the
 * policy leaves it out (deny-all). A class given as "unrestricted"
 * makes each of its lists "unrestricted".
 */
static json_t *list_value(const json_t *p, enum rf_learn_list k)
{
	json_t *c = json_object_get(p, list_at[k].key);

	if (!c || json_is_string(c) || !list_at[k].sub)
		return c;
	return json_object_get(c, list_at[k].sub);
}

/* Set a list in policy p, creating its class object if need be. */
static int list_set(json_t *p, enum rf_learn_list k, json_t *value)
{
	json_t *c;

	if (!value)
		return -ENOMEM;
	if (!list_at[k].sub)
		return json_object_set_new(p, list_at[k].key, value) ? -ENOMEM : 0;
	c = json_object_get(p, list_at[k].key);
	if (!json_is_object(c)) {
		c = json_object();
		if (json_object_set_new(p, list_at[k].key, c)) {
			json_decref(value);
			return -ENOMEM;
		}
	}
	return json_object_set_new(c, list_at[k].sub, value) ? -ENOMEM : 0;
}

/* "env": {"pass": names} where base says nothing of env: BASE's wins. */
static int env_default(json_t *p, const json_t *base, const json_t *names)
{
	if (!names || json_object_get(base, "env"))
		return 0;
	return json_object_set_new(p, "env", json_pack("{s:O}", "pass", names)) ? -ENOMEM : 0;
}

json_t *learn__audit_policy(const json_t *base, unsigned int learnable, const json_t *env_pass)
{
	json_t *p = json_deep_copy(base), *sc;
	int k;

	if (!p)
		return NULL;
	if (json_object_set_new(p, "mode", json_string("audit")) || env_default(p, base, env_pass))
		goto oom;
	sc = json_object_get(p, "syscalls");
	if (sc && strcmp(str_at(sc, "on_violation") ? str_at(sc, "on_violation") : "deny", "alert"))
		json_object_del(p, "syscalls");
	for (k = 0; k < RF_LEARN_LIST_MAX; k++) {
		if (learnable & (1u << k))
			continue;
		if (!strcmp(list_at[k].key, "files"))
			json_object_set_new(p, "files", json_string("unrestricted"));
		else if (!strcmp(list_at[k].key, "exec"))
			json_object_set_new(p, "exec", json_string("unrestricted"));
		else if (!json_is_string(json_object_get(p, "network")) &&
			 list_set(p, k, json_string("unrestricted")))
			goto oom;
	}
	return p;
oom:
	json_decref(p);
	return NULL;
}

/* A learned write list that reaches /tmp itself would get the sandbox a
 * private /tmp (files.tmp's default), which the learning run did not
 * have: its files there (a build's sources, a tar's input) would be
 * hidden. Written as learned, "shared", unless base says which. */
static int tmp_as_learned(json_t *p)
{
	json_t *files = json_object_get(p, "files"), *w = json_object_get(files, "write"), *v;
	size_t i;

	if (!json_is_object(files) || json_object_get(files, "tmp"))
		return 0;
	json_array_foreach(w, i, v) {
		const char *s = json_string_value(v);

		if (s && (!strcmp(s, "/") || !strcmp(s, "/tmp/")))
			return json_object_set_new(files, "tmp", json_string("shared")) ? -ENOMEM : 0;
	}
	return 0;
}

/* base's list plus what was learned, as one sorted, duplicate-free array. */
static json_t *merged_list(const json_t *base_list, const json_t *learned)
{
	json_auto_t *set = json_deep_copy(learned);
	json_t *v;
	size_t i;

	if (!set)
		return NULL;
	json_array_foreach(base_list, i, v)
		if (json_is_string(v))
			set_add(set, json_string_value(v));
	return sorted_array(set);
}

_Static_assert(RF_LEARN_READ == 0 && RF_LEARN_WRITE == 1 && RF_LEARN_EXEC == 2,
	       "the path lists come first");

/*
 * An executable the command wrote itself (cc -o prog && ./prog): its
 * directory. Landlock ties a rule to the file's inode when the rules are
 * loaded, and the next build replaces the file with a new inode that the
 * exact entry no longer reaches.
 */
static int exec_written(const struct rf_learn *l, json_t *exec)
{
	json_auto_t *copy = json_copy(exec);
	char dir[RF_POLICY_PATH_MAX + 2];
	const char *p;
	json_t *v;

	if (!copy)
		return -ENOMEM;
	json_object_foreach(copy, p, v) {
		if (!json_object_get(l->set[RF_LEARN_WRITE], p) || !parent_dir(p, dir, sizeof(dir)))
			continue;
		json_object_del(exec, p);
		if (set_add(exec, dir))
			return -ENOMEM;
	}
	json_object_foreach(copy, p, v)
		if (json_object_get(exec, p) && covered(exec, p))
			json_object_del(exec, p);
	return 0;
}

/* The learned files and exec lists after the directory rule; read
 * entries that a write entry covers go (write implies read). */
static int learned_paths(const struct rf_learn *l, rf_learn_kind_fn kind, json_t *ret[3])
{
	json_t *v;
	const char *p;
	void *tmp;
	int i;

	for (i = 0; i < 3; i++) {
		/* libraries are read and mapped, never written by name */
		ret[i] = learn__collapse(l->set[i], kind, i != RF_LEARN_WRITE);
		if (!ret[i]) {
			while (i-- > 0)
				json_decref(ret[i]);
			return -ENOMEM;
		}
	}
	json_object_foreach_safe(ret[RF_LEARN_READ], tmp, p, v)
		if (json_object_get(ret[RF_LEARN_WRITE], p) || covered(ret[RF_LEARN_WRITE], p))
			json_object_del(ret[RF_LEARN_READ], p);
	if (exec_written(l, ret[RF_LEARN_EXEC]) || set_add(ret[RF_LEARN_WRITE], RF_LEARN_TTY)) {
		for (i = 0; i < 3; i++)
			json_decref(TAKE_PTR(ret[i]));
		return -ENOMEM;
	}
	return 0;
}

/* "name:port" for each name the gate answered addr for; false when
 * none can be a network.connect entry. */
static bool connect_names(const struct rf_learn *l, const char *addr, json_int_t port,
			  json_t *out)
{
	const json_t *names = json_object_get(l->names, addr), *v;
	const char *name;
	bool any = false;

	json_object_foreach((json_t *)names, name, v) {
		char entry[RF_DNS_NAME_MAX + 16], wild[RF_DNS_NAME_MAX + 3];
		const char *as = name;  /* name itself steers the iteration */
		struct rf_endpoint ep;

		/* no libpsl: the exact name, which is never wrong */
		if (l->wildcards && endpoint__wildcard_for(name, wild, sizeof(wild), NULL) > 0)
			as = wild;
		snprintf(entry, sizeof(entry), "%s:%lld", as, (long long)port);
		if (endpoint__parse(entry, &ep, NULL))
			continue;
		endpoint__clear(&ep);
		any = !set_add(out, entry) || any;
	}
	return any;
}

/* The learned network.connect set: an address the DNS gate answered for
 * a name is reached through that name ("name:port"), never as an IP
 * entry, which would outlive the name's next answer; a private one joins
 * rebind (the gate drops it from answers otherwise). */
static int learned_connect(const struct rf_learn *l, json_t **ret, json_t **ret_rebind)
{
	json_t *out = json_object(), *rebind = json_object(), *dst;
	const char *entry;

	if (!out || !rebind)
		goto oom;
	json_object_foreach(l->set[RF_LEARN_CONNECT], entry, dst) {
		const char *addr = str_at(dst, "address");
		json_int_t port = json_integer_value(json_object_get(dst, "port"));

		if (addr && connect_names(l, addr, port, out)) {
			if (json_object_get(l->private_addrs, addr) && set_add(rebind, addr))
				goto oom;
			continue;
		}
		if (set_add(out, entry))
			goto oom;
	}
	*ret = out;
	*ret_rebind = rebind;
	return 0;
oom:
	json_decref(out);
	json_decref(rebind);
	return -ENOMEM;
}

/* network.dns.rebind_allow of p gets the addresses of rebind: "dns" as
 * an object, its mode kept. */
static int add_rebind(json_t *p, const json_t *rebind)
{
	json_t *net = json_object_get(p, "network"), *dns;

	if (!json_object_size(rebind) || !json_is_object(net))
		return 0;
	dns = json_object_get(net, "dns");
	if (json_is_string(dns))
		dns = json_pack("{s:O}", "mode", dns);
	else
		dns = dns ? json_incref(dns) : json_object();
	if (!dns || json_object_set_new(net, "dns", dns))
		return -ENOMEM;
	return json_object_set_new(dns, "rebind_allow",
				   merged_list(json_object_get(dns, "rebind_allow"), rebind)) ?
	       -ENOMEM : 0;
}

int learn__build(const struct rf_learn *l, const json_t *base, unsigned int learnable,
		 rf_learn_kind_fn kind, json_t **ret, struct rf_error *e)
{
	json_auto_t *p = json_deep_copy(base), *connect = NULL, *rebind = NULL;
	json_t *paths[3] = { NULL, NULL, NULL };
	int k, err;

	if (!p || learned_paths(l, kind, paths))
		return rf_error_set(e, -ENOMEM, "learn", "out of memory");
	err = learned_connect(l, &connect, &rebind);
	if (!err)
		err = env_default(p, base, l->env_pass);
	json_object_del(p, "mode");
	for (k = 0; k < RF_LEARN_LIST_MAX && !err; k++) {
		json_t *cur = list_value(p, k);
		const json_t *got = k < 3 ? paths[k] : k == RF_LEARN_CONNECT ? connect : l->set[k];

		if (json_is_string(cur))
			continue;  /* "unrestricted": nothing to add */
		if (!(learnable & (1u << k))) {
			/* Could not be observed here: as base has it, or open. */
			if (json_object_get(base, list_at[k].key))
				continue;
			if (!list_at[k].sub || strcmp(list_at[k].key, "network"))
				err = json_object_set_new(p, list_at[k].key,
							  json_string("unrestricted")) ? -ENOMEM : 0;
			else
				err = list_set(p, k, json_string("unrestricted"));
			continue;
		}
		err = list_set(p, k, merged_list(cur, got));
		if (!err && k == RF_LEARN_CONNECT)
			err = add_rebind(p, rebind);
	}
	for (k = 0; k < 3; k++)
		json_decref(paths[k]);
	if (!err)
		err = tmp_as_learned(p);
	if (err)
		return rf_error_set(e, err, "learn", "building the policy: %s", strerror(-err));
	*ret = TAKE_PTR(p);
	return 0;
}

char *learn__dump(const json_t *policy)
{
	char *s = json_dumps(policy, JSON_INDENT(2) | JSON_SORT_KEYS), *t;

	if (!s)
		return NULL;
	t = realloc(s, strlen(s) + 2);
	if (!t) {
		free(s);
		return NULL;
	}
	strcat(t, "\n");
	return t;
}
