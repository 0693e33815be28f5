/* lib/names: one table per naming concept, every entry named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "names.h"

/* Every value below max has its own, non-empty name (from first). */
static void assert_named(const char *(*name)(uint32_t), uint32_t first, uint32_t max)
{
	uint32_t i, j;

	for (i = first; i < max; i++) {
		assert_non_null(name(i));
		assert_true(name(i)[0]);
		assert_string_not_equal(name(i), "unknown");
		for (j = first; j < i; j++)
			assert_string_not_equal(name(i), name(j));
	}
	assert_string_equal(name(max), "unknown");
}

static void names_every_kernel_value_is_named(void **state)
{
	(void)state;
	assert_named(names__class, 0, RF_CLASS_MAX);
	assert_named(names__op, 1, RF_OP_MAX);
	assert_named(names__reason, 1, RF_REASON_MAX);
	/* the kernel sends no 0 */
	assert_string_equal(names__op(0), "unknown");
	assert_string_equal(names__reason(0), "unknown");
	/* the strings the trace and the alerts print */
	assert_string_equal(names__class(RF_CLASS_NET), "network");
	assert_string_equal(names__class(RF_CLASS_PROCESS), "process");
	assert_string_equal(names__op(RF_OP_KILL), "kill");
	assert_string_equal(names__op(RF_OP_USERNS), "userns_create");
	assert_string_equal(names__reason(RF_REASON_SENSITIVE),
			    "link-local-or-metadata-needs-exact-entry");
}

static void names_verdicts_protocols_socket_types(void **state)
{
	(void)state;
	assert_string_equal(names__verdict(RF_VERDICT_DENIED), "denied");
	assert_string_equal(names__verdict(RF_VERDICT_AUDITED), "audited");
	assert_string_equal(names__verdict(0), "denied");
	assert_string_equal(names__verdict(RF_VERDICT_MAX), "denied");
	assert_string_equal(names__stat(RF_STAT_RINGBUF_LOST), "ringbuf_lost");
	assert_string_equal(names__stat(RF_STAT_SCRATCH_LOST), "scratch_lost");
	assert_string_equal(names__stat(RF_STAT_MAX), "unknown");
	assert_string_equal(names__proto(6), "tcp");
	assert_string_equal(names__proto(17), "udp");
	assert_string_equal(names__proto(262), "mptcp");
	assert_null(names__proto(0));
	assert_null(names__proto(2));
	assert_null(names__proto(70000));
	assert_string_equal(names__sock_type(1), "stream");
	assert_string_equal(names__sock_type(2), "dgram");
	assert_string_equal(names__sock_type(5), "seqpacket");
	assert_string_equal(names__sock_type(3), "other");
	assert_string_equal(names__sock_type(99), "other");
}

static void names_backends_and_requests(void **state)
{
	int i;

	(void)state;
	assert_string_equal(names__backend(RF_BE_NONE), "");
	for (i = 1; i < RF_BE_MAX; i++) {
		assert_non_null(names__backend(i));
		assert_true(names__backend(i)[0]);
	}
	for (i = 0; i < RF_REQ_MAX; i++) {
		assert_non_null(names__request(i));
		assert_true(names__request(i)[0]);
	}
	assert_string_equal(names__request(RF_REQ_DENY_ALL), "deny-all");
	assert_int_equal(names__backend_by_name("bpf-lsm"), RF_BE_BPF_LSM);
	assert_int_equal(names__backend_by_name("cgroup-v2-memory"), RF_BE_CGROUP_MEMORY);
	assert_string_equal(names__limit(RF_LIMIT_WALL), "wall_seconds");
	assert_string_equal(names__limit(RF_LIMIT_SCRATCH), "scratch");
	assert_string_equal(names__limit(RF_LIMIT_MAX), "unknown");
}

/* The display order lists every class once; the kernel's come first in
 * their ABI values. */
static void names_class_order_is_a_permutation(void **state)
{
	bool seen[RF_CLASS_MAX] = { false };
	int i;

	(void)state;
	for (i = 0; i < RF_CLASS_MAX; i++) {
		assert_true(names__class_order[i] < RF_CLASS_MAX);
		assert_false(seen[names__class_order[i]]);
		seen[names__class_order[i]] = true;
	}
	assert_int_equal(names__class_order[0], RF_CLASS_FILE);
	assert_int_equal(names__class_order[RF_CLASS_MAX - 1], RF_CLASS_MONITOR);
	assert_int_equal(RF_CLASS_KERNEL_MAX, 5);
	assert_int_equal(RF_CLASS_PROCESS, RF_CLASS_KERNEL_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_every_kernel_value_is_named),
		cmocka_unit_test(names_verdicts_protocols_socket_types),
		cmocka_unit_test(names_backends_and_requests),
		cmocka_unit_test(names_class_order_is_a_permutation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
