/*
 * Host integration tests: `ringfence run` against the real kernel. Every
 * enforcement check is a process inside the sandbox attempting the
 * operation and seeing the kernel's answer (EPERM or success).
 */
#include "harness.h"

#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <bpf/bpf.h>

#include "backends/enforcer.h"
#include "backends/sbmaps.h"

#define P_ALLOW 18180   /* allowed TCP port */
#define P_DENY 18181    /* denied TCP port */
#define P_RANGE_LO 18190
#define P_RANGE_HI 18192

static int l4_allow = -1, l4_deny = -1, l6_allow = -1, l6_deny = -1, l4_range[3];
static int lu_ok = -1, lu_no = -1, la_ok = -1, la_no = -1;

#define UNIX_OK "/tmp/rf-test-ok.sock"
#define UNIX_NO "/tmp/rf-test-no.sock"

#define NET_POLICY(id, mode)                                                             \
	"{\"version\":1,\"id\":\"" id "\",\"mode\":\"" mode "\","                         \
	"\"files\":\"unrestricted\",\"exec\":\"unrestricted\","                           \
	"\"network\":{\"connect\":[\"127.0.0.1:18180\",\"[::1]:18180\","                  \
	"\"127.0.0.0/8:18190-18192\",\"0.0.0.0/0:80\"],"                                  \
	"\"unix\":[\"" UNIX_OK "\",\"@rf-test-ok\"]}}"

static int setup(void **state)
{
	int i;

	(void)state;
	if (harness_require_root())
		return -1;
	l4_allow = h_listen_inet(AF_INET, "127.0.0.1", P_ALLOW, SOCK_STREAM);
	l4_deny = h_listen_inet(AF_INET, "127.0.0.1", P_DENY, SOCK_STREAM);
	l6_allow = h_listen_inet(AF_INET6, "::1", P_ALLOW, SOCK_STREAM);
	l6_deny = h_listen_inet(AF_INET6, "::1", P_DENY, SOCK_STREAM);
	for (i = 0; i < 3; i++)
		l4_range[i] = h_listen_inet(AF_INET, "127.0.0.1", P_RANGE_LO + i, SOCK_STREAM);
	lu_ok = h_listen_unix(UNIX_OK);
	lu_no = h_listen_unix(UNIX_NO);
	la_ok = h_listen_unix("@rf-test-ok");
	la_no = h_listen_unix("@rf-test-no");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(UNIX_OK);
	unlink(UNIX_NO);
	return 0;
}

static char *trace_path(void)
{
	return h_tempfile("trace", NULL);
}

/* TCP over IPv4, IPv6 and IPv4-mapped IPv6; UDP sendto; CIDR + range. */
static void sandbox_inet_connects_denied_unless_listed(void **state)
{
	const char *argv[] = { h_tool("rf-net"),
		"tcp", "127.0.0.1", "18180", "tcp", "127.0.0.1", "18181",
		"tcp", "::1", "18180", "tcp", "::1", "18181",
		"tcp", "::ffff:127.0.0.1", "18180", "tcp", "::ffff:127.0.0.1", "18181",
		"udp", "127.0.0.1", "18181", "udp", "127.0.0.9", "18191",
		"udpconn", "127.0.0.1", "18181", "tfo", "127.0.0.1", "18181",
		"tcp", "127.0.0.1", "18190", "tcp", "127.0.0.1", "18192",
		"tcp", "127.0.0.1", "18193", "tcp", "::1", "18190", NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("net", "enforce"), NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18180"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(out, "tcp ::1:18180"), "ok");
	assert_string_equal(h_result(out, "tcp ::1:18181"), "EPERM");
	assert_string_equal(h_result(out, "tcp ::ffff:127.0.0.1:18180"), "ok");
	assert_string_equal(h_result(out, "tcp ::ffff:127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(out, "udp 127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(out, "udp 127.0.0.9:18191"), "ok");
	assert_string_equal(h_result(out, "udpconn 127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(out, "tfo 127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18190"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18192"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18193"), "EPERM");
	/* the IPv4 CIDR does not cover IPv6 loopback */
	assert_string_equal(h_result(out, "tcp ::1:18190"), "EPERM");
	free(out);
}

/* Denied in the hook, before any packet: safe to try from a test host. */
static void sandbox_metadata_and_link_local_need_exact_entry(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "169.254.169.254", "80",
			       "tcp", "fe80::1", "80", "udp", "169.254.1.1", "80", NULL };
	char *out = NULL, *tp = trace_path();
	json_t *tr, *ev;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("meta", "enforce"), tp, argv, &out, NULL), 0);
	/* 0.0.0.0/0:80 is allowed, yet never reaches metadata/link-local */
	assert_string_equal(h_result(out, "tcp 169.254.169.254:80"), "EPERM");
	assert_string_equal(h_result(out, "tcp fe80::1:80"), "EPERM");
	assert_string_equal(h_result(out, "udp 169.254.1.1:80"), "EPERM");
	tr = h_trace(tp);
	ev = h_event(tr, "kernel.deny", 0);
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "reason")),
			    "link-local-or-metadata-needs-exact-entry");
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

