/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Live sandboxes, one JSON file each under /run/ringfence/sandboxes/: the
 * supervisor -> ringfence-monitor contract (schemas/registry.schema.json).
 * This is its only writer and reader; both binaries go through it.
 */
#ifndef RF_REGISTRY_H
#define RF_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "paths.h"

/* Larger files are not entries (a policy's whole profile is a few KiB). */
#define RF_REGISTRY_MAX_BYTES (1024 * 1024)

/* Correlation labels: `ringfence run --label key=value` (repeatable) and
 * the W3C TRACEPARENT of the run's environment. */
#define RF_LABELS_MAX 8
#define RF_LABEL_LEN 128                /* "key=value" and its NUL */
#define RF_TRACEPARENT_LEN 56           /* 55 characters and the NUL */

struct rf_reg_labels {
	size_t n;
	char v[RF_LABELS_MAX][RF_LABEL_LEN];    /* "key=value" */
};

/* "key=value": key [a-z0-9_.-] (1-63, starting with a letter or digit),
 * value printable ASCII without '"' or '\\' (0-63). NULL when valid,
 * else why not (a static string). */
const char *registry__label_invalid(const char *kv);
/* A W3C traceparent "00-<32 hex>-<16 hex>-<2 hex>", ids not all zero. */
bool registry__traceparent_valid(const char *s);

/* "labels" as a JSON object; from_json: 0 or -EINVAL (ret filled so far). */
json_t *registry__labels_to_json(const struct rf_reg_labels *l);
int registry__labels_from_json(json_t *o, struct rf_reg_labels *ret);

/* An optional integer: set == false when the key is absent. */
struct rf_reg_u64 {
	bool set;
	uint64_t v;
};

/* "monitor": the policy's detection thresholds as written (absent ones
 * unset: the monitor applies its defaults). */
struct rf_reg_monitor {
	bool present;                   /* the key is written ({} when empty) */
	struct rf_reg_u64 burst_count;  /* "deny_burst": {"count": N, */
	struct rf_reg_u64 burst_window_ms; /*  "window_ms": W}: written with count */
	struct rf_reg_u64 cpu_percent, memory_mb, pids;
	struct rf_reg_u64 dns_names_count;      /* "dns_names": {"count": N, */
	struct rf_reg_u64 dns_names_window_ms;  /*  "window_ms": W}: written with count */
	struct rf_reg_u64 dns_label_len, disk_write_mb;
	struct rf_reg_u64 egress_bytes, egress_window_ms;  /* bytes sent within a window */
	/* "on_alert": "alert", "freeze" or "kill" ("" absent: alert) */
	char on_alert[8];
	/* "exec": the programs the task is expected to run (has_exec: the key
	 * is written). Allocated by the readers (registry__monitor_clear); a
	 * writer may lend its own names, as for syscalls.allow. */
	bool has_exec;
	char **exec;
	size_t n_exec;
};

/* "syscalls": the policy's syscall profile, if it has one. */
struct rf_reg_syscalls {
	bool present;
	bool alert;                     /* "on_violation": "alert" (else "deny") */
	char **allow;                   /* names as written */
	size_t n_allow;
};

/* "limit_exceeded": the cap that ended the run (written by the supervisor
 * as it kills the sandbox, for ringfence-monitor). */
struct rf_reg_limit {
	bool present;
	char limit[24];                 /* memory_mb, pids, wall_seconds, output_bytes,
					 * egress_bytes, disk_write_mb */
	uint64_t value, threshold;
	char unit[16];
};

