/*
 * Unit tests of the libraries loaded on first use (supervisor/util/lazylib.c):
 * each loads by its soname and fills every pointer its header lists, a
 * second call keeps them, and the calls go through to the library.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/lazy_ldns.h"
#include "util/lazy_psl.h"
#include "util/lazy_systemd.h"

#define NONNULL(s) assert_non_null(rf_lazy_##s);

static void test_ldns(void **state)
{
	struct rf_error e = { 0 };
	uint8_t wire[] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
			   3, 'c', 'o', 'm', 0, 0, 1, 0, 1 };
	ldns_pkt *p = NULL;

	(void)state;
	assert_int_equal(lazylib__ldns(&e), 0);
	RF_LAZY_LDNS_SYMBOLS(NONNULL)
	assert_int_equal(lazylib__ldns(&e), 0);
	assert_int_equal(ldns_wire2pkt(&p, wire, sizeof(wire)), LDNS_STATUS_OK);
	assert_int_equal(ldns_pkt_id(p), 0x1234);
	assert_int_equal(ldns_pkt_qdcount(p), 1);
	ldns_pkt_free(p);
}

static void test_psl(void **state)
{
	struct rf_error e = { 0 };

	(void)state;
	assert_int_equal(lazylib__psl(&e), 0);
	RF_LAZY_PSL_SYMBOLS(NONNULL)
	assert_true(psl_is_public_suffix(psl_builtin(), "co.uk"));
	assert_false(psl_is_public_suffix(psl_builtin(), "example.co.uk"));
}

static void test_systemd(void **state)
{
	struct rf_error e = { 0 };
	sd_bus *bus = NULL;

	(void)state;
	assert_int_equal(lazylib__systemd(&e), 0);
	RF_LAZY_SYSTEMD_SYMBOLS(NONNULL)
	/* a bus object made and dropped without connecting anywhere */
	assert_int_equal(sd_bus_new(&bus), 0);
	assert_non_null(bus);
	assert_null(sd_bus_unref(bus));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ldns),
		cmocka_unit_test(test_psl),
		cmocka_unit_test(test_systemd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
