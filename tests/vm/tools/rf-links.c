// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-links PROG...: print the number of raw tracepoint links, host-wide,
 * whose program has one of these names (the guest has no bpftool), as the
 * host tests count them (tests/host/links.h). Exit 0, 2 on usage.
 */
#include <stdio.h>
#include "../../host/links.h"

int main(int argc, char **argv)
{
	int i, n = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: rf-links PROG...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		n += h_raw_tp_links(argv[i]);
	printf("%d\n", n);
	return 0;
}
