/* Unit tests of the path rule compiler (pathrules.c): no kernel needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rules/pathrules.h"

#define R RF_ACC_READ
#define W RF_ACC_WRITE
#define X RF_ACC_EXEC

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error e;

	if (policy__load_string(json, &p, &e))
		fail_msg("policy: %s: %s", e.where, e.why);
	return p;
}

/* files and exec from JSON fragments, everything else unrestricted. */
static struct rf_policy *policy(const char *files, const char *exec)
{
	size_t len = strlen(files) + strlen(exec) + 128;
	char *buf = malloc(len);
	struct rf_policy *p;

	assert_non_null(buf);
	snprintf(buf, len,
		 "{\"version\": 1, \"id\": \"t\", \"files\": %s, \"exec\": %s, "
		 "\"network\": \"unrestricted\"}", files, exec);
	p = load(buf);
	free(buf);
	return p;
}

static void build(struct rf_policy *p, struct rf_path_entry **e, size_t *n, size_t *dropped)
{
	assert_int_equal(pathrules__build(p, e, n, dropped), 0);
}

static void pathrules_subtree_is_not_a_string_prefix(void **state)
{
	struct rf_policy *p = policy("{\"read\": [\"/data/\"], \"write\": []}", "\"unrestricted\"");
	struct rf_path_entry *e = NULL;
	size_t n = 0;

	(void)state;
	build(p, &e, &n, NULL);
	assert_int_equal(n, 2);  /* "/data/" and the directory "/data" */
	assert_int_equal(pathrules__lookup(e, n, "/data/a"), R);
	assert_int_equal(pathrules__lookup(e, n, "/data/a/b/c"), R);
	assert_int_equal(pathrules__lookup(e, n, "/data"), R);
	assert_int_equal(pathrules__lookup(e, n, "/dataset"), 0);
	assert_int_equal(pathrules__lookup(e, n, "/dataset/b"), 0);
	assert_int_equal(pathrules__lookup(e, n, "/dat"), 0);
	assert_int_equal(pathrules__lookup(e, n, "/"), 0);
	free(e);
	policy__free(p);
}

static void pathrules_exact_entry_matches_only_itself(void **state)
{
	struct rf_policy *p = policy("{\"read\": [\"/etc/hosts\"], \"write\": []}",
				     "\"unrestricted\"");
	struct rf_path_entry *e = NULL;
	size_t n = 0;
	struct rf_path_key k;

	(void)state;
	build(p, &e, &n, NULL);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].len, strlen("/etc/hosts") + 1);
	assert_int_equal(e[0].key[e[0].len - 1], 0);
	assert_int_equal(pathrules__lookup(e, n, "/etc/hosts"), R);
	assert_int_equal(pathrules__lookup(e, n, "/etc/hosts2"), 0);
	assert_int_equal(pathrules__lookup(e, n, "/etc/hosts/x"), 0);
	assert_int_equal(pathrules__lookup(e, n, "/etc/host"), 0);
	pathrules__key(&e[0], 42, &k);
	assert_int_equal(k.prefixlen, 64 + 8 * (strlen("/etc/hosts") + 1));
	assert_int_equal(k.cgroup_id, 42);
	assert_memory_equal(k.path, "/etc/hosts\0", strlen("/etc/hosts") + 1);
	free(e);
	policy__free(p);
}

/* The longest match must answer with every covering entry's bits. */
static void pathrules_longer_entries_inherit_covering_bits(void **state)
{
	struct rf_policy *p = policy(
		"{\"read\": [\"/\", \"/srv/app/config.json\"], \"write\": [\"/srv/\", \"/tmp/\"]}",
		"[\"/usr/\", \"/srv/app/bin/\", \"/tmp/tool\"]");
	struct rf_path_entry *e = NULL;
	size_t n = 0;

	(void)state;
	build(p, &e, &n, NULL);
	assert_int_equal(pathrules__lookup(e, n, "/etc/passwd"), R);
	assert_int_equal(pathrules__lookup(e, n, "/"), R);
	assert_int_equal(pathrules__lookup(e, n, "/usr/bin/ls"), R | X);
	assert_int_equal(pathrules__lookup(e, n, "/usr"), R | X);
	assert_int_equal(pathrules__lookup(e, n, "/srv/app/config.json"), R | W);
	assert_int_equal(pathrules__lookup(e, n, "/srv/app/bin/run"), R | W | X);
	assert_int_equal(pathrules__lookup(e, n, "/srv/app/bin"), R | W | X);
	assert_int_equal(pathrules__lookup(e, n, "/srv/other"), R | W);
	assert_int_equal(pathrules__lookup(e, n, "/tmp/tool"), R | W | X);
	assert_int_equal(pathrules__lookup(e, n, "/tmp/tool2"), R | W);
	assert_int_equal(pathrules__lookup(e, n, "/tmp/tool/x"), R | W);
	/* each entry's own value, as the kernel's longest match sees it */
	for (size_t i = 0; i < n; i++)
		assert_true(e[i].access & R);
	free(e);
	policy__free(p);
}

