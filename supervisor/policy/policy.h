/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Policy v1: strict parsing and validation (jansson), canonical digest. */
#ifndef RF_POLICY_H
#define RF_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define RF_POLICY_PATH_MAX 255      /* bytes of one path entry */
#define RF_POLICY_ID_MAX 63
#define RF_DNS_NAME_MAX 253


enum rf_mode {
	RF_MODE_ENFORCE = 0,
	RF_MODE_AUDIT = 1,
};

/* How a policy class is confined. An omitted class is DENY_ALL. */
enum rf_confine {
	RF_CONFINE_DENY_ALL = 0,     /* class omitted: nothing allowed */
	RF_CONFINE_ALLOWLIST = 1,    /* only the listed entries */
	RF_CONFINE_UNRESTRICTED = 2, /* explicit "unrestricted" opt-out */
};

/* An absolute path; subtree when written with a trailing '/'. */
struct rf_path_rule {
	char *path;                  /* as written, trailing '/' kept */
	bool subtree;
};

/* The largest policy accepted: room for some 100,000 rules of each kind
 * (a sandbox's maps hold RF_SB_MAX_KEYS keys each). */
#define RF_POLICY_MAX_BYTES (32 * 1024 * 1024)

struct rf_path_list {
	struct rf_path_rule *v;
	size_t n;
};

enum rf_host_kind {
	RF_HOST_ADDR = 1,            /* IPv4/IPv6 literal or CIDR */
	RF_HOST_NAME = 2,            /* DNS name: the DNS gate, or resolved once */
};

/* network.dns: how the names in network.connect are handled. */
enum rf_dns_mode {
	RF_DNS_GATE = 0,             /* default: the per-sandbox DNS gate (dnsgate.c) */
	RF_DNS_ONCE = 1,             /* resolved once by the supervisor before the start */
};

/* An address prefix without ports (network.dns.rebind_allow). */
struct rf_prefix {
	int family;                  /* AF_INET or AF_INET6 */
	uint8_t addr[16];            /* network byte order */
	uint8_t prefix_len;
};

/* An upstream resolver of the gate (network.dns.upstream). */
struct rf_upstream {
	int family;
	uint8_t addr[16];
	uint16_t port;               /* host byte order, 53 unless written */
};

struct rf_dns {
	bool set;                    /* network.dns was written */
	enum rf_dns_mode mode;
	struct rf_upstream *upstream;  /* empty: the host's /etc/resolv.conf */
	size_t n_upstream;
	struct rf_prefix *rebind_allow; /* private answers names may have */
	size_t n_rebind_allow;
};

/* One network.connect entry: HOST:PORT or HOST:LOW-HIGH. */
struct rf_endpoint {
	char *text;                  /* the entry as written */
	enum rf_host_kind kind;
	int family;                  /* AF_INET or AF_INET6 (ADDR only) */
	uint8_t addr[16];            /* network byte order; IPv4 in addr[0..3] */
	uint8_t prefix_len;          /* 32 / 128 for a single host */
	bool cidr;                   /* written with /N */
	char *name;                  /* lower-cased, no trailing dot (NAME); "" else.
				      * In text's allocation: an entry is small,
				      * 100,000 of them parse without a page each */
	bool wildcard;               /* "*.NAME": every name below NAME, not NAME */
	uint16_t port_lo;            /* 1..65535, host byte order */
	uint16_t port_hi;            /* port_lo..65535 */
};

/* One network.unix entry: absolute pathname (subtree with '/') or @abstract. */
struct rf_unix_rule {
	char *text;                  /* as written */
	bool abstract;               /* "@name": abstract namespace, exact */
	bool subtree;                /* pathname ending in '/' */
	char *name;                  /* path, or abstract name without '@' */
};

struct rf_env_var {
	char *name;
	char *value;
};

/* Optional integer field: set == false when absent. */
struct rf_opt_u64 {
	bool set;
	uint64_t v;
};

/* "scratch": {"path": P, "size_mb": N}: an empty private tmpfs of N MiB at P. */
struct rf_scratch {
	bool set;
	char *path;                  /* absolute, not "/", no trailing '/' */
	uint64_t size_mb;
};

/* files.tmp: absent (auto: private when files.write reaches /tmp itself,
 * "/tmp/" or "/"), "private" or "shared" (the host's /tmp). */
