// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The policy parser: the input as a file (policy__load_file, as `ringfence
 * check --policy` reads it) and as a string (policy__load_string).
 * Invariants: a raw NUL byte anywhere is refused; without one, the file and
 * the string give the same answer; a loaded policy's canonical text loads
 * again to the same digest; every refusal names where and why on one line.
 */
#include <errno.h>
#include <stdint.h>

#include "policy/policy.h"
#include "fuzz.h"

/*
 * policy__load_file reads into a 1 MiB buffer, which costs ASan an mmap and
 * about 3 ms per call here: go through the file for one input in eight,
 * chosen by the bytes (so a saved input replays the same way). The unit
 * tests cover the NUL cases through the file every time.
 */
static int via_file(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h % 8 == 0;
}

static void check_refusal(int r, const struct rf_error *err)
{
	FUZZ_ASSERT(r == -EINVAL || r == -EFBIG || r == -ENOMEM);
	FUZZ_ASSERT(err->why[0] != '\0');
	FUZZ_ASSERT(!strchr(err->why, '\n') && !strchr(err->where, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rf_policy *from_file = NULL, *from_str = NULL, *again = NULL;
	struct rf_error err_file, err_str, err_again;
	char *text = fuzz_cstr(data, size), *canon = NULL, *canon2 = NULL;
	int r_file, r_str, r;

	r_str = policy__load_string(text, &from_str, &err_str);
	if (r_str < 0)
		check_refusal(r_str, &err_str);
	if (!via_file(data, size))
		goto round_trip;
	r_file = policy__load_file(fuzz_memfile(data, size), &from_file, &err_file);
	if (r_file < 0)
		check_refusal(r_file, &err_file);
	if (fuzz_has_nul(data, size)) {
		FUZZ_ASSERT(r_file == -EINVAL && strstr(err_file.why, "NUL byte"));
	} else {
		FUZZ_ASSERT(r_file == r_str);
		if (r_file == 0)
			FUZZ_ASSERT(!strcmp(from_file->digest, from_str->digest));
	}
round_trip:
	if (r_str == 0) {
		FUZZ_ASSERT(!policy__canonical_text(text, &canon, &err_again) && canon);
		FUZZ_ASSERT(strlen(from_str->digest) == 64);
		r = policy__load_string(canon, &again, &err_again);
		FUZZ_ASSERT(r == 0);
		FUZZ_ASSERT(!policy__canonical_text(canon, &canon2, &err_again) && canon2);
		FUZZ_ASSERT(!strcmp(canon2, canon));
		FUZZ_ASSERT(!strcmp(again->digest, from_str->digest));
	}
	policy__free(again);
	policy__free(from_str);
	policy__free(from_file);
	free(canon);
	free(canon2);
	free(text);
	return 0;
}
