/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ringfence's command line: its commands and options as one table
 * (lib/cli.h), from which main() parses, --help is printed and
 * tests/build/cli_dump prints what the man page and the completions must
 * name.
 */
#ifndef RF_VERBS_H
#define RF_VERBS_H

#include "cli.h"

extern const struct rf_cli verbs__cli;

/* main(): the command's exit status. */
int verbs__main(int argc, char **argv);

#endif