enum rf_tmp {
	RF_TMP_AUTO = 0,
	RF_TMP_PRIVATE,
	RF_TMP_SHARED,
};

struct rf_limits {
	bool present;
	struct rf_opt_u64 pids, memory_mb, cpu_percent, wall_seconds, output_bytes;
	struct rf_opt_u64 egress_bytes, disk_write_mb;   /* issue 22: the ledger's budgets */
	struct rf_scratch scratch;
};

enum rf_on_violation {
	RF_VIOLATION_DENY = 0,
	RF_VIOLATION_ALERT = 1,
};

struct rf_syscalls {
	bool present;
	char **allow;                /* names as written */
	size_t n_allow;
	enum rf_on_violation on_violation; /* default deny */
};

/* monitor.on_alert: what ringfence-monitor does to the sandbox on an alert. */
enum rf_on_alert {
	RF_ON_ALERT_ALERT = 0,       /* only the alert (default) */
	RF_ON_ALERT_FREEZE = 1,      /* freeze its cgroup, left for inspection */
	RF_ON_ALERT_KILL = 2,        /* freeze, record the process tree, kill the cgroup */
};

struct rf_monitor {
	bool present;
	struct rf_opt_u64 deny_burst_count;     /* "deny_burst": {"count": N, */
	struct rf_opt_u64 deny_burst_window_ms; /*   "window_ms": W}          */
	struct rf_opt_u64 cpu_percent, memory_mb, pids;
	struct rf_opt_u64 dns_names_count;      /* "dns_names": {"count": N, */
	struct rf_opt_u64 dns_names_window_ms;  /*   "window_ms": W}          */
	struct rf_opt_u64 dns_label_len;        /* longest DNS label not alerted */
	struct rf_opt_u64 disk_write_mb;        /* bytes written to storage, MiB */
	struct rf_opt_u64 egress_bytes;         /* bytes sent, per sandbox and per
						 * destination, within egress_window_ms */
	struct rf_opt_u64 egress_window_ms;
	bool has_exec;                          /* "exec": the programs expected */
	char **exec;                            /* names (basename) or absolute paths */
	size_t n_exec;
	/* "files": the paths the task is expected to open (absolute; a trailing
	 * '/' names a subtree); an allowed open elsewhere is an alert */
	bool has_files;
	char **files;
	size_t n_files;
	enum rf_on_alert on_alert;
};

/* "memory": {"deny_write_execute": true}: W^X for commands that need no
 * JIT (systemd's MemoryDenyWriteExecute=). */
struct rf_memory {
	bool present;
	bool deny_write_execute;
};

struct rf_policy {
	int version;                 /* 1 */
	char id[RF_POLICY_ID_MAX + 1];
	enum rf_mode mode;
	bool approximate;            /* "approximate": true: where a backend cannot
				      * express an entry exactly, it may use its
				      * documented nearest safe (narrower)
				      * approximation, shown in the trace */

	enum rf_confine files;
	struct rf_path_list files_read;
	struct rf_path_list files_write;  /* write implies read */
	enum rf_tmp files_tmp;            /* "tmp": a private /tmp or the host's */

	enum rf_confine exec;
	struct rf_path_list exec_paths;

	/* "network" omitted -> both DENY_ALL; "unrestricted" -> both UNRESTRICTED;
	 * an object -> each of connect/unix ALLOWLIST (possibly empty), or
	 * UNRESTRICTED when that key is the string "unrestricted". */
	enum rf_confine net_connect;
	struct rf_endpoint *connect;
	size_t n_connect;
	enum rf_confine net_unix;
	struct rf_unix_rule *unix_rules;
	size_t n_unix;
	struct rf_dns dns;

	char **env_pass;
	size_t n_env_pass;
	struct rf_env_var *env_set;
	size_t n_env_set;

	struct rf_limits limits;
	struct rf_syscalls syscalls;
	struct rf_monitor monitor;
	struct rf_memory memory;

	struct rf_env_var *vars;     /* the ${NAME}s the policy used, resolved */
	size_t n_vars;

	/* The text of every files, exec, connect and unix entry, in blocks
	 * freed whole (NULL: the entries' texts are their own allocations). */
	struct rf_text_block *texts;

