/*
 * The DNS gate against a real DNS server: dnsmasq on 127.0.0.1:5399 with
 * test names (127.77.0.0/16, a CNAME chain, short TTLs). Every check is a
 * lookup or a connect made inside the sandbox (tests/tools/rf-dns).
 */
#include "harness.h"

#include <signal.h>
#include <bpf/libbpf.h>

#include "pins.h"

#define DNS_PORT "5399"
#define P_OK 18300       /* the port the policy names */
#define P_OTHER 18301    /* the same addresses, another port */

static pid_t dnsmasq = -1;
static int listeners[16];
static int n_listeners;

/* Name -> address (TTL in seconds) served by dnsmasq. */
static const char *const records[] = {
	"--host-record=allowed.test,127.77.0.1,30",
	"--host-record=other.test,127.77.0.2,30",
	"--host-record=a.example.test,127.77.0.3,30",
	"--host-record=b.c.example.test,127.77.0.4,30",
	"--host-record=example.test,127.77.0.5,30",
	"--host-record=badexample.test,127.77.0.6,30",
	"--host-record=target.test,127.77.0.7,30",
	"--cname=alias.test,mid.test,30",
	"--cname=mid.test,target.test,30",
	"--host-record=short.test,127.77.0.8,1",
	"--host-record=rebind1.test,127.0.0.1,30",
	"--host-record=rebind2.test,169.254.169.254,30",
	"--host-record=second.test,127.77.0.9,30",
};

#define DNS_POLICY(id, names)                                                            \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[" names "],"                 \
	"\"dns\":{\"upstream\":[\"127.0.0.1:" DNS_PORT "\"],"                             \
	"\"rebind_allow\":[\"127.77.0.0/16\"]}}}"

#define ALL_NAMES                                                                        \
	"\"allowed.test:18300\",\"*.example.test:18300\",\"alias.test:18300\","            \
	"\"rebind1.test:18300\",\"rebind2.test:18300\",\"short.test:18300\""

static int start_dnsmasq(void)
{
	const char *recs[sizeof(records) / sizeof(records[0]) + 1];
	size_t i;

	for (i = 0; i < sizeof(records) / sizeof(records[0]); i++)
		recs[i] = records[i];
	recs[i] = NULL;
	dnsmasq = h_dnsmasq_start(atoi(DNS_PORT), recs);
	return dnsmasq > 0 ? 0 : -1;
}

static int setup(void **state)
{
	static const char *const addrs[] = { "127.77.0.1", "127.77.0.2", "127.77.0.3",
		"127.77.0.4", "127.77.0.5", "127.77.0.6", "127.77.0.7", "127.77.0.8",
		"127.77.0.9" };
	size_t i;

	(void)state;
	if (harness_require_root() || access("/usr/sbin/dnsmasq", X_OK))
		return -1;
	for (i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		listeners[n_listeners++] = h_listen_inet(AF_INET, addrs[i], P_OK, SOCK_STREAM);
		if (i < 2)
			listeners[n_listeners++] = h_listen_inet(AF_INET, addrs[i], P_OTHER,
								 SOCK_STREAM);
	}
	return start_dnsmasq();
}

static int teardown(void **state)
{
	(void)state;
	if (dnsmasq > 0) {
		kill(dnsmasq, SIGTERM);
		waitpid(dnsmasq, NULL, 0);
	}
	while (n_listeners)
		close(listeners[--n_listeners]);
	return 0;
}

/* The dns.* event of the trace for name (nth of that event). */
static json_t *dns_event(json_t *tr, const char *event, const char *name)
{
	json_t *ev;
	size_t i;

	for (i = 0; (ev = h_event(tr, event, i)); i++)
		if (!strcmp(json_string_value(json_object_get(ev, "name")), name))
			return ev;
	return NULL;
}

/*
 * One run of rf-dns (its arguments) under a policy, and what its output
 * must show: lines (substrings, in order within one), and the result
 * word of "OP TARGET" lines. The trace is kept for the cases that check
 * it further.
 */
struct dns_case {
	const char *policy;
	const char *args[40];
	const char *has[6];
	struct {
		const char *line, *result;
	} results[8];
};

