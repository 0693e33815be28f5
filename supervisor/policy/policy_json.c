/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Reading policy JSON: errors that name the JSON path, strict keys, typed values, string arrays. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "policy_internal.h"

int policy_json__fail(struct rf_error *err, const char *where, const char *fmt, ...)
{
	va_list ap;

	err->err = -EINVAL;
	snprintf(err->where, sizeof(err->where), "%s", where);
	va_start(ap, fmt);
	vsnprintf(err->why, sizeof(err->why), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int policy_json__collect(struct rf_error *err, int r)
{
	struct pol_errors *pe = (struct pol_errors *)((char *)err - offsetof(struct pol_errors, cur));
	size_t i;

	if (r != -EINVAL || pe->full)
		return r;
	if (!err->why[0])            /* collected further down already */
		return 0;
	/* One error per entry: an unknown variable, not also the path it
	 * left behind. */
	for (i = 0; i < pe->all.n; i++)
		if (strcmp(pe->all.v[i].where, err->where) == 0)
			break;
	if (i == pe->all.n)
		pe->all.v[pe->all.n++] = *err;
	memset(err, 0, sizeof(*err));
	if (pe->all.n < RF_POLICY_ERRORS_MAX)
		return 0;
	pe->full = pe->all.truncated = true;
	*err = pe->all.v[0];
	return r;
}

int policy_json__collected(struct rf_error *err)
{
	struct pol_errors *pe = (struct pol_errors *)((char *)err - offsetof(struct pol_errors, cur));

	if (pe->all.n == 0)
		return 0;
	*err = pe->all.v[0];
	return -EINVAL;
}

int policy_json__nomem(struct rf_error *err)
{
	err->err = -ENOMEM;
	snprintf(err->where, sizeof(err->where), "$");
	snprintf(err->why, sizeof(err->why), "out of memory");
	return -ENOMEM;
}

/* A value quoted for a message: printable ASCII as is, the rest as \xNN,
 * so nothing from the file can drive the terminal. Truncated with "...". */
void policy_json__quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 8)
		return;
	buf[o++] = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (o + 8 >= len || o >= POL_QUOTE_MAX) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c >= 0x20 && c < 0x7f) {
			buf[o++] = (char)c;
		} else {
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
}

/* where.key for a key of plain characters; where["key"] quoted (no
 * control character, no newline, reaches a message) for any other. */
void policy_json__where_key(char *buf, const char *where, const char *key)
{
	char q[POL_QUOTE_MAX + 8];

	if (key[0] && strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789_$-") == strlen(key)) {
		snprintf(buf, POL_WHERE_MAX, "%s.%s", where, key);
		return;
	}
	policy_json__quote(q, sizeof(q), key);
	snprintf(buf, POL_WHERE_MAX, "%s[%s]", where, q);
}

void policy_json__where_idx(char *buf, const char *where, size_t i)
{
	char digits[24];
	size_t len = strlen(where), nd = 0, k = i;

	/* Once per list element: by hand, snprintf is much of a short entry's
	 * parse. The same text as "%s[%zu]" (which it falls back to when cut). */
	do {
		digits[nd++] = (char)('0' + k % 10);
		k /= 10;
	} while (k);
	if (len + nd + 3 > POL_WHERE_MAX) {
		snprintf(buf, POL_WHERE_MAX, "%s[%zu]", where, i);
		return;
	}
	memcpy(buf, where, len);
	buf[len++] = '[';
	while (nd)
		buf[len++] = digits[--nd];
	buf[len++] = ']';
	buf[len] = 0;
}