static void sandbox_unix_connect_denied_unless_listed(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "unix", UNIX_OK, "unix", UNIX_NO,
			       "unix", "@rf-test-ok", "unix", "@rf-test-no",
			       "unix", "/tmp/../tmp/rf-test-ok.sock", "unix", "/tmp//rf-test-ok.sock",
			       "unixdgram", UNIX_NO, NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("unix", "enforce"), NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "unix " UNIX_OK), "ok");
	assert_string_equal(h_result(out, "unix " UNIX_NO), "EPERM");
	assert_string_equal(h_result(out, "unix @rf-test-ok"), "ok");
	assert_string_equal(h_result(out, "unix @rf-test-no"), "EPERM");
	/* unresolved forms of an allowed path are refused, not matched */
	assert_string_equal(h_result(out, "unix /tmp/../tmp/rf-test-ok.sock"), "EPERM");
	assert_string_equal(h_result(out, "unix /tmp//rf-test-ok.sock"), "EPERM");
	assert_string_equal(h_result(out, "unixdgram " UNIX_NO), "EPERM");
	free(out);
}

/* Socket kinds the connect hooks do not all see are refused outright. */
static void sandbox_non_tcp_udp_inet_sockets_refused(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "raw4", "ping4", NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("proto", "enforce"), NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "raw4 -"), "EPERM");
	assert_string_not_equal(h_result(out, "ping4 -"), "ok");
	free(out);
}

/* A uid-0 sandbox cannot leave its cgroup: cgroup2 is read-only in its
 * mount namespace, and bpffs is covered by an empty read-only tmpfs that
 * it cannot take away (umount2, lazy or not, is refused). */
static void sandbox_cannot_leave_its_cgroup(void **state)
{
	char procs[600], sub[600], mnt[512];
	const char *argv[] = { h_tool("rf-net"), "write", procs, "0", "tcp", "127.0.0.1", "18181",
			       NULL };
	const char *argv2[] = { "/bin/sh", "-c", sub, NULL };
	char *out = NULL;

	(void)state;
	snprintf(mnt, sizeof(mnt), "%s", h_cgroup2_mount());
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", mnt);
	/* uid 0: the read-only cgroup2 mount, not DAC, refuses it */
	assert_int_equal(h_run_with(NET_POLICY("escape", "enforce"), NULL, H_AS_ROOT, argv, &out,
				    NULL), 0);
	assert_string_equal(h_result(out, (snprintf(sub, sizeof(sub), "write %s", procs), sub)),
			    "EROFS");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
	free(out);
	snprintf(sub, sizeof(sub), "mkdir %s/ringfence/escape-x 2>/dev/null && echo made; "
		 "umount /sys/fs/bpf 2>/dev/null && echo unmounted; "
		 "umount -l /sys/fs/bpf 2>/dev/null && echo unmounted; "
		 "ls -A /sys/fs/bpf | wc -l; grep -c ' /sys/fs/bpf .* ringfence-hidden ' "
		 "/proc/self/mountinfo", mnt);
	assert_int_equal(h_run(NET_POLICY("escape", "enforce"), NULL, argv2, &out, NULL), 0);
	assert_null(strstr(out, "made"));
	assert_null(strstr(out, "unmounted"));
	assert_string_equal(out, "0\n1\n");
	free(out);
}

