// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "log.h"

int rf_verbosity = 1;
static const char *rf_prog = "ringfence";

/* libbpf speaks only with -v: its warnings are for developers. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (rf_verbosity < 2)
		return 0;
	fprintf(stderr, "%s: libbpf: ", rf_prog);
	return vfprintf(stderr, fmt, ap);
}

void rf_log_init(const char *prog, int verbosity)
{
	rf_prog = prog;
	rf_verbosity = verbosity;
	libbpf_set_print(libbpf_print);
}

static void vlog(int min, const char *kind, const char *fmt, va_list ap)
{
	if (rf_verbosity < min)
		return;
	fprintf(stderr, "%s: %s", rf_prog, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define RF_LOG_FN(name, min, kind)                 \
	void name(const char *fmt, ...)            \
	{                                          \
		va_list ap;                        \
		va_start(ap, fmt);                 \
		vlog(min, kind, fmt, ap);          \
		va_end(ap);                        \
	}

RF_LOG_FN(rf_err, 0, "error: ")
RF_LOG_FN(rf_warn, 0, "warning: ")
RF_LOG_FN(rf_info, 1, "")
RF_LOG_FN(rf_debug, 2, "debug: ")
