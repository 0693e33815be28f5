// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The seccomp boundary's refusals reach the supervisor through its
 * SECCOMP_RET_USER_NOTIF listener, so a sandbox that needs no inferred
 * path records runs with no syscall tracepoint attached (privileged):
 *   - network-only sandbox: ptrace and bpf fail EPERM and each is a
 *     process-class kernel.deny (backend seccomp) in the trace, while the
 *     observe programs' links (rf_obs_enter, rf_obs_exit) are not
 *     attached anywhere on the host; the allowed twin gettid works;
 *   - the command cannot add a listener of its own (it could answer the
 *     boundary's refusals after the supervisor's death): EPERM, while a
 *     plain filter (its twin) still installs;
 *   - a sandbox confining files with Landlock still gets the observe
 *     links while it lives;
 *   - the hole rules' refusals are answered and traced the same way: an
 *     IPv6 routing header, another process's priority, an executable
 *     memfd and a metadata write (read-only files) each fail EPERM and are
 *     a kernel.deny line (backend seccomp) naming the syscall and a
 *     decision on the monitor's stream, while their allowed twins work.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "harness.h"
#include "links.h"
#include "pins.h"
#include "rf_abi.h"

/* The unix byte counters' links (socket length tracepoints) while the
 * last run_counting's sandbox was live. */
static int unix_links;

/* `sh -c "rf-sys CALLS; echo ready; sleep 1"` under policy; the observe
 * links counted once it said ready (its sandbox is live then, and the
 * links, if any, were attached before it started); its output and trace. */
static int run_counting(const char *policy, const char *calls, char **ret_out, json_t **ret_trace)
{
	char *pol = h_tempfile("notify", policy), *trace = h_tempfile("notify-trace", NULL);
	char script[512], head[4096] = "", *rest = NULL;
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	struct h_proc p;
	size_t got = 0;
	int links;

	snprintf(script, sizeof(script), "%s %s; echo ready; sleep 1", h_sh(h_tool("rf-sys")), calls);
	p = h_spawn(pol, trace, NULL, argv);
	while (!strstr(head, "ready\n") && got < sizeof(head) - 1) {
		ssize_t k = read(p.out_fd, head + got, sizeof(head) - 1 - got);

		if (k <= 0)
			break;
		got += (size_t)k;
		head[got] = 0;
	}
	assert_non_null(strstr(head, "ready\n"));
	links = h_raw_tp_links("rf_obs_enter") + h_raw_tp_links("rf_obs_exit");
	/* the kernel keeps 15 bytes of a program name */
	unix_links = h_raw_tp_links("rf_obs_unix_sen") + h_raw_tp_links("rf_obs_unix_rec");
	assert_int_equal(h_wait(p, &rest, NULL), 0);
	assert_true(asprintf(ret_out, "%s%s", head, rest) > 0);
	free(rest);
	*ret_trace = h_trace(trace);
	unlink(pol);
	unlink(trace);
	free(pol);
	free(trace);
	return links;
}

static size_t process_denials(json_t *trace, const char *op)
{
	size_t i, n = 0;
	json_t *ev;

	json_array_foreach(trace, i, ev) {
		if (strcmp(json_string_value(json_object_get(ev, "event")) ?: "", "kernel.deny") ||
		    strcmp(json_string_value(json_object_get(ev, "class")) ?: "", "process"))
			continue;
		if (!strcmp(json_string_value(json_object_get(ev, "op")) ?: "", op)) {
			assert_string_equal(json_string_value(json_object_get(ev, "backend")),
					    "seccomp");
			n++;
		}
	}
	return n;
}

/* The kernel.deny lines of op (backend seccomp) naming syscall. */
static size_t hole_denials(json_t *trace, const char *op, const char *syscall)
{
	size_t i, n = 0;
	json_t *ev;

	json_array_foreach(trace, i, ev) {
		json_t *dst = json_object_get(ev, "destination");

		if (strcmp(json_string_value(json_object_get(ev, "event")) ?: "", "kernel.deny") ||
		    strcmp(json_string_value(json_object_get(ev, "op")) ?: "", op))
			continue;
		assert_string_equal(json_string_value(json_object_get(ev, "backend")), "seccomp");
		assert_string_equal(json_string_value(json_object_get(dst, "syscall")), syscall);
		n++;
	}
	return n;
}

/* Records on the monitor's stream (the pinned ring buffer) of an op. */
struct stream_count {
	uint32_t op;
	int n;
};

static int on_stream(void *ctx, void *data, size_t len)
{
	struct stream_count *c = ctx;
	const struct rf_event *ev = data;

	if (len >= sizeof(*ev) && ev->op == c->op && ev->kind == RF_EV_DECISION &&
	    ev->verdict == RF_VERDICT_DENIED && (ev->flags & RF_EVF_LISTENER))
		c->n++;
	return 0;
}

