/*
 * Host tests: fds 0-2 vetted by type (issue 21). A run whose stdin,
 * stdout or stderr is an fd that acts with its creator's context (an
 * io_uring made outside, epoll, eventfd, signalfd, timerfd, pidfd, a bpf
 * map, a namespace, a directory, an O_PATH fd) is refused with exit 126
 * and one line naming the fd; its twins (a pipe, /dev/null, a file, a
 * memfd) start as before.
 */
#include "harness.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>

#define OPEN_POLICY                                                            \
	"{\"version\":1,\"id\":\"stdio\",\"files\":\"unrestricted\","          \
	"\"exec\":\"unrestricted\",\"network\":{\"connect\":[]}}"

static int make_io_uring(void)
{
	struct io_uring_params p = { 0 };

	return (int)syscall(SYS_io_uring_setup, 4, &p);
}

static int make_epoll(void) { return epoll_create1(0); }
static int make_eventfd(void) { return eventfd(0, 0); }
static int make_timerfd(void) { return timerfd_create(CLOCK_MONOTONIC, 0); }
static int make_pidfd(void) { return (int)syscall(SYS_pidfd_open, getpid(), 0); }
static int make_netns(void) { return open("/proc/self/ns/net", O_RDONLY); }
static int make_dir(void) { return open("/", O_RDONLY | O_DIRECTORY); }
static int make_opath(void) { return open("/etc/passwd", O_PATH); }

static int make_signalfd(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	return signalfd(-1, &s, 0);
}

static int make_bpf_map(void)
{
	union bpf_attr a = { .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 4,
			     .max_entries = 1 };

	return (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

static int make_devnull(void) { return open("/dev/null", O_RDWR); }
static int make_file(void) { return open("/etc/passwd", O_RDONLY); }
static int make_memfd(void) { return memfd_create("rf-stdio", 0); }

static int make_pipe(void)
{
	int p[2];

	if (pipe(p))
		return -1;
	close(p[1]);
	return p[0];
}

/* `ringfence run` with fd `at` replaced by fd; its exit status and stderr. */
static int run_with_fd(int fd, int at, char **ret_err)
{
	char *policy = h_tempfile("policy", OPEN_POLICY);
	int err[2], st;
	pid_t pid;

	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(err[1], 2);
		dup2(fd, at);
		execl(h_ringfence(), h_ringfence(), "run", "-q", "--policy", policy, "--", "/bin/true",
		      (char *)NULL);
		_exit(99);
	}
	close(err[1]);
	*ret_err = h_read_all(err[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	unlink(policy);
	free(policy);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const struct {
	const char *what;
	int (*make)(void);
	const char *shows;       /* in the refusal line; NULL: the run starts */
} fds[] = {
	{ "io_uring", make_io_uring, "io_uring" },
	{ "epoll", make_epoll, "eventpoll" },
	{ "eventfd", make_eventfd, "eventfd" },
	{ "signalfd", make_signalfd, "signalfd" },
	{ "timerfd", make_timerfd, "timerfd" },
	{ "pidfd", make_pidfd, "fd 0 is" },
	{ "bpf map", make_bpf_map, "bpf-map" },
	{ "net namespace", make_netns, "net:[" },
	{ "directory", make_dir, "fd 0 is /," },
	{ "O_PATH fd", make_opath, "/etc/passwd" },
	{ "pipe", make_pipe, NULL },
	{ "/dev/null", make_devnull, NULL },
	{ "regular file", make_file, NULL },
	{ "memfd", make_memfd, NULL },
};

static void stdin_vetted_by_type(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		int fd = fds[i].make(), rc;
		char *err = NULL;

		if (fd < 0)
			fail_msg("%s: cannot be made here: %s", fds[i].what, strerror(errno));
		rc = run_with_fd(fd, 0, &err);
		close(fd);
		if (fds[i].shows && (rc != 126 || !strstr(err, fds[i].shows) ||
				     !strstr(err, "made outside the sandbox")))
			fail_msg("%s on fd 0: exit %d, expected 126 naming \"%s\":\n%s", fds[i].what,
				 rc, fds[i].shows, err);
		if (!fds[i].shows && rc != 0)
			fail_msg("%s on fd 0: exit %d, expected 0:\n%s", fds[i].what, rc, err);
		free(err);
	}
}

/* stdout and stderr too: an io_uring on fd 1 or 2 is refused the same. */
static void stdout_and_stderr_vetted(void **state)
{
	int at;

	(void)state;
	for (at = 1; at <= 2; at++) {
		int fd = make_io_uring(), rc;
		char *err = NULL, want[16];

		assert_true(fd >= 0);
		rc = run_with_fd(fd, at, &err);
		close(fd);
		snprintf(want, sizeof(want), "fd %d is", at);
		/* with fd 2 taken the line has nowhere to go: the status says it */
		if (rc != 126 || (at == 1 && !strstr(err, want)))
			fail_msg("io_uring on fd %d: exit %d:\n%s", at, rc, err);
		free(err);
	}
}

/* The plan's gaps for a run of /bin/true with fd 0 replaced by fd. */
static bool passed_socket_gap(int fd)
{
	char *policy = h_tempfile("policy", OPEN_POLICY), *trace = h_tempfile("trace", "");
	json_t *t, *gaps, *g;
	bool gap = false;
	int st;
	size_t i;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 1);
		dup2(null, 2);
		dup2(fd, 0);
		execl(h_ringfence(), h_ringfence(), "run", "-q", "--policy", policy, "--trace", trace,
		      "--", "/bin/true", (char *)NULL);
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	t = h_trace(trace);
	gaps = json_object_get(json_object_get(h_event(t, "sandbox.plan", 0), "plan"), "gaps");
	assert_non_null(gaps);
	json_array_foreach(gaps, i, g)
		gap |= !strcmp(json_string_value(json_object_get(g, "gap")), "net.passed-socket");
	json_decref(t);
	unlink(policy);
	unlink(trace);
	free(policy);
	free(trace);
	return gap;
}

/* BPF-LSM is an active LSM here (the VMs; never the development host). */
static bool bpf_lsm_active(void)
{
	char buf[256] = ",";
	FILE *f = fopen("/sys/kernel/security/lsm", "r");

	if (f) {
		if (!fgets(buf + 1, sizeof(buf) - 2, f))
			buf[1] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	strcat(buf, ",");
	return strstr(buf, ",bpf,") != NULL;
}

/* A connected unix socket on fd 0 starts the run (its peer is the
 * caller's), but its peer could hand sockets in over it: where no BPF-LSM
 * program refuses them, the run's plan says so (net.passed-socket); with
 * /dev/null there, the same policy lists no such gap. */
static void stdin_unix_socket_is_a_stated_gap(void **state)
{
	bool lsm = bpf_lsm_active();
	int sp[2], null = open("/dev/null", O_RDWR);

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	if (passed_socket_gap(sp[0]) == lsm)
		fail_msg("a unix socket on fd 0: gap net.passed-socket %s (BPF-LSM %d)",
			 lsm ? "listed" : "not listed", lsm);
	if (passed_socket_gap(null))
		fail_msg("/dev/null on fd 0: gap net.passed-socket listed");
	close(sp[0]);
	close(sp[1]);
	close(null);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stdin_vetted_by_type),
		cmocka_unit_test(stdout_and_stderr_vetted),
		cmocka_unit_test(stdin_unix_socket_is_a_stated_gap),
	};

	if (harness_require_root())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
