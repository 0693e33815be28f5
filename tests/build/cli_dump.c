// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cli_dump ringfence|ringfence-monitor: the command-line table of that
 * program, one record a line (lib/cli.h, cli__dump), for
 * tests/build/check_cli_docs.sh. It links the tables themselves, so what
 * it prints is what the parsers accept.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "cli/verbs.h"

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], verbs__cli.prog)) {
		cli__dump(stdout, &verbs__cli);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], options__cli.prog)) {
		cli__dump(stdout, &options__cli);
		return 0;
	}
	fprintf(stderr, "usage: cli_dump %s|%s\n", verbs__cli.prog, options__cli.prog);
	return 2;
}
