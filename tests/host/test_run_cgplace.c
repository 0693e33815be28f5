/*
 * Where sandbox cgroups live (supervisor/cgroups/cgplace.h), on the real kernel:
 * --cgroup-parent puts the sandbox below the named cgroup, a caller whose
 * cgroup carries systemd's delegate xattr gets it below its own cgroup,
 * and either way the network programs hold there (an allowed port
 * connects, its neighbour is EPERM), the trace and the registry say where
 * and why, and gc finds what is left there. Bad --cgroup-parent values:
 * one line, exit 125, the command never runs.
 */
#include "harness.h"

#include <dirent.h>
#include <sys/xattr.h>
#include <time.h>

#include "paths.h"

#define PORT_OK 18381
#define PORT_NO 18382
#define POLICY(id)                                                                     \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                 \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18381\"]}}"

static char g_named[600], g_deleg[600];

/* Shell text run in the sandbox: its cgroup, its registry file, and one
 * allowed and one denied connect. */
static char *sandbox_script(const char *id)
{
	char *s = NULL;
	const char *net = h_sh(h_tool("rf-net"));

	assert_true(asprintf(&s, "cat /proc/self/cgroup; cat %s/%s-*.json; echo; "
			     "%s tcp 127.0.0.1 %d tcp 127.0.0.1 %d", RF_REGISTRY_DIR, id, net,
			     PORT_OK, PORT_NO) > 0);

	return s;
}

/* In the child: move into the cgroup `from`. */
static int join_cgroup(void *from)
{
	char procs[700];
	FILE *f;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", (const char *)from);
	f = fopen(procs, "w");
	if (!f || fprintf(f, "0\n") < 0 || fclose(f))
		return -1;
	return 0;
}

/*
 * ringfence run [--cgroup-parent parent] started from the cgroup `from`
 * (NULL: where the test runs), with a trace; exit status, out/err.
 */
static int run_from(const char *from, const char *parent, const char *id, const char *trace,
		    char **ret_out, char **ret_err)
{
	char *policy = h_tempfile("policy", strstr(id, "cgp-named") ? POLICY("cgp-named") :
					    strstr(id, "cgp-deleg") ? POLICY("cgp-deleg") :
					    POLICY("cgp-bad"));
	char *script = sandbox_script(id);
	const char *extra[] = { "--cgroup-parent", parent, NULL };
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	int rc = h_wait(h_spawn_with(policy, trace, parent ? extra : NULL, argv,
				     from ? join_cgroup : NULL, (void *)from),
			ret_out, ret_err);

	unlink(policy);
	free(policy);
	free(script);
	return rc;
}

/* The sandbox ran in DIR/ringfence/<id>-*, enforced the network, and the
 * trace's plan and the registry say how it got there. */
static void assert_placed(const char *out, const char *trace, const char *dir, const char *id,
			  const char *how)
{
	char want[700];
	const char *mnt = h_cgroup2_mount();
	json_t *t = h_trace(trace), *plan, *cg;

	snprintf(want, sizeof(want), "0::%s/ringfence/%s-", dir + strlen(mnt), id);
	if (!strstr(out, want))
		fail_msg("no line %s in:\n%s", want, out);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18381"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18382"), "EPERM");
	snprintf(want, sizeof(want), "\"%s\"", how);
	if (!strstr(out, "\"cgroup_placement\"") ||
	    !strstr(strstr(out, "\"cgroup_placement\""), want))
		fail_msg("registry file without cgroup_placement %s:\n%s", want, out);
	plan = json_object_get(h_event(t, "sandbox.plan", 0), "plan");
	cg = json_object_get(plan, "cgroup");
	assert_non_null(cg);
	assert_string_equal(json_string_value(json_object_get(cg, "how")), how);
	snprintf(want, sizeof(want), "%s/ringfence", dir);
	assert_string_equal(json_string_value(json_object_get(cg, "parent")), want);
	assert_non_null(json_string_value(json_object_get(cg, "why")));
	json_decref(t);
}

