/*
 * Host tests: an upgrade under live sandboxes (issue 24). Sandboxes run
 * with build A; the binary is replaced by build B (another build id:
 * upgrade.h); A's supervisors are killed (their sandboxes end) while
 * others of A live on; B's runs start beside them, each build's sandboxes
 * judged by its own pinned set (RF_PIN_DIR/<set>); A's set is unloaded
 * with A's last sandbox, a kept-running one that outlived its supervisor.
 * A's sandboxes try a denied and an allowed connect over and over, inside
 * the boundary, so A's enforcement is seen to hold throughout.
 */
#include "harness.h"
#include "leaks.h"
#include "upgrade.h"

#include <sys/prctl.h>
#include <sys/stat.h>

#include "paths.h"
#include "pins.h"

/* 18181 denied, 18191 allowed (nothing listens: ECONNREFUSED, from the
 * network stack, not the policy). */
#define UPG_POLICY(id)                                                         \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","         \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18191\"]}}"

#define WITHIN_MS 5000

static char dir[] = "/tmp/rf-upgrade-XXXXXX";
static char bin[600], bin_b[600], set_a[RF_PIN_SET_LEN], set_b[RF_PIN_SET_LEN];

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	/* Orphans (reapers of killed supervisors) come back here. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/ringfence", dir);
	snprintf(bin_b, sizeof(bin_b), "%s/ringfence.b", dir);
	h_copy_binary(h_ringfence(), bin);
	h_other_build(h_ringfence(), bin_b, set_a, set_b);
	return 0;
}

static int teardown(void **state)
{
	char cmd[700];

	(void)state;
	/* the binaries and the sandboxes' output files */
	snprintf(cmd, sizeof(cmd), "rm -rf %s", h_sh(dir));
	return system(cmd) ? -1 : 0;
}

struct sbx {
	struct h_proc p;
	pid_t child;
	char cgroup[4096];
	char out[640];
};

/* A sandbox of bin whose command tries both connects every 50 ms into
 * out (its stdout: the file), registered (and so running) on return. */
