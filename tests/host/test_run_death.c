/*
 * Host tests: a sandbox dies with its supervisor, every time (issue 24).
 * `ringfence run -- sleep` is SIGKILLed at random instants while its
 * command runs, hundreds of times: with the binary it ran from left in
 * place or replaced on disk first (a package upgrade, a rebuild), and with
 * the dead supervisor reaped by its parent at once or left a zombie for a
 * while (a shell busy with something else). Half the replacements put
 * another build there (upgrade.h), in runs of eight kills: the next runs
 * load its pinned set beside the old one, which goes with its last
 * sandbox. Each time the command must be gone within a few seconds, its
 * cgroup removed, nothing left for gc; at the end no set but the host
 * build's and the other build's (removed here) is pinned.
 * RF_DEATH_KILLS sets the number of kills (default 200).
 */
#include "harness.h"
#include "leaks.h"
#include "upgrade.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>

#include "paths.h"

#define DEATH_POLICY                                                           \
	"{\"version\":1,\"id\":\"death\",\"files\":\"unrestricted\","          \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18191\"]}}"

#define GONE_WITHIN_MS 5000

static bool cgroup_gone(const char *path)
{
	struct stat st;

	return stat(path, &st) != 0;
}

static void reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	/* Orphans (reapers of killed supervisors) come back here. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	return 0;
}

struct tally {
	int kills, survived, zombie_kept, replaced, other_build;
	int in_b;               /* sandboxes the other build's set enforced */
};

/* One run of `sleep` killed once its command runs: whether it died. */
static bool one_kill(const char *policy, const char *replace, bool keep_zombie, const char *bin,
		     const char *orig, const char *set_b, int *in_b)
{
	const char *argv[] = { "/bin/sleep", "300", NULL };
	char cgpath[4096];
	struct h_proc p;
	json_t *reg;
	pid_t child;
	uint64_t t0;
	bool ok;

	setenv("RINGFENCE", bin, 1);
	p = h_spawn(policy, NULL, NULL, argv);
	setenv("RINGFENCE", orig, 1);
	reg = h_wait_registered("death-");
	child = (pid_t)json_integer_value(json_object_get(reg, "pid"));
	snprintf(cgpath, sizeof(cgpath), "%s",
		 json_string_value(json_object_get(reg, "cgroup_path")));
	*in_b += !strcmp(json_string_value(json_object_get(reg, "pin_set")) ?: "", set_b);
	json_decref(reg);
	/* a random instant of the command's life, from its first steps */
	usleep((useconds_t)(rand() % 40000));
	if (replace)
		h_copy_binary(replace, bin);
	assert_int_equal(kill(p.pid, SIGKILL), 0);
	if (!keep_zombie)
		assert_int_equal(waitpid(p.pid, NULL, 0), p.pid);
	for (t0 = h_now_ms(); h_now_ms() - t0 < GONE_WITHIN_MS; h_sleep_ms(10))
		if (h_dead(child) && cgroup_gone(cgpath))
			break;
	ok = h_dead(child) && cgroup_gone(cgpath);
	if (!ok)
		print_message("kill %s%s: command %d %s, cgroup %s after %d ms\n",
			      replace ? "(binary replaced) " : "",
			      keep_zombie ? "(supervisor left a zombie)" : "(reaped at once)",
			      (int)child, h_dead(child) ? "dead" : "RUNNING",
			      cgroup_gone(cgpath) ? "gone" : "LEFT", GONE_WITHIN_MS);
	if (keep_zombie)
		assert_int_equal(waitpid(p.pid, NULL, 0), p.pid);
	close(p.out_fd);
	close(p.err_fd);
	reap_orphans();
	return ok;
}

static void supervisor_kills_end_the_sandbox_every_time(void **state)
{
	char *policy = h_tempfile("policy", DEATH_POLICY);
	char dir[] = "/tmp/rf-death-XXXXXX", bin[600], orig[600], other[600];
	char set_a[RF_PIN_SET_LEN], set_b[RF_PIN_SET_LEN], path[256];
	int n = atoi(h_env("RF_DEATH_KILLS", "200")), i;
	struct stat st;
	uint64_t t0;
	struct tally t = { 0 };
	FILE *f;

	(void)state;
	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	snprintf(orig, sizeof(orig), "%s", h_ringfence());
	assert_non_null(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/ringfence", dir);
	snprintf(other, sizeof(other), "%s/ringfence.other", dir);
	h_copy_binary(orig, bin);
	h_other_build(orig, other, set_a, set_b);
	for (i = 0; i < n; i++) {
		bool zombie = i & 2, to_other = (i / 8) & 1;
		const char *replace = !(i & 1) ? NULL : to_other ? other : orig;

		t.kills++;
		t.replaced += replace != NULL;
		t.other_build += replace && to_other;
		t.zombie_kept += zombie;
		t.survived += !one_kill(policy, replace, zombie, bin, orig, set_b, &t.in_b);
	}
	print_message("%d kills (%d with the binary replaced, %d of them by another build, "
		      "%d sandboxes of it, %d leaving a zombie): %d sandboxes outlived their "
		      "supervisor by %d ms\n", t.kills, t.replaced, t.other_build, t.in_b,
		      t.zombie_kept, t.survived, GONE_WITHIN_MS);
	/* whatever a failure left, gone before the next test */
	snprintf(bin, sizeof(bin), "%s gc -q >/dev/null 2>&1", h_sh(orig));
	f = popen(bin, "r");
	if (f)
		pclose(f);
	assert_int_equal(t.survived, 0);
	/* the other build ran: its sandboxes in its own set, A's in A's */
	if (n >= 16)
		assert_true(t.in_b > 0 && t.in_b < n);
	assert_int_equal(h_count_cgroups("death-"), 0);
	assert_int_equal(h_count_prefixed(RF_REGISTRY_DIR, "death-"), 0);
	/* the builds took turns: only the last one's set is left (no sandbox
	 * of the other keeps its own; the last reaper may still be at it) */
	for (t0 = h_now_ms(), i = 2; n >= 16 && i > 1 && h_now_ms() - t0 < GONE_WITHIN_MS;
	     h_sleep_ms(20)) {
		snprintf(path, sizeof(path), "%s/%s", RF_PIN_DIR, set_a);
		i = stat(path, &st) == 0;
		snprintf(path, sizeof(path), "%s/%s", RF_PIN_DIR, set_b);
		i += stat(path, &st) == 0;
	}
	if (n >= 16 && i > 1)
		fail_msg("both builds' sets (%s, %s) stayed pinned", set_a, set_b);
	assert_int_equal(h_unpin_set(set_b), 0);
	snprintf(bin, sizeof(bin), "%s/ringfence", dir);
	unlink(bin);
	unlink(other);
	rmdir(dir);
	unlink(policy);
	free(policy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(supervisor_kills_end_the_sandbox_every_time),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