/* The same denied port, at the same moment, from outside the sandbox. */
static void process_outside_is_unaffected(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181", "sleep", "1500",
			       "tcp", "127.0.0.1", "18181", NULL };
	char *policy = h_tempfile("policy", NET_POLICY("outside", "enforce")), *out = NULL;
	struct h_proc p = h_spawn(policy, NULL, NULL, argv);

	(void)state;
	usleep(600 * 1000);
	assert_int_equal(h_connect_tcp4("127.0.0.1", P_DENY), 0);
	assert_int_equal(h_wait(p, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
	unlink(policy);
	free(policy);
	free(out);
}

static void audit_mode_allows_and_records(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181",
			       "unix", UNIX_NO, NULL };
	char *out = NULL, *tp = trace_path();
	json_t *tr, *ev, *cfg, *ex;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("audit", "audit"), tp, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "ok");
	assert_string_equal(h_result(out, "unix " UNIX_NO), "ok");
	tr = h_trace(tp);
	assert_int_equal(h_count_events(tr, "kernel.deny"), 2);
	ev = h_event(tr, "kernel.deny", 0);
	assert_string_equal(json_string_value(json_object_get(ev, "verdict")), "audited");
	cfg = h_event(tr, "sandbox.configure", 0);
	assert_string_equal(json_string_value(json_object_get(cfg, "mode")), "audit");
	/* audit is never reported as enforcement */
	assert_false(json_is_true(json_object_get(json_object_get(json_object_get(cfg, "classes"),
								  "network"), "enforced")));
	ex = h_event(tr, "sandbox.exit", 0);
	assert_int_equal(json_integer_value(json_object_get(ex, "denials_total")), 2);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* Two live sandboxes: each sees only its own allowances. */
static void concurrent_sandboxes_are_isolated(void **state)
{
	const char *pa = "{\"version\":1,\"id\":\"iso-a\",\"files\":\"unrestricted\","
			 "\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18180\"]}}";
	const char *pb = "{\"version\":1,\"id\":\"iso-b\",\"files\":\"unrestricted\","
			 "\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"127.0.0.1:18181\"]}}";
	const char *argv[] = { h_tool("rf-net"), "sleep", "700", "tcp", "127.0.0.1", "18180",
			       "tcp", "127.0.0.1", "18181", "sleep", "300", NULL };
	char *fa = h_tempfile("pa", pa), *fb = h_tempfile("pb", pb), *oa = NULL, *ob = NULL;
	struct h_proc a = h_spawn(fa, NULL, NULL, argv), b = h_spawn(fb, NULL, NULL, argv);

	(void)state;
	assert_int_equal(h_wait(a, &oa, NULL), 0);
	assert_int_equal(h_wait(b, &ob, NULL), 0);
	assert_string_equal(h_result(oa, "tcp 127.0.0.1:18180"), "ok");
	assert_string_equal(h_result(oa, "tcp 127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(ob, "tcp 127.0.0.1:18180"), "EPERM");
	assert_string_equal(h_result(ob, "tcp 127.0.0.1:18181"), "ok");
	unlink(fa);
	unlink(fb);
	free(fa);
	free(fb);
	free(oa);
	free(ob);
}

static void network_omitted_denies_everything(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18180",
			       "unix", UNIX_OK, "udp", "127.0.0.1", "18180", NULL };
	char *out = NULL;

	(void)state;
	assert_int_equal(h_run("{\"version\":1,\"id\":\"none\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\"}", NULL, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18180"), "EPERM");
	assert_string_equal(h_result(out, "unix " UNIX_OK), "EPERM");
	assert_string_equal(h_result(out, "udp 127.0.0.1:18180"), "EPERM");
	free(out);
}

static void network_unrestricted_is_not_confined(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181",
			       "unix", UNIX_NO, NULL };
	char *out = NULL, *tp = trace_path();
	json_t *tr, *net;

	(void)state;
	assert_int_equal(h_run("{\"version\":1,\"id\":\"open\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}",
			       tp, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "ok");
	assert_string_equal(h_result(out, "unix " UNIX_NO), "ok");
	tr = h_trace(tp);
	net = json_object_get(json_object_get(h_event(tr, "sandbox.configure", 0), "classes"),
			      "network");
	assert_string_equal(json_string_value(json_object_get(net, "requested")), "unrestricted");
	assert_false(json_is_true(json_object_get(net, "enforced")));
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* A DNS name is resolved by the supervisor; its addresses are enforced
 * and written to the trace. An unresolvable name fails closed. */
static void dns_names_resolved_outside_and_traced(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18180",
			       "tcp", "127.0.0.1", "18181", NULL };
	const char *argv_true[] = { "/bin/true", NULL };
	char *out = NULL, *err = NULL, *tp = trace_path();
	json_t *tr, *dec, *dst;

	(void)state;
	assert_int_equal(h_run("{\"version\":1,\"id\":\"dns\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"network\":{\"connect\":[\"localhost:18180\"],"
			       "\"dns\":\"once\"}}",
			       tp, argv, &out, NULL), 0);
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18180"), "ok");
	assert_string_equal(h_result(out, "tcp 127.0.0.1:18181"), "EPERM");
	tr = h_trace(tp);
	dec = h_event(tr, "network.decision", 0);
	dst = json_array_get(json_object_get(dec, "destinations"), 0);
	assert_string_equal(json_string_value(json_object_get(dst, "kind")), "name");
	assert_true(json_array_size(json_object_get(dst, "enforced_addresses")) >= 1);
	json_decref(tr);
	free(out);
	assert_int_equal(h_run("{\"version\":1,\"id\":\"dns\",\"files\":\"unrestricted\","
			       "\"exec\":\"unrestricted\",\"network\":{\"connect\":"
			       "[\"does-not-exist.invalid:443\"],\"dns\":\"once\"}}", NULL, argv_true,
			       &out, &err),
			 126);
	assert_non_null(strstr(err, "does-not-exist.invalid"));
	free(out);
	free(err);
	unlink(tp);
	free(tp);
}

/* Every denial is in the trace with who and where; totals are exact. */
static void denials_appear_in_trace(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181", "udp", "::1", "9",
			       "unix", "@rf-test-no", NULL };
	char *out = NULL, *tp = trace_path();
	json_t *tr, *ev, *dst, *ex;
	size_t i;
	int seen_tcp = 0, seen_udp = 0, seen_unix = 0;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("trace", "enforce"), tp, argv, &out, NULL), 0);
	tr = h_trace(tp);
	for (i = 0; (ev = h_event(tr, "kernel.deny", i)); i++) {
		dst = json_object_get(ev, "destination");
		assert_string_equal(json_string_value(json_object_get(ev, "verdict")), "denied");
		assert_string_equal(json_string_value(json_object_get(ev, "comm")), "rf-net");
		assert_true(json_integer_value(json_object_get(ev, "pid")) > 0);
		assert_true(json_integer_value(json_object_get(ev, "cgroup_id")) > 0);
		if (json_integer_value(json_object_get(dst, "port")) == 18181)
			seen_tcp++;
		if (json_integer_value(json_object_get(dst, "port")) == 9 &&
		    !strcmp(json_string_value(json_object_get(ev, "op")), "sendmsg6"))
			seen_udp++;
		if (json_object_get(dst, "path") &&
		    !strcmp(json_string_value(json_object_get(dst, "path")), "@rf-test-no"))
			seen_unix++;
	}
	assert_int_equal(seen_tcp, 1);
	assert_int_equal(seen_udp, 1);
	assert_int_equal(seen_unix, 1);
	ex = h_event(tr, "sandbox.exit", 0);
	assert_int_equal(json_integer_value(json_object_get(ex, "denials_total")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ex, "denials"), "network")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(ex, "denials"), "unix")), 1);
	assert_int_equal(json_integer_value(json_object_get(ex, "denials_not_in_trace")), 0);
	/* event order: plan, decision, configure, ..., exit; seq increasing */
	assert_string_equal(json_string_value(json_object_get(json_array_get(tr, 0), "event")),
			    "sandbox.plan");
	for (i = 0; i < json_array_size(tr); i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(tr, i), "seq")),
				 (json_int_t)i);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* More denials than the kernel keeps as samples: the trace says so. */
