/*
 * The connection ledger (issue 22) against the real kernel: a sandbox
 * uploads to a loopback server it may reach and the trace's network.flow
 * must say exactly what the server counted; an egress_bytes budget stops
 * an upload that would pass it (the server gets at most the budget), with
 * an allowed twin under a larger budget. Unix peers (the cgroup unix
 * hooks, 6.7+): connections and addressed datagrams per name, what the
 * servers outside accepted and read; a refused name is not counted.
 */
#include "harness.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>

#include "pins.h"

#define P_UP 18310       /* the upload server: allowed */
#define P_NO 18311       /* listening, not allowed */
#define P_UDP 18312      /* a UDP sink: allowed */
#define REPLY 1000       /* bytes the server answers each upload with */

static int srv_fd = -1, no_fd = -1, udp_fd = -1;
static atomic_llong srv_bytes, srv_conns;
static pthread_t srv_thread;

/* Accept, read to the end (or a reset), answer REPLY bytes, close. */
static void *server(void *arg)
{
	static char buf[65536];
	int c;

	(void)arg;
	memset(buf, 'r', sizeof(buf));
	while ((c = accept(srv_fd, NULL, NULL)) >= 0) {
		ssize_t k;

		atomic_fetch_add(&srv_conns, 1);
		while ((k = read(c, buf, sizeof(buf))) > 0)
			atomic_fetch_add(&srv_bytes, k);
		if (k == 0 && write(c, buf, REPLY) != REPLY)
			fprintf(stderr, "server: short reply\n");
		close(c);
	}
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	if (harness_require_root())
		return -1;
	srv_fd = h_listen_inet(AF_INET, "127.0.0.1", P_UP, SOCK_STREAM);
	no_fd = h_listen_inet(AF_INET, "127.0.0.1", P_NO, SOCK_STREAM);
	udp_fd = h_listen_inet(AF_INET, "127.0.0.1", P_UDP, SOCK_DGRAM);
	return pthread_create(&srv_thread, NULL, server, NULL);
}

static int teardown(void **state)
{
	(void)state;
	shutdown(srv_fd, SHUT_RDWR);
	pthread_join(srv_thread, NULL);
	close(srv_fd);
	close(no_fd);
	close(udp_fd);
	return 0;
}

#define LEDGER_POLICY(id, limits)                                                        \
	"{\"version\":1,\"id\":\"" id "\",\"files\":\"unrestricted\","                    \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18310\","        \
	"\"127.0.0.1:18312\"]}" limits "}"

/* The network.flow of dst/proto in the trace (NULL: none). */
static json_t *flow_of(json_t *tr, const char *dst, const char *proto)
{
	json_t *ev;
	size_t i;

	for (i = 0; (ev = h_event(tr, "network.flow", i)); i++)
		if (!strcmp(json_string_value(json_object_get(ev, "dst")), dst) &&
		    !strcmp(json_string_value(json_object_get(ev, "proto")), proto))
			return ev;
	return NULL;
}

static long long num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("%s is not an integer", k);
	return (long long)json_integer_value(v);
}

/* Two uploads of odd sizes (more than one socket buffer, and a few bytes)
 * and the server's answers: payload bytes, exactly what the server read
 * and wrote; a destination the policy refuses has no flow; UDP datagrams
 * count their payload. */
