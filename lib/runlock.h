/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Advisory locks in RF_RUN_DIR (load.lock, live.lock, start.lock): who may
 * load, unload, start or collect sandboxes at the same time. */
#ifndef RF_RUNLOCK_H
#define RF_RUNLOCK_H

/* Open (creating RF_RUN_DIR and the file) RF_RUN_DIR/name and flock(op)
 * it. Returns the fd holding the lock (close it to release) or -errno;
 * -EWOULDBLOCK with LOCK_NB when it is held. */
int runlock__take(const char *name, int op);

#endif
