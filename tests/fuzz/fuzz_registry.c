// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The registry reader (lib/registry): an entry file as the monitor and
 * `ringfence status` read it, by name (registry__read_file) and as text
 * (registry__parse). Invariants: the two agree on NUL-free input; an entry
 * read is written back (registry__to_json) to text that reads again to the
 * same entry; strings fit their fields.
 */
#include <errno.h>
#include <stdint.h>

#include "registry.h"
#include "fuzz.h"

static char *entry_text(const struct rf_registry_entry *e)
{
	json_t *o = registry__to_json(e);
	char *s;

	FUZZ_ASSERT(o);
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	FUZZ_ASSERT(s);
	return s;
}

static void check_entry(const struct rf_registry_entry *e)
{
	char *once = entry_text(e), *twice;
	struct rf_registry_entry back;

	FUZZ_ASSERT(e->sandbox[0] && e->cgroup_id);
	FUZZ_ASSERT(strnlen(e->cgroup_path, sizeof(e->cgroup_path)) < sizeof(e->cgroup_path));
	FUZZ_ASSERT(strnlen(e->digest, sizeof(e->digest)) < sizeof(e->digest));
	FUZZ_ASSERT(registry__parse(once, &back) == 0);
	twice = entry_text(&back);
	FUZZ_ASSERT(!strcmp(once, twice));
	registry__entry_clear(&back);
	free(twice);
	free(once);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rf_registry_entry by_text, by_file;
	char *text = fuzz_cstr(data, size);
	int r_text, r_file;

	r_text = registry__parse(text, &by_text);
	r_file = registry__read_file(fuzz_memfile(data, size), &by_file);
	FUZZ_ASSERT(r_text == 0 || r_text == -EINVAL || r_text == -ENOMEM);
	FUZZ_ASSERT(r_file == 0 || r_file == -EINVAL || r_file == -ENOMEM || r_file == -EFBIG);
	if (!fuzz_has_nul(data, size)) {
		FUZZ_ASSERT(r_text == r_file);
		if (r_text == 0) {
			char *a = entry_text(&by_text), *b = entry_text(&by_file);

			FUZZ_ASSERT(!strcmp(a, b));
			free(a);
			free(b);
		}
	}
	if (r_text == 0)
		check_entry(&by_text);
	if (r_file == 0)
		check_entry(&by_file);
	registry__entry_clear(&by_text);
	registry__entry_clear(&by_file);
	free(text);
	return 0;
}
