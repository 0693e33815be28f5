// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The monitor's record-file reader: one JSON line of a --record file into
 * an input record (record__from_json, as replay__file reads each line).
 * Invariants: a record read is written back (record__to_json) to a line
 * that reads again, and from then on the text is a fixed point.
 */
#include <errno.h>
#include <stdint.h>

#include "record.h"
#include "fuzz.h"

/* Parse a line, write the record back; NULL when the line is refused. */
static char *round_trip(const char *line, size_t len, int *ret_err)
{
	struct rf_sandbox_info si;
	struct rf_input in;
	json_t *o = json_loadb(line, len, 0, NULL), *out;
	char *s = NULL;

	memset(&si, 0, sizeof(si));
	*ret_err = -EINVAL;
	if (!o)
		return NULL;
	*ret_err = record__from_json(o, &in, &si);
	json_decref(o);
	FUZZ_ASSERT(*ret_err == 0 || *ret_err == -EINVAL || *ret_err == -ENOMEM);
	if (*ret_err == 0) {
		FUZZ_ASSERT(in.type > 0);
		out = record__to_json(&in);
		FUZZ_ASSERT(out);
		s = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(out);
		FUZZ_ASSERT(s);
	}
	rf_sandbox_info_clear(&si);
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *once, *twice, *thrice;
	int err;

	once = round_trip((const char *)data, size, &err);
	if (!once)
		return 0;
	twice = round_trip(once, strlen(once), &err);
	FUZZ_ASSERT(twice);
	thrice = round_trip(twice, strlen(twice), &err);
	FUZZ_ASSERT(thrice && !strcmp(twice, thrice));
	free(thrice);
	free(twice);
	free(once);
	return 0;
}