/* Run c; its trace when ret_trace (else none is written). */
static void run_case(const struct dns_case *c, json_t **ret_trace)
{
	const char *argv[42] = { h_tool("rf-dns") };
	char *out = NULL, *tp = ret_trace ? h_tempfile("trace", NULL) : NULL;
	size_t i;

	for (i = 0; c->args[i]; i++)
		argv[i + 1] = c->args[i];
	assert_int_equal(h_run(c->policy, tp, argv, &out, NULL), 0);
	for (i = 0; i < 6 && c->has[i]; i++)
		if (!strstr(out, c->has[i]))
			fail_msg("no \"%s\" in:\n%s", c->has[i], out);
	for (i = 0; i < 8 && c->results[i].line; i++)
		assert_string_equal(h_result(out, c->results[i].line), c->results[i].result);
	if (ret_trace) {
		*ret_trace = h_trace(tp);
		unlink(tp);
		free(tp);
	}
	free(out);
}

/* Resolving opens exactly that address on that port; other names get
 * REFUSED and their addresses stay closed; any resolver address is
 * steered (a hard-coded one, the libc resolver's, over UDP or TCP). */
static const struct dns_case basic = {
	DNS_POLICY("dns-basic", ALL_NAMES),
	{ "connect", "127.77.0.1", "18300",
	  "udp", "192.0.2.53", "53", "allowed.test",
	  "connect", "127.77.0.1", "18300", "connect", "127.77.0.1", "18301",
	  "udp", "192.0.2.53", "53", "other.test",
	  "connect", "127.77.0.2", "18300",
	  "udp", "127.0.0.1", DNS_PORT, "allowed.test", NULL },
	/* nothing is open before the lookup; the real server's own port is
	 * neither steered nor allowed */
	{ "connect 127.77.0.1:18300 EPERM\nudp allowed.test",
	  "udp allowed.test NOERROR 127.77.0.1\nconnect 127.77.0.1:18300 ok\n",
	  "udp allowed.test EPERM" },
	{ { "udp allowed.test", "NOERROR" }, { "connect 127.77.0.1:18301", "EPERM" },
	  { "udp other.test", "REFUSED" }, { "connect 127.77.0.2:18300", "EPERM" } },
};

static void allowed_name_opens_its_address_only(void **state)
{
	json_t *tr, *ev, *g;
	size_t i, named = 0;

	(void)state;
	run_case(&basic, &tr);
	ev = dns_event(tr, "dns.query", "allowed.test");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "entry")), "allowed.test:18300");
	g = json_array_get(json_object_get(ev, "granted"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "address")), "127.77.0.1");
	assert_int_equal(json_integer_value(json_object_get(g, "ttl")), 30);
	ev = dns_event(tr, "dns.deny", "other.test");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "reason")), "name-not-allowed");
	assert_string_equal(json_string_value(json_object_get(ev, "verdict")), "denied");
	/* sandbox.exit counts what the gate did */
	ev = json_object_get(h_event(tr, "sandbox.exit", 0), "dns");
	assert_non_null(ev);
	assert_int_equal(json_integer_value(json_object_get(ev, "denied")), 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "allowed")), 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "granted")), 1);
	assert_int_equal(json_integer_value(json_object_get(ev, "queries")), 2);
	/* The ledger's flow to the opened address carries the name the gate
	 * opened it for; the connects refused before the lookup and on the
	 * other port made none. The lookups themselves went to the gate. */
	for (i = 0; (ev = h_event(tr, "network.flow", i)); i++) {
		const char *dst = json_string_value(json_object_get(ev, "dst"));

		if (!strcmp(dst, "127.77.0.1:18300")) {
			assert_string_equal(json_string_value(json_object_get(ev, "name")),
					    "allowed.test");
			assert_int_equal(json_integer_value(json_object_get(ev, "connections")), 1);
			named++;
		} else {
			assert_null(json_object_get(ev, "name"));
			assert_string_equal(json_string_value(json_object_get(ev, "proto")), "udp");
		}
	}
	assert_int_equal(named, 1);
	json_decref(tr);
}

/* Whatever /etc/resolv.conf names, the lookup reaches the gate; IPv6
 * sockets too: v4-mapped (through sendmsg4) and native (to ::1). */