struct rf_registry_entry {
	char sandbox[128];
	char policy_id[64];
	char digest[65];                /* "policy_sha256" */
	char mode[16];
	char cgroup_path[4096];
	/* "cgroup_placement": how its parent was chosen (root, named,
	 * delegated, systemd-scope; cgplace.h). Optional: empty when absent. */
	char cgroup_placement[16];
	uint64_t cgroup_id;
	/* "pin_set": the pinned set enforcing it (pins.h: its build's
	 * RF_PIN_DIR/<set>). Optional: empty when absent, in files of
	 * builds before sets (the legacy set). */
	char pin_set[17];
	pid_t supervisor_pid;
	uint64_t supervisor_start;      /* /proc/PID/stat starttime: pid reuse guard */
	pid_t child_pid;                /* "pid": 0 until the command started */
	char started[64];               /* RFC 3339 */
	/* "on_supervisor_exit": "keep-running" (run --keep-running: the
	 * command outlives a killed supervisor, still confined, and is
	 * cleaned up once its cgroup is empty) or "kill" (the default,
	 * also when the key is absent). */
	bool keep_running;
	struct rf_reg_labels labels;    /* "labels": {"key": "value"}, written when any */
	char traceparent[RF_TRACEPARENT_LEN];   /* written when set */
	struct rf_reg_monitor monitor;
	/* allow: allocated by the readers below (registry__entry_clear frees
	 * it); a writer may lend its own names and then must not clear. */
	struct rf_reg_syscalls syscalls;
	struct rf_reg_limit limit_exceeded;
};

/* Frees what a reader allocated; the entry is zeroed. NULL is fine. */
void registry__entry_clear(struct rf_registry_entry *e);
void registry__list_free(struct rf_registry_entry *v, size_t n);

/* Written atomically (temp file + rename): readers never see half. The
 * plain forms use RF_REGISTRY_DIR (created with its parent); the _in forms
 * take the directory, which must exist. */
int registry__add(const struct rf_registry_entry *e);
int registry__add_in(const char *dir, const struct rf_registry_entry *e);
int registry__remove(const char *sandbox);
int registry__remove_in(const char *dir, const char *sandbox);
/* Every well-formed entry (others are skipped); free with registry__list_free. */
int registry__list(struct rf_registry_entry **ret_v, size_t *ret_n);
int registry__list_in(const char *dir, struct rf_registry_entry **ret_v, size_t *ret_n);

/* One entry file: 0, -ENOENT (gone), -EFBIG (over RF_REGISTRY_MAX_BYTES),
 * -EINVAL (not an entry), -ENOMEM. *ret is zeroed on failure. */
int registry__read_file(const char *path, struct rf_registry_entry *ret);
int registry__parse(const char *text, struct rf_registry_entry *ret);

/*
 * The entry as JSON, the keys in the file's order; NULL on ENOMEM.
 * from_json is strict: "sandbox" (non-empty) and "cgroup_id" (> 0) are
 * required; every other key is optional, but an unknown key, a value of the
 * wrong type or range, or a string too long for its field is -EINVAL.
 */
json_t *registry__to_json(const struct rf_registry_entry *e);
int registry__from_json(json_t *o, struct rf_registry_entry *ret);

/* The two policy sections on their own: monitor record files carry them
 * too. from_json: 0, -EINVAL or -ENOMEM; *ret is filled (clear syscalls
 * with registry__syscalls_clear even on failure). */
json_t *registry__monitor_to_json(const struct rf_reg_monitor *m);
json_t *registry__syscalls_to_json(const struct rf_reg_syscalls *s);
int registry__monitor_from_json(json_t *o, struct rf_reg_monitor *ret);
int registry__syscalls_from_json(json_t *o, struct rf_reg_syscalls *ret);
void registry__syscalls_clear(struct rf_reg_syscalls *s);
void registry__monitor_clear(struct rf_reg_monitor *m);

/* Its supervisor still runs (same pid and start time). */
bool registry__supervisor_alive(const struct rf_registry_entry *e);
/* Start time of a process, from /proc/PID/stat; 0 when unknown or when it
 * has exited (a zombie its parent has not reaped yet counts as exited). */
uint64_t registry__proc_start(pid_t pid);

/* "limit_exceeded" to and from JSON (also for the monitor's records). */
json_t *registry__limit_to_json(const struct rf_reg_limit *l);
int registry__limit_from_json(json_t *o, struct rf_reg_limit *ret);

#endif
