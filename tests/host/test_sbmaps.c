/*
 * Host tests of the per-sandbox policy maps (issue 15): each sandbox's
 * rules are in inner maps of its own, so two live sandboxes with
 * overlapping and disjoint rules never see each other's grants; a policy
 * too large for a sandbox's maps is refused (by check and run, the same
 * exit) while a live neighbour keeps its rules; a policy of 100,000 rules
 * fits; a grant made while a sandbox runs (sbmaps__grant) opens exactly
 * its host and port until revoked; the pool is grown in the background
 * when runs drain it, so none grows it on its path; and after the runs no
 * map holds a key of theirs (tests/host/leaks.h).
 */
#include "harness.h"

#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/bpf.h>

#include "backends/enforcer.h"
#include "cgroup.h"
#include "leaks.h"
#include "paths.h"
#include "registry.h"
#include "rf_abi.h"
#include "runlock.h"
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

/* The cgroup id of the live sandbox writing trace tp (sandbox.configure,
 * written once the launch returned: the command may be faster, so up to
 * 10 s for it). */
static uint64_t live_cgid(const char *tp)
{
	json_t *tr = h_trace(tp), *cfg = h_event(tr, "sandbox.configure", 0);
	uint64_t id;

	for (int i = 0; i < 1000 && !cfg; i++) {
		json_decref(tr);
		usleep(10000);
		tr = h_trace(tp);
		cfg = h_event(tr, "sandbox.configure", 0);
	}
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


/* ---- Slots handed on at once (issue 25) ---- */

#define REUSE_ROUNDS 100
#define REUSE_PORT 18451        /* sandbox i allows REUSE_PORT + i % 2 */
#define REUSE_HITS 40           /* connects each hammer makes per phase, at least */

enum { PH_LIVE = 0, PH_GAP = 1, PH_STALE = 2, PH_STOP = 3 };

/* What one hammer saw, in memory shared with the test. */
struct hammer {
	volatile int phase;
	volatile long n[4];         /* connects made, by the phase they were made in */
	volatile long own_allowed;  /* PH_LIVE: its own port got through (as it must) */
	volatile long bad;          /* a decision a policy of another sandbox made */
	char what[160];             /* the first of them */
};

/* A connect to 127.0.0.1:port or 127.2.0.1:port: true when the sandbox's
 * programs let it through (anything but EPERM: nothing listens there). */
static bool reuse_try(const char *addr, int port)
{
	return h_connect_tcp4(addr, port) != EPERM;
}

static void hammer_bad(struct hammer *h, const char *what, const char *addr, int port)
{
	if (!h->bad++)
		snprintf(h->what, sizeof(h->what), "%s %s:%d allowed", what, addr, port);
}

/* Live: its own port (host and CIDR rule) open, the other sandbox's shut.
 * Stale (its slot handed on while its rf_sandboxes entry and a stale
 * rf_sb_slots entry stay, and a key of its own put back into the slot):
 * everything shut, its own old rule and the slot's new owner's alike. */
static void hammer_loop(struct hammer *h, int own, int other)
{
	static const char *const addrs[] = { "127.0.0.1", "127.2.0.1" };

	while (h->phase != PH_STOP) {
		int ph = h->phase;

		for (int a = 0; a < 2; a++) {
			bool o = reuse_try(addrs[a], own), x = reuse_try(addrs[a], other);

			if (h->phase != ph)
				break;  /* the answers straddle a change: not counted */
			if (ph == PH_LIVE && o)
				h->own_allowed++;
			if (ph == PH_LIVE && x)
				hammer_bad(h, "live: the other sandbox's rule:", addrs[a], other);
			if (ph == PH_STALE && o)
				hammer_bad(h, "stale: its old rule:", addrs[a], own);
			if (ph == PH_STALE && x)
				hammer_bad(h, "stale: the slot's new owner's rule:", addrs[a], other);
			h->n[ph]++;
		}
	}
}

static pid_t hammer_start(struct hammer *h, const char *cg, int own, int other)
{
	char procs[700], pid[16];
	pid_t p;
	int fd;

	p = fork();
	assert_true(p >= 0);
	if (p)
		return p;
	/* gone with the test, whatever assert ends it (and with it the
	 * host lock's fd it inherited) */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(2);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		_exit(2);
	close(fd);
	hammer_loop(h, own, other);
	_exit(0);
}

static void hammer_wait_hits(struct hammer *h, int phase)
{
	long start = h->n[phase];

	for (int i = 0; i < 20000 && h->n[phase] - start < REUSE_HITS; i++)
		usleep(100);
	assert_true(h->n[phase] - start >= REUSE_HITS);
}

static struct rf_net_entry reuse_cidr(int port)
{
	struct rf_net_entry e = { .family = AF_INET, .prefix_len = 16 };

	assert_int_equal(inet_pton(AF_INET, "127.2.0.0", e.addr), 1);
	e.ports.n = 1;
	e.ports.r[0].lo = e.ports.r[0].hi = (uint16_t)port;
	return e;
}

/* The sandbox's slot, as a program that found it before the slot went
 * back would still see it: rf_sandboxes and rf_sb_slots entries back, and
 * a key of its own (its old host rule) in the slot's host4 map. */
static void make_stale(const struct rf_enforcer *enf, uint64_t cgid, uint32_t slot, int port)
{
	struct rf_sandbox sb = { .sample_limit = RF_SAMPLE_LIMIT_DEFAULT };
	struct rf_sb_slot ref = { .slot = slot };
	struct rf_net_entry e = host4("127.0.0.1", (uint16_t)port);
	struct rf_net4_key k = { .prefixlen = 64 + 32, .cgroup_id = cgid };
	__u32 id;
	int fd;

	assert_int_equal(bpf_map_update_elem(enf->map_fd[RF_PIN_SANDBOXES], &cgid, &sb, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(enf->map_fd[RF_PIN_SB_SLOTS], &cgid, &ref, BPF_ANY), 0);
	memcpy(k.addr, e.addr, 4);
	assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_HOST4], &slot, &id), 0);
	fd = bpf_map_get_fd_by_id(id);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_update_elem(fd, &k, &e.ports, BPF_ANY), 0);
	close(fd);
}

