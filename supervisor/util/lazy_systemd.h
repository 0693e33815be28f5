/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libsystemd's sd-bus, loaded on first use (lazylib.h): the transient scope. */
#ifndef RF_LAZY_SYSTEMD_H
#define RF_LAZY_SYSTEMD_H

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

#include "lazylib.h"

#define RF_LAZY_SYSTEMD_SONAME "libsystemd.so.0"

/* Every function of it that ringfence calls: a call not listed here
 * fails the link (nothing links -lsystemd). */
#define RF_LAZY_SYSTEMD_SYMBOLS(X) \
	X(sd_bus_call) \
	X(sd_bus_error_free) \
	X(sd_bus_flush_close_unref) \
	X(sd_bus_match_signal) \
	X(sd_bus_message_append) \
	X(sd_bus_message_close_container) \
	X(sd_bus_message_new_method_call) \
	X(sd_bus_message_open_container) \
	X(sd_bus_message_read) \
	X(sd_bus_message_unref) \
	X(sd_bus_new) \
	X(sd_bus_open_system) \
	X(sd_bus_process) \
	X(sd_bus_set_address) \
	X(sd_bus_start) \
	X(sd_bus_unref) \
	X(sd_bus_wait)

RF_LAZYLIB_DECLARE(RF_LAZY_SYSTEMD_SYMBOLS)

/* Loads it once (0, or -ELIBACC with e set); call before any of them. */
int lazylib__systemd(struct rf_error *e);

#ifndef RF_LAZYLIB_NO_REDIRECT
#define sd_bus_call RF_LAZY(sd_bus_call)
#define sd_bus_error_free RF_LAZY(sd_bus_error_free)
#define sd_bus_flush_close_unref RF_LAZY(sd_bus_flush_close_unref)
#define sd_bus_match_signal RF_LAZY(sd_bus_match_signal)
#define sd_bus_message_append RF_LAZY(sd_bus_message_append)
#define sd_bus_message_close_container RF_LAZY(sd_bus_message_close_container)
#define sd_bus_message_new_method_call RF_LAZY(sd_bus_message_new_method_call)
#define sd_bus_message_open_container RF_LAZY(sd_bus_message_open_container)
#define sd_bus_message_read RF_LAZY(sd_bus_message_read)
#define sd_bus_message_unref RF_LAZY(sd_bus_message_unref)
#define sd_bus_new RF_LAZY(sd_bus_new)
#define sd_bus_open_system RF_LAZY(sd_bus_open_system)
#define sd_bus_process RF_LAZY(sd_bus_process)
#define sd_bus_set_address RF_LAZY(sd_bus_set_address)
#define sd_bus_start RF_LAZY(sd_bus_start)
#define sd_bus_unref RF_LAZY(sd_bus_unref)
#define sd_bus_wait RF_LAZY(sd_bus_wait)
#endif

#endif