static void upload_counted_exactly(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "upload", "127.0.0.1", "18310", "3000017",
		"upload", "127.0.0.1", "18310", "7", "tcp", "127.0.0.1", "18311",
		"udpsend", "127.0.0.1", "18312", "5", "1234", NULL };
	char *tp = h_tempfile("trace", NULL), *out = NULL;
	long long before = atomic_load(&srv_bytes);
	json_t *tr, *f, *ex;

	(void)state;
	assert_int_equal(h_run(LEDGER_POLICY("ledger-up", ""), tp, argv, &out, NULL), 0);
	assert_non_null(strstr(out, "upload 127.0.0.1:18310 ok sent=3000017 received=1000\n"));
	assert_non_null(strstr(out, "upload 127.0.0.1:18310 ok sent=7 received=1000\n"));
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18311"), "EPERM");
	assert_non_null(strstr(out, "udpsend 127.0.0.1:18312 ok=5 ok\n"));
	assert_int_equal(atomic_load(&srv_bytes) - before, 3000024);
	tr = h_trace(tp);
	f = flow_of(tr, "127.0.0.1:18310", "tcp");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 2);
	assert_int_equal(num(f, "bytes_sent"), 3000024);
	assert_int_equal(num(f, "bytes_received"), 2 * REPLY);
	assert_true(json_is_true(json_object_get(f, "loopback")));
	assert_true(json_is_false(json_object_get(f, "inbound")));
	assert_true(json_is_true(json_object_get(f, "final")));
	assert_null(json_object_get(f, "name"));
	/* refused at connect: nothing left, nothing counted */
	assert_null(flow_of(tr, "127.0.0.1:18311", "tcp"));
	f = flow_of(tr, "127.0.0.1:18312", "udp");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 1);
	assert_int_equal(num(f, "bytes_sent"), 5 * 1234);
	assert_int_equal(num(f, "bytes_received"), 0);
	ex = h_event(tr, "sandbox.exit", 0);
	assert_int_equal(num(ex, "bytes_sent"), 3000024 + 5 * 1234);
	assert_int_equal(num(ex, "bytes_received"), 2 * REPLY);
	assert_int_equal(num(ex, "flows"), 2);
	assert_int_equal(num(ex, "flows_lost"), 0);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* Entries of rf_flows, host-wide (no sandbox is live between these runs:
 * the host suites run one at a time). */
static int flows_left(void)
{
	unsigned char key[sizeof(struct rf_flow_key)];
	int fd = rf_pins__get(rf_pin_maps[RF_PIN_FLOWS].pin), n = 0;

	assert_true(fd >= 0);
	while (!bpf_map_get_next_key(fd, n ? key : NULL, key))
		n++;
	close(fd);
	return n;
}

/* A run's end walks rf_flows only when its programs made an entry
 * (rf_ledger.flows_made): a run whose only connect was refused has no
 * flow and leaves none; an upload has its flow reported, then deleted. */
static void flows_forgotten_at_the_end(void **state)
{
	const char *refused[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18311", NULL };
	const char *up[] = { h_tool("rf-net"), "upload", "127.0.0.1", "18310", "10", NULL };
	char *tp = h_tempfile("trace", NULL), *out = NULL;
	json_t *tr, *ex;

	(void)state;
	assert_int_equal(h_run(LEDGER_POLICY("ledger-none", ""), tp, refused, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18311"), "EPERM");
	tr = h_trace(tp);
	ex = h_event(tr, "sandbox.exit", 0);
	assert_int_equal(num(ex, "flows"), 0);
	assert_int_equal(num(ex, "bytes_sent"), 0);
	assert_int_equal(flows_left(), 0);
	json_decref(tr);
	free(out);
	out = NULL;
	assert_int_equal(h_run(LEDGER_POLICY("ledger-one", ""), tp, up, &out, NULL), 0);
	assert_non_null(strstr(out, "upload 127.0.0.1:18310 ok sent=10 received=1000\n"));
	tr = h_trace(tp);
	ex = h_event(tr, "sandbox.exit", 0);
	assert_int_equal(num(ex, "flows"), 1);
	assert_int_equal(num(ex, "bytes_sent"), 10);
	assert_int_equal(flows_left(), 0);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* A 1 MB upload under a 100 kB budget: the run is killed (137) with
 * limit.exceeded, and the server got no more than the budget (the send
 * past it was dropped; the killed socket aborted, its queue discarded). */
static void egress_budget_stops_upload(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "upload", "127.0.0.1", "18310", "1000000",
			       NULL };
	char *tp = h_tempfile("trace", NULL);
	long long before = atomic_load(&srv_bytes), got;
	json_t *tr, *ev;

	(void)state;
	assert_int_equal(h_run(LEDGER_POLICY("ledger-budget",
					     ",\"limits\":{\"egress_bytes\":100000}"),
			       tp, argv, NULL, NULL), 137);
	/* the server reads what reached it until the reset: give it a moment */
	h_sleep_ms(300);
	got = atomic_load(&srv_bytes) - before;
	assert_true(got > 0);
	if (got > 100000)
		fail_msg("the server received %lld bytes, past the 100000-byte budget", got);
	tr = h_trace(tp);
	ev = h_event(tr, "limit.exceeded", 0);
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "limit")), "egress_bytes");
	assert_int_equal(num(ev, "threshold"), 100000);
	assert_true(num(ev, "value") > 100000);
	ev = h_event(tr, "sandbox.exit", 0);
	assert_string_equal(json_string_value(json_object_get(ev, "limit")), "egress_bytes");
	assert_true(num(ev, "bytes_sent") <= 100000);
	assert_int_equal(num(ev, "bytes_sent"), got);
	json_decref(tr);
	unlink(tp);
	free(tp);
}