	char digest[65];             /* sha256 hex of the canonical text */
};

#define RF_POLICY_ERRORS_MAX 20      /* invalid entries reported by one load */

/* Every invalid entry one load found, in document order. */
struct rf_policy_errors {
	size_t n;
	bool truncated;              /* stopped at RF_POLICY_ERRORS_MAX */
	struct rf_error v[RF_POLICY_ERRORS_MAX];
};

/*
 * Parse and validate. On -EINVAL, err names the JSON path and the reason of
 * the first invalid entry. Other negative errnos: I/O or allocation failures
 * (err filled too). "$comment" members are dropped; ${HOME}, ${PWD},
 * ${TMPDIR} and ${UID} in strings become the invoking user's values
 * (policy_vars.c), "$${" a literal "${".
 */
int policy__load_file(const char *file, struct rf_policy **ret_policy,
		      struct rf_error *err);
/* policy__load_file, and every invalid entry in *ret_all (may be NULL). */
int policy__load_file_all(const char *file, struct rf_policy **ret_policy,
			  struct rf_error *err, struct rf_policy_errors *ret_all);
/* The canonical text of a policy given as a string (the validated
 * document, defaults explicit, keys sorted, compact, ASCII only): what
 * the digest is the sha256 of (a loaded policy keeps only the digest). The
 * text in *ret_text (free it), or -errno and err as policy__load_string. */
int policy__canonical_text(const char *json, char **ret_text, struct rf_error *err);

int policy__load_string(const char *json, struct rf_policy **ret_policy,
			struct rf_error *err);
void policy__free(struct rf_policy *policy);

/* {"NAME": "value"} of the variables the policy used, for the trace. */
struct json_t *policy__variables_json(const struct rf_policy *policy);

/* Validate one absolute path entry by the policy's path rules.
 * Returns 0 or -EINVAL with err->why filled (err->where left empty for
 * the caller, who knows the JSON path; err may be NULL). */
int policy__check_path(const char *path, struct rf_error *err);

/* Parse one network.connect entry. 0, -EINVAL or -ENOMEM with err->why
 * filled (err->where left empty, as above; err may be NULL). A failed
 * parse leaves *ret_ep empty. */
int endpoint__parse(const char *text, struct rf_endpoint *ret_ep,
		    struct rf_error *err);
/* The same, the text and name stored in alloc(ctx, bytes) (NULL: out of
 * memory), which the caller frees, not endpoint__clear(). */
int endpoint__parse_in(const char *text, struct rf_endpoint *ret_ep,
		       char *(*alloc)(void *ctx, size_t bytes), void *ctx,
		       struct rf_error *err);
void endpoint__clear(struct rf_endpoint *ep);

/* Does the DNS name qname (lower-case, no trailing dot) match entry ep
 * (a name: equal; a wildcard: strictly below it)? */
bool endpoint__name_matches(const struct rf_endpoint *ep, const char *qname);

/* learn --wildcards: "*.D" into buf when name lies strictly below its
 * registrable domain D (the Public Suffix List, as wildcard entries are
 * checked): 1; 0 when name is D itself or has none (buf untouched);
 * -ELIBACC with err set when libpsl cannot be loaded. */
int endpoint__wildcard_for(const char *name, char *buf, size_t len, struct rf_error *err);

/* Parse an upstream resolver: IPv4, IPv4:PORT, [IPv6] or [IPv6]:PORT. */
int endpoint__parse_upstream(const char *text, struct rf_upstream *ret_up,
			     struct rf_error *err);

/* Parse an address prefix: IPv4[/N] or IPv6[/N] (no brackets, no port). */
int endpoint__parse_prefix(const char *text, struct rf_prefix *ret_pfx,
			   struct rf_error *err);

/* True for 169.254.0.0/16, fe80::/10 and fd00:ec2::254: addresses that
 * only an exact (non-CIDR) entry may allow. addr in network order. */
bool endpoint__is_sensitive(int family, const uint8_t *addr);

/* Write rule w lets the sandbox make an allowed network.unix pathname:
 * the name's directory is w or below it, or w lies below an allowed
 * subtree. */
bool policy__unix_name_in_write(const struct rf_policy *p, const struct rf_path_rule *w);

#endif /* RF_POLICY_H */
