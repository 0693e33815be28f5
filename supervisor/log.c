// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "log.h"

int rf_verbosity = 1;

/* libbpf speaks only with -v: its warnings are for developers. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (rf_verbosity < 2 && level != LIBBPF_WARN)
		return 0;
	if (rf_verbosity < 2)
		return 0;
	fprintf(stderr, "ringfence: libbpf: ");
	return vfprintf(stderr, fmt, ap);
}

void rf_log_init(int verbosity)
{
	rf_verbosity = verbosity;
	libbpf_set_print(libbpf_print);
}

static void vlog(const char *kind, const char *fmt, va_list ap)
{
	fprintf(stderr, "ringfence: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void rf_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
}

void rf_info(const char *fmt, ...)
{
	va_list ap;

	if (rf_verbosity < 1)
		return;
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

void rf_debug(const char *fmt, ...)
{
	va_list ap;

	if (rf_verbosity < 2)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}
