/* supervisor/deny_text: denials as lines for humans, and the -v limits. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "observe/deny_text.h"
#include "log.h"

static struct rf_event event(uint32_t class, uint32_t op, uint32_t verdict, uint32_t reason)
{
	struct rf_event ev = { .kind = RF_EV_DECISION, .class = class, .op = op,
			       .verdict = verdict, .reason = reason };
	return ev;
}

static void set_path(struct rf_event *ev, const char *p, size_t n)
{
	memcpy(ev->path, p, n);
	ev->path_len = n;
}

static const char *text(const struct rf_event *ev)
{
	static char buf[RF_DENY_TEXT_LEN];

	memset(buf, 'X', sizeof(buf));
	deny_text__format(ev, buf, sizeof(buf));
	assert_true(strlen(buf) < sizeof(buf));
	return buf;
}

static void file_open_read_and_write(void **state)
{
	struct rf_event ev = event(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_VERDICT_AUDITED,
				   RF_REASON_NO_RULE);

	(void)state;
	set_path(&ev, "/etc/shadow", 11);
	ev.need = RF_ACC_READ;
	assert_string_equal(text(&ev), "audited: file open /etc/shadow read (not in files.read)");
	ev.verdict = RF_VERDICT_DENIED;
	ev.need = RF_ACC_READ | RF_ACC_WRITE;
	assert_string_equal(text(&ev), "denied: file open /etc/shadow read,write "
				       "(not in files.read, files.write)");
	/* a rule grants read: only the write is missing */
	ev.reason = RF_REASON_ACCESS;
	ev.have = RF_ACC_READ;
	assert_string_equal(text(&ev), "denied: file open /etc/shadow read,write "
				       "(not in files.write)");
	ev = event(RF_CLASS_FILE, RF_OP_UNLINK, RF_VERDICT_DENIED, RF_REASON_TOO_LONG);
	set_path(&ev, "/tmp/x", 6);
	ev.need = RF_ACC_WRITE;
	assert_string_equal(text(&ev), "denied: file unlink /tmp/x write (too long)");
}

static void exec_names_the_op_once(void **state)
{
	const char *ld = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";
	struct rf_event ev = event(RF_CLASS_EXEC, RF_OP_EXEC, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);

	(void)state;
	set_path(&ev, ld, strlen(ld));
	ev.need = RF_ACC_EXEC;
	assert_string_equal(text(&ev), "denied: exec /usr/lib/x86_64-linux-gnu/"
				       "ld-linux-x86-64.so.2 (not in exec)");
	ev.op = RF_OP_MMAP_EXEC;
	ev.verdict = RF_VERDICT_AUDITED;
	assert_string_equal(text(&ev), "audited: exec mmap_exec /usr/lib/x86_64-linux-gnu/"
				       "ld-linux-x86-64.so.2 (not in exec)");
}

static void network_addresses(void **state)
{
	struct rf_event ev = event(RF_CLASS_NET, RF_OP_CONNECT4, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);

	(void)state;
	ev.family = AF_INET;
	ev.port = 443;
	ev.protocol = IPPROTO_TCP;
	inet_pton(AF_INET, "10.0.0.1", ev.addr);
	assert_string_equal(text(&ev), "denied: network connect4 10.0.0.1:443 tcp "
				       "(not in network.connect)");
	ev.reason = RF_REASON_PORT;
	assert_string_equal(text(&ev), "denied: network connect4 10.0.0.1:443 tcp "
				       "(port not allowed)");
	ev = event(RF_CLASS_NET, RF_OP_SENDMSG6, RF_VERDICT_AUDITED, RF_REASON_SENSITIVE);
	ev.family = AF_INET6;
	ev.port = 53;
	ev.protocol = IPPROTO_UDP;
	inet_pton(AF_INET6, "fe80::1", ev.addr);
	assert_string_equal(text(&ev), "audited: network sendmsg6 [fe80::1]:53 udp "
				       "(link local or metadata needs exact entry)");
	/* no address yet: the socket's type and protocol */
	ev = event(RF_CLASS_NET, RF_OP_SOCK_CREATE, RF_VERDICT_DENIED, RF_REASON_PROTOCOL);
	ev.family = AF_INET;
	ev.protocol = (SOCK_RAW << 16) | IPPROTO_ICMP;
	assert_string_equal(text(&ev), "denied: network sock_create ipv4 other icmp "
				       "(protocol not allowed)");
	ev.protocol = (SOCK_DGRAM << 16) | 200;
	assert_string_equal(text(&ev), "denied: network sock_create ipv4 dgram protocol 200 "
				       "(protocol not allowed)");
}

