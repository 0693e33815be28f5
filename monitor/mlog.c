// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "mlog.h"

static void vlog(int min, const char *kind, const char *fmt, va_list ap)
{
	if (rf_verbosity < min)
		return;
	fprintf(stderr, "ringfence-monitor: %s", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void mon_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(0, "error: ", fmt, ap);
	va_end(ap);
}

void mon_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(1, "", fmt, ap);
	va_end(ap);
}

void mon_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(2, "debug: ", fmt, ap);
	va_end(ap);
}