static void drop_stale(const struct rf_enforcer *enf, uint64_t cgid, uint32_t slot)
{
	struct rf_net4_key k = { .prefixlen = 64 + 32, .cgroup_id = cgid };
	__u32 id;
	int fd;

	bpf_map_delete_elem(enf->map_fd[RF_PIN_SANDBOXES], &cgid);
	bpf_map_delete_elem(enf->map_fd[RF_PIN_SB_SLOTS], &cgid);
	assert_int_equal(inet_pton(AF_INET, "127.0.0.1", k.addr), 1);
	assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_HOST4], &slot, &id), 0);
	fd = bpf_map_get_fd_by_id(id);
	assert_true(fd >= 0);
	bpf_map_delete_elem(fd, &k);
	close(fd);
}

struct reuse_sb {
	char cg[600];
	uint64_t cgid;
	uint32_t slot;
	pid_t pid;
	struct hammer *h;
};

static void reuse_install(const struct rf_enforcer *enf, struct reuse_sb *s, int i,
			  struct hammer *h)
{
	struct rf_net_entry e[2] = { host4("127.0.0.1", (uint16_t)(REUSE_PORT + i % 2)),
				     reuse_cidr(REUSE_PORT + i % 2) };
	struct rf_policy pol = { 0 };
	struct sbmaps_note note;
	const char *map = NULL;

	snprintf(s->cg, sizeof(s->cg), "%s/rf-test-reuse-%d", h_cg_parent(), i);
	rmdir(s->cg);
	assert_int_equal(mkdir(s->cg, 0755), 0);
	assert_int_equal(cgroup__id_of(s->cg, &s->cgid), 0);
	assert_int_equal(sbmaps__install(enf, s->cgid, 0, e, 2, &pol, &map, &note), 0);
	assert_int_equal(note.outer_writes, 0);  /* the pool had a slot: no outer write */
	assert_int_equal(sbmaps__slot_of(enf, s->cgid, &s->slot), 0);
	memset(h, 0, sizeof(*h));
	s->h = h;
	s->pid = hammer_start(h, s->cg, REUSE_PORT + i % 2, REUSE_PORT + (i + 1) % 2);
}

