/*
 * Host tests of the per-sandbox policy maps (issue 15): each sandbox's
 * rules are in inner maps of its own, so two live sandboxes with
 * overlapping and disjoint rules never see each other's grants; a policy
 * too large for a sandbox's maps is refused (by check and run, the same
 * exit) while a live neighbour keeps its rules; a policy of 100,000 rules
 * fits; a grant made while a sandbox runs (sbmaps__grant) opens exactly
 * its host and port until revoked; and after the runs no map holds a key
 * of theirs (tests/host/leaks.h).
 */
#include "harness.h"

#include <arpa/inet.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "backends/enforcer.h"
#include "leaks.h"
#include "paths.h"
#include "rf_abi.h"
#include "backends/sbmaps.h"

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
			       h_sh(h_tool("rf-net")));
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
		 h_sh(h_ringfence()), policy_path, dir);
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
		 dir, go, h_sh(h_tool("rf-net")));
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

/* Wait (up to 10 s) for a file the sandbox creates. */
static void wait_file(const char *path)
{
	struct stat st;

	for (int i = 0; i < 1000 && stat(path, &st); i++)
		usleep(10000);
	assert_int_equal(stat(path, &st), 0);
}

/* The cgroup id of the live sandbox writing trace tp (sandbox.configure). */
static uint64_t live_cgid(const char *tp)
{
	json_t *tr = h_trace(tp), *cfg = h_event(tr, "sandbox.configure", 0);
	uint64_t id;

	assert_non_null(cfg);
	id = (uint64_t)json_integer_value(json_object_get(json_object_get(cfg, "cgroup"), "id"));
	json_decref(tr);
	assert_true(id != 0);
	return id;
}

static struct rf_net_entry host4(const char *addr, uint16_t port)
{
	struct rf_net_entry e = { .family = AF_INET, .prefix_len = 32 };

	assert_int_equal(inet_pton(AF_INET, addr, e.addr), 1);
	e.ports.flags = RF_PORTS_EXACT_HOST;
	e.ports.n = 1;
	e.ports.r[0].lo = e.ports.r[0].hi = port;
	return e;
}

/* A grant to a live sandbox whose policy allows 127.1.0.0/16:18441: the
 * granted host and port open (the host keeps the CIDR's port), a host not
 * granted stays shut; after the revoke the granted port is shut again and
 * the CIDR's still open. */
static void grant_and_revoke_while_running(void **state)
{
	static char script[2048];
	static const char policy[] =
		"{\"version\":1,\"id\":\"iso-grant\",\"files\":\"unrestricted\","
		"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.1.0.0/16:18441\"]}}";
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	char *pp = h_tempfile("policy", policy), *tp = h_tempfile("trace", NULL), *out, *two;
	char ready[600], go1[600], done1[600], go2[600], net[1100];
	struct rf_net_entry e = host4("127.1.0.5", 18442);
	struct rf_enforcer *enf = NULL;
	struct h_proc p;
	uint64_t cgid;

	(void)state;
	snprintf(net, sizeof(net), "%s", h_sh(h_tool("rf-net")));
	snprintf(ready, sizeof(ready), "%s/g-ready", dir);
	snprintf(go1, sizeof(go1), "%s/g-go1", dir);
	snprintf(done1, sizeof(done1), "%s/g-done1", dir);
	snprintf(go2, sizeof(go2), "%s/g-go2", dir);
	snprintf(script, sizeof(script),
		 "w() { i=0; while [ ! -e $1 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done; }; "
		 "P='tcp 127.1.0.5 18442 tcp 127.1.0.5 18441 tcp 127.1.0.6 18442'; "
		 "touch %s; w %s; %s $P; touch %s; w %s; echo phase2; exec %s $P",
		 ready, go1, net, done1, go2, net);
	p = h_spawn(pp, tp, NULL, argv);
	wait_file(ready);
	cgid = live_cgid(tp);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	assert_int_equal(sbmaps__grant(enf, cgid, &e), 0);
	assert_int_equal(close(open(go1, O_CREAT | O_WRONLY, 0600)), 0);
	wait_file(done1);
	assert_int_equal(sbmaps__revoke(enf, cgid, &e), 0);
	assert_int_equal(sbmaps__revoke(enf, cgid, &e), 0);  /* not there: no error */
	assert_int_equal(close(open(go2, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(h_wait(p, &out, NULL), 0);
	enforcer__close(enf);

	two = strstr(out, "phase2\n");
	assert_non_null(two);
	*two = 0;
	two += strlen("phase2\n");
	assert_string_equal(h_result(out, "tcp 127.1.0.5:18442"), "ECONNREFUSED");
	assert_string_equal(h_result(out, "tcp 127.1.0.5:18441"), "ECONNREFUSED");
	assert_string_equal(h_result(out, "tcp 127.1.0.6:18442"), "EPERM");
	assert_string_equal(h_result(two, "tcp 127.1.0.5:18442"), "EPERM");
	assert_string_equal(h_result(two, "tcp 127.1.0.5:18441"), "ECONNREFUSED");
	assert_string_equal(h_result(two, "tcp 127.1.0.6:18442"), "EPERM");
	unlink(pp);
	unlink(tp);
	free(pp);
	free(tp);
	free(out);
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
		cmocka_unit_test(grant_and_revoke_while_running),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
