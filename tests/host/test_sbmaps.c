/*
 * Host tests of the per-sandbox policy maps (issue 15): each sandbox's
 * rules are in inner maps of its own, so two live sandboxes with
 * overlapping and disjoint rules never see each other's grants; a policy
 * too large for a sandbox's maps is refused (by check and run, the same
 * exit) while a live neighbour keeps its rules; a policy of 100,000 rules
 * fits; and after the runs no map holds a key of theirs (tests/host/leaks.h).
 */
#include "harness.h"

#include <sys/stat.h>
#include <bpf/bpf.h>

#include "leaks.h"
#include "paths.h"
#include "rf_abi.h"

#define ISO_POLICY(id, p1, host2, p2, p3, uname)                                       \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                   \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:" p1 "\","      \
	"\"" host2 ":" p2 "\",\"127.1.0.0/16:" p3 "\"],\"unix\":[\"@" uname "\"]}}"

/* A: 127.0.0.1:18401, 127.0.0.2:18402 (only A), 127.1/16:18403, @rf-iso-a.
 * B: 127.0.0.1:18411, 127.0.0.3:18412 (only B), 127.1/16:18413, @rf-iso-b.
 * The same address and the same CIDR in both, with other ports. */
#define POLICY_A ISO_POLICY("iso-a", "18401", "127.0.0.2", "18402", "18403", "rf-iso-a")
#define POLICY_B ISO_POLICY("iso-b", "18411", "127.0.0.3", "18412", "18413", "rf-iso-b")

/* Every probe of the isolation test, each sandbox runs all of them. */
static const char *const probes[][3] = {
	{ "tcp", "127.0.0.1", "18401" }, { "tcp", "127.0.0.2", "18402" },
	{ "tcp", "127.1.2.3", "18403" }, { "unix", "@rf-iso-a", NULL },
	{ "tcp", "127.0.0.1", "18411" }, { "tcp", "127.0.0.3", "18412" },
	{ "tcp", "127.1.2.3", "18413" }, { "unix", "@rf-iso-b", NULL },
};
#define N_PROBES (sizeof(probes) / sizeof(probes[0]))

static char dir[] = "/tmp/rf-test-sbmaps-XXXXXX";

/* sh -c: mark ready, wait until the other sandbox is ready too (both are
 * live, both sets of maps installed), then run rf-net over every probe. */
static struct h_proc spawn_iso(const char *policy, const char *me, const char *other,
			       char **ret_policy_path)
{
	static char script[2048];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	size_t len;

	len = (size_t)snprintf(script, sizeof(script),
			       "touch %s/%s; i=0; while [ ! -e %s/%s ] && [ $i -lt 1000 ]; do "
			       "sleep 0.01; i=$((i+1)); done; exec %s", dir, me, dir, other,
			       h_tool("rf-net"));
	for (size_t i = 0; i < N_PROBES; i++)
		len += (size_t)snprintf(script + len, sizeof(script) - len, " %s %s %s",
					probes[i][0], probes[i][1],
					probes[i][2] ? probes[i][2] : "");
	*ret_policy_path = h_tempfile("policy", policy);
	return h_spawn(*ret_policy_path, NULL, NULL, argv);
}

/* Allowed here: an attempt that reached the network (nothing listens on
 * these ports and names); denied: EPERM from the sandbox's own maps. */
static void expect_probes(const char *out, int first_own)
{
	char target[64];

	for (size_t i = 0; i < N_PROBES; i++) {
		bool own = (int)i >= first_own && (int)i < first_own + 4;
		const char *r;

		snprintf(target, sizeof(target), "%s %s%s%s", probes[i][0], probes[i][1],
			 probes[i][2] ? ":" : "", probes[i][2] ? probes[i][2] : "");
		r = h_result(out, target);
		if (own ? strcmp(r, "ECONNREFUSED") : strcmp(r, "EPERM"))
			fail_msg("%s: %s in the sandbox %s it (output:\n%s)", target, r,
				 own ? "whose policy allows" : "whose policy does not allow", out);
	}
}

/* The cgroup ids ringfence gave to sandboxes since before (leaks.h). */
static void assert_no_new_ids(const struct h_idset *before)
{
	struct h_idset *after = calloc(1, sizeof(*after));

	assert_non_null(after);
	h_map_ids(after);
	for (size_t k = 0; k < after->n; k++)
		if (!h_idset_has(before, after->id[k]))
			fail_msg("cgroup id %llu still has map keys",
				 (unsigned long long)after->id[k]);
	free(after);
}

static void two_sandboxes_see_only_their_own_rules(void **state)
{
	struct h_idset *before = calloc(1, sizeof(*before));
	char *pa, *pb, *out_a, *out_b;
	struct h_proc a, b;

	(void)state;
	assert_non_null(before);
	h_map_ids(before);
	a = spawn_iso(POLICY_A, "a", "b", &pa);
	b = spawn_iso(POLICY_B, "b", "a", &pb);
	assert_int_equal(h_wait(a, &out_a, NULL), 0);
	assert_int_equal(h_wait(b, &out_b, NULL), 0);
	expect_probes(out_a, 0);
	expect_probes(out_b, 4);
	assert_no_new_ids(before);
	unlink(pa);
	unlink(pb);
	free(pa);
	free(pb);
	free(out_a);
	free(out_b);
	free(before);
}