static void reuse_end(const struct rf_enforcer *enf, struct reuse_sb *s)
{
	int st;

	s->h->phase = PH_STOP;
	assert_int_equal(waitpid(s->pid, &st, 0), s->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	drop_stale(enf, s->cgid, s->slot);
	assert_int_equal(rmdir(s->cg), 0);
	if (s->h->bad)
		fail_msg("sandbox %s: %ld decision(s) by another sandbox's rules, first: %s", s->cg,
			 s->h->bad, s->h->what);
	assert_true(s->h->own_allowed > 0);
}

/*
 * A slot is handed to the next sandbox as soon as the last one gave it
 * back (no grace period), in a tight loop of REUSE_ROUNDS sandboxes whose
 * rules alternate between two ports. Each sandbox's process connects
 * without pause while the next one starts: while live it reaches its own
 * port only; once its slot is handed on, it is kept a sandbox with a stale
 * rf_sb_slots entry still naming the slot and one of its old keys put back
 * into the slot (the worst a program that raced with the hand-over could
 * see), and then nothing may get through, neither by its old rule nor by
 * the new owner's; and the new owner never gets through by the old one's.
 */
static void slot_reuse_never_uses_a_previous_sandboxs_rules(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	struct hammer *hs = mmap(NULL, 2 * sizeof(*hs), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct h_idset *before = calloc(1, sizeof(*before));
	struct reuse_sb cur, prev;
	struct rf_enforcer *enf = NULL;
	int reused = 0;

	(void)state;
	assert_true(hs != MAP_FAILED);
	assert_non_null(before);
	/* the pinned set (and its pool) exist */
	assert_int_equal(h_run(ISO_POLICY("reuse", "18459", "127.0.0.9", "18459", "18459",
					  "rf-reuse"), NULL, argv, NULL, NULL), 0);
	h_map_ids(before);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	reuse_install(enf, &prev, 0, &hs[0]);
	hammer_wait_hits(prev.h, PH_LIVE);
	for (int i = 1; i <= REUSE_ROUNDS; i++) {
		prev.h->phase = PH_GAP;  /* not a sandbox for a moment: not counted */
		assert_int_equal(sbmaps__remove(enf, prev.cgid), 0);
		make_stale(enf, prev.cgid, prev.slot, REUSE_PORT + (i - 1) % 2);
		prev.h->phase = PH_STALE;
		reuse_install(enf, &cur, i, &hs[i % 2]);
		reused += cur.slot == prev.slot;
		hammer_wait_hits(cur.h, PH_LIVE);
		hammer_wait_hits(prev.h, PH_STALE);
		reuse_end(enf, &prev);
		prev = cur;
	}
	prev.h->phase = PH_GAP;
	assert_int_equal(sbmaps__remove(enf, prev.cgid), 0);
	prev.h->phase = PH_STOP;
	waitpid(prev.pid, NULL, 0);
	assert_int_equal(rmdir(prev.cg), 0);
	print_message("slot handed straight on in %d of %d rounds\n", reused, REUSE_ROUNDS);
	/* the test means something only when slots were reused */
	assert_true(reused >= REUSE_ROUNDS / 2);
	enforcer__close(enf);
	assert_no_new_ids(before);
	munmap(hs, 2 * sizeof(*hs));
	free(before);
}

/* Keys in slot i's inner maps, all kinds (rf_slot_maps names them). */
static long slot_keys(const struct rf_enforcer *enf, __u32 i)
{
	struct rf_slot_maps m;
	unsigned char key[sizeof(struct rf_sample_key) + sizeof(struct rf_path_key)];
	long n = 0;

	assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOT_MAPS], &i, &m), 0);
	for (size_t k = 0; k < RF_SB_KINDS_MAX; k++) {
		int fd = m.id[k] ? bpf_map_get_fd_by_id(m.id[k]) : -1;
		void *prev = NULL;

		if (!m.id[k])
			continue;
		assert_true(fd >= 0);
		while (!bpf_map_get_next_key(fd, prev, key)) {
			prev = key;
			n++;
		}
		close(fd);
	}
	return n;
}

/* The run's end empties its slot through the inner maps it opened at the
 * start (kept open, not looked up again): every key is gone, the slot is
 * free for the next sandbox. */
