/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The gap table (RF_GAPS in plan.h): each gap's id, class and text. A
 * leaf: the planner and the plan's text both read it. */
#include "plan.h"

static const struct {
	const char *id, *what;
	enum rf_class cls;
} gap_table[RF_GAP_MAX] = {
#define RF_GAP_ROW_(n, i, c, w) [RF_GAP_##n] = { .id = i, .what = w, .cls = c },
	RF_GAPS(RF_GAP_ROW_)
#undef RF_GAP_ROW_
};

const char *plan__gap_id(enum rf_gap g)
{
	return (unsigned int)g < RF_GAP_MAX ? gap_table[g].id : "unknown";
}

enum rf_class plan__gap_class(enum rf_gap g)
{
	return (unsigned int)g < RF_GAP_MAX ? gap_table[g].cls : RF_CLASS_MAX;
}

const char *plan__gap_what(enum rf_gap g)
{
	return (unsigned int)g < RF_GAP_MAX ? gap_table[g].what : "";
}
