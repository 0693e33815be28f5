// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ringfence learn [--policy BASE] [--out FILE] [--verify] -- CMD`: the
 * run's own steps (run__steps) on BASE in audit mode with a trace of its
 * own, the trace read back into a policy (learn.c), the policy checked
 * by the parser `check` uses, written atomically, and with --verify the
 * command run again under it in enforce mode.
 *
 * The policy and the trace handed to the run are unlinked temporary
 * files reached through /proc/self/fd: nothing is left behind, whatever
 * happens, and nothing in the sandbox can find them by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "fileio.h"
#include "learn.h"
#include "learn_cmd.h"
#include "launch/dynuser.h"
#include "log.h"
#include "run/prepare.h"
#include "run/sandbox.h"

extern char **environ;

#define LEARN_ROUNDS 3            /* runs while the kernel drops decisions */
#define ALL_LISTS ((1u << RF_LEARN_LIST_MAX) - 1)

static enum rf_learn_kind path_kind(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return RF_LEARN_MISSING;
	return S_ISDIR(st.st_mode) ? RF_LEARN_DIR : RF_LEARN_FILE;
}

/* An unlinked temporary file, and the /proc/self/fd name that opens it. */
static int anon_file(char *ret_name, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/ringfence-learn-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	snprintf(ret_name, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* --out names a file in a directory that exists and that we can write. */
static int check_out(const char *out, struct rf_error *e)
{
	_cleanup_free_ char *copy = strdup(out);
	struct stat st;
	const char *dir;

	if (!copy)
		return rf_error_set(e, -ENOMEM, "--out", "out of memory");
	if (!out[0] || out[strlen(out) - 1] == '/' || (!stat(out, &st) && S_ISDIR(st.st_mode)))
		return rf_error_set(e, -EISDIR, "--out", "%s: a file name is needed", out);
	dir = dirname(copy);
	if (stat(dir, &st))
		return rf_error_set(e, -errno, "--out", "%s: directory %s: %s", out, dir,
				    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return rf_error_set(e, -ENOTDIR, "--out", "%s: %s is not a directory", out, dir);
	if (access(dir, W_OK))
		return rf_error_set(e, -errno, "--out", "%s: directory %s: %s", out, dir,
				    strerror(errno));
	return 0;
}

/* Readers see the old file or the whole new one, never a part; the file
 * a user keeps is on disk before it has the name. */
static int write_atomic(const char *out, const char *text, struct rf_error *e)
{
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_UNIQUE, .mode = 0644,
						  .flags = FILEIO_FSYNC };
	int err = fileio__write_atomic(out, text, strlen(text), &how);

	return err ? rf_error_set(e, err, "--out", "%s: %s", out, strerror(-err)) : 0;
}

/* BASE as a JSON object, validated by the policy parser first (its
 * errors name the JSON path); without BASE a deny-all policy. */
static int load_base(const char *path, json_t **ret, struct rf_error *e)
{
	struct rf_policy *p = NULL;
	json_error_t jerr;
	int err;

	if (!path) {
		*ret = json_pack("{s:i, s:s}", "version", 1, "id", "learn");
		return *ret ? 0 : rf_error_set(e, -ENOMEM, "learn", "out of memory");
	}
	err = prepare__load_policy(path, &p, e);
	policy__free(p);
	if (err)
		return err;
	*ret = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	return *ret ? 0 : rf_error_set(e, -EINVAL, path, "%s", jerr.text);
}

static int parse_text(const char *text, struct rf_policy **ret, struct rf_error *e)
{
	int err = policy__load_string(text, ret, e);

	if (err)
		rf_error_wrap(e, "learned policy");
	return err;
}

/* The lists the audit plan can record on this kernel; the others are
 * said once, with the planner's reason. */
static int learnable_here(const json_t *base, const struct rf_plan_opts *opts,
			  unsigned int *ret, struct rf_error *e)
{
	static const struct {
		enum rf_class cls;
		unsigned int lists;
	} classes[] = {
		{ RF_CLASS_FILE, 1u << RF_LEARN_READ | 1u << RF_LEARN_WRITE },
		{ RF_CLASS_EXEC, 1u << RF_LEARN_EXEC },
		{ RF_CLASS_NET, 1u << RF_LEARN_CONNECT },
		{ RF_CLASS_UNIX, 1u << RF_LEARN_UNIX },
	};
	json_auto_t *audit = learn__audit_policy(base, ALL_LISTS, NULL);
	_cleanup_free_ char *text = audit ? learn__dump(audit) : NULL;
	struct rf_policy *p = NULL;
	struct rf_caps caps;
	struct rf_plan plan;
	size_t i;
	int err;

	if (!text)
		return rf_error_set(e, -ENOMEM, "learn", "out of memory");
	err = parse_text(text, &p, e);
	if (err)
		return err;
	probe__run(&caps, prepare__probe_flags(p, opts));
	plan__compile(p, &caps, opts, &plan);
	policy__free(p);
	*ret = ALL_LISTS;
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		const struct rf_class_plan *cp = &plan.c[classes[i].cls];
		char why[RF_PLAN_REASON_LEN];

		if (cp->note != RF_NOTE_REFUSED)
			continue;
		*ret &= ~classes[i].lists;
		if (plan.reasons[cp->reason].code == RF_WHY_AUDIT_LANDLOCK)
			snprintf(why, sizeof(why), "this kernel has no BPF-LSM and this build "
				 "cannot observe Landlock-class accesses in audit mode");
		else
			plan__reason_text(&plan, cp->reason, why, sizeof(why));
		rf_info("learn: %s: not learned here: %s; kept as BASE has it (\"unrestricted\" "
			"when BASE has none)", names__class(classes[i].cls), why);
	}
	return 0;
}

/* One run of the command under policy (a JSON object); its trace is
 * read into l. Returns the run's exit status (run__steps). */
static int run_once(const struct learn_opts *o, const json_t *policy, struct rf_learn *l,
		    struct rf_error *e)
{
	_cleanup_free_ char *text = learn__dump(policy);
	_cleanup_close_ int pfd = -1, tfd = -1;
	_cleanup_fclose_ FILE *f = NULL;
	char pname[64], tname[64];
	struct run_opts ro = o->run;
	int rc, err;

	if (!text)
		return rf_error_set(e, -ENOMEM, "learn", "out of memory");
	pfd = anon_file(pname, sizeof(pname));
	tfd = anon_file(tname, sizeof(tname));
	if (pfd < 0 || tfd < 0)
		return rf_error_set(e, pfd < 0 ? pfd : tfd, "learn", "temporary file: %s",
				    strerror(-(pfd < 0 ? pfd : tfd)));
	err = fileio__write_all(pfd, text, strlen(text));
	if (err)
		return rf_error_set(e, err, "learn", "temporary file: %s", strerror(-err));
	ro.policy_path = pname;
	ro.trace_path = tname;
	rc = run__steps(&ro, NULL, NULL);
	f = fdopen(TAKE_FD(tfd), "r");
	if (!f || fseek(f, 0, SEEK_SET))
		return rf_error_set(e, -errno, "learn", "reading the trace: %s", strerror(errno));
	err = learn__add_trace(l, f);
	if (err)
		return rf_error_set(e, err, "learn", "reading the trace: %s", strerror(-err));
	return rc;
}

/*
 * Audit runs until the kernel kept every decision in the trace (it keeps
 * RF_SAMPLE_LIMIT_DEFAULT per run), at most LEARN_ROUNDS, each under
 * what was learned so far so it records only what is still missing.
 * Returns the last run's exit status, or -errno with e filled.
 */
static int learn_rounds(const struct learn_opts *o, const json_t *base, unsigned int learnable,
			struct rf_learn *l, struct rf_error *e)
{
	json_auto_t *cur = json_deep_copy(base);
	unsigned long long lost_first = 0;
	int round, rc = 0, err;

	for (round = 1; round <= LEARN_ROUNDS; round++) {
		json_auto_t *audit = cur ? learn__audit_policy(cur, learnable, l->env_pass) : NULL;
		json_t *next = NULL;

		if (!audit)
			return rf_error_set(e, -ENOMEM, "learn", "out of memory");
		l->ran = false;
		l->not_in_trace = 0;
		rc = run_once(o, audit, l, e);
		if (round == 1)
			lost_first = l->not_in_trace;
		/* a failed run is not run again: learn fails (cmd_learn) */
		if (rc < 0 || !learn__succeeded(l) || !l->not_in_trace || round == LEARN_ROUNDS)
			break;
		rf_info("learn: %llu decisions were not kept in the trace (the kernel keeps %d "
			"per run): running the command again under what was learned so far "
			"(run %d of %d)", (unsigned long long)l->not_in_trace,
			RF_SAMPLE_LIMIT_DEFAULT, round + 1, LEARN_ROUNDS);
		err = learn__build(l, base, learnable, path_kind, &next, e);
		if (err)
			return err;
		json_decref(cur);
		cur = next;
	}
	if (rc >= 0 && learn__succeeded(l) && l->not_in_trace)
		rf_err("learn: warning: %llu decisions were still not kept after %d runs: the "
		       "learned policy may miss some (--verify shows what)",
		       (unsigned long long)l->not_in_trace, LEARN_ROUNDS);
	else if (rc >= 0 && learn__succeeded(l) && lost_first)
		/* a rerun records only what the command does again: one that
		 * finds its work done (make) does not */
		rf_err("learn: warning: %llu decisions of the first run were not kept; the "
		       "runs after it recorded only what the command did again, so the "
		       "learned policy may miss some: verify it from the same starting "
		       "state (e.g. after make clean)", lost_first);
	return rc;
}

/* Root without --user (not under sudo): `run` gives the command a
 * dynamic uid, learning ran as uid 0 (audit mode). */
static bool as_dynamic(const struct learn_opts *o)
{
	return !o->run.user && getuid() == 0 && !getenv("SUDO_UID");
}

#define VERIFY_SHOWN 20
/* The command again, under the learned policy, enforced, as a plain run
 * would run it (root without --user: a dynamic uid): it must start, exit
 * 0 as it did while learning (learn fails before --verify otherwise), and
 * meet no denial. modes: entries file modes refuse (say_file_modes). */
static int verify(const struct learn_opts *o, const json_t *learned, size_t modes)
{
	struct rf_learn v;
	struct rf_error e = { 0 };
	char how[96];
	size_t i;
	int rc;

	if (learn__init(&v))
		return 1;
	rc = run_once(o, learned, &v, &e);
	if (rc < 0) {
		rf_error_print(&e, NULL);
		rc = 1;
	} else if (!v.ran) {
		rf_err("learn --verify: the command did not start under the learned policy "
		       "(ringfence exited %d; see above)", rc);
		rc = 1;
	} else {
		for (i = 0; i < json_array_size(v.denials) && i < VERIFY_SHOWN; i++)
			rf_err("learn --verify: denied: %s",
			       json_string_value(json_array_get(v.denials, i)));
		if (v.denied > VERIFY_SHOWN)
			rf_err("learn --verify: ... and %llu more",
			       (unsigned long long)(v.denied - VERIFY_SHOWN));
		if (v.file_modes)
			rf_info("learn --verify: %llu refusal%s by file modes (not the policy): the "
				"dynamic uid a plain run gives the command may not reach what root "
				"could while learning (a PATH entry below /root, say)",
				(unsigned long long)v.file_modes, v.file_modes == 1 ? "" : "s");
		learn__outcome(&v, how, sizeof(how));
		if (!learn__succeeded(&v))
			rf_err("learn --verify: the command %s under the learned policy, exited 0 "
			       "while learning: %s", how, modes || v.file_modes ?
			       "file modes refuse the dynamic uid what it did (above)" :
			       !v.denied && as_dynamic(o) ?
			       "with no denial: it ran as a dynamic uid, learning as uid 0 (a "
			       "program that checks who owns its files, such as git's "
			       "safe.directory, fails for that); --user root runs it as uid 0" :
			       "the policy does not allow what it did");
		rc = v.denied || !learn__succeeded(&v) ? 1 : 0;
		rf_info("learn --verify: %llu denial%s under the learned policy, and the command "
			"%s%s", (unsigned long long)v.denied, v.denied == 1 ? "" : "s", how,
			rc ? "" : " as while learning: it allows what the command did");
	}
	learn__fini(&v);
	return rc;
}

static size_t list_len(const json_t *p, const char *key, const char *sub)
{
	const json_t *c = json_object_get(p, key);

	return json_array_size(sub ? json_object_get(c, sub) : c);
}

/* What could not be learned, and what was written. */
static void say_result(const struct rf_learn *l, const json_t *learned, const char *out)
{
	char how[96];
	const char *n;
	json_t *v;
	size_t i;

	json_object_foreach(l->notes, n, v)
		rf_info("learn: not learned: %s", n);
	json_array_foreach(l->denials, i, v)
		rf_info("learn: denied while learning (enforced even in audit mode; no policy "
			"entry allows it): %s", json_string_value(v));
	rf_info("learn: syscalls: not learned: this build cannot observe the set of syscalls a "
		"command makes (ringfence-monitor's data is not available to learn); BASE's "
		"\"syscalls\" is kept as given");
	learn__outcome(l, how, sizeof(how));
	rf_info("learn: the command %s while learning", how);
	rf_info("learn: %llu audited decisions; the policy has files.read %zu, files.write %zu, "
		"exec %zu, network.connect %zu, network.unix %zu, env.pass %zu entries; written "
		"to %s", (unsigned long long)l->learned, list_len(learned, "files", "read"),
		list_len(learned, "files", "write"), list_len(learned, "exec", NULL),
		list_len(learned, "network", "connect"), list_len(learned, "network", "unix"),
		list_len(learned, "env", "pass"), out ? out : "stdout");
}

/* The learned policy: built, checked like `check` would, written. */
static int write_policy(const struct learn_opts *o, const struct rf_learn *l, const json_t *base,
			unsigned int learnable, int out_fd, json_t **ret, struct rf_error *e)
{
	_cleanup_free_ char *text = NULL;
	struct rf_policy *p = NULL;
	int err;

	err = learn__build(l, base, learnable, path_kind, ret, e);
	if (err)
		return err;
	text = learn__dump(*ret);
	if (!text)
		return rf_error_set(e, -ENOMEM, "learn", "out of memory");
	err = parse_text(text, &p, e);
	policy__free(p);
	if (err)
		return err;
	if (o->out)
		return write_atomic(o->out, text, e);
	err = fileio__write_all(out_fd, text, strlen(text));
	return err ? rf_error_set(e, err, "learn", "writing the policy: %s", strerror(-err)) : 0;
}

/* The environment of the learning run, said once: which names pass, and
 * which were left out as secrets (names only, never values). */
static void say_env(const json_t *base, const struct rf_learn *l)
{
	_cleanup_free_ char *secrets = NULL;
	size_t len = 0;
	char **e;
	FILE *f;

	if (json_object_get(base, "env")) {
		rf_info("learn: the command runs with BASE's \"env\" (kept in the learned policy)");
		return;
	}
	f = open_memstream(&secrets, &len);
	for (e = environ; f && *e; e++) {
		int n = (int)strcspn(*e, "=");
		char name[256];

		snprintf(name, sizeof(name), "%.*s", n, *e);
		if (learn__env_secret(name))
			fprintf(f, "%s%s", ftell(f) ? " " : "", name);
	}
	if (f)
		fclose(f);
	rf_info("learn: the command runs with %zu variables of the caller's environment, the "
		"learned policy's env.pass%s%s", json_array_size(l->env_pass),
		secrets && *secrets ? "; left out as secrets: " : "",
		secrets && *secrets ? secrets : "");
}

/* The learning run failed: said loudly, learn fails. The policy was
 * written all the same (what the command did until it failed), for a
 * look or as BASE of another try, but never verified. */
static int learn_failed(const struct rf_learn *l, const json_t *base, const char *out,
			bool verify)
{
	char how[96];

	learn__outcome(l, how, sizeof(how));
	rf_err("learn: the command %s while learning: the learning run failed, so the "
	       "policy written to %s only allows what it did until it failed%s", how,
	       out ? out : "stdout", verify ? "; it was not verified" : "");
	if (json_object_get(base, "env"))
		rf_err("learn: the command ran with BASE's \"env\" only: if it needs more of the "
		       "environment, name it in BASE's env.pass (or leave \"env\" out of BASE to "
		       "pass the caller's)");
	return 1;
}

/* The strings of a policy list that are paths (files.write's: *ret). */
static const char **list_paths(const json_t *p, const char *key, const char *sub, size_t *ret_n)
{
	const json_t *c = json_object_get(p, key), *a = sub ? json_object_get(c, sub) : c, *v;
	const char **out = calloc(json_array_size(a) + 1, sizeof(*out));
	size_t i;

	*ret_n = 0;
	json_array_foreach(a, i, v)
		if (out && json_is_string(v) && json_string_value(v)[0] == '/')
			out[(*ret_n)++] = json_string_value(v);
	return out;
}

#define MODES_SHOWN 20
/*
 * Root without --user learns as uid 0 (audit mode refuses nothing, file
 * modes included: what the command does is what it needs), but a plain
 * `ringfence run` of the learned policy by root gives the command a
 * dynamic uid, to which file modes apply outside the write areas (those
 * are id-mapped). What of the learned policy they would refuse it is said
 * here as its own kind, not as a policy denial: --user root (for the run
 * and the learning) or other modes are the user's choice. --verify runs
 * as the plain run would, so it fails on them too. The number said.
 */
static size_t say_file_modes(const struct learn_opts *o, const json_t *learned)
{
	static const struct { const char *key, *sub; int want; const char *what; } lists[] = {
		{ "files", "read", R_OK, "read" },
		{ "exec", NULL, X_OK, "exec" },
		{ "network", "unix", W_OK, "connect to" },
	};
	size_t n_w, n, shown = 0;
	_cleanup_free_ const char **w = NULL;
	char why[4200];

	if (!as_dynamic(o))
		return 0;
	w = list_paths(learned, "files", "write", &n_w);
	for (size_t k = 0; w && k < sizeof(lists) / sizeof(lists[0]); k++) {
		_cleanup_free_ const char **p = list_paths(learned, lists[k].key, lists[k].sub, &n);

		for (size_t i = 0; p && i < n; i++) {
			if (!dynuser__refused(p[i], lists[k].want, w, n_w, why, sizeof(why)))
				continue;
			if (shown++ < MODES_SHOWN)
				rf_err("learn: file modes (not the policy): a dynamic uid may not %s "
				       "%s (%s)", lists[k].what, p[i], why);
		}
	}
	if (shown)
		rf_err("learn: file modes: %zu entr%s of the learned policy a plain `ringfence "
		       "run` by root could not use: it runs the command as a dynamic uid, not uid "
		       "0 as while learning; run it with --user root (and learn with it), or "
		       "give those files modes others may use", shown, shown == 1 ? "y" : "ies");
	return shown;
}

int cmd_learn(const struct learn_opts *o)
{
	struct rf_error e = { 0 };
	json_auto_t *base = NULL, *learned = NULL;
	struct rf_learn l;
	unsigned int learnable;
	int rc, out_fd = -1;

	if ((o->out && check_out(o->out, &e)) || load_base(o->run.policy_path, &base, &e) ||
	    learnable_here(base, &o->run.plan_opts, &learnable, &e)) {
		if (e.why[0])        /* empty: every policy error printed already */
			rf_error_print(&e, NULL);
		return RF_EXIT_USAGE;
	}
	if (learn__init(&l))
		return 1;
	l.wildcards = o->wildcards;
	l.env_pass = learn__env_names(environ);
	if (!l.env_pass) {
		learn__fini(&l);
		return 1;
	}
	if (!o->out) {
		/* stdout is the policy's: the command's output goes to stderr. */
		out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			rf_err("learn: stdout: %s", strerror(errno));
			learn__fini(&l);
			return 1;
		}
	}
	say_env(base, &l);
	rc = learn_rounds(o, base, learnable, &l, &e);
	if (rc >= 0 && l.ran) {
		rc = write_policy(o, &l, base, learnable, out_fd, &learned, &e);
		if (!rc) {
			say_result(&l, learned, o->out);
			size_t modes = say_file_modes(o, learned);

			if (!learn__succeeded(&l))
				rc = learn_failed(&l, base, o->out, o->verify);
			else if (o->verify)
				rc = verify(o, learned, modes);
		}
	} else if (rc == 0) {
		rf_err("learn: the learning run's trace has no end (sandbox.exit): nothing learned");
		rc = 1;
	}
	/* else: the run refused or failed to start, and said why */
	if (rc < 0) {
		rf_error_print(&e, NULL);
		rc = 1;
	}
	if (out_fd >= 0) {
		dup2(out_fd, STDOUT_FILENO);
		close(out_fd);
	}
	learn__fini(&l);
	return rc;
}