/* The allowed twin: the same upload under a budget it fits. */
static void egress_budget_allows_within(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "upload", "127.0.0.1", "18310", "1000000",
			       NULL };
	long long before = atomic_load(&srv_bytes);
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(LEDGER_POLICY("ledger-fits",
					     ",\"limits\":{\"egress_bytes\":1000000}"),
			       NULL, argv, &out, NULL), 0);
	assert_non_null(strstr(out, "upload 127.0.0.1:18310 ok sent=1000000 received=1000\n"));
	assert_int_equal(atomic_load(&srv_bytes) - before, 1000000);
	free(out);
}

/* UDP past the budget: sendto fails with EPERM inside the sandbox, and
 * the run still ends as the budget's (137). */
static void egress_budget_refuses_datagrams(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "udpsend", "127.0.0.1", "18312", "20", "1000",
			       NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(LEDGER_POLICY("ledger-udp",
					     ",\"limits\":{\"egress_bytes\":10000}"),
			       NULL, argv, &out, NULL), 137);
	/* killed at once or after its report: never more than 10 datagrams */
	if (strstr(out, "udpsend"))
		assert_non_null(strstr(out, "udpsend 127.0.0.1:18312 ok=10 EPERM\n"));
	free(out);
}

/* ---- unix peers ---- */

struct unix_srv {
	int fd;
	bool dgram;
	long long want, reply;  /* stream: after want bytes read, answer reply */
	atomic_llong n;         /* connections accepted, or datagrams read */
	atomic_llong bytes;     /* payload read */
	pthread_t t;
};

/* A connection: read want bytes (or to its end), answer reply bytes, read
 * to its end. */
static void unix_serve_one(struct unix_srv *u, int c)
{
	static char b[65536];
	long long got = 0, left = u->reply;
	ssize_t k;

	while ((!u->want || got < u->want) && (k = read(c, b, sizeof(b))) > 0) {
		got += k;
		atomic_fetch_add(&u->bytes, k);
	}
	memset(b, 'a', sizeof(b));
	while (u->want && got == u->want && left > 0 &&
	       (k = write(c, b, left < (long long)sizeof(b) ? (size_t)left : sizeof(b))) > 0)
		left -= k;
	while ((k = read(c, b, sizeof(b))) > 0)
		atomic_fetch_add(&u->bytes, k);
	close(c);
}

static void *unix_server(void *arg)
{
	struct unix_srv *u = arg;
	char b[64];
	ssize_t k;
	int c;

	for (;;) {
		if (u->dgram) {
			/* 0: shut down (every datagram sent has a byte); its
			 * whole length (MSG_TRUNC) */
			k = recv(u->fd, b, sizeof(b), MSG_TRUNC);
			if (k <= 0)
				break;
			atomic_fetch_add(&u->n, 1);
			atomic_fetch_add(&u->bytes, k);
			continue;
		}
		c = accept(u->fd, NULL, NULL);
		if (c < 0)
			break;
		atomic_fetch_add(&u->n, 1);
		unix_serve_one(u, c);
	}
	return NULL;
}