static const struct dns_case steer = {
	DNS_POLICY("dns-steer", ALL_NAMES),
	{ "gai", "allowed.test",
	  "tcp", "192.0.2.53", "53", "a.example.test",
	  "udpconn", "198.51.100.1", "53", "b.c.example.test",
	  "tcp", "::ffff:192.0.2.53", "53", "other.test",
	  "udp", "::ffff:192.0.2.53", "53", "allowed.test/A",
	  "udp", "2001:db8::53", "53", "allowed.test.",
	  "udpconn", "2001:db8::53", "53", "other.test",
	  "connect", "127.77.0.3", "18300", "connect", "127.77.0.4", "18300", NULL },
	{ "gai allowed.test ok 127.77.0.1\n", "tcp a.example.test NOERROR 127.77.0.3\n",
	  "udpconn b.c.example.test NOERROR 127.77.0.4\n",
	  "udp allowed.test/A NOERROR 127.77.0.1\n", "udp allowed.test. NOERROR 127.77.0.1\n" },
	{ { "tcp other.test", "REFUSED" }, { "udpconn other.test", "REFUSED" },
	  { "connect 127.77.0.3:18300", "ok" }, { "connect 127.77.0.4:18300", "ok" } },
};

static void libc_resolver_and_tcp_are_steered(void **state)
{
	(void)state;
	run_case(&steer, NULL);
}

static const struct dns_case wild = {
	DNS_POLICY("dns-wild", ALL_NAMES),
	{ "udp", "192.0.2.53", "53", "a.example.test",
	  "udp", "192.0.2.53", "53", "b.c.example.test",
	  "udp", "192.0.2.53", "53", "example.test",
	  "udp", "192.0.2.53", "53", "badexample.test",
	  /* one label "x.example" under "test" (a sibling of the zone), and
	   * labels with bytes no host name has: refused on their labels,
	   * whatever their printed form ends with */
	  "udp", "192.0.2.53", "53", "x\\.example.test",
	  "tcp", "192.0.2.53", "53", "a\\000.example.test",
	  "udp", "192.0.2.53", "53", "*.example.test",
	  "connect", "127.77.0.5", "18300", "connect", "127.77.0.6", "18300", NULL },
	{ "udp a.example.test NOERROR 127.77.0.3\n", "udp b.c.example.test NOERROR 127.77.0.4\n" },
	{ { "udp example.test", "REFUSED" }, { "udp badexample.test", "REFUSED" },
	  { "udp x\\.example.test", "REFUSED" }, { "tcp a\\000.example.test", "REFUSED" },
	  { "udp *.example.test", "REFUSED" },
	  { "connect 127.77.0.5:18300", "EPERM" }, { "connect 127.77.0.6:18300", "EPERM" } },
};

static void wildcard_covers_subdomains_only(void **state)
{
	(void)state;
	run_case(&wild, NULL);
}

/* A CNAME chain opens its target; loopback and metadata answers for an
 * allowed name are dropped from the answer and traced. */
static const struct dns_case cname = {
	DNS_POLICY("dns-cname", ALL_NAMES),
	{ "udp", "192.0.2.53", "53", "alias.test",
	  "connect", "127.77.0.7", "18300",
	  "udp", "192.0.2.53", "53", "rebind1.test",
	  "udp", "192.0.2.53", "53", "rebind2.test", NULL },
	{ "udp alias.test NOERROR 127.77.0.7\n", "udp rebind1.test NOERROR -\n",
	  "udp rebind2.test NOERROR -\n" },
	{ { "connect 127.77.0.7:18300", "ok" } },
};

static void cname_followed_rebinding_dropped(void **state)
{
	json_t *tr, *ev;

	(void)state;
	run_case(&cname, &tr);
	ev = dns_event(tr, "dns.deny", "rebind1.test");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "reason")),
			    "private-address-for-name");
	assert_string_equal(json_string_value(json_array_get(json_object_get(ev, "addresses"), 0)),
			    "127.0.0.1");
	ev = dns_event(tr, "dns.deny", "rebind2.test");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_array_get(json_object_get(ev, "addresses"), 0)),
			    "169.254.169.254");
	json_decref(tr);
}

/* short.test has a TTL of 1 s: after it and the 5 s grace the address is
 * closed again, until the name is looked up again. */
