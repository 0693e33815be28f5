/* Landlock's audit records (supervisor/observe/landlock_audit.c): parsing the
 * kernel's text, mapping blockers to classes, attributing records to the
 * sandbox's domain, and dropping the inferred twin of a logged denial
 * (no kernel, no socket: the records are fed in as the kernel writes them). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "observe/landlock_audit.h"

static struct rf_ll_record parse(int type, const char *text)
{
	struct rf_ll_record r;

	assert_int_equal(landlock_audit__parse(type, text, strlen(text), &r), 0);
	return r;
}

static void access_record_quoted_and_hex_paths(void **state)
{
	struct rf_ll_record r;
	struct rf_event ev;

	(void)state;
	r = parse(RF_AUDIT_LANDLOCK_ACCESS, "audit(1764598852.647:31): domain=1a6fdc66f "
		  "blockers=fs.read_file path=\"/tmp/la/secret/s\" dev=\"tmpfs\" ino=9");
	assert_int_equal(r.domain, 0x1a6fdc66f);
	assert_string_equal(r.blockers, "fs.read_file");
	assert_string_equal(r.path, "/tmp/la/secret/s");
	assert_true(r.real_ns == 1764598852647000000ull);
	assert_true(landlock_audit__to_event(&r, &ev));
	assert_int_equal(ev.class, RF_CLASS_FILE);
	assert_int_equal(ev.op, RF_OP_FILE_OPEN);
	assert_int_equal(ev.need, RF_ACC_READ);
	/* a path with a space is hex: "/a b" */
	r = parse(RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:3): domain=5 "
		  "blockers=fs.execute,fs.read_file path=2F612062 dev=\"vda\" ino=2");
	assert_string_equal(r.path, "/a b");
	assert_true(landlock_audit__to_event(&r, &ev));
	assert_int_equal(ev.class, RF_CLASS_EXEC);
	assert_int_equal(ev.op, RF_OP_EXEC);
	assert_int_equal(ev.need, RF_ACC_READ | RF_ACC_EXEC);
	/* a network blocker has no file/exec class here */
	r = parse(RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:3): domain=5 blockers=net.connect_tcp "
		  "daddr=127.0.0.1 dest=80");
	assert_false(landlock_audit__to_event(&r, &ev));
	/* not Landlock's, or no domain */
	assert_int_equal(landlock_audit__parse(1300, "audit(1.2:3): arch=c000003e", 26, &r), -EINVAL);
	assert_int_equal(landlock_audit__parse(RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:3): blockers=x",
					       24, &r), -EINVAL);
}

static void domain_records(void **state)
{
	struct rf_ll_record r;

	(void)state;
	r = parse(RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:3): domain=1a6fdc66f status=allocated "
		  "mode=enforcing pid=286 uid=0 exe=\"/rf/ringfence\" comm=\"ringfence\"");
	assert_true(r.allocated);
	assert_int_equal(r.pid, 286);
	assert_string_equal(r.exe, "/rf/ringfence");
	assert_string_equal(r.comm, "ringfence");
	r = parse(RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:3): domain=1a6fdc66f status=deallocated "
		  "denials=2\n");
	assert_false(r.allocated);
	assert_true(r.has_denials);
	assert_int_equal(r.denials, 2);
}

/* The reader's attribution without the audit socket: records through a
 * datagram socketpair in netlink framing. */
static int n_taken;
static char taken[4][RF_EVENT_PATH_LEN];

static void take(void *ctx, const struct rf_ll_record *r)
{
	(void)ctx;
	if (n_taken < 4)
		strcpy(taken[n_taken], r->path);
	n_taken++;
}

static void feed(int fd, int type, const char *text)
{
	_Alignas(struct nlmsghdr) char buf[1024];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	size_t n = strlen(text);

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_len = NLMSG_LENGTH(n);
	nh->nlmsg_type = (uint16_t)type;
	memcpy(NLMSG_DATA(nh), text, n);
	assert_int_equal(send(fd, buf, NLMSG_ALIGN(nh->nlmsg_len), 0), NLMSG_ALIGN(nh->nlmsg_len));
}

/* A reader of sandbox pid 286 on one end of a datagram pair; the test
 * feeds records into p[1]. */
static void reader_on_pair(struct rf_ll_audit *a, int p[2])
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, p), 0);
	a->fd = p[0];
	a->child = 286;
}