static int count_children(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_type == DT_DIR && de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* --cgroup-parent, as a path in the mount and as a cgroup path. */
static void named_parent(void **state)
{
	char *trace = h_tempfile("trace", NULL), *out, *err, sub[700];
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", PORT_OK, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", PORT_NO, SOCK_STREAM);

	(void)state;
	assert_int_equal(run_from(NULL, g_named, "cgp-named", trace, &out, &err), 0);
	print_message("stderr: %s", err);
	assert_placed(out, trace, g_named, "cgp-named", "named");
	free(out);
	free(err);
	/* the sandbox is gone, its parent stays */
	snprintf(sub, sizeof(sub), "%s/ringfence", g_named);
	assert_int_equal(count_children(sub), 0);

	/* "/rf-..." is taken below the cgroup2 mount */
	assert_int_equal(run_from(NULL, g_named + strlen(h_cgroup2_mount()), "cgp-named", trace,
				  &out, &err), 0);
	assert_placed(out, trace, g_named, "cgp-named", "named");
	free(out);
	free(err);
	close(l1);
	close(l2);
	unlink(trace);
	free(trace);
}

/* Bad values: one line naming --cgroup-parent, 125, nothing ran. */
static void named_parent_refused(void **state)
{
	char own[700], up[700], *trace = h_tempfile("trace", NULL), *out, *err;
	const char *bad[] = { "relative/path", "/rf-no-such-cgroup-h10", own, up, "/tmp/../etc" };
	size_t i;

	(void)state;
	snprintf(own, sizeof(own), "%s/ringfence", h_cgroup2_mount());
	snprintf(up, sizeof(up), "%s/../..", h_cgroup2_mount());
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run_from(NULL, bad[i], "cgp-bad", trace, &out, &err), 125);
		print_message("%s -> %s", bad[i], err);
		assert_string_equal(out, "");
		assert_non_null(strstr(err, "--cgroup-parent"));
		assert_int_equal((int)(strchr(err, '\n') - err), (int)strlen(err) - 1);
		free(out);
		free(err);
	}
	unlink(trace);
	free(trace);
}

/* Started from a cgroup with systemd's delegate xattr and alone in it:
 * the sandbox goes below it, the supervisor into a leaf beside. */
static void delegated_parent(void **state)
{
	char *trace = h_tempfile("trace", NULL), *out, *err, sub[700];
	int l1 = h_listen_inet(AF_INET, "127.0.0.1", PORT_OK, SOCK_STREAM);
	int l2 = h_listen_inet(AF_INET, "127.0.0.1", PORT_NO, SOCK_STREAM);

	(void)state;
	assert_int_equal(run_from(g_deleg, NULL, "cgp-deleg", trace, &out, &err), 0);
	print_message("stderr: %s", err);
	assert_placed(out, trace, g_deleg, "cgp-deleg", "delegated");
	snprintf(sub, sizeof(sub), "%s/ringfence-supervisor", g_deleg);
	assert_int_equal(access(sub, F_OK), 0);
	snprintf(sub, sizeof(sub), "%s/ringfence", g_deleg);
	assert_int_equal(count_children(sub), 0);
	free(out);
	free(err);
	close(l1);
	close(l2);
	unlink(trace);
	free(trace);
}

/* A sandbox cgroup left in a parent a run recorded, with no registry file
 * naming it: gc finds and removes it. */