static const struct dns_case ttl = {
	DNS_POLICY("dns-ttl", ALL_NAMES),
	{ "udp", "192.0.2.53", "53", "short.test",
	  "connect", "127.77.0.8", "18300",
	  "sleep", "7500",
	  "connect", "127.77.0.8", "18300",
	  "udp", "192.0.2.53", "53", "short.test",
	  "connect", "127.77.0.8", "18300", NULL },
	{ "udp short.test NOERROR 127.77.0.8\n"
	  "connect 127.77.0.8:18300 ok\n"
	  "connect 127.77.0.8:18300 EPERM\n"
	  "udp short.test NOERROR 127.77.0.8\n"
	  "connect 127.77.0.8:18300 ok\n" },
	{ { NULL, NULL } },
};

static void grant_expires_after_ttl_and_grace(void **state)
{
	(void)state;
	run_case(&ttl, NULL);
}

/* Two sandboxes at once: one's grant is not the other's. */
static void concurrent_sandboxes_keep_their_grants(void **state)
{
	const char *argv_a[] = { h_tool("rf-dns"), "udp", "192.0.2.53", "53", "allowed.test",
				 "connect", "127.77.0.1", "18300", "sleep", "3000",
				 "connect", "127.77.0.1", "18300", NULL };
	const char *argv_b[] = { h_tool("rf-dns"), "sleep", "1000",
				 "connect", "127.77.0.1", "18300",
				 "udp", "192.0.2.53", "53", "allowed.test",
				 "udp", "192.0.2.53", "53", "second.test",
				 "connect", "127.77.0.9", "18300", NULL };
	char *pa = h_tempfile("policy", DNS_POLICY("dns-a", "\"allowed.test:18300\""));
	char *pb = h_tempfile("policy", DNS_POLICY("dns-b", "\"second.test:18300\""));
	char *out_a = NULL, *out_b = NULL;
	struct h_proc a, b;

	(void)state;
	a = h_spawn(pa, NULL, NULL, argv_a);
	b = h_spawn(pb, NULL, NULL, argv_b);
	assert_int_equal(h_wait(b, &out_b, NULL), 0);
	assert_int_equal(h_wait(a, &out_a, NULL), 0);
	assert_non_null(strstr(out_a, "udp allowed.test NOERROR 127.77.0.1\n"
				      "connect 127.77.0.1:18300 ok\n"
				      "connect 127.77.0.1:18300 ok\n"));
	/* while A holds 127.77.0.1 open, B neither has it nor can get it */
	assert_string_equal(h_result(out_b, "connect 127.77.0.1:18300"), "EPERM");
	assert_string_equal(h_result(out_b, "udp allowed.test"), "REFUSED");
	assert_non_null(strstr(out_b, "udp second.test NOERROR 127.77.0.9\n"));
	assert_string_equal(h_result(out_b, "connect 127.77.0.9:18300"), "ok");
	unlink(pa);
	unlink(pb);
	free(pa);
	free(pb);
	free(out_a);
	free(out_b);
}

struct seen_note {
	int n;
	struct rf_event ev;
};

static int on_record(void *ctx, void *data, size_t len)
{
	struct seen_note *s = ctx;
	const struct rf_event *ev = data;

	if (len >= sizeof(*ev) && ev->kind == RF_EV_DECISION && ev->op == RF_OP_DNS_QUERY &&
	    (ev->flags & RF_EVF_DNS) &&
	    !strcmp(ev->path, "other.test")) {
		s->n++;
		s->ev = *ev;
	}
	return 0;
}

/* A refused name is on the monitor's decision stream (the pinned ring
 * buffer) with the table-driven op and reason, like the kernel's records. */
static void refusal_reaches_the_decision_stream(void **state)
{
	static const struct dns_case refused = {
		DNS_POLICY("dns-mon", ALL_NAMES),
		{ "udp", "192.0.2.53", "53", "other.test", NULL },
		{ NULL },
		{ { "udp other.test", "REFUSED" } },
	};
	struct seen_note seen = { 0 };
	struct ring_buffer *rb;
	int fd;

	(void)state;
	/* the set is pinned by the earlier runs of this file */
	fd = rf_pins__open_map(RF_PIN_EVENTS);
	assert_true(fd >= 0);
	rb = ring_buffer__new(fd, on_record, &seen, NULL);
	assert_non_null(rb);
	ring_buffer__consume(rb);
	seen.n = 0;
	run_case(&refused, NULL);
	ring_buffer__consume(rb);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.ev.class, RF_CLASS_NET);
	assert_int_equal(seen.ev.reason, RF_REASON_DNS_NAME);
	assert_int_equal(seen.ev.verdict, RF_VERDICT_DENIED);
	assert_int_equal(seen.ev.kind, RF_EV_DECISION);
	assert_true(seen.ev.cgroup_id != 0);
	assert_true(seen.ev.ts_boot_ns != 0);
	ring_buffer__free(rb);
	close(fd);
}