static void a_slot_given_back_is_empty(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	struct rf_net_entry e[2] = { host4("127.0.0.1", REUSE_PORT), reuse_cidr(REUSE_PORT) };
	struct rf_policy pol = { 0 };
	struct rf_enforcer *enf = NULL;
	struct sbmaps_note note;
	const char *map = NULL;
	struct rf_slot s;
	char cg[600];
	uint64_t cgid;
	uint32_t slot;

	(void)state;
	assert_int_equal(h_run(ISO_POLICY("empty", "18459", "127.0.0.9", "18459", "18459",
					  "rf-empty"), NULL, argv, NULL, NULL), 0);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	snprintf(cg, sizeof(cg), "%s/rf-test-empty", h_cg_parent());
	rmdir(cg);
	assert_int_equal(mkdir(cg, 0755), 0);
	assert_int_equal(cgroup__id_of(cg, &cgid), 0);
	assert_int_equal(sbmaps__install(enf, cgid, 0, e, 2, &pol, &map, &note), 0);
	assert_int_equal(sbmaps__slot_of(enf, cgid, &slot), 0);
	/* the host's entry and the CIDR's (and the CIDR's ports on the host) */
	assert_true(slot_keys(enf, slot) >= 2);
	assert_int_equal(sbmaps__remove(enf, cgid), 0);
	assert_int_equal(slot_keys(enf, slot), 0);
	assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOTS], &slot, &s), 0);
	assert_int_equal(s.state, RF_SLOT_FREE);
	assert_int_equal(s.cgid, 0);
	assert_int_equal(rmdir(cg), 0);
	enforcer__close(enf);
}

/* Every FREE slot of class 0 marked BUSY by worker (pid, start), as a
 * grower or the cleaner marks the slots it works on: their indices. */
static int mark_free_busy(const struct rf_enforcer *enf, __u32 pid, __u64 start, __u32 *ret)
{
	int lock = runlock__take("slots.lock", LOCK_EX), n = 0;

	assert_true(lock >= 0);
	for (__u32 i = 0; i < RF_MAX_SANDBOXES; i++) {
		struct rf_slot s;

		assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOTS], &i, &s), 0);
		if (s.state != RF_SLOT_FREE || s.class != 0)
			continue;
		s.state = RF_SLOT_BUSY;
		s.pid = pid;
		s.start = start;
		assert_int_equal(bpf_map_update_elem(enf->map_fd[RF_PIN_SLOTS], &i, &s, BPF_ANY), 0);
		ret[n++] = i;
	}
	close(lock);
	return n;
}

/* The slots mark_free_busy marked that are still that worker's: FREE. */
static void unmark_busy(const struct rf_enforcer *enf, __u32 pid, const __u32 *idx, int n)
{
	int lock = runlock__take("slots.lock", LOCK_EX);

	assert_true(lock >= 0);
	for (int k = 0; k < n; k++) {
		struct rf_slot s;

		assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOTS], &idx[k], &s), 0);
		if (s.state != RF_SLOT_BUSY || s.pid != pid)
			continue;
		s = (struct rf_slot){ .state = RF_SLOT_FREE, .class = 0 };
		assert_int_equal(bpf_map_update_elem(enf->map_fd[RF_PIN_SLOTS], &idx[k], &s,
						     BPF_ANY), 0);
	}
	close(lock);
}

static bool has_index(const __u32 *idx, int n, __u32 i)
{
	for (int k = 0; k < n; k++)
		if (idx[k] == i)
			return true;
	return false;
}

/* With no FREE slot of its class, a start takes a slot whose worker
 * (a grower, the cleaner) died BUSY, as a DIRTY one, emptied: it grows no
 * pool. Its twin: a slot whose worker is alive is left alone (the pool is
 * grown instead). Whether a worker is gone is asked outside slots.lock
 * (hundreds of starts queue for that lock while a pool grows). */