/* A policy of n unix rules (plus one connect rule) as JSON. */
static char *unix_policy(const char *id, int n)
{
	size_t cap = (size_t)n * 24 + 512, len = 0;
	char *json = malloc(cap);

	assert_non_null(json);
	len += (size_t)snprintf(json, cap,
				"{\"version\":1,\"id\":\"%s\",\"files\":\"unrestricted\","
				"\"exec\":\"unrestricted\",\"network\":{\"connect\":"
				"[\"127.0.0.1:18421\"],\"unix\":[", id);
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(json + len, cap - len, "%s\"@rf-big-%07d\"",
					i ? "," : "", i);
	len += (size_t)snprintf(json + len, cap - len, "]}}");
	assert_true(len < cap - 1);
	return json;
}

static int check_exit(const char *policy_path, char **ret_err)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "%s check --policy %s >/dev/null 2>%s/check.err",
		 h_ringfence(), policy_path, dir);
	st = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/check.err", dir);
	*ret_err = h_read_all(open(cmd, O_RDONLY));
	return WEXITSTATUS(st);
}

/* One unix key more than a sandbox's map holds: check and run refuse it
 * (126) naming the map and its capacity; a neighbour live meanwhile keeps
 * its rules (allowed and denied alike), and a new one starts after it. */
static void too_large_refused_neighbours_unaffected(void **state)
{
	static char script[1024];
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	const char *argv2[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18401", "tcp",
				"127.0.0.1", "18402", NULL };
	char *big = unix_policy("iso-big", RF_SB_MAX_KEYS + 1), *bigpath, *pa, *out, *err, *cerr;
	struct h_idset *before = calloc(1, sizeof(*before));
	struct h_proc n;
	char go[600];

	(void)state;
	assert_non_null(before);
	h_map_ids(before);
	snprintf(go, sizeof(go), "%s/go", dir);
	unlink(go);
	snprintf(script, sizeof(script),
		 "touch %s/n; i=0; while [ ! -e %s ] && [ $i -lt 3000 ]; do sleep 0.01; "
		 "i=$((i+1)); done; exec %s tcp 127.0.0.1 18401 tcp 127.0.0.1 18411 unix @rf-iso-a",
		 dir, go, h_tool("rf-net"));
	pa = h_tempfile("policy", POLICY_A);
	n = h_spawn(pa, NULL, NULL, argv);

	bigpath = h_tempfile("policy", big);
	assert_int_equal(check_exit(bigpath, &cerr), 126);
	assert_non_null(strstr(cerr, "262145 unix keys"));
	assert_non_null(strstr(cerr, "holds at most 262144"));
	assert_int_equal(h_run(big, NULL, argv2, &out, &err), 126);
	print_message("run: %s", err);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "262145 unix keys"));
	assert_non_null(strstr(err, "holds at most 262144"));
	free(out);
	free(err);

	/* a new neighbour starts and is judged by its own rules */
	assert_int_equal(h_run(POLICY_A, NULL, argv2, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18401"), "ECONNREFUSED");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18402"), "EPERM");
	free(out);

	/* the one live all along still has its rules */
	assert_int_equal(close(open(go, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(h_wait(n, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18401"), "ECONNREFUSED");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18411"), "EPERM");
	assert_string_equal(h_result(out, "unix @rf-iso-a"), "ECONNREFUSED");
	assert_no_new_ids(before);
	unlink(bigpath);
	unlink(pa);
	free(out);
	free(cerr);
	free(bigpath);
	free(pa);
	free(big);
	free(before);
}

/* 100,000 connect rules (host rules 10.x.y.z:443, then the one the test
 * uses) fit one sandbox's maps: allowed and denied as written. */
static void hundred_thousand_rules_fit(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18431", "tcp", "127.0.0.1",
			       "18432", NULL };
	size_t cap = 100000 * 24 + 512, len = 0;
	char *json = malloc(cap), *out;
	struct h_idset *before = calloc(1, sizeof(*before));

	(void)state;
	assert_non_null(json);
	assert_non_null(before);
	h_map_ids(before);
	len += (size_t)snprintf(json, cap, "{\"version\":1,\"id\":\"iso-100k\","
				"\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
				"\"network\":{\"connect\":[");
	for (int i = 0; i < 99999; i++)
		len += (size_t)snprintf(json + len, cap - len, "\"10.%d.%d.%d:443\",",
					(i >> 16) & 255, (i >> 8) & 255, i & 255);
	len += (size_t)snprintf(json + len, cap - len, "\"127.0.0.1:18431\"]}}");
	assert_true(len < cap - 1);
	assert_int_equal(h_run(json, NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18431"), "ECONNREFUSED");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18432"), "EPERM");
	assert_no_new_ids(before);
	free(out);
	free(json);
	free(before);
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_sandboxes_see_only_their_own_rules),
		cmocka_unit_test(too_large_refused_neighbours_unaffected),
		cmocka_unit_test(hundred_thousand_rules_fit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