/* An upstream that never answers: SERVFAIL, nothing opened. */
static const struct dns_case silent = {
	"{\"version\":1,\"id\":\"dns-silent\",\"files\":\"unrestricted\","
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":"
	"[\"allowed.test:18300\"],\"dns\":{\"upstream\":[\"127.0.0.1:1\"]}}}",
	{ "udp", "192.0.2.53", "53", "allowed.test", "connect", "127.77.0.1", "18300", NULL },
	{ "udp allowed.test SERVFAIL -\n" },
	{ { "connect 127.77.0.1:18300", "EPERM" } },
};

static void silent_upstream_fails_closed(void **state)
{
	(void)state;
	run_case(&silent, NULL);
}

/* Audit mode: every name is answered, the refusal it would be is traced. */
static const struct dns_case audit = {
	"{\"version\":1,\"id\":\"dns-audit\",\"mode\":\"audit\","
	"\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
	"\"network\":{\"connect\":[\"allowed.test:18300\"],"
	"\"dns\":{\"upstream\":[\"127.0.0.1:" DNS_PORT "\"]}}}",
	{ "udp", "192.0.2.53", "53", "other.test", NULL },
	{ "udp other.test NOERROR 127.77.0.2\n" },
	{ { NULL, NULL } },
};

static void audit_mode_answers_and_records(void **state)
{
	json_t *tr, *ev;

	(void)state;
	run_case(&audit, &tr);
	ev = dns_event(tr, "dns.deny", "other.test");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "verdict")), "audited");
	ev = dns_event(tr, "dns.query", "other.test");
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "verdict")), "audited");
	assert_int_equal(json_array_size(json_object_get(ev, "granted")), 0);
	json_decref(tr);
}

/* Bad names: one line on stderr, exit 125, nothing runs. */
static void bad_names_refused_with_one_line(void **state)
{
	static const struct { const char *entry, *why; } cases[] = {
		{ "*:443", "a wildcard must be a leading '*.' before a domain" },
		{ "*.com:443", "wildcard over a public suffix" },
		{ "*.co.uk:443", "wildcard over a public suffix" },
		{ "b@d.test:443", "user-info" },
		{ "bad_name.test:443", "invalid character in DNS name" },
		{ "*.10.0.0.1:443", "a wildcard must name a domain, not an IP address" },
		{ "0x7f.1:443", "non-canonical IPv4 address" },
	};
	const char *argv[] = { "/bin/true", NULL };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char policy[512], *err = NULL, *nl;

		snprintf(policy, sizeof(policy),
			 "{\"version\":1,\"id\":\"bad\",\"files\":\"unrestricted\","
			 "\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"%s\"]}}",
			 cases[i].entry);
		assert_int_equal(h_run(policy, NULL, argv, NULL, &err), 125);
		if (!strstr(err, cases[i].why))
			fail_msg("%s: %s", cases[i].entry, err);
		nl = strchr(err, '\n');
		assert_true(nl && nl[1] == '\0');
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(allowed_name_opens_its_address_only),
		cmocka_unit_test(libc_resolver_and_tcp_are_steered),
		cmocka_unit_test(wildcard_covers_subdomains_only),
		cmocka_unit_test(cname_followed_rebinding_dropped),
		cmocka_unit_test(grant_expires_after_ttl_and_grace),
		cmocka_unit_test(concurrent_sandboxes_keep_their_grants),
		cmocka_unit_test(refusal_reaches_the_decision_stream),
		cmocka_unit_test(silent_upstream_fails_closed),
		cmocka_unit_test(audit_mode_answers_and_records),
		cmocka_unit_test(bad_names_refused_with_one_line),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, teardown);
}
