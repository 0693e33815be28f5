/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Where ringfence keeps its state: the pinned BPF set and the run
 * directory (locks, the sandbox registry). Both binaries use these. */
#ifndef RF_PATHS_H
#define RF_PATHS_H

#define RF_PIN_DIR "/sys/fs/bpf/ringfence"
#define RF_RUN_DIR "/run/ringfence"
#define RF_REGISTRY_DIR RF_RUN_DIR "/sandboxes"
/* ringfence-monitor's actions on sandboxes (monitor.on_alert), one file
 * each, read by their supervisors (lib/monaction.h) */
#define RF_ACTIONS_DIR RF_RUN_DIR "/actions"

#endif