static void many_denials_bounded_sample_exact_total(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "burst", "300", "127.0.0.1", "18181", NULL };
	char *out = NULL, *tp = trace_path();
	json_t *tr, *ex;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("burst", "enforce"), tp, argv, &out, NULL), 0);
	assert_non_null(strstr(out, "EPERM=300"));
	tr = h_trace(tp);
	ex = h_event(tr, "sandbox.exit", 0);
	assert_int_equal(json_integer_value(json_object_get(ex, "denials_total")), 300);
	assert_int_equal(json_integer_value(json_object_get(ex, "denials_in_trace")), 256);
	assert_int_equal(json_integer_value(json_object_get(ex, "denials_not_in_trace")), 44);
	assert_int_equal(h_count_events(tr, "kernel.deny"), 256);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* After the run: no cgroup directory, no map entry, no registry file. */
static void cgroup_and_map_entries_gone_after_exit(void **state)
{
	const char *argv[] = { h_tool("rf-net"), "tcp", "127.0.0.1", "18181", NULL };
	char *out = NULL, *tp = trace_path(), reg[600];
	struct rf_enforcer *enf = NULL;
	struct rf_sandbox sb;
	json_t *tr, *cfg;
	const char *path, *name;
	uint64_t cgid;
	struct stat st;

	(void)state;
	assert_int_equal(h_run(NET_POLICY("gone", "enforce"), tp, argv, &out, NULL), 0);
	tr = h_trace(tp);
	cfg = h_event(tr, "sandbox.configure", 0);
	path = json_string_value(json_object_get(json_object_get(cfg, "cgroup"), "path"));
	cgid = (uint64_t)json_integer_value(json_object_get(json_object_get(cfg, "cgroup"), "id"));
	name = json_string_value(json_object_get(cfg, "sandbox"));
	assert_non_null(path);
	assert_true(stat(path, &st) < 0 && errno == ENOENT);
	snprintf(reg, sizeof(reg), "/run/ringfence/sandboxes/%s.json", name);
	assert_true(stat(reg, &st) < 0 && errno == ENOENT);
	assert_int_equal(enforcer__open_pinned(&enf), 0);
	assert_int_equal(sbmaps__read_sandbox(enf, cgid, &sb), -ENOENT);
	/* no pool slot is the sandbox's any more */
	{
		uint32_t slot;

		assert_int_equal(sbmaps__slot_of(enf, cgid, &slot), -ENOENT);
	}
	enforcer__close(enf);
	json_decref(tr);
	unlink(tp);
	free(tp);
	free(out);
}