static void test_hole_refusals_traced(void **state)
{
	struct stream_count routes = { .op = RF_OP_ROUTE_SOCKOPT };
	struct ring_buffer *rb;
	char *out;
	json_t *trace;
	int fd;

	(void)state;
	fd = rf_pins__open_map(RF_PIN_EVENTS);  /* pinned by the earlier runs */
	assert_true(fd >= 0);
	rb = ring_buffer__new(fd, on_stream, &routes, NULL);
	assert_non_null(rb);
	ring_buffer__consume(rb);
	routes.n = 0;
	run_counting("{\"version\":1,\"id\":\"notify-holes\",\"files\":{\"read\":[\"/\"]},"
		     "\"exec\":[\"/\"],\"network\":{\"connect\":[],\"unix\":[]}}",
		     "rthdr pktinfo setprio_parent setprio_self memfd_exec memfd_noexec "
		     "fchmod_pipe", &out, &trace);
	assert_string_equal(h_result(out, "rthdr"), "EPERM");
	assert_string_equal(h_result(out, "pktinfo"), "ok");
	assert_int_equal(hole_denials(trace, "route_sockopt", "setsockopt"), 1);
	assert_string_equal(h_result(out, "setprio_parent"), "EPERM");
	assert_string_equal(h_result(out, "setprio_self"), "ok");
	assert_int_equal(hole_denials(trace, "setnice", "setpriority"), 1);
	assert_string_equal(h_result(out, "memfd_exec"), "EPERM");
	assert_string_equal(h_result(out, "memfd_noexec"), "ok");
	assert_int_equal(hole_denials(trace, "memfd_create", "memfd_create"), 1);
	assert_string_equal(h_result(out, "fchmod_pipe"), "EPERM");
	assert_int_equal(hole_denials(trace, "chmod", "fchmod"), 1);
	ring_buffer__consume(rb);
	assert_int_equal(routes.n, 1);
	ring_buffer__free(rb);
	close(fd);
	json_decref(trace);
	free(out);
}

static void test_network_only_no_tracepoint(void **state)
{
	char *out;
	json_t *trace;
	int links;

	(void)state;
	links = run_counting("{\"version\":1,\"id\":\"notify-net\",\"files\":\"unrestricted\","
			     "\"exec\":\"unrestricted\",\"network\":{\"connect\":[],\"unix\":[]}}",
			     "gettid ptrace bpf", &out, &trace);
	assert_int_equal(links, 0);
	/* no unix peer can be reached: no socket of the host pays for
	 * counting unix bytes either */
	assert_int_equal(unix_links, 0);
	assert_string_equal(h_result(out, "gettid"), "ok");
	assert_string_equal(h_result(out, "ptrace"), "EPERM");
	assert_string_equal(h_result(out, "bpf"), "EPERM");
	assert_int_equal(process_denials(trace, "ptrace"), 1);
	assert_int_equal(process_denials(trace, "bpf"), 1);
	json_decref(trace);
	free(out);
}

static void test_no_listener_of_its_own(void **state)
{
	char *out;
	json_t *trace;

	(void)state;
	run_counting("{\"version\":1,\"id\":\"notify-listener\",\"files\":\"unrestricted\","
		     "\"exec\":\"unrestricted\",\"network\":\"unrestricted\"}",
		     "seccomp_filter seccomp_listener ptrace", &out, &trace);
	assert_string_equal(h_result(out, "seccomp_filter"), "ok");
	assert_string_equal(h_result(out, "seccomp_listener"), "EPERM");
	/* still answered by the supervisor under the command's own filter */
	assert_string_equal(h_result(out, "ptrace"), "EPERM");
	assert_int_equal(process_denials(trace, "ptrace"), 1);
	json_decref(trace);
	free(out);
}

static void test_landlock_files_attach(void **state)
{
	char *out;
	json_t *trace;
	int links;

	(void)state;
	links = run_counting("{\"version\":1,\"id\":\"notify-files\",\"files\":{\"read\":[\"/\"],"
			     "\"write\":[\"/dev/null\"]},\"exec\":\"unrestricted\","
			     "\"network\":\"unrestricted\"}",
			     "gettid", &out, &trace);
	assert_int_equal(links, 1);  /* sys_exit: sys_enter is for audit sandboxes */
	assert_string_equal(h_result(out, "gettid"), "ok");
	json_decref(trace);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network_only_no_tracepoint),
		cmocka_unit_test(test_no_listener_of_its_own),
		cmocka_unit_test(test_landlock_files_attach),
		cmocka_unit_test(test_hole_refusals_traced),
	};

	if (harness_require_root())
		return 0;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
