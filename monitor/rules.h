/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The monitor's rules, one table: everything each rule carries (its id in
 * alerts and metrics, its title, its OCSF severity and security-control
 * outcome, the shape of its evidence) is a column of RF_RULES, and every
 * per-rule use is derived from it (rules.c, alert.c, metrics.c, top.c).
 * Adding a rule is one line here plus its detector; alert.c's per-shape
 * formatters are checked by the compiler to exist.
 */
#ifndef RF_MON_RULES_H
#define RF_MON_RULES_H

#include <stdbool.h>

/* OCSF severity_id: its caption (OCSF) and the short name --top shows. */
#define RF_SEVERITIES(X)                                  \
	X(UNKNOWN, 0, "Unknown", "unknown")               \
	X(INFO, 1, "Informational", "info")               \
	X(LOW, 2, "Low", "low")                           \
	X(MEDIUM, 3, "Medium", "medium")                  \
	X(HIGH, 4, "High", "high")                        \
	X(CRITICAL, 5, "Critical", "critical")            \
	X(FATAL, 6, "Fatal", "fatal")

enum rf_severity {
#define RF_SEV_ENUM(e, n, caption, short_name) RF_SEV_##e = n,
	RF_SEVERITIES(RF_SEV_ENUM)
#undef RF_SEV_ENUM
	RF_SEV_MAX
};

/* What the kernel's control did about what the rule saw (OCSF
 * security_control action and disposition). */
enum rf_rule_control {
	RF_CONTROL_VERDICT,     /* blocked when the denials' verdict is "denied" */
	RF_CONTROL_REFUSED,     /* blocked when the call was refused */
	RF_CONTROL_DETECT,      /* only detected (thresholds) */
	RF_CONTROL_HEALTH,      /* the monitor's own health: unknown action, logged */
};

/* When an alert takes its rule's other severity. */
enum rf_rule_alt {
	RF_ALT_NONE,
	RF_ALT_REFUSED,         /* the syscall was refused (rf_alert.refused) */
	RF_ALT_RISE,            /* a sudden rise, not a threshold (key "*-rise") */
};

/*
 * X(ENUM, id, name, severity, alt, severity_alt, control, shape)
 *   id           alert "unmapped.rule", finding_info.types, analytic uid
 *                "rf-<id>", metrics label rule="<id>", --top's rule
 *   name         finding_info.title and analytic name
 *   severity     OCSF severity_id of its alerts (enum rf_severity)
 *   alt          when an alert has severity_alt instead (enum rf_rule_alt)
 *   control      security_control outcome (enum rf_rule_control)
 *   shape        the evidence, message and unmapped fields' formatters
 *                (alert.c defines message_<shape>, evidences_<shape> and
 *                unmapped_<shape>)
 *
 * An unexpected syscall is High; one the sandbox refused (its boundary or
 * allowlist filter, an LSM) is Critical: the workload tried what its
 * policy forbids outright (ptrace, bpf, unshare, mount...), the strongest
 * sign of a hostile or compromised command, even though it was stopped.
 * A shed sandbox is High: a sandbox no longer watched is a blind spot
 * someone who can start sandboxes may have made on purpose. DNS
 * tunnelling and an unexpected program are High: both are what a coerced
 * agent does with what its policy allows (data out through names under an
 * allowed wildcard; `git` run by a tool that should only run `python3`);
 * so is an egress volume over the policy's threshold (a secret sent to a
 * destination the policy allows).
 * An unexpected file path is Medium: a file the policy allows, outside the
 * paths the task was expected to open, is often a harmless dependency
 * the list missed (a locale, a config file); it is what to look at first
 * when something else alerts.
 */