static void unix_pathname_and_abstract(void **state)
{
	struct rf_event ev = event(RF_CLASS_UNIX, RF_OP_CONNECT_UNIX, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);

	(void)state;
	ev.family = AF_UNIX;
	ev.protocol = SOCK_STREAM;
	set_path(&ev, "/run/x.sock", 11);
	assert_string_equal(text(&ev), "denied: unix connect_unix /run/x.sock stream "
				       "(not in network.unix)");
	/* abstract names are bytes: path_len says where they end */
	ev.op = RF_OP_UNIX_SEND_LSM;
	ev.protocol = SOCK_DGRAM;
	set_path(&ev, "@ab\0c", 5);
	assert_string_equal(text(&ev), "denied: unix unix_may_send @ab\\x00c dgram "
				       "(not in network.unix)");
}

static void process_boundary(void **state)
{
	struct rf_event ev = event(RF_CLASS_PROCESS, RF_OP_PTRACE, RF_VERDICT_DENIED,
				   RF_REASON_BOUNDARY);

	(void)state;
	ev.target_pid = 4242;
	ev.arg = 2;
	assert_string_equal(text(&ev), "denied: process ptrace pid 4242 ptrace_mode 2 "
				       "(process boundary)");
	ev = event(RF_CLASS_PROCESS, RF_OP_KILL, RF_VERDICT_AUDITED, RF_REASON_BOUNDARY);
	ev.target_pid = 1;
	ev.arg = 9;
	assert_string_equal(text(&ev), "audited: process kill pid 1 signal 9 (process boundary)");
	ev = event(RF_CLASS_PROCESS, RF_OP_USERNS, RF_VERDICT_DENIED, RF_REASON_BOUNDARY);
	assert_string_equal(text(&ev), "denied: process userns_create (process boundary)");
	ev = event(RF_CLASS_PROCESS, RF_OP_PSEUDO_FS_WRITE, RF_VERDICT_DENIED, RF_REASON_BOUNDARY);
	ev.arg = RF_OP_MKDIR;
	assert_string_equal(text(&ev), "denied: process pseudo_fs_write mkdir (process boundary)");
	ev = event(RF_CLASS_PROCESS, RF_OP_CGROUP_WRITE, RF_VERDICT_DENIED, RF_REASON_BOUNDARY);
	set_path(&ev, "/sys/fs/cgroup/cgroup.procs", 27);
	assert_string_equal(text(&ev), "denied: process cgroup_write /sys/fs/cgroup/cgroup.procs "
				       "(process boundary)");
}

/* 9A's records inferred from failed syscalls say so; an op or reason this
 * build has no name for still renders. */
static void inferred_and_unknown(void **state)
{
	struct rf_event ev = event(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);

	(void)state;
	set_path(&ev, "/tmp/cc1.s", 10);
	ev.need = RF_ACC_WRITE;
	ev.flags = RF_EVF_INFERRED;
	assert_string_equal(text(&ev), "denied: file open /tmp/cc1.s write "
				       "(not in files.write) (inferred)");
	ev = event(RF_CLASS_PROCESS, RF_OP_MAX, RF_VERDICT_DENIED, RF_REASON_MAX);
	ev.flags = RF_EVF_INFERRED;
	assert_string_equal(text(&ev), "denied: process unknown (unknown) (inferred)");
}

static void control_bytes_are_escaped(void **state)
{
	struct rf_event ev = event(RF_CLASS_FILE, RF_OP_CREATE, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);

	(void)state;
	set_path(&ev, "/tmp/a\x1b[2J\n\\b\xc3\xa9", 15);
	ev.need = RF_ACC_WRITE;
	assert_string_equal(text(&ev), "denied: file create /tmp/a\\x1b[2J\\x0a\\\\b\\xc3\\xa9 "
				       "write (not in files.write)");
}

static void long_paths_keep_both_ends(void **state)
{
	struct rf_event ev = event(RF_CLASS_FILE, RF_OP_FILE_OPEN, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);
	char p[RF_EVENT_PATH_LEN];
	const char *t, *dots;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(p); i++)
		p[i] = 'a' + i % 26;
	p[0] = '/';
	memcpy(p + sizeof(p) - 8, "/end.txt", 8);
	set_path(&ev, p, sizeof(p));
	ev.need = RF_ACC_READ;
	t = text(&ev);
	dots = strstr(t, "...");
	assert_non_null(dots);
	assert_int_equal(strncmp(t, "denied: file open /bcdef", 24), 0);
	assert_non_null(strstr(dots, "/end.txt read (not in files.read)"));
	assert_true(strlen(t) < 300);
	/* the worst case, every byte escaped, still fits the line */
	memset(p, 0x01, sizeof(p));
	set_path(&ev, p, sizeof(p));
	ev.flags = RF_EVF_INFERRED;
	t = text(&ev);
	assert_non_null(strstr(t, "\\x01...\\x01"));
	assert_non_null(strstr(t, " read (not in files.read) (inferred)"));
	/* a short buffer is cut, never overrun */
	{
		char small[16];

		deny_text__format(&ev, small, sizeof(small));
		assert_string_equal(small, "denied: file op");
	}
}