static void pathrules_write_implies_read_and_duplicates_merge(void **state)
{
	struct rf_policy *p = policy("{\"read\": [\"/w/\"], \"write\": [\"/w/\"]}",
				     "[\"/w/\"]");
	struct rf_path_entry *e = NULL;
	size_t n = 0;

	(void)state;
	build(p, &e, &n, NULL);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(e[i].access, R | W | X);
	/* sorted, no duplicates */
	assert_true(n < 2 || memcmp(e[0].key, e[1].key, RF_PATH_KEY_LEN) != 0);
	free(e);
	policy__free(p);
}

/* An unrestricted or denied-all class contributes nothing. */
static void pathrules_only_allowlists_give_entries(void **state)
{
	struct rf_policy *p = policy("\"unrestricted\"", "\"unrestricted\"");
	struct rf_path_entry *e = NULL;
	size_t n = 9;

	(void)state;
	build(p, &e, &n, NULL);
	assert_int_equal(n, 0);
	free(e);
	policy__free(p);

	p = load("{\"version\": 1, \"id\": \"t\", \"exec\": [\"/bin/\"], \"network\": \"unrestricted\"}");
	build(p, &e, &n, NULL);
	assert_int_equal(n, 2);
	assert_int_equal(pathrules__lookup(e, n, "/bin/sh"), X);
	assert_int_equal(pathrules__lookup(e, n, "/etc/passwd"), 0);
	free(e);
	policy__free(p);
}

/* Keys longer than the kernel's matcher are left out, never truncated:
 * a truncated key would allow more than the entry. */
static void pathrules_too_long_entries_are_left_out(void **state)
{
	char files[2048], exact[300], sub[300], fits[300];
	struct rf_policy *p;
	struct rf_path_entry *e = NULL;
	size_t n = 0, dropped = 0;

	(void)state;
	/* exact: 248 bytes + terminator does not fit; 247 does */
	exact[0] = '/';
	memset(exact + 1, 'a', 247);
	exact[248] = 0;
	fits[0] = '/';
	memset(fits + 1, 'b', 246);
	fits[247] = 0;
	/* subtree of 249 bytes: neither "/ccc.../" nor its directory fit */
	sub[0] = '/';
	memset(sub + 1, 'c', 248);
	sub[249] = '/';
	sub[250] = 0;
	snprintf(files, sizeof(files), "{\"read\": [\"%s\", \"%s\", \"%s\"], \"write\": []}",
		 exact, fits, sub);
	p = policy(files, "\"unrestricted\"");
	build(p, &e, &n, &dropped);
	assert_int_equal(dropped, 3);
	assert_int_equal(n, 1);
	assert_int_equal(e[0].len, RF_PATH_KEY_LEN);
	assert_int_equal(pathrules__lookup(e, n, fits), R);
	assert_int_equal(pathrules__lookup(e, n, exact), 0);
	free(e);
	policy__free(p);
}

/* 10,000 entries build quickly and each answers for itself. */
static void pathrules_many_entries(void **state)
{
	size_t cap = 10000 * 40 + 256, len = 0, n = 0;
	char *files = malloc(cap), path[64];
	struct rf_path_entry *e = NULL;
	struct rf_policy *p;

	(void)state;
	len += snprintf(files + len, cap - len, "{\"read\": [\"/r/\"");
	for (int i = 0; i < 10000; i++)
		len += snprintf(files + len, cap - len, ", \"/r/d%d/f%d\"", i % 100, i);
	len += snprintf(files + len, cap - len, "], \"write\": [\"/r/d7/\"]}");
	p = policy(files, "\"unrestricted\"");
	build(p, &e, &n, NULL);
	assert_int_equal(n, 10000 + 2 + 2);
	assert_int_equal(pathrules__lookup(e, n, "/r/d7/f7"), R | W);
	assert_int_equal(pathrules__lookup(e, n, "/r/d8/f8"), R);
	snprintf(path, sizeof(path), "/r/d%d/f%d", 9999 % 100, 9999);
	assert_int_equal(pathrules__lookup(e, n, path), R);
	free(e);
	free(files);
	policy__free(p);
}

