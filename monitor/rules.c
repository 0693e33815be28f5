// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The rows of RF_RULES, RF_PHASES and RF_SEVERITIES (rules.h). */
#include <stddef.h>
#include <string.h>

#include "rollup.h"
#include "rules.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct rf_rule_info rules[] = {
#define RULE_ROW(e, id_, name_, sev, alt_, sev_alt, control_, shape)                     \
	[RF_RULE_##e] = { .id = id_, .name = name_, .severity = RF_SEV_##sev, .alt = alt_, \
			  .severity_alt = RF_SEV_##sev_alt, .control = control_ },
	RF_RULES(RULE_ROW)
#undef RULE_ROW
};
_Static_assert(COUNT(rules) == RF_RULE_MAX, "one row per rule");
/* Rules are numbered as before the table: rf_alert.rule and the metrics'
 * per-rule counters index by them. */
_Static_assert(RF_RULE_DENY_BURST == 0 && RF_RULE_SHED == 5 && RF_RULE_DNS_TUNNEL == 6 &&
	       RF_RULE_EXEC == 7 && RF_RULE_EGRESS == 8 && RF_RULE_FILES == 9 &&
	       RF_RULE_MAX == 10,
	       "rule numbers are stable");

static const char *const phase_names[] = {
#define PHASE_NAME(e, name, activity) [RF_PHASE_##e] = name,
	RF_PHASES(PHASE_NAME)
#undef PHASE_NAME
};
static const char *const phase_activities[] = {
#define PHASE_ACT(e, name, activity) [RF_PHASE_##e] = activity,
	RF_PHASES(PHASE_ACT)
#undef PHASE_ACT
};
_Static_assert(COUNT(phase_names) == RF_PHASE_MAX && COUNT(phase_activities) == RF_PHASE_MAX,
	       "one name per phase");
_Static_assert(RF_PHASE_OPEN == 0 && RF_PHASE_CLOSE == 2, "activity_id is the phase + 1");

static const char *const sev_captions[] = {
#define SEV_CAPTION(e, n, caption, short_name) [n] = caption,
	RF_SEVERITIES(SEV_CAPTION)
#undef SEV_CAPTION
};
static const char *const sev_shorts[] = {
#define SEV_SHORT(e, n, caption, short_name) [n] = short_name,
	RF_SEVERITIES(SEV_SHORT)
#undef SEV_SHORT
};
_Static_assert(COUNT(sev_captions) == RF_SEV_MAX && COUNT(sev_shorts) == RF_SEV_MAX,
	       "OCSF severity ids 0..6, each named");

const struct rf_rule_info *rf_rule_info(enum rf_rule r)
{
	return (unsigned int)r < RF_RULE_MAX ? &rules[r] : NULL;
}

const char *rf_rule_id(enum rf_rule r)
{
	return (unsigned int)r < RF_RULE_MAX ? rules[r].id : "unknown";
}

const char *rf_rule_name(enum rf_rule r)
{
	return (unsigned int)r < RF_RULE_MAX ? rules[r].name : "unknown";
}

const char *rf_phase_name(enum rf_phase p)
{
	return (unsigned int)p < RF_PHASE_MAX ? phase_names[p] : "unknown";
}

const char *rf_phase_activity(enum rf_phase p)
{
	return (unsigned int)p < RF_PHASE_MAX ? phase_activities[p] : "Unknown";
}

const char *rf_severity_caption(int sev)
{
	return sev >= 0 && sev < RF_SEV_MAX ? sev_captions[sev] : sev_captions[RF_SEV_UNKNOWN];
}

const char *rf_severity_short(int sev)
{
	return sev >= 0 && sev < RF_SEV_MAX ? sev_shorts[sev] : sev_shorts[RF_SEV_UNKNOWN];
}

static bool alt_holds(enum rf_rule_alt alt, const struct rf_alert *a)
{
	switch (alt) {
	case RF_ALT_REFUSED: return a->refused;
	case RF_ALT_RISE: return strstr(a->key, "rise") != NULL;
	case RF_ALT_NONE: break;
	}
	return false;
}

int rf_alert_severity(const struct rf_alert *a)
{
	const struct rf_rule_info *r = rf_rule_info(a->rule);

	if (!r)
		return RF_SEV_INFO;
	return alt_holds(r->alt, a) ? r->severity_alt : r->severity;
}