static void gc_walks_named_parent(void **state)
{
	char dir[700], cmd[800], buf[4096] = "";
	size_t n;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/ringfence/cgp-named-deadbeef", g_named);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(cmd, sizeof(cmd), "%s gc", h_sh(h_ringfence()));
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	assert_int_equal(pclose(f), 0);
	print_message("gc: %s", buf);
	assert_non_null(strstr(buf, dir));
	assert_int_equal(access(dir, F_OK), -1);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* procs of the sandbox of policy id in the monitor's status file, or -1. */
static long status_procs(const char *status, const char *id)
{
	json_t *st = json_load_file(status, 0, NULL), *v;
	long procs = -1;
	size_t i;

	json_array_foreach(json_object_get(st, "sandboxes"), i, v)
		if (!strcmp(json_string_value(json_object_get(v, "policy_id")) ?: "", id))
			procs = (long)json_integer_value(json_object_get(v, "procs"));
	json_decref(st);
	return procs;
}

/*
 * ringfence-monitor follows a sandbox below --cgroup-parent: its own
 * sensors count its processes (they look beyond <cgroup2>/ringfence once a
 * sandbox lives elsewhere) and its 30 denied connects are a burst alert.
 */
static void monitor_follows_named_parent(void **state)
{
	char mon[600], out[] = "/tmp/rf-cgp-mon-XXXXXX", status[64], alerts[64], *policy;
	char script[600], *o, *e;
	const char *rf = h_ringfence(), *slash = strrchr(rf, '/');
	long procs = -1;
	pid_t mpid;
	int i, st;
	struct h_proc p;

	(void)state;
	assert_non_null(mkdtemp(out));
	snprintf(status, sizeof(status), "%s/status.json", out);
	snprintf(alerts, sizeof(alerts), "%s/alerts.ndjson", out);
	snprintf(mon, sizeof(mon), "%.*sringfence-monitor", slash ? (int)(slash - rf + 1) : 0, rf);
	mpid = fork();
	assert_true(mpid >= 0);
	if (mpid == 0) {
		execl(mon, mon, "-q", "--output", alerts, "--status", status, "--state", "",
		      "--interval", "200", "--linger-ms", "500", (char *)NULL);
		_exit(99);
	}
	for (i = 0; i < 300 && access(status, R_OK); i++)
		sleep_ms(50);
	assert_int_equal(access(status, R_OK), 0);

	snprintf(script, sizeof(script), "sleep 3 & sleep 3 & i=0; while [ $i -lt 30 ]; do "
		 "%s tcp 127.0.0.1 %d >/dev/null; i=$((i + 1)); done; wait", h_sh(h_tool("rf-net")),
		 PORT_NO);
	policy = h_tempfile("policy", POLICY("cgp-mon"));
	p = h_spawn(policy, NULL, (const char *const[]){ "--cgroup-parent", g_named, NULL },
		    (const char *const[]){ "/bin/sh", "-c", script, NULL });
	for (i = 0; i < 40 && procs < 2; i++) {
		sleep_ms(100);
		procs = status_procs(status, "cgp-mon");
	}
	assert_int_equal(h_wait(p, &o, &e), 0);
	free(o);
	free(e);
	sleep_ms(1500);
	kill(mpid, SIGTERM);
	assert_int_equal(waitpid(mpid, &st, 0), mpid);
	print_message("procs seen by the monitor: %ld", procs);
	assert_true(procs >= 2);
	o = h_read_all(open(alerts, O_RDONLY));
	if (!strstr(o, "rf-deny-burst") || !strstr(o, "\"policy_id\":\"cgp-mon\""))
		fail_msg("no burst alert for cgp-mon:\n%s", o);
	free(o);
	unlink(policy);
	free(policy);
	unlink(status);
	unlink(alerts);
	rmdir(out);
}

static void rmdir_tree(const char *dir)
{
	char p[800];

	snprintf(p, sizeof(p), "%s/ringfence-supervisor", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/ringfence", dir);
	rmdir(p);
	rmdir(dir);
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	snprintf(g_named, sizeof(g_named), "%s/rf-test-named-%d", h_cgroup2_mount(), getpid());
	snprintf(g_deleg, sizeof(g_deleg), "%s/rf-test-deleg-%d", h_cgroup2_mount(), getpid());
	if (mkdir(g_named, 0755) || mkdir(g_deleg, 0755))
		return -1;
	/* what systemd sets on the cgroup of a unit with Delegate=yes */
	return setxattr(g_deleg, "trusted.delegate", "1", 1, 0);
}

static int teardown(void **state)
{
	(void)state;
	rmdir_tree(g_named);
	rmdir_tree(g_deleg);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(named_parent),
		cmocka_unit_test(named_parent_refused),
		cmocka_unit_test(delegated_parent),
		cmocka_unit_test(gc_walks_named_parent),
		cmocka_unit_test(monitor_follows_named_parent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