#define RF_RULES(X)                                                                     \
	X(DENY_BURST, "deny-burst", "Denied-connection burst", MEDIUM, RF_ALT_NONE,    \
	  MEDIUM, RF_CONTROL_VERDICT, burst)                                            \
	X(FAILED_OPS, "failed-ops", "Repeated failed operations", MEDIUM, RF_ALT_NONE, \
	  MEDIUM, RF_CONTROL_VERDICT, burst)                                            \
	X(SYSCALL, "unexpected-syscall", "Unexpected syscall", HIGH, RF_ALT_REFUSED,   \
	  CRITICAL, RF_CONTROL_REFUSED, syscall)                                        \
	X(RESOURCE, "resource-spike", "Resource spike", MEDIUM, RF_ALT_RISE, LOW,      \
	  RF_CONTROL_DETECT, resource)                                                  \
	X(LOST, "lost-events", "Lost events", MEDIUM, RF_ALT_NONE, MEDIUM,             \
	  RF_CONTROL_HEALTH, lost)                                                      \
	X(SHED, "table-shed", "Sandbox table full", HIGH, RF_ALT_NONE, HIGH,           \
	  RF_CONTROL_HEALTH, shed)                                                      \
	X(DNS_TUNNEL, "dns-tunnel", "DNS tunnelling", HIGH, RF_ALT_NONE, HIGH,         \
	  RF_CONTROL_DETECT, dns)                                                       \
	X(EXEC, "unexpected-exec", "Unexpected program", HIGH, RF_ALT_NONE, HIGH,      \
	  RF_CONTROL_DETECT, exec)                                                      \
	X(EGRESS, "egress-volume", "Egress volume", HIGH, RF_ALT_NONE, HIGH,           \
	  RF_CONTROL_DETECT, egress)                                                    \
	X(FILES, "unexpected-file", "Unexpected file path", MEDIUM, RF_ALT_NONE,       \
	  MEDIUM, RF_CONTROL_DETECT, files)

enum rf_rule {
#define RF_RULE_ENUM(e, id, name, sev, alt, sev_alt, control, shape) RF_RULE_##e,
	RF_RULES(RF_RULE_ENUM)
#undef RF_RULE_ENUM
	RF_RULE_MAX
};

struct rf_rule_info {
	const char *id;
	const char *name;
	enum rf_severity severity;
	enum rf_rule_alt alt;
	enum rf_severity severity_alt;
	enum rf_rule_control control;
};

/* Every rule is an OCSF Detection Finding. */
#define RF_OCSF_CLASS_UID 2004
#define RF_OCSF_CLASS_NAME "Detection Finding"
#define RF_OCSF_CATEGORY_UID 2
#define RF_OCSF_CATEGORY_NAME "Findings"

/* The records of one alert: X(ENUM, name, OCSF activity_name); the
 * activity_id is the phase + 1. */
#define RF_PHASES(X)                                                              \
	X(OPEN, "open", "Create")       /* first record of an alert, at once */    \
	X(UPDATE, "update", "Update")   /* periodic, while it goes on */           \
	X(CLOSE, "close", "Close")      /* last record */

enum rf_phase {
#define RF_PHASE_ENUM(e, name, activity) RF_PHASE_##e,
	RF_PHASES(RF_PHASE_ENUM)
#undef RF_PHASE_ENUM
	RF_PHASE_MAX
};

/* The row of r; NULL past the table. */
const struct rf_rule_info *rf_rule_info(enum rf_rule r);
const char *rf_rule_id(enum rf_rule r);     /* "deny-burst", ... ("unknown") */
const char *rf_rule_name(enum rf_rule r);   /* "Denied-connection burst", ... */
const char *rf_phase_name(enum rf_phase p); /* "open", "update", "close" */
/* OCSF activity_name of a phase's records ("Create", ...). */
const char *rf_phase_activity(enum rf_phase p);
/* OCSF caption ("Medium") and short name ("medium") of a severity_id. */
const char *rf_severity_caption(int sev);
const char *rf_severity_short(int sev);

struct rf_alert;
/* OCSF severity_id of an alert record: its rule's severity, or the
 * other one when the rule's alt condition holds. */
int rf_alert_severity(const struct rf_alert *a);

#endif