static void unix_start(struct unix_srv *u, const char *name, bool dgram)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	memset(u, 0, sizeof(*u));
	u->dgram = dgram;
	if (dgram) {
		u->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		unlink(name);
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", name);
		assert_int_equal(bind(u->fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	} else {
		u->fd = h_listen_unix(name);
	}
	assert_int_equal(pthread_create(&u->t, NULL, unix_server, u), 0);
}

static long long unix_stop(struct unix_srv *u)
{
	shutdown(u->fd, SHUT_RDWR);
	pthread_join(u->t, NULL);
	close(u->fd);
	return atomic_load(&u->n);
}

/* The kernel has cgroup/connect_unix (6.7+): on this host it must. */
static bool unix_hooks(void)
{
	return h_kernel_at_least(6, 7);
}

/* Five connects to an allowed socket served outside, one to an abstract
 * name, three datagrams to a datagram socket by name, one connect the
 * policy refuses: one flow per name with what the servers accepted and
 * read; the refused name has none. */
static void unix_peers_counted(void **state)
{
	char st[96], dg[96], ab[96], no[96], pol[2048];
	struct unix_srv s_st, s_dg, s_ab;
	char *tp = h_tempfile("trace", NULL), *out = NULL;
	const char *argv[32];
	json_t *tr, *f, *ux;
	int n = 0, i;

	(void)state;
	if (!unix_hooks())
		skip();
	snprintf(st, sizeof(st), "/tmp/rf-ledger-%d.sock", (int)getpid());
	snprintf(dg, sizeof(dg), "/tmp/rf-ledger-%d.dgram", (int)getpid());
	snprintf(ab, sizeof(ab), "@rf-ledger-%d", (int)getpid());
	snprintf(no, sizeof(no), "/tmp/rf-ledger-%d.no", (int)getpid());
	unix_start(&s_st, st, false);
	unix_start(&s_dg, dg, true);
	unix_start(&s_ab, ab, false);
	snprintf(pol, sizeof(pol), "{\"version\":1,\"id\":\"ledger-unix\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":{\"connect\":[],"
		 "\"unix\":[\"%s\",\"%s\",\"%s\"]}}", st, dg, ab);
	argv[n++] = h_tool("rf-net");
	for (i = 0; i < 5; i++) {
		argv[n++] = "unix";
		argv[n++] = st;
	}
	argv[n++] = "unix";
	argv[n++] = ab;
	argv[n++] = "unix";
	argv[n++] = no;
	for (i = 0; i < 3; i++) {
		argv[n++] = "unixdgram";
		argv[n++] = dg;
	}
	argv[n] = NULL;
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	snprintf(pol, sizeof(pol), "unix %s", st);
	assert_string_equal(h_result(out, pol), "ok");
	snprintf(pol, sizeof(pol), "unix %s", no);
	assert_string_equal(h_result(out, pol), "EPERM");
	snprintf(pol, sizeof(pol), "unixdgram %s", dg);
	assert_string_equal(h_result(out, pol), "ok");
	h_sleep_ms(100);  /* the servers' threads take the last ones */
	tr = h_trace(tp);
	f = flow_of(tr, st, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 5);
	assert_int_equal(unix_stop(&s_st), 5);
	/* connected, nothing written (the bytes: unix_bytes_counted) */
	assert_int_equal(num(f, "bytes_sent"), 0);
	assert_int_equal(num(f, "bytes_received"), 0);
	ux = json_object_get(f, "unix");
	assert_string_equal(json_string_value(json_object_get(ux, "socket_type")), "stream");
	assert_true(json_is_false(json_object_get(ux, "abstract")));
	assert_true(json_is_true(json_object_get(f, "final")));
	f = flow_of(tr, ab, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 1);
	assert_int_equal(unix_stop(&s_ab), 1);
	assert_true(json_is_true(json_object_get(json_object_get(f, "unix"), "abstract")));
	f = flow_of(tr, dg, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 3);
	assert_int_equal(num(f, "bytes_sent"), 3);
	assert_int_equal(unix_stop(&s_dg), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(f, "unix"),
							      "socket_type")), "dgram");
	/* refused by the policy: a denial, not a flow */
	assert_null(flow_of(tr, no, "unix"));
	assert_int_equal(h_count_events(tr, "kernel.deny"), 1);
	assert_int_equal(num(h_event(tr, "sandbox.exit", 0), "flows"), 3);
	/* every line valid against schemas/trace.schema.json (proto unix,
	 * bytes null, the unix object) */
	snprintf(pol, sizeof(pol), "/usr/bin/python3 -c 'import json, sys\n"
		 "from jsonschema import Draft202012Validator as V\n"
		 "v = V(json.load(open(\"schemas/trace.schema.json\")))\n"
		 "bad = [e.message[:200] for l in open(sys.argv[1]) for e in v.iter_errors(json.loads(l))]\n"
		 "bad and print(*bad[:5], sep=\"\\n\")\nsys.exit(1 if bad else 0)' %s", h_sh(tp));
	assert_int_equal(system(pol), 0);
	json_decref(tr);
	unlink(st);
	unlink(dg);
	unlink(tp);
	free(tp);
	free(out);
}

