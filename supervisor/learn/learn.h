/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `ringfence learn`: run a command in audit mode and write the smallest
 * reasonable policy that would have allowed what it did, from the run's
 * own trace (kernel.deny events with verdict "audited", whichever backend
 * recorded them). The pure part (trace events -> policy) is separate from
 * the runs so the unit tests can drive it.
 */
#ifndef RF_LEARN_H
#define RF_LEARN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "error.h"

/* A directory with this many used entries is allowed as a whole ("dir/"). */
#define RF_LEARN_COLLAPSE_MIN 4

#define RF_LEARN_DENIALS_KEPT 1000

/* In every learned files.write: the sandbox never has a controlling
 * terminal, so opening it fails (ENXIO) whatever the policy says; audit
 * mode under Landlock cannot see that failed open, and leaving it out
 * would only turn ENXIO into a denial (EACCES) under the learned policy. */
#define RF_LEARN_TTY "/dev/tty"

/* The lists learn fills; each a set of policy entries. */
enum rf_learn_list {
	RF_LEARN_READ = 0,        /* files.read */
	RF_LEARN_WRITE,           /* files.write */
	RF_LEARN_EXEC,            /* exec */
	RF_LEARN_CONNECT,         /* network.connect */
	RF_LEARN_UNIX,            /* network.unix */
	RF_LEARN_LIST_MAX,
};

/* What a path is after the run (the directory rule asks). */
enum rf_learn_kind {
	RF_LEARN_MISSING = 0,
	RF_LEARN_FILE,            /* anything but a directory */
	RF_LEARN_DIR,
};

/* Answers the directory rule's questions; NULL: every path is a file. */
typedef enum rf_learn_kind (*rf_learn_kind_fn)(const char *path);

struct rf_learn {
	/* objects used as sets: key = entry; a network.connect entry's value
	 * is its destination ({"address", "port"}), for the names below */
	json_t *set[RF_LEARN_LIST_MAX];
	/* The DNS gate's answers: address -> set of names it was answered
	 * for (dns.query "granted", and dns.deny's private addresses, audited) */
	json_t *names;
	json_t *private_addrs;    /* set: addresses above the gate found private */
	/* learn --wildcards: a name below its registrable domain D is learned
	 * as "*.D:port" (never over a public suffix); else the exact name. */
	bool wildcards;
	/* The environment names the learning run passed (learn__env_names),
	 * the learned env.pass when BASE has no "env"; NULL: none. */
	json_t *env_pass;
	json_t *notes;            /* set of strings: what was not learned */
	json_t *denials;          /* array of strings: decisions denied, in order */
	uint64_t learned;         /* audited decisions turned into entries */
	uint64_t denied;          /* decisions denied even in audit mode */
	/* From the trace's sandbox.exit; ran false: the command never ran. */
	bool ran;
	int exit_code;            /* ringfence's: status, or 128 + signal */
	int signal;               /* the signal that ended it, else 0 */
	bool limit;               /* a limit ended it */
	uint64_t not_in_trace;    /* decisions counted but not kept */
	uint64_t file_modes;      /* refusals file modes gave a dynamic uid, not the policy */
};

int learn__init(struct rf_learn *l);
void learn__fini(struct rf_learn *l);

/* The outcome of the run l read: true when the command ran and exited 0. */
bool learn__succeeded(const struct rf_learn *l);

/* The outcome as words: "exited 0", "was killed by signal 9", ... */
void learn__outcome(const struct rf_learn *l, char *buf, size_t len);

/*
 * One trace event (a parsed JSON line). kernel.deny with verdict
 * "audited" becomes an entry (or a note when no policy entry can allow
 * it); dns.query (and dns.deny of private addresses, audited) say which
 * names the addresses were answered for; sandbox.exit fills
 * ran/exit_code/signal/not_in_trace; the rest is ignored.
 * Returns 0 or -ENOMEM.
 */
int learn__add_event(struct rf_learn *l, const json_t *ev);

/* Every line of a JSON-lines trace; a line that is not JSON is -EBADMSG. */
int learn__add_trace(struct rf_learn *l, FILE *f);

/*
 * The directory rule on one list of exact paths (a set, as in
 * rf_learn.set): a directory used itself becomes "dir/"; a path gone after
 * the run (a temporary file) becomes its directory; with libdirs, a shared
 * library (learn__is_shared_lib) in a directory at least two levels deep
 * becomes that directory, so the entry outlives a package upgrade that
 * renames the file; RF_LEARN_COLLAPSE_MIN or more entries directly inside
 * one directory at least two levels deep become that directory; entries
 * inside a "dir/" entry go; "/" is never produced. Returns a new set
 * (NULL: -ENOMEM).
 */
json_t *learn__collapse(const json_t *set, rf_learn_kind_fn kind, bool libdirs);

/* A shared object's file name: "*.so" or "*.so.VERSION" (digits and dots),
 * e.g. libpcre2-8.so.0.11.2, ld-linux-x86-64.so.2, _json.cpython-311.so. */
bool learn__is_shared_lib(const char *path);

/*
 * The names of envp (NAME=value strings, NULL-terminated) a learned
 * policy may pass: every valid policy variable name but the ones that
 * name a secret or a channel to one (tokens, passwords, keys, agent
 * sockets: learn__env_secret). A sorted, duplicate-free array; NULL:
 * -ENOMEM.
 */
json_t *learn__env_names(char *const *envp);

/* A variable name that looks like it holds a secret (case-insensitive). */
bool learn__env_secret(const char *name);

/*
 * The learned policy: base (a policy object: kept, with every key it
 * has) plus the entries learned for the lists in learnable (bit 1u <<
 * enum rf_learn_list); a list not learnable keeps base's value, or is
 * "unrestricted" when base has none. "mode" is dropped (enforce). A
 * connect to an address the DNS gate answered for a name is "name:port"
 * (each such name), an address found private is added to
 * network.dns.rebind_allow; other addresses are "address:port". An
 * executable the command wrote is its directory; files.write has
 * RF_LEARN_TTY. "env": {"pass": l->env_pass} when base has no "env".
 * 0 or -errno with e filled.
 */
int learn__build(const struct rf_learn *l, const json_t *base, unsigned int learnable,
		 rf_learn_kind_fn kind, json_t **ret, struct rf_error *e);

/* The policy of the learning run: base in audit mode, the lists not
 * learnable "unrestricted", a "deny" syscalls allowlist left out (audit
 * mode refuses it), and "env": {"pass": env_pass} when base has no "env"
 * and env_pass is not NULL. NULL: -ENOMEM. */
json_t *learn__audit_policy(const json_t *base, unsigned int learnable, const json_t *env_pass);

/* A policy object as learn writes it: sorted keys, 2-space indent, one
 * trailing newline. NULL: -ENOMEM. */
char *learn__dump(const json_t *policy);

#endif