/* ringfence started inside a cgroup namespace whose cgroup2 mount is a
 * subtree: sandboxes sit deeper in the real hierarchy than the mount
 * shows, and the pinned programs must be attached where they are. */
static void enforced_inside_a_cgroup_namespace(void **state)
{
	char mnt[512], outer[700], procs[800], sub[800];
	char *policy = h_tempfile("policy", NET_POLICY("cgns", "enforce"));
	int out[2], st;
	pid_t pid;
	char *text;

	(void)state;
	snprintf(mnt, sizeof(mnt), "%s", h_cgroup2_mount());
	snprintf(outer, sizeof(outer), "%s/rf-cgns-%d", mnt, (int)getpid());
	assert_true(mkdir(outer, 0755) == 0 || errno == EEXIST);
	assert_int_equal(pipe(out), 0);
	pid = fork();
	if (pid == 0) {
		char self[32];
		int fd;

		snprintf(procs, sizeof(procs), "%s/cgroup.procs", outer);
		fd = open(procs, O_WRONLY);
		snprintf(self, sizeof(self), "%d", (int)getpid());
		if (fd < 0 || write(fd, self, strlen(self)) < 0)
			_exit(90);
		close(fd);
		if (unshare(CLONE_NEWCGROUP | CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    umount2(mnt, MNT_DETACH) || mount("none", mnt, "cgroup2", 0, NULL))
			_exit(91);
		dup2(out[1], 1);
		execl(h_ringfence(), h_ringfence(), "run", "-q", "--policy", policy, "--",
		      h_tool("rf-net"), "tcp", "127.0.0.1", "18181", "tcp", "127.0.0.1", "18180",
		      (char *)NULL);
		_exit(92);
	}
	close(out[1]);
	text = h_read_all(out[0]);
	waitpid(pid, &st, 0);
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_string_equal(h_result(text, "tcp 127.0.0.1:18181"), "EPERM");
	assert_string_equal(h_result(text, "tcp 127.0.0.1:18180"), "ok");
	snprintf(sub, sizeof(sub), "%s/ringfence", outer);
	rmdir(sub);
	rmdir(outer);
	unlink(policy);
	free(policy);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sandbox_inet_connects_denied_unless_listed),
		cmocka_unit_test(sandbox_metadata_and_link_local_need_exact_entry),
		cmocka_unit_test(sandbox_unix_connect_denied_unless_listed),
		cmocka_unit_test(sandbox_non_tcp_udp_inet_sockets_refused),
		cmocka_unit_test(sandbox_cannot_leave_its_cgroup),
		cmocka_unit_test(process_outside_is_unaffected),
		cmocka_unit_test(audit_mode_allows_and_records),
		cmocka_unit_test(concurrent_sandboxes_are_isolated),
		cmocka_unit_test(network_omitted_denies_everything),
		cmocka_unit_test(network_unrestricted_is_not_confined),
		cmocka_unit_test(dns_names_resolved_outside_and_traced),
		cmocka_unit_test(denials_appear_in_trace),
		cmocka_unit_test(many_denials_bounded_sample_exact_total),
		cmocka_unit_test(cgroup_and_map_entries_gone_after_exit),
		cmocka_unit_test(enforced_inside_a_cgroup_namespace),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, setup, teardown);
}
