/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What supervisor/policy*.c share: JSON reading helpers, the classes; not for other callers. */
#ifndef RF_POLICY_INTERNAL_H
#define RF_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "policy.h"

#define POL_WHERE_MAX sizeof(((struct rf_error *)0)->where)
#define POL_QUOTE_MAX 96             /* bytes of a quoted value in a message */

/*
 * One load's errors. The parsers get &cur as their err; where a list or an
 * object goes on after a bad member, policy_json__collect() moves cur to
 * all, so one pass reports every invalid entry (up to the cap).
 */
struct pol_errors {
	struct rf_error cur;
	struct rf_policy_errors all;
	bool full;                   /* the cap is reached: stop */
};

/* r from a member's parse: 0 to go on with the next member (an -EINVAL
 * kept in the list), or r to stop (another errno, or the cap). */
int policy_json__collect(struct rf_error *err, int r);
/* 0 when nothing was collected, else -EINVAL with cur the first error. */
int policy_json__collected(struct rf_error *err);

/* policy_json.c. Errors are -EINVAL (or -ENOMEM) with err naming the
 * JSON path (where) and the reason. */
int policy_json__fail(struct rf_error *err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int policy_json__nomem(struct rf_error *err);
void policy_json__quote(char *buf, size_t len, const char *s);
void policy_json__where_key(char *buf, const char *where, const char *key);
void policy_json__where_idx(char *buf, const char *where, size_t i);
int policy_json__check_keys(json_t *obj, const char *where,
			    const char *const *allowed, struct rf_error *err);
/* obj's member key, which must be there (where: obj's path). */
int policy_json__required(json_t *obj, const char *where, const char *key, json_t **ret_v,
			  struct rf_error *err);
int policy_json__get_string(json_t *v, const char *where, const char **ret_s,
			    struct rf_error *err);
/* obj's optional member key (where: its path), one of the strings
 * names[0..n): its index, n when absent, or the error. */
int policy_json__get_choice(json_t *obj, const char *key, const char *where,
			    const char *const *names, size_t n, struct rf_error *err);
int policy_json__get_uint(json_t *v, const char *where, uint64_t min,
			  uint64_t max, struct rf_opt_u64 *ret_v, struct rf_error *err);
bool policy_json__is_unrestricted(json_t *v);

/* One entry of a list: s parsed into elem (p: the policy it goes to). */
typedef int policy_json_entry_fn(struct rf_policy *p, const char *s, const char *where,
				 void *elem, struct rf_error *err);

int policy_json__parse_strings(json_t *v, const char *where, const char *expected,
			       void **ret_v, size_t elem, size_t *ret_n,
			       policy_json_entry_fn *entry, struct rf_policy *p,
			       struct rf_error *err);
int policy_json__parse_class_list(json_t *v, const char *where, const char *what,
				  enum rf_confine *ret_confine, void **ret_v, size_t elem,
				  size_t *ret_n, policy_json_entry_fn *entry, struct rf_policy *p,
				  struct rf_error *err);

/* len bytes for an entry's text in p->texts (freed with the policy), or
 * NULL when out of memory: one allocation per block of entries, not one
 * per entry, and a policy of 100,000 entries freed at once. */
char *policy_json__text(struct rf_policy *p, size_t len);
/* The blocks of p->texts freed. */
void policy_json__texts_free(struct rf_policy *p);
int policy_json__class_object(json_t *v, const char *where, const char *const *keys,
			      struct rf_error *err);

/* policy_vars.c: "$comment" members removed from every object, then
 * ${NAME} in every string replaced by the invoking user's value. */
int policy_vars__apply(json_t *root, struct rf_policy *p, struct rf_error *err);
/* After the document is read: every string's "${" written "$${" again, so
 * the canonical text (variables expanded) loads to the same policy. */
int policy_vars__escape(json_t *root);

/* policy_classes.c: every class key present in root, parsed into p. */
int policy_classes__parse(json_t *root, struct rf_policy *p, struct rf_error *err);

#endif /* RF_POLICY_INTERNAL_H */
