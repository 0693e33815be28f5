// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "log.h"

int rf_error_set(struct rf_error *e, int err, const char *where, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return err;
	e->err = err;
	snprintf(e->where, sizeof(e->where), "%s", where ? where : "");
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	e->hint[0] = '\0';
	return err;
}

int rf_error_hint(struct rf_error *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return 0;
	va_start(ap, fmt);
	vsnprintf(e->hint, sizeof(e->hint), fmt, ap);
	va_end(ap);
	return e->err;
}

int rf_error_wrap(struct rf_error *e, const char *outer)
{
	char tmp[sizeof(e->where)];

	if (!e)
		return 0;
	if (!e->where[0])
		snprintf(e->where, sizeof(e->where), "%s", outer);
	else {
		snprintf(tmp, sizeof(tmp), "%s: %s", outer, e->where);
		memcpy(e->where, tmp, sizeof(tmp));
	}
	return e->err;
}

const char *rf_error_str(const struct rf_error *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", e->where, e->where[0] ? ": " : "", e->why,
		 e->hint[0] ? "; " : "", e->hint);
	return buf;
}

void rf_error_print(const struct rf_error *e, const char *prefix)
{
	char buf[sizeof(e->where) + sizeof(e->why) + sizeof(e->hint) + 8];

	rf_error_str(e, buf, sizeof(buf));
	if (prefix && *prefix)
		rf_err("%s: %s", prefix, buf);
	else
		rf_err("%s", buf);
}