static void only_the_sandbox_domain_is_taken(void **state)
{
	struct rf_ll_audit a;
	int p[2];

	(void)state;
	reader_on_pair(&a, p);
	strcpy(a.self_exe, "/rf/ringfence");
	n_taken = 0;
	/* another sandbox's domain first: held, then dropped */
	feed(p[1], RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:1): domain=a blockers=fs.read_file path=\"/x\"");
	landlock_audit__read(&a, 0, take, NULL);
	feed(p[1], RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:1): domain=a status=allocated mode=enforcing "
	     "pid=999 uid=0 exe=\"/rf/ringfence\" comm=\"x\"");
	landlock_audit__read(&a, 0, take, NULL);
	assert_int_equal(n_taken, 0);
	assert_int_equal(a.n_held, 0);
	/* ours: the ACCESS record before the DOMAIN record is taken with it */
	feed(p[1], RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:2): domain=b blockers=fs.read_file path=\"/s\"");
	landlock_audit__read(&a, 0, take, NULL);
	assert_int_equal(n_taken, 0);
	feed(p[1], RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:2): domain=b status=allocated mode=enforcing "
	     "pid=286 uid=0 exe=\"/rf/ringfence\" comm=\"rf-fs\"");
	landlock_audit__read(&a, 0, take, NULL);
	assert_int_equal(n_taken, 1);
	assert_string_equal(taken[0], "/s");
	assert_int_equal(a.domain, 0xb);
	feed(p[1], RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:4): domain=a blockers=fs.read_file path=\"/y\"");
	landlock_audit__read(&a, 0, take, NULL);
	feed(p[1], RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:5): domain=b blockers=fs.execute path=\"/e\"");
	landlock_audit__read(&a, 0, take, NULL);
	assert_int_equal(n_taken, 2);
	assert_string_equal(taken[1], "/e");
	assert_false(landlock_audit__complete(&a));
	feed(p[1], RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:6): domain=b status=deallocated denials=2");
	landlock_audit__read(&a, 0, take, NULL);
	assert_true(landlock_audit__complete(&a));
	close(p[0]);
	close(p[1]);
}

/* What queued before the launch is dropped, and only that: records
 * after it are read as they come. */
static void discard_drops_what_queued_before(void **state)
{
	struct rf_ll_audit a;
	int p[2];

	(void)state;
	reader_on_pair(&a, p);
	n_taken = 0;
	feed(p[1], RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:1): domain=b blockers=fs.read_file path=\"/old\"");
	feed(p[1], RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:1): domain=b status=allocated mode=enforcing "
	     "pid=286 uid=0 exe=\"/rf/ringfence\" comm=\"x\"");
	landlock_audit__discard(&a);
	landlock_audit__read(&a, 0, take, NULL);
	assert_int_equal(n_taken, 0);
	assert_int_equal(a.domain, 0);
	feed(p[1], RF_AUDIT_LANDLOCK_ACCESS, "audit(1.2:2): domain=c blockers=fs.read_file path=\"/new\"");
	feed(p[1], RF_AUDIT_LANDLOCK_DOMAIN, "audit(1.2:2): domain=c status=allocated mode=enforcing "
	     "pid=286 uid=0 exe=\"/rf/ringfence\" comm=\"x\"");
	landlock_audit__read(&a, 0, take, NULL);
	assert_int_equal(n_taken, 1);
	assert_string_equal(taken[0], "/new");
	close(p[0]);
	close(p[1]);
}

/* What the kernel counted and no record brought: known only once the
 * domain's count arrived. */
static void missing_is_the_count_not_read(void **state)
{
	struct rf_ll_audit a;

	(void)state;
	memset(&a, 0, sizeof(a));
	a.records = 2;
	a.kernel_denials = 5;
	assert_int_equal(landlock_audit__missing(&a), 0);  /* count not arrived */
	a.domain_freed = true;
	assert_int_equal(landlock_audit__missing(&a), 3);
	assert_false(landlock_audit__complete(&a));
	a.kernel_denials = 2;
	assert_int_equal(landlock_audit__missing(&a), 0);
	assert_true(landlock_audit__complete(&a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(access_record_quoted_and_hex_paths),
		cmocka_unit_test(domain_records),
		cmocka_unit_test(only_the_sandbox_domain_is_taken),
		cmocka_unit_test(missing_is_the_count_not_read),
		cmocka_unit_test(discard_drops_what_queued_before),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