/* The kernel has the socket length tracepoints (6.3+). */
static bool unix_byte_tps(void)
{
	struct utsname un;
	int maj = 0, min = 0;

	uname(&un);
	sscanf(un.release, "%d.%d", &maj, &min);
	return maj > 6 || (maj == 6 && min >= 3);
}

/* Payload over unix sockets, exact: N bytes written to a stream peer
 * served outside and M read back after a peek at them (a peek is not a
 * receive), K bytes in addressed datagrams; the same writes to a name the
 * policy refuses leave no flow and no bytes anywhere. */
static void unix_bytes_counted(void **state)
{
	char st[96], dg[96], no[96], pol[2048], line[256];
	struct unix_srv s_st, s_dg, s_no;
	char *tp = h_tempfile("trace", NULL), *out = NULL;
	const char *argv[20];
	json_t *tr, *f;
	int n = 0;

	(void)state;
	if (!unix_hooks() || !unix_byte_tps())
		skip();
	snprintf(st, sizeof(st), "/tmp/rf-ubytes-%d.sock", (int)getpid());
	snprintf(dg, sizeof(dg), "/tmp/rf-ubytes-%d.dgram", (int)getpid());
	snprintf(no, sizeof(no), "/tmp/rf-ubytes-%d.no", (int)getpid());
	unix_start(&s_st, st, false);
	unix_start(&s_no, no, false);
	unix_start(&s_dg, dg, true);
	s_st.want = s_no.want = 200003;
	s_st.reply = s_no.reply = 70001;
	snprintf(pol, sizeof(pol), "{\"version\":1,\"id\":\"ledger-ubytes\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":{\"connect\":[],"
		 "\"unix\":[\"%s\",\"%s\"]}}", st, dg);
	argv[n++] = h_tool("rf-net");
	argv[n++] = "unixio"; argv[n++] = st; argv[n++] = "200003"; argv[n++] = "70001";
	argv[n++] = "unixsend"; argv[n++] = dg; argv[n++] = "4"; argv[n++] = "1500";
	argv[n++] = "unixio"; argv[n++] = no; argv[n++] = "200003"; argv[n++] = "70001";
	argv[n++] = "unixsend"; argv[n++] = no; argv[n++] = "2"; argv[n++] = "100";
	argv[n] = NULL;
	assert_int_equal(h_run(pol, tp, argv, &out, NULL), 0);
	snprintf(line, sizeof(line), "unixio %s ok sent=200003 received=70001\n", st);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "unixsend %s ok=4\n", dg);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "unixio %s EPERM sent=0 received=0\n", no);
	assert_non_null(strstr(out, line));
	snprintf(line, sizeof(line), "unixsend %s ok=0 EPERM\n", no);
	assert_non_null(strstr(out, line));
	h_sleep_ms(100);  /* the servers' threads take the last ones */
	tr = h_trace(tp);
	f = flow_of(tr, st, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 1);
	assert_int_equal(num(f, "bytes_sent"), 200003);
	assert_int_equal(num(f, "bytes_received"), 70001);
	f = flow_of(tr, dg, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 4);
	assert_int_equal(num(f, "bytes_sent"), 6000);
	assert_int_equal(num(f, "bytes_received"), 0);
	/* refused: no flow, and its server saw nothing */
	assert_null(flow_of(tr, no, "unix"));
	assert_int_equal(unix_stop(&s_no), 0);
	assert_int_equal(atomic_load(&s_no.bytes), 0);
	/* what the servers outside read */
	assert_int_equal(unix_stop(&s_st), 1);
	assert_int_equal(atomic_load(&s_st.bytes), 200003);
	assert_int_equal(unix_stop(&s_dg), 4);
	assert_int_equal(atomic_load(&s_dg.bytes), 6000);
	/* the IP totals stay IP's: unix bytes are apart */
	assert_int_equal(num(h_event(tr, "sandbox.exit", 0), "bytes_sent"), 0);
	json_decref(tr);
	unlink(st);
	unlink(dg);
	unlink(no);
	unlink(tp);
	free(tp);
	free(out);
}

