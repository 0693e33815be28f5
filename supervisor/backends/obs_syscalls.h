/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The syscalls whose failures observe.bpf.c reports (obs_syscalls.c). */
#ifndef RF_OBS_SYSCALLS_H
#define RF_OBS_SYSCALLS_H

#include "rf_abi.h"

/* table[nr]: how to read syscall nr's arguments; zero for the unwatched. */
void obs_syscalls__table(struct rf_obs_syscall table[RF_OBS_SYSCALL_MAX]);

#endif