static void dead_workers_slots_taken_live_ones_left(void **state)
{
	struct rf_net_entry e[2] = { host4("127.0.0.1", REUSE_PORT), reuse_cidr(REUSE_PORT) };
	__u32 *idx = calloc(RF_MAX_SANDBOXES, sizeof(*idx)), me = (__u32)getpid(), slot, dead;
	struct rf_policy pol = { 0 };
	struct rf_enforcer *enf = NULL;
	struct sbmaps_note note;
	const char *map = NULL;
	char cg[600];
	uint64_t cgid;
	pid_t pid;
	int n;

	(void)state;
	assert_non_null(idx);
	assert_int_equal(h_run(ISO_POLICY("busy", "18457", "127.0.0.9", "18457", "18457",
					  "rf-busy"), NULL, (const char *[]){ "/bin/true", NULL },
			       NULL, NULL), 0);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	snprintf(cg, sizeof(cg), "%s/rf-test-busy", h_cg_parent());
	rmdir(cg);
	assert_int_equal(mkdir(cg, 0755), 0);
	assert_int_equal(cgroup__id_of(cg, &cgid), 0);

	/* a worker that is gone: a child reaped */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	dead = (__u32)pid;
	n = mark_free_busy(enf, dead, 12345, idx);
	assert_true(n >= 1);
	assert_int_equal(sbmaps__install(enf, cgid, 0, e, 2, &pol, &map, &note), 0);
	assert_int_equal(sbmaps__slot_of(enf, cgid, &slot), 0);
	print_message("%d slots BUSY by a dead worker: took slot %u, grew %u\n", n, slot,
		      note.grown);
	assert_true(has_index(idx, n, slot));
	assert_int_equal(note.grown, 0);
	assert_int_equal(sbmaps__remove(enf, cgid), 0);
	unmark_busy(enf, dead, idx, n);

	/* a worker that is alive: this process */
	n = mark_free_busy(enf, me, registry__proc_start((pid_t)me), idx);
	assert_true(n >= 1);
	assert_int_equal(sbmaps__install(enf, cgid, 0, e, 2, &pol, &map, &note), 0);
	assert_int_equal(sbmaps__slot_of(enf, cgid, &slot), 0);
	print_message("%d slots BUSY by a live worker: took slot %u, grew %u\n", n, slot,
		      note.grown);
	assert_false(has_index(idx, n, slot));
	assert_true(note.grown >= 1);
	assert_int_equal(sbmaps__remove(enf, cgid), 0);
	unmark_busy(enf, me, idx, n);

	assert_int_equal(rmdir(cg), 0);
	enforcer__close(enf);
	free(idx);
}

#define DRAIN_EXTRA 8

/* rf_slot_maps, which runs read instead of the outer maps (reading those
 * waits for a grace period on older kernels), names for every slot with
 * inner maps the very maps its outer maps hold. */
static void slot_ids_match(const struct rf_enforcer *enf)
{
	static const enum rf_pin_map outers[] = { RF_PIN_NET4, RF_PIN_NET6, RF_PIN_HOST4,
						  RF_PIN_HOST6, RF_PIN_UNIX, RF_PIN_PATHS,
						  RF_PIN_SAMPLES };
	int checked = 0;

	for (__u32 i = 0; i < RF_MAX_SANDBOXES; i++) {
		struct rf_slot s;
		struct rf_slot_maps m;

		assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOTS], &i, &s), 0);
		if (s.state != RF_SLOT_FREE && s.state != RF_SLOT_OWNED)
			continue;
		assert_int_equal(bpf_map_lookup_elem(enf->map_fd[RF_PIN_SLOT_MAPS], &i, &m), 0);
		for (size_t k = 0; k < sizeof(outers) / sizeof(outers[0]); k++) {
			__u32 id;

			if (enf->map_fd[outers[k]] < 0)
				continue;
			assert_int_equal(bpf_map_lookup_elem(enf->map_fd[outers[k]], &i, &id), 0);
			if (m.id[k] != id)
				fail_msg("slot %u, %s: rf_slot_maps says map %u, the outer map %u", i,
					 rf_pin_maps[outers[k]].pin, m.id[k], id);
			checked++;
		}
	}
	assert_true(checked > 0);
}

static int stdin_from(void *arg)
{
	return dup2(*(int *)arg, 0) < 0 ? -1 : 0;
}

/* Sandboxes started one after another, each live until the end: more than
 * the pool's free slots. Each run's RINGFENCE_TIMINGS says whether it grew
 * the pool on its path (none may) or in the background (some must). */