static void start_loop(struct sbx *s, const char *policy_json, const char *prefix,
		       bool keep, const char *want_set)
{
	char cmd[1400];
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const char *extra[] = { keep ? "--keep-running" : NULL, NULL };
	char *policy = h_tempfile("policy", policy_json);
	json_t *reg;

	snprintf(s->out, sizeof(s->out), "%s/%s.out", dir, prefix);
	close(open(s->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	snprintf(cmd, sizeof(cmd),
		 "while :; do %s tcp 127.0.0.1 18181 tcp 127.0.0.1 18191 >> %s; sleep 0.05; done",
		 h_sh(h_tool("rf-net")), s->out);
	setenv("RINGFENCE", bin, 1);
	s->p = h_spawn(policy, NULL, extra, argv);
	unsetenv("RINGFENCE");
	reg = h_wait_registered(prefix);
	assert_non_null(reg);
	s->child = (pid_t)json_integer_value(json_object_get(reg, "pid"));
	snprintf(s->cgroup, sizeof(s->cgroup), "%s",
		 json_string_value(json_object_get(reg, "cgroup_path")));
	/* enforced by its own build's set */
	assert_string_equal(json_string_value(json_object_get(reg, "pin_set")), want_set);
	json_decref(reg);
	unlink(policy);
	free(policy);
}

static bool set_pinned(const char *set)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/meta", RF_PIN_DIR, set);
	return stat(path, &st) == 0;
}

static bool gone(const struct sbx *s)
{
	struct stat st;

	return h_dead(s->child) && stat(s->cgroup, &st) != 0;
}

/* The command's attempts from byte off on: at least two rounds, every
 * one denied and allowed as the policy says. */
static void still_enforced(const struct sbx *s, const char *when)
{
	char *text = NULL, *from;
	int denied = 0, allowed = 0;
	uint64_t t0;
	FILE *f;
	long off;

	f = fopen(s->out, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	off = ftell(f);
	fclose(f);
	for (t0 = h_now_ms(); h_now_ms() - t0 < WITHIN_MS && allowed < 2; h_sleep_ms(50)) {
		int fd = open(s->out, O_RDONLY | O_CLOEXEC);

		free(text);
		text = h_read_all(fd);
		close(fd);
		from = strlen(text) > (size_t)off ? text + off : text + strlen(text);
		/* whole lines only: the last one may be half written */
		denied = allowed = 0;
		for (char *l = from; (l = strstr(l, "tcp 127.0.0.1:181")) && strchr(l, '\n');
		     l = strchr(l, '\n')) {
			if (!strncmp(l, "tcp 127.0.0.1:18181 ", 20)) {
				if (strncmp(l + 20, "EPERM\n", 6))
					fail_msg("%s: a denied connect got %.*s", when,
						 (int)strcspn(l + 20, "\n"), l + 20);
				denied++;
			} else if (!strncmp(l, "tcp 127.0.0.1:18191 ", 20)) {
				if (strncmp(l + 20, "ECONNREFUSED\n", 13))
					fail_msg("%s: the allowed twin got %.*s", when,
						 (int)strcspn(l + 20, "\n"), l + 20);
				allowed++;
			}
		}
	}
	free(text);
	if (denied < 2 || allowed < 2)
		fail_msg("%s: %d denied, %d allowed attempts in %d ms", when, denied, allowed,
			 WITHIN_MS);
}

static void kill_command(const struct sbx *s)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.kill", s->cgroup);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "1", 1), 1);
	close(fd);
}

static bool wait_for(bool (*cond)(const void *), const void *arg)
{
	uint64_t t0;

	for (t0 = h_now_ms(); h_now_ms() - t0 < WITHIN_MS; h_sleep_ms(20))
		if (cond(arg))
			return true;
	return cond(arg);
}

static bool sbx_gone(const void *s)
{
	return gone(s);
}

static bool set_unpinned(const void *set)
{
	struct stat st;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", RF_PIN_DIR, (const char *)set);
	return stat(path, &st) != 0;
}

static void close_proc(struct h_proc *p)
{
	close(p->out_fd);
	close(p->err_fd);
}

static void upgrade_under_live_sandboxes(void **state)
{
	const char *net[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181",
			      "tcp", "127.0.0.1", "18191", NULL };
	struct sbx a1, a2, a3, a4, b1;
	char *out = NULL, *err = NULL;
	int i, rc;

	(void)state;
	/* ---- build A: four sandboxes, one kept running past its supervisor */
	start_loop(&a1, UPG_POLICY("upg-a1"), "upg-a1", false, set_a);
	start_loop(&a2, UPG_POLICY("upg-a2"), "upg-a2", false, set_a);
	start_loop(&a3, UPG_POLICY("upg-a3"), "upg-a3", false, set_a);
	start_loop(&a4, UPG_POLICY("upg-a4"), "upg-a4", true, set_a);
	assert_true(set_pinned(set_a));
	still_enforced(&a1, "build A's sandbox before the upgrade");

	/* ---- the upgrade: B's binary at A's path (a new inode) ---- */
	h_copy_binary(bin_b, bin);
	/* the old supervisors are killed: their sandboxes end */
	assert_int_equal(kill(a1.p.pid, SIGKILL), 0);
	assert_int_equal(kill(a2.p.pid, SIGKILL), 0);
	assert_int_equal(waitpid(a1.p.pid, NULL, 0), a1.p.pid);
	assert_int_equal(waitpid(a2.p.pid, NULL, 0), a2.p.pid);
	assert_true(wait_for(sbx_gone, &a1));
	assert_true(wait_for(sbx_gone, &a2));
	/* two of A's sandboxes are live: A's set stays */
	assert_true(set_pinned(set_a));

	/* ---- B's runs start beside them, enforced by B's set ---- */
	setenv("RINGFENCE", bin, 1);
	for (i = 0; i < 2; i++) {
		char *policy = h_tempfile("policy", UPG_POLICY("upg-b"));
		struct h_proc p = h_spawn(policy, NULL, NULL, net);

		rc = h_wait(p, &out, &err);
		if (rc)
			fail_msg("build B's run beside A's sandboxes: exit %d: %s", rc, err);
		assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
		assert_string_equal(h_result(out, "tcp 127.0.0.1:18191"), "ECONNREFUSED");
		free(out);
		free(err);
		unlink(policy);
		free(policy);
	}
	unsetenv("RINGFENCE");
	assert_true(set_pinned(set_b));
	assert_true(set_pinned(set_a));
	start_loop(&b1, UPG_POLICY("upg-b1"), "upg-b1", false, set_b);
	/* both builds' programs are attached to the ringfence cgroup now:
	 * each judges its own sandboxes, no other's */
	still_enforced(&a3, "build A's sandbox beside build B's set");
	still_enforced(&b1, "build B's sandbox beside build A's set");

	/* ---- A's sandboxes end; the set goes with the last one ---- */
	kill_command(&a3);  /* its supervisor exits as after any run */
	assert_int_equal(h_wait(a3.p, NULL, NULL), 128 + SIGKILL);
	assert_true(wait_for(sbx_gone, &a3));
	assert_true(set_pinned(set_a));  /* a4 lives on */
	assert_int_equal(kill(a4.p.pid, SIGKILL), 0);
	assert_int_equal(waitpid(a4.p.pid, NULL, 0), a4.p.pid);
	close_proc(&a4.p);
	/* kept running: still confined, by A's set, which stays for it */
	still_enforced(&a4, "build A's kept sandbox, its supervisor gone");
	assert_true(set_pinned(set_a));
	kill_command(&a4);  /* its reaper cleans up and unloads A's set */
	assert_true(wait_for(sbx_gone, &a4));
	if (!wait_for(set_unpinned, set_a))
		fail_msg("build A's set %s/%s stayed after its last sandbox ended", RF_PIN_DIR,
			 set_a);
	assert_true(set_pinned(set_b));
	still_enforced(&b1, "build B's sandbox after A's set went");

	kill_command(&b1);
	assert_int_equal(h_wait(b1.p, NULL, NULL), 128 + SIGKILL);
	close_proc(&a1.p);
	close_proc(&a2.p);
	/* nothing left: no cgroup, no registry file */
	assert_int_equal(h_count_cgroups("upg-"), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "upg-"), 0);
	/* B's set is this test's own: unloaded, the host's build's stays */
	assert_int_equal(h_unpin_set(set_b), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(upgrade_under_live_sandboxes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