/* Run fn with stderr in a file; the lines it wrote. */
static char *capture(void (*fn)(void *), void *arg)
{
	static char out[64 * 1024];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = 0;
	fclose(f);
	return out;
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

struct run_args {
	struct deny_log log;
	bool verbose;
	int n;
	uint64_t step_ms;
	uint64_t unkept;
};

static void add_and_finish(void *arg)
{
	struct run_args *a = arg;
	struct rf_event ev = event(RF_CLASS_NET, RF_OP_CONNECT4, RF_VERDICT_DENIED,
				   RF_REASON_NO_RULE);
	int i;

	ev.family = AF_INET;
	ev.protocol = IPPROTO_TCP;
	inet_pton(AF_INET, "10.0.0.1", ev.addr);
	for (i = 0; i < a->n; i++) {
		ev.port = 1000 + i;
		deny_log__add(&a->log, &ev, a->verbose, 5000 + a->step_ms * i);
	}
	deny_log__finish(&a->log, a->verbose, a->unkept);
}

static void verbose_prints_each_then_rate_limits(void **state)
{
	struct run_args a = { .verbose = true, .n = 3, .step_ms = 10 };
	char *out;

	(void)state;
	rf_log_init("ringfence", 2);
	out = capture(add_and_finish, &a);
	assert_string_equal(out, "ringfence: denied: network connect4 10.0.0.1:1000 tcp "
				 "(not in network.connect)\n"
				 "ringfence: denied: network connect4 10.0.0.1:1001 tcp "
				 "(not in network.connect)\n"
				 "ringfence: denied: network connect4 10.0.0.1:1002 tcp "
				 "(not in network.connect)\n");
	/* a burst in one second: 10 lines, the rest counted */
	memset(&a, 0, sizeof(a));
	a.verbose = true;
	a.n = 200;
	a.unkept = 7;
	out = capture(add_and_finish, &a);
	assert_int_equal(count(out, "denied:"), RF_DENY_PRINT_PER_SEC);
	assert_non_null(strstr(out, "ringfence: 197 more denials not shown; see --trace\n"));
	/* spread over time: the per-run cap */
	memset(&a, 0, sizeof(a));
	a.verbose = true;
	a.n = 200;
	a.step_ms = 50;
	out = capture(add_and_finish, &a);
	assert_int_equal(count(out, "denied:"), RF_DENY_PRINT_PER_RUN);
	assert_non_null(strstr(out, "ringfence: 150 more denials not shown; see --trace\n"));
	assert_int_equal(count(out, "\n"), RF_DENY_PRINT_PER_RUN + 1);
	/* ten a second stays within the limit */
	memset(&a, 0, sizeof(a));
	a.verbose = true;
	a.n = 25;
	a.step_ms = 100;
	out = capture(add_and_finish, &a);
	assert_int_equal(count(out, "denied:"), 25);
	assert_null(strstr(out, "not shown"));
	rf_log_init("ringfence", 1);
}

static void summary_lists_the_first_three(void **state)
{
	struct run_args a = { .n = 5 };
	char *out;

	(void)state;
	rf_log_init("ringfence", 1);
	out = capture(add_and_finish, &a);
	assert_string_equal(out, "ringfence:   denied: network connect4 10.0.0.1:1000 tcp "
				 "(not in network.connect)\n"
				 "ringfence:   denied: network connect4 10.0.0.1:1001 tcp "
				 "(not in network.connect)\n"
				 "ringfence:   denied: network connect4 10.0.0.1:1002 tcp "
				 "(not in network.connect)\n"
				 "ringfence:   and 2 more; see --trace\n");
	memset(&a, 0, sizeof(a));
	a.n = 1;
	out = capture(add_and_finish, &a);
	assert_int_equal(count(out, "\n"), 1);
	/* none: nothing at all */
	memset(&a, 0, sizeof(a));
	out = capture(add_and_finish, &a);
	assert_string_equal(out, "");
	/* -q: nothing either */
	rf_log_init("ringfence", 0);
	memset(&a, 0, sizeof(a));
	a.n = 5;
	out = capture(add_and_finish, &a);
	assert_string_equal(out, "");
	rf_log_init("ringfence", 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_open_read_and_write),
		cmocka_unit_test(exec_names_the_op_once),
		cmocka_unit_test(network_addresses),
		cmocka_unit_test(unix_pathname_and_abstract),
		cmocka_unit_test(process_boundary),
		cmocka_unit_test(inferred_and_unknown),
		cmocka_unit_test(control_bytes_are_escaped),
		cmocka_unit_test(long_paths_keep_both_ends),
		cmocka_unit_test(verbose_prints_each_then_rate_limits),
		cmocka_unit_test(summary_lists_the_first_three),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
