/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * monitor.files (issue 22): the opens a sandbox's policy allowed outside
 * the paths its task is expected to open, for ringfence-monitor's
 * unexpected-file alert. A fanotify group per sandbox whose marks are the
 * sandbox's own mounts (its private mount namespace: the launched child
 * marks them after its last mount, before it drops its capabilities), so
 * processes outside the sandbox pay nothing. Works with and without
 * BPF-LSM. Exact per file and access kind: every first open, read, write
 * or exec of a file is reported by the kernel; an ignore mark on the file
 * then stops its repeats in the kernel.
 */
#ifndef RF_FILEWATCH_H
#define RF_FILEWATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

struct sandbox;

/* Distinct (path, access) records sent to the monitor per run; past it
 * they are counted (sandbox.exit files_watch.suppressed), not sent: one
 * sandbox must not fill the monitor's alert table (1,024 alerts for the
 * host). A sandbox past it has alerted 256 times already (and on_alert
 * acted on the first). */
#define RF_FILEWATCH_SEND_MAX 256
/* Ignore marks (one per file seen) a group may hold: each pins an inode. */
#define RF_FILEWATCH_IGNORE_MAX 8192

struct rf_file_watch {
	bool on;                  /* the policy has monitor.files, the group exists */
	int fd;                   /* the fanotify group (valid when on) */
	int note_fd;              /* rf_dns_note, -1: records reach no monitor */
	uint64_t *sent;           /* hashes of (path, access) sent, open addressing */
	uint64_t events, unexpected, sent_n, suppressed, overflows, ignores, send_failed;
};

/* Before the launch: the group, when the policy has monitor.files.
 * 0 or -errno (fanotify refused: the run is refused, fail closed). */
int filewatch__start(struct sandbox *sb);
/* The group's fd for the child's marks and the wait's epoll; -1 when off. */
int filewatch__fd(const struct sandbox *sb);
/* The fanotify mask the child puts on each of its mounts. */
uint64_t filewatch__mask(void);
/* Read what is queued: judge each open, send the unexpected ones. */
void filewatch__drain(struct sandbox *sb);
/* The last events, and the counts into ex (sandbox.exit "files_watch";
 * NULL: none). */
void filewatch__finish(struct sandbox *sb, json_t *ex);
void filewatch__stop(struct sandbox *sb);

/* Whether path is one of monitor.files' entries or below a subtree
 * entry (one ending in '/'). */
bool filewatch__expected(char *const *files, size_t n, const char *path);

#endif
