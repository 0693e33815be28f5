/* Shared helpers for the privileged host tests (cmocka). */
#ifndef RF_TEST_HARNESS_H
#define RF_TEST_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

/* Privileged tests need root; elsewhere they are skipped with a reason. */
static inline int harness_require_root(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "SKIP: needs root (CAP_BPF, CAP_SYS_ADMIN)\n");
		return -1;
	}
	return 0;
}

#endif
