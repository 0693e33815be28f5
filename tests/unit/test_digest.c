/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Unit tests of the canonical form and its sha256 digest: the same policy
 * written differently has one digest, any change of value another.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "policy/policy.h"

static const char *base =
	"{\"version\":1,\"id\":\"digest\",\"mode\":\"enforce\","
	"\"files\":\"unrestricted\",\"exec\":\"unrestricted\","
	"\"network\":{\"connect\":[\"127.0.0.1:18080\",\"deb.debian.org:443\"],\"unix\":[]},"
	"\"env\":{\"pass\":[\"PATH\"],\"set\":{\"LANG\":\"C.UTF-8\",\"TZ\":\"UTC\"}},"
	"\"limits\":{\"pids\":64,\"memory_mb\":512}}";

/* base with keys reordered at every level, whitespace added, "mode"
 * left to its default and a string written with escapes. */
static const char *reordered =
	"{\n"
	"  \"limits\": { \"memory_mb\": 512, \"pids\": 64 },\n"
	"  \"env\": {\n"
	"    \"set\": { \"TZ\": \"UTC\", \"LANG\": \"C.\\u0055TF-8\" },\n"
	"    \"pass\": [ \"PATH\" ]\n"
	"  },\n"
	"  \"network\": {\n"
	"    \"unix\": [],\n"
	"    \"connect\": [ \"127.0.0.1:18080\", \"deb.debian.org:443\" ]\n"
	"  },\n"
	"  \"exec\": \"unrestricted\",\t\"files\" : \"unrestricted\",\n"
	"  \"id\": \"digest\",\r\n"
	"  \"version\": 1\n"
	"}\n";

/*
 * Computed once from base; pinned so that any change to canonicalisation
 * (key order, escaping, defaults) is noticed: it would change the digest
 * of every deployed policy.
 */
#define BASE_DIGEST "db9ff2865bb7726f0e3ac3492dbc5e58f108c0ac6df2d939985cdf69b6cd2b19"
#define BASE_CANONICAL \
	"{\"env\":{\"pass\":[\"PATH\"],\"set\":{\"LANG\":\"C.UTF-8\",\"TZ\":\"UTC\"}}," \
	"\"exec\":\"unrestricted\",\"files\":\"unrestricted\",\"id\":\"digest\"," \
	"\"limits\":{\"memory_mb\":512,\"pids\":64},\"mode\":\"enforce\"," \
	"\"network\":{\"connect\":[\"127.0.0.1:18080\",\"deb.debian.org:443\"],\"unix\":[]}," \
	"\"version\":1}"

static struct rf_policy *load(const char *json)
{
	struct rf_policy *p = NULL;
	struct rf_error err = {};
	int r;

	r = policy__load_string(json, &p, &err);
	if (r != 0)
		print_error("unexpected error %d at %s: %s\n", r, err.where, err.why);
	assert_int_equal(r, 0);
	return p;
}

/* The canonical text of a policy string (the digest is its sha256). */
static char *canonical(const char *json)
{
	struct rf_error err = {};
	char *text = NULL;

	assert_int_equal(policy__canonical_text(json, &text, &err), 0);
	assert_non_null(text);
	return text;
}

/* Digest of json, copied out so the policy can be freed at once. */
static void digest_of(const char *json, char ret_digest[65])
{
	struct rf_policy *p = load(json);

	memcpy(ret_digest, p->digest, 65);
	policy__free(p);
}

/* base with the first occurrence of from replaced by to. */
static char *variant(const char *from, const char *to)
{
	const char *at = strstr(base, from);
	size_t pre, len;
	char *s;

	assert_non_null(at);
	pre = (size_t)(at - base);
	len = strlen(base) - strlen(from) + strlen(to);
	s = malloc(len + 1);
	assert_non_null(s);
	memcpy(s, base, pre);
	strcpy(s + pre, to);
	strcat(s, at + strlen(from));
	return s;
}