static void pool_grows_in_the_background(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "echo up; read x; exit 0", NULL };
	char *pol = h_tempfile("policy", ISO_POLICY("drain", "18461", "127.0.0.9", "18461",
						    "18461", "rf-drain"));
	struct rf_enforcer *enf = NULL;
	struct h_proc p[RF_SB_POOL_MIN + DRAIN_EXTRA];
	int in[RF_SB_POOL_MIN + DRAIN_EXTRA], n, i, k, on_path = 0, background = 0;
	char *err, line[4];

	(void)state;
	assert_int_equal(h_run(ISO_POLICY("drain", "18461", "127.0.0.9", "18461", "18461",
					  "rf-drain"), NULL, (const char *[]){ "/bin/true", NULL },
			       NULL, NULL), 0);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	n = sbmaps__pool_free(enf, 0) + DRAIN_EXTRA;
	assert_true(n > DRAIN_EXTRA && n <= RF_SB_POOL_MIN + DRAIN_EXTRA);
	setenv("RINGFENCE_TIMINGS", "1", 1);
	for (i = 0; i < n; i++) {
		int fds[2];

		assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
		p[i] = h_spawn_with(pol, NULL, NULL, argv, stdin_from, &fds[0]);
		close(fds[0]);
		in[i] = fds[1];
		assert_int_equal(read(p[i].out_fd, line, 3), 3);
		/* the grower of a run that left the pool low has finished
		 * before the next run starts: what is measured is whether
		 * runs grow it themselves, not a race with the grower */
		for (k = 0; k < 500 && sbmaps__pool_free(enf, 0) < 1; k++)
			h_sleep_ms(10);
	}
	unsetenv("RINGFENCE_TIMINGS");
	for (i = 0; i < n; i++) {
		close(in[i]);
		assert_int_equal(h_wait(p[i], NULL, &err), 0);
		on_path += strstr(err, "pool grown on this path") != NULL;
		background += strstr(err, "grown in the background") != NULL;
		free(err);
	}
	print_message("%d runs: %d grew the pool in the background, %d on their path\n", n,
		      background, on_path);
	slot_ids_match(enf);
	assert_int_equal(on_path, 0);
	assert_true(background >= 1);
	assert_true(sbmaps__pool_free(enf, 0) >= 1);
	enforcer__close(enf);
	unlink(pol);
	free(pol);
}

/* A policy of n single hosts 10.200.x.y:443: n keys in one inner map. */
static char *hosts_policy(int n)
{
	size_t len = 128 + (size_t)n * 24, off;
	char *j = malloc(len);
	int i;

	assert_non_null(j);
	off = (size_t)snprintf(j, len, "{\"version\":1,\"id\":\"big\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"network\":{\"connect\":[");
	for (i = 0; i < n; i++)
		off += (size_t)snprintf(j + off, len - off, "%s\"10.200.%d.%d:443\"", i ? "," : "",
					i / 250, i % 250 + 1);
	snprintf(j + off, len - off, "]}}");
	return j;
}

/* A slot with more keys than a run's end empties is emptied by the
 * detached cleaner: the next run of its class neither empties it on its
 * path nor grows the pool, and the slot is FREE again afterwards. */
static void big_slots_are_cleaned_off_the_path(void **state)
{
	const char *argv[] = { "/bin/true", NULL };
	char *pol = hosts_policy(3000), *err;
	struct rf_enforcer *enf = NULL;
	int i, lock, on_path = 0, grown = 0;

	(void)state;
	setenv("RINGFENCE_TIMINGS", "1", 1);
	for (i = 0; i < 4; i++) {
		assert_int_equal(h_run(pol, NULL, argv, NULL, &err), 0);
		/* the first may grow the pool (no slot of the class yet) */
		if (i) {
			on_path += strstr(err, "emptied a slot given back earlier") != NULL;
			grown += strstr(err, "pool grown on this path") != NULL;
		}
		free(err);
		/* the cleaner has finished (it holds clean.lock while it works) */
		lock = runlock__take("clean.lock", LOCK_SH);
		assert_true(lock >= 0);
		close(lock);
	}
	unsetenv("RINGFENCE_TIMINGS");
	print_message("3 runs of 3,000 keys after the first: %d emptied a slot on their path, "
		      "%d grew the pool\n", on_path, grown);
	assert_int_equal(on_path, 0);
	assert_int_equal(grown, 0);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	assert_true(sbmaps__pool_free(enf, 1) >= 1);
	enforcer__close(enf);
	free(pol);
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
		cmocka_unit_test(slot_reuse_never_uses_a_previous_sandboxs_rules),
		cmocka_unit_test(a_slot_given_back_is_empty),
		cmocka_unit_test(pool_grows_in_the_background),
		cmocka_unit_test(big_slots_are_cleaned_off_the_path),
		/* last: its live twin grows the pool, which the drain above counts */
		cmocka_unit_test(dead_workers_slots_taken_live_ones_left),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