/* --no-observe keeps no tracepoint on the host: the unix flow is counted
 * (its connection) and its bytes are unknown, null, not 0; the twin
 * without the flag counts them (unix_bytes_counted). */
static void unix_bytes_null_without_observe(void **state)
{
	const char *const off[] = { "--no-observe", NULL };
	char st[96], pol[1024], line[256];
	struct unix_srv s_st;
	char *tp = h_tempfile("trace", NULL), *pp, *out = NULL;
	const char *argv[] = { h_tool("rf-net"), "unixio", st, "1000", "0", NULL };
	json_t *tr, *f;

	(void)state;
	if (!unix_hooks())
		skip();
	snprintf(st, sizeof(st), "/tmp/rf-ubytes-noobs-%d.sock", (int)getpid());
	unix_start(&s_st, st, false);
	snprintf(pol, sizeof(pol), "{\"version\":1,\"id\":\"ledger-noobs\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":{\"connect\":[],"
		 "\"unix\":[\"%s\"]}}", st);
	pp = h_tempfile("policy", pol);
	assert_int_equal(h_wait(h_spawn(pp, tp, off, argv), &out, NULL), 0);
	snprintf(line, sizeof(line), "unixio %s ok sent=1000 received=0\n", st);
	assert_non_null(strstr(out, line));
	h_sleep_ms(100);
	assert_int_equal(unix_stop(&s_st), 1);
	assert_int_equal(atomic_load(&s_st.bytes), 1000);
	tr = h_trace(tp);
	f = flow_of(tr, st, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 1);
	assert_true(json_is_null(json_object_get(f, "bytes_sent")));
	assert_true(json_is_null(json_object_get(f, "bytes_received")));
	json_decref(tr);
	unlink(st);
	unlink(pp);
	unlink(tp);
	free(pp);
	free(tp);
	free(out);
}

/* ---- unix sockets the sandbox did not connect ---- */

struct passer {
	int fd;             /* listening */
	const char *peer;   /* the name the passed socket connects to */
	int rc;
	pthread_t t;
};

/* Accept one connection, pass it a stream socket connected to peer
 * (SCM_RIGHTS, one byte), read to its end. */
static void *pass_one(void *arg)
{
	struct passer *p = arg;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char c = 'f', b[256];
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int a = accept(p->fd, NULL, NULL), s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", p->peer);
	p->rc = a < 0 || s < 0 || connect(s, (struct sockaddr *)&sun, sizeof(sun)) ? -1 : 0;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &s, sizeof(s));
	if (!p->rc && sendmsg(a, &m, 0) != 1)
		p->rc = -1;
	while (a >= 0 && read(a, b, sizeof(b)) > 0)
		;
	if (s >= 0)
		close(s);
	if (a >= 0)
		close(a);
	return NULL;
}

/* Connect to the sandbox's own server at name (it binds it: wait), write
 * n bytes, read m. The bytes read, or -1. */
static long long client_of(const char *name, long long n, long long m)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static char b[65536];
	long long got = 0;
	int fd = -1, i;
	ssize_t k;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", name);
	for (i = 0; i < 100 && fd < 0; i++) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
			close(fd);
			fd = -1;
			h_sleep_ms(50);
		}
	}
	if (fd < 0)
		return -1;
	memset(b, 'c', sizeof(b));
	if (write(fd, b, (size_t)n) != n)
		got = -1;
	while (got >= 0 && got < m && (k = read(fd, b, sizeof(b))) > 0)
		got += k;
	close(fd);
	return got;
}