static void test_digest_of_fixed_policy_is_pinned(void **state)
{
	struct rf_policy *p = load(base);
	char *text = canonical(base);

	(void)state;
	assert_string_equal(text, BASE_CANONICAL);
	assert_string_equal(p->digest, BASE_DIGEST);
	free(text);
	policy__free(p);
}

/* The digest is sha256 over exactly the canonical text, in lowercase hex. */
static void test_digest_is_sha256_of_canonical(void **state)
{
	struct rf_policy *p = load(base);
	char *text = canonical(base);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;
	char hex[65];

	(void)state;
	assert_int_equal(EVP_Digest(text, strlen(text), md, &len,
				    EVP_sha256(), NULL), 1);
	assert_int_equal(len, 32);
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	assert_string_equal(p->digest, hex);
	free(text);
	policy__free(p);
}

static void test_digest_ignores_key_order_whitespace_and_escapes(void **state)
{
	char a[65], b[65];

	(void)state;
	digest_of(base, a);
	digest_of(reordered, b);
	assert_string_equal(a, b);
}

static void test_digest_omitted_mode_equals_explicit_enforce(void **state)
{
	char *no_mode = variant("\"mode\":\"enforce\",", "");
	char a[65], b[65];

	(void)state;
	digest_of(base, a);
	digest_of(no_mode, b);
	assert_string_equal(a, b);
	free(no_mode);
}

static void test_digest_changes_with_any_value(void **state)
{
	static const struct {
		const char *from, *to;
	} changes[] = {
		{ "127.0.0.1:18080", "127.0.0.1:18081" },          /* port */
		{ "deb.debian.org:443", "deb.debian.org:443-444" }, /* range */
		{ "\"id\":\"digest\"", "\"id\":\"digest2\"" },
		{ "\"mode\":\"enforce\"", "\"mode\":\"audit\"" },
		{ "\"files\":\"unrestricted\"", "\"files\":{}" },
		{ "\"unix\":[]", "\"unix\":[\"@x\"]" },
		{ ",\"unix\":[]", "" },                            /* {} vs absent key */
		{ "\"PATH\"", "\"HOME\"" },
		{ "\"UTC\"", "\"UTC0\"" },
		{ "\"pids\":64", "\"pids\":65" },
	};
	char a[65], b[65];
	size_t i;

	(void)state;
	digest_of(base, a);
	for (i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		char *s = variant(changes[i].from, changes[i].to);

		digest_of(s, b);
		if (strcmp(a, b) == 0)
			print_error("change %zu left the digest unchanged\n", i);
		assert_string_not_equal(a, b);
		free(s);
	}
}

/* Non-ASCII text is escaped (jansson writes \uXXXX in upper case), so
 * the canonical text is plain ASCII. */
static void test_canonical_is_ascii_only(void **state)
{
	static const char doc[] = "{\"version\":1,\"id\":\"u\","
				  "\"env\":{\"set\":{\"GREETING\":\"gr\xc3\xbc\xc3\x9f "
				  "\\u00e9\xf0\x9f\x98\x80\"}}}";
	struct rf_policy *p = load(doc);
	char *text = canonical(doc);
	const char *c;

	(void)state;
	for (c = text; *c; c++)
		assert_true((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f);
	assert_non_null(strstr(text, "gr\\u00FC\\u00DF \\u00E9\\uD83D\\uDE00"));
	free(text);
	/* The parsed value is still UTF-8. */
	assert_string_equal(p->env_set[0].value, "gr\xc3\xbc\xc3\x9f \xc3\xa9\xf0\x9f\x98\x80");
	policy__free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest_of_fixed_policy_is_pinned),
		cmocka_unit_test(test_digest_is_sha256_of_canonical),
		cmocka_unit_test(test_digest_ignores_key_order_whitespace_and_escapes),
		cmocka_unit_test(test_digest_omitted_mode_equals_explicit_enforce),
		cmocka_unit_test(test_digest_changes_with_any_value),
		cmocka_unit_test(test_canonical_is_ascii_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
