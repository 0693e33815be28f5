// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* ringfence: run a command under a kernel-enforced least-privilege policy.
 * Its commands and options are one table: verbs.c. */
#include "verbs.h"

int main(int argc, char **argv)
{
	return verbs__main(argc, argv);
}