/* What the cgroup unix hooks never see, counted from the first byte: the
 * sandbox's own server (an outside client writes 3000 bytes, it answers
 * 700: its listening name's flow, origin accept, inbound), a socketpair
 * of its own (3000 one way, 200 back: one unnamed flow, two ends), a
 * socket passed in over SCM_RIGHTS connected to a name the policy does not
 * list (2500 written, 600 read: origin peer). The test's own sockets and
 * the passer's, outside, in no flow: four flows. */
static void unix_unconnected_counted(void **state)
{
	char acc[96], ps[96], pp[96], pol[1024], line[256];
	char *tp = h_tempfile("trace", NULL), *polp, *out = NULL;
	const char *argv[] = { h_tool("rf-net"), "ureply", acc, "1", "3000", "700",
			       "upair", "3000", "200", "urecvfd", ps, "2500", "600", NULL };
	struct unix_srv s_pp;
	struct passer pa;
	json_t *tr, *f, *ux;
	struct h_proc pr;

	(void)state;
	if (!unix_hooks() || !unix_byte_tps())
		skip();
	snprintf(acc, sizeof(acc), "/tmp/rf-uown-%d.acc", (int)getpid());
	snprintf(ps, sizeof(ps), "/tmp/rf-uown-%d.pass", (int)getpid());
	snprintf(pp, sizeof(pp), "/tmp/rf-uown-%d.peer", (int)getpid());
	unlink(acc);
	unix_start(&s_pp, pp, false);
	s_pp.want = 2500;
	s_pp.reply = 600;
	pa.fd = h_listen_unix(ps);
	pa.peer = pp;
	assert_int_equal(pthread_create(&pa.t, NULL, pass_one, &pa), 0);
	snprintf(pol, sizeof(pol), "{\"version\":1,\"id\":\"ledger-uown\",\"files\":"
		 "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":{\"connect\":[],"
		 "\"unix\":[\"%s\"]}}", ps);
	polp = h_tempfile("policy", pol);
	pr = h_spawn(polp, tp, NULL, argv);
	assert_int_equal(client_of(acc, 3000, 700), 700);
	assert_int_equal(h_wait(pr, &out, NULL), 0);
	pthread_join(pa.t, NULL);
	assert_int_equal(pa.rc, 0);
	snprintf(line, sizeof(line), "ureply %s 1 3000\n", acc);
	assert_non_null(strstr(out, line));
	assert_non_null(strstr(out, "upair ok sent=3200 received=3200\n"));
	snprintf(line, sizeof(line), "urecvfd %s ok sent=2500 received=600\n", ps);
	assert_non_null(strstr(out, line));
	h_sleep_ms(100);  /* the server's thread takes the last bytes */
	assert_int_equal(unix_stop(&s_pp), 1);
	assert_int_equal(atomic_load(&s_pp.bytes), 2500);
	tr = h_trace(tp);
	f = flow_of(tr, acc, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 1);
	assert_int_equal(num(f, "bytes_sent"), 700);
	assert_int_equal(num(f, "bytes_received"), 3000);
	assert_true(json_is_true(json_object_get(f, "inbound")));
	ux = json_object_get(f, "unix");
	assert_string_equal(json_string_value(json_object_get(ux, "origin")), "accept");
	f = flow_of(tr, "", "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 2);
	assert_int_equal(num(f, "bytes_sent"), 3200);
	assert_int_equal(num(f, "bytes_received"), 3200);
	ux = json_object_get(f, "unix");
	assert_string_equal(json_string_value(json_object_get(ux, "origin")), "unnamed");
	f = flow_of(tr, pp, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "connections"), 1);
	assert_int_equal(num(f, "bytes_sent"), 2500);
	assert_int_equal(num(f, "bytes_received"), 600);
	ux = json_object_get(f, "unix");
	assert_string_equal(json_string_value(json_object_get(ux, "origin")), "peer");
	f = flow_of(tr, ps, "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "bytes_received"), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(f, "unix"),
							      "origin")), "connect");
	assert_int_equal(num(h_event(tr, "sandbox.exit", 0), "flows"), 4);
	snprintf(pol, sizeof(pol), "/usr/bin/python3 -c 'import json, sys\n"
		 "from jsonschema import Draft202012Validator as V\n"
		 "v = V(json.load(open(\"schemas/trace.schema.json\")))\n"
		 "bad = [e.message[:200] for l in open(sys.argv[1]) for e in v.iter_errors(json.loads(l))]\n"
		 "bad and print(*bad[:5], sep=\"\\n\")\nsys.exit(1 if bad else 0)' %s", h_sh(tp));
	assert_int_equal(system(pol), 0);
	json_decref(tr);
	close(pa.fd);
	unlink(acc);
	unlink(ps);
	unlink(pp);
	unlink(polp);
	unlink(tp);
	free(polp);
	free(tp);
	free(out);
}

