// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <time.h>

#include "timefmt.h"

void timefmt__rfc3339(int64_t sec, long frac, int digits, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;
	char base[32];

	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%0*ldZ", base, digits, frac);
}