int policy_json__check_keys(json_t *obj, const char *where,
			    const char *const *allowed, struct rf_error *err)
{
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v) {
		const char *const *a;
		char q[POL_QUOTE_MAX + 8];

		for (a = allowed; *a; a++)
			if (strcmp(*a, key) == 0)
				break;
		if (!*a) {
			char w[POL_WHERE_MAX];
			int r;

			/* The member's own path, so each unknown key is reported. */
			policy_json__quote(q, sizeof(q), key);
			policy_json__where_key(w, where, key);
			r = policy_json__collect(err, policy_json__fail(err, w,
									"unknown key %s", q));
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int policy_json__required(json_t *obj, const char *where, const char *key, json_t **ret_v,
			  struct rf_error *err)
{
	*ret_v = json_object_get(obj, key);
	return *ret_v ? 0 : policy_json__fail(err, where, "missing required key \"%s\"", key);
}

int policy_json__get_choice(json_t *obj, const char *key, const char *where,
			    const char *const *names, size_t n, struct rf_error *err)
{
	json_t *v = json_object_get(obj, key);
	char expected[256] = "expected";
	const char *s;
	size_t i, len;
	int r;

	if (!v)
		return (int)n;
	r = policy_json__get_string(v, where, &s, err);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	for (i = 0; i < n; i++) {
		len = strlen(expected);
		snprintf(expected + len, sizeof(expected) - len, "%s\"%s\"",
			 i == 0 ? " " : i + 1 == n ? " or " : ", ", names[i]);
	}
	return policy_json__fail(err, where, "%s", expected);
}

/* A string without NUL bytes (jansson lets them through with ALLOW_NUL
 * so that they can be refused here rather than silently truncated). */
int policy_json__get_string(json_t *v, const char *where, const char **ret_s,
			    struct rf_error *err)
{
	if (!json_is_string(v))
		return policy_json__fail(err, where, "expected a string");
	if (strlen(json_string_value(v)) != json_string_length(v))
		return policy_json__fail(err, where, "string must not contain NUL bytes");
	*ret_s = json_string_value(v);
	return 0;
}

int policy_json__get_uint(json_t *v, const char *where, uint64_t min,
			  uint64_t max, struct rf_opt_u64 *ret_v, struct rf_error *err)
{
	json_int_t i;

	if (!json_is_integer(v))
		return policy_json__fail(err, where, "expected an integer");
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i < min || (uint64_t)i > max)
		return policy_json__fail(err, where, "out of range (%llu-%llu)",
					 (unsigned long long)min, (unsigned long long)max);
	ret_v->set = true;
	ret_v->v = (uint64_t)i;
	return 0;
}

/* "unrestricted" is the only string a class accepts. */
bool policy_json__is_unrestricted(json_t *v)
{
	return json_is_string(v) && strcmp(json_string_value(v), "unrestricted") == 0 &&
	       json_string_length(v) == strlen("unrestricted");
}
/*
 * An array of strings, each parsed by entry() into the i-th of n elements
 * of size elem (*ret_v; each zeroed before entry() sees it). The element
 * count is raised before entry() runs, so a half-filled element is freed
 * with the rest (entry() leaves a failed element freeable). expected: the
 * message for a value that is no array.
 */
int policy_json__parse_strings(json_t *v, const char *where, const char *expected,
			       void **ret_v, size_t elem, size_t *ret_n,
			       policy_json_entry_fn *entry, struct rf_policy *p,
			       struct rf_error *err)
{
	char w[POL_WHERE_MAX];
	size_t i, n;
	int r;

	if (!json_is_array(v))
		return policy_json__fail(err, where, "%s", expected);
	n = json_array_size(v);
	if (n == 0)
		return 0;
	/* Each element is cleared as it is counted: one pass over the
	 * array, not a calloc pass and then another. */
	*ret_v = malloc(n * elem);
	if (!*ret_v)
		return policy_json__nomem(err);
	for (i = 0; i < n; i++) {
		const char *s;

		policy_json__where_idx(w, where, i);
		memset((char *)*ret_v + i * elem, 0, elem);
		(*ret_n)++;
		r = policy_json__get_string(json_array_get(v, i), w, &s, err);
		if (r == 0)
			r = entry(p, s, w, (char *)*ret_v + i * elem, err);
		r = policy_json__collect(err, r);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A class that is "unrestricted" or an allowlist of what. */
int policy_json__parse_class_list(json_t *v, const char *where, const char *what,
				  enum rf_confine *ret_confine, void **ret_v, size_t elem,
				  size_t *ret_n, policy_json_entry_fn *entry, struct rf_policy *p,
				  struct rf_error *err)
{
	char expected[96];

	if (policy_json__is_unrestricted(v)) {
		*ret_confine = RF_CONFINE_UNRESTRICTED;
		return 0;
	}
	snprintf(expected, sizeof(expected), "expected \"unrestricted\" or an array of %s", what);
	if (json_is_array(v))
		*ret_confine = RF_CONFINE_ALLOWLIST;
	return policy_json__parse_strings(v, where, expected, ret_v, elem, ret_n, entry, p, err);
}

/* A block of entry texts; the newest first. */
struct rf_text_block {
	struct rf_text_block *next;
	size_t used, cap;
	char data[];
};

#define TEXT_BLOCK (64 * 1024)

char *policy_json__text(struct rf_policy *p, size_t len)
{
	struct rf_text_block *b = p->texts;

	if (!b || b->cap - b->used < len) {
		size_t cap = len > TEXT_BLOCK ? len : TEXT_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		b->next = p->texts;
		p->texts = b;
	}
	b->used += len;
	return b->data + b->used - len;
}

void policy_json__texts_free(struct rf_policy *p)
{
	struct rf_text_block *b = p->texts, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	p->texts = NULL;
}

/* A class written as "unrestricted" (1) or as an object of keys (0). */
int policy_json__class_object(json_t *v, const char *where, const char *const *keys,
			      struct rf_error *err)
{
	int r;

	if (policy_json__is_unrestricted(v))
		return 1;
	if (!json_is_object(v))
		return policy_json__fail(err, where, "expected \"unrestricted\" or an object");
	r = policy_json__check_keys(v, where, keys, err);
	return r < 0 ? r : 0;
}