/* Everything fd gives until its end: the byte count (fd closed). */
static long long drain_count(int fd)
{
	long long got = 0;
	char b[8192];
	ssize_t k;

	while ((k = read(fd, b, sizeof(b))) > 0)
		got += k;
	close(fd);
	return got;
}

/* fd 1 of ringfence run: a socketpair's end (the harness's output pipe
 * replaced before the exec) */
static int stdout_to(void *arg)
{
	return dup2(*(int *)arg, 1) < 0 ? -1 : 0;
}

/* A unix socket made outside on the command's stdout, a policy that names
 * no unix peer (unix []): the bytes the command writes there leave the
 * sandbox, so the unix byte programs are attached for it and they are
 * counted (5000 written: one unnamed flow, inbound false). Its twin: the
 * same run with a pipe on stdout has no unix flow. */
static void stdio_unix_counted(void **state)
{
	char *tp = h_tempfile("trace", NULL), *tp2 = h_tempfile("trace", NULL), *polp;
	const char *argv[] = { "/bin/sh", "-c", "head -c 5000 /dev/zero", NULL };
	int sp[2], pp[2];
	struct h_proc pr;
	json_t *tr, *f;

	(void)state;
	if (!unix_hooks() || !unix_byte_tps())
		skip();
	polp = h_tempfile("policy", "{\"version\":1,\"id\":\"ledger-stdio\",\"files\":"
			  "\"unrestricted\",\"exec\":\"unrestricted\",\"network\":{"
			  "\"connect\":[],\"unix\":[]}}");
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	pr = h_spawn_with(polp, tp, NULL, argv, stdout_to, &sp[1]);
	close(sp[1]);
	assert_int_equal(drain_count(sp[0]), 5000);
	assert_int_equal(h_wait(pr, NULL, NULL), 0);
	tr = h_trace(tp);
	f = flow_of(tr, "", "unix");
	assert_non_null(f);
	assert_int_equal(num(f, "bytes_sent"), 5000);
	assert_int_equal(num(f, "bytes_received"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(f, "unix"),
							      "origin")), "unnamed");
	json_decref(tr);

	/* the twin: a pipe */
	assert_int_equal(pipe2(pp, O_CLOEXEC), 0);
	pr = h_spawn_with(polp, tp2, NULL, argv, stdout_to, &pp[1]);
	close(pp[1]);
	assert_int_equal(drain_count(pp[0]), 5000);
	assert_int_equal(h_wait(pr, NULL, NULL), 0);
	tr = h_trace(tp2);
	assert_null(flow_of(tr, "", "unix"));
	json_decref(tr);
	unlink(polp);
	unlink(tp);
	unlink(tp2);
	free(polp);
	free(tp);
	free(tp2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(upload_counted_exactly),
		cmocka_unit_test(flows_forgotten_at_the_end),
		cmocka_unit_test(egress_budget_stops_upload),
		cmocka_unit_test(egress_budget_allows_within),
		cmocka_unit_test(egress_budget_refuses_datagrams),
		cmocka_unit_test(unix_peers_counted),
		cmocka_unit_test(unix_bytes_counted),
		cmocka_unit_test(unix_bytes_null_without_observe),
		cmocka_unit_test(unix_unconnected_counted),
		cmocka_unit_test(stdio_unix_counted),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
