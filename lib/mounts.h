/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Mount points by filesystem type, from /proc/self/mountinfo. */
#ifndef RF_MOUNTS_H
#define RF_MOUNTS_H

/* NULL-terminated array of mount points of fstype, or of any of a
 * comma-separated list ("bpf,mqueue"), or of every type ("*")
 * (mounts__free). */
int mounts__list(const char *fstype, char ***ret_paths);
/* Both lists from one reading of the mount table (types_b may be NULL). */
int mounts__list2(const char *types_a, char ***ret_a, const char *types_b, char ***ret_b);
void mounts__free(char **paths);

#endif