/* The reference: the longest entry that is a prefix of path + terminator,
 * found by looking at every entry (the kernel's LPM, literally). */
static uint32_t linear_lookup(const struct rf_path_entry *v, size_t n, const char *path)
{
	uint8_t key[RF_PATH_KEY_LEN] = { 0 };
	size_t len = strlen(path), i;
	const struct rf_path_entry *best = NULL;

	if (len > RF_PATH_MAX)
		return 0;
	memcpy(key, path, len);
	for (i = 0; i < n; i++) {
		if (v[i].len > len + 1 || memcmp(v[i].key, key, v[i].len))
			continue;
		if (!best || v[i].len > best->len)
			best = &v[i];
	}
	return best ? best->access : 0;
}

/* A random clean path of 1..4 components whose names are string prefixes
 * of one another ("a", "ab"), a subtree (trailing '/') when sub. */
static void random_path(char *buf, size_t cap, bool sub)
{
	static const char *const names[] = { "a", "ab", "b", "a.b", "c" };
	int depth = 1 + rand() % 4;
	size_t len = 0;

	for (int d = 0; d < depth; d++)
		len += snprintf(buf + len, cap - len, "/%s", names[rand() % 5]);
	if (sub)
		snprintf(buf + len, cap - len, "/");
}

/* A JSON list of up to max distinct random paths, subtrees and files. */
static void random_list(char *out, size_t cap, int max)
{
	char seen[64][64], path[64];
	int n = 0, want = rand() % (max + 1);
	size_t len = snprintf(out, cap, "[");

	for (int k = 0; k < want; k++) {
		bool dup = false;

		random_path(path, sizeof(path), rand() % 2);
		for (int i = 0; i < n; i++)
			dup |= !strcmp(seen[i], path);
		if (dup)
			continue;
		snprintf(seen[n++], sizeof(seen[0]), "%s", path);
		len += snprintf(out + len, cap - len, "%s\"%s\"", n > 1 ? ", " : "", path);
	}
	if (rand() % 8 == 0 && n < 64)  /* sometimes the root subtree */
		len += snprintf(out + len, cap - len, "%s\"/\"", n++ ? ", " : "");
	snprintf(out + len, cap - len, "]");
}

/* The binary searches answer what a scan of every entry answers, for
 * nested subtrees, exact entries beside subtrees of the same name, string
 * prefixes that are not path prefixes, and queries with a trailing '/'. */
static void pathrules_lookup_equals_linear_scan(void **state)
{
	char rd[4096], wr[4096], ex[4096], files[9000], query[80];
	unsigned int seed = 15;

	(void)state;
	srand(seed);
	for (int round = 0; round < 200; round++) {
		struct rf_path_entry *e = NULL;
		struct rf_policy *p;
		size_t n = 0;

		random_list(rd, sizeof(rd), 24);
		random_list(wr, sizeof(wr), 8);
		random_list(ex, sizeof(ex), 8);
		snprintf(files, sizeof(files), "{\"read\": %s, \"write\": %s}", rd, wr);
		p = policy(files, rand() % 4 ? ex : "\"unrestricted\"");
		build(p, &e, &n, NULL);
		for (int q = 0; q < 400; q++) {
			random_path(query, sizeof(query), rand() % 4 == 0);
			if (rand() % 16 == 0)
				snprintf(query, sizeof(query), "/");
			if (pathrules__lookup(e, n, query) != linear_lookup(e, n, query))
				fail_msg("seed %u round %d: %s: %u, a scan says %u (read %s write %s "
					 "exec %s)", seed, round, query, pathrules__lookup(e, n, query),
					 linear_lookup(e, n, query), rd, wr, ex);
		}
		/* every entry's own key finds itself */
		for (size_t i = 0; i < n; i++) {
			char own[RF_PATH_KEY_LEN + 1] = { 0 };

			memcpy(own, e[i].key, e[i].len);
			assert_int_equal(pathrules__lookup(e, n, own), linear_lookup(e, n, own));
		}
		free(e);
		policy__free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pathrules_subtree_is_not_a_string_prefix),
		cmocka_unit_test(pathrules_exact_entry_matches_only_itself),
		cmocka_unit_test(pathrules_longer_entries_inherit_covering_bits),
		cmocka_unit_test(pathrules_write_implies_read_and_duplicates_merge),
		cmocka_unit_test(pathrules_only_allowlists_give_entries),
		cmocka_unit_test(pathrules_too_long_entries_are_left_out),
		cmocka_unit_test(pathrules_many_entries),
		cmocka_unit_test(pathrules_lookup_equals_linear_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
