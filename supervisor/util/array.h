/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A growing array: one reserve step for the builders that append. */
#ifndef RF_ARRAY_H
#define RF_ARRAY_H

#include <errno.h>
#include <stdlib.h>

/* Make room for need elements of size elem in *v (*cap allocated so far),
 * doubling, so appending one at a time stays linear. 0 or -ENOMEM; on
 * failure *v and *cap are unchanged. */
static inline int array__reserve(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = realloc(*v, c * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

#endif
