/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a unit test made of the code's decisions, as "key=value" lines
 * (test_plan's plan, test_policy's parsed policy), and the check that the
 * lines a case wants are among them, each whole.
 */
#ifndef RF_TEST_LINES_H
#define RF_TEST_LINES_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* Each line stands between newlines, the first too: "\nkey=value\n"
 * finds one whole. */
struct lines {
	char buf[32768];
	size_t at;
};

static inline void lines_start(struct lines *l)
{
	l->buf[0] = '\n';
	l->buf[1] = '\0';
	l->at = 1;
}

__attribute__((format(printf, 2, 3)))
static inline void line(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->at, sizeof(l->buf) - l->at, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n + 1 < sizeof(l->buf) - l->at);
	l->at += (size_t)n;
	l->buf[l->at++] = '\n';
	l->buf[l->at] = '\0';
}

/* Every line of want ("key=value\n"...) is a whole line of got; the case
 * fails naming the first that is not and what got says for its key. */
static inline void lines_expect(const struct lines *got, const char *name, const char *want)
{
	const char *w = want;

	while (*w) {
		size_t n = strcspn(w, "\n");
		char one[1024], key[512];
		const char *at;

		snprintf(one, sizeof(one), "\n%.*s\n", (int)n, w);
		snprintf(key, sizeof(key), "\n%.*s=", (int)strcspn(w, "="), w);
		if (!strstr(got->buf, one)) {
			at = strstr(got->buf, key);
			fail_msg("%s: want %.*s, got %.*s", name, (int)n, w,
				 at ? (int)strcspn(at + 1, "\n") : 6, at ? at + 1 : "(none)");
		}
		w += n + (w[n] == '\n');
	}
}

#endif
