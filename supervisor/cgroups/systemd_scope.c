// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What container runtimes with a systemd cgroup driver do: the supervisor
 * becomes the only process of a transient scope with Delegate=yes, so
 * systemd keeps accounting and stopping it and leaves the subtree below
 * it to us.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/lazy_systemd.h"
#include "log.h"
#include "systemd_scope.h"

#define SCOPE_JOB_TIMEOUT_US (10ull * 1000 * 1000)

/* sd_booted(3)'s own test, without loading libsystemd for it: every run
 * asks, only a scope needs the library. */
bool systemd_scope__booted(void)
{
	struct stat st;

	return lstat("/run/systemd/system/", &st) == 0 && S_ISDIR(st.st_mode);
}

/* Root talks to PID 1 directly (no dbus-daemon needed), as systemctl does. */
static int bus_open(sd_bus **ret)
{
	sd_bus *bus = NULL;
	int r;

	if (geteuid() == 0 && access("/run/systemd/private", F_OK) == 0) {
		r = sd_bus_new(&bus);
		if (r >= 0)
			r = sd_bus_set_address(bus, "unix:path=/run/systemd/private");
		if (r >= 0)
			r = sd_bus_start(bus);
		if (r >= 0) {
			*ret = bus;
			return 0;
		}
		sd_bus_unref(bus);
	}
	return sd_bus_open_system(ret);
}

struct job_wait {
	const char *job;      /* the object path StartTransientUnit returned */
	char result[32];      /* "done", "failed", ...; empty until removed */
};

static int on_job_removed(sd_bus_message *m, void *ud, sd_bus_error *err)
{
	struct job_wait *w = ud;
	const char *path = NULL, *unit = NULL, *result = NULL;
	uint32_t id;

	(void)err;
	if (sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return 0;
	if (w->job && path && !strcmp(path, w->job))
		snprintf(w->result, sizeof(w->result), "%s", result ? result : "?");
	return 0;
}

static int append_props(sd_bus_message *m, const char *description)
{
	int r;

	r = sd_bus_message_open_container(m, 'a', "(sv)");
	if (r >= 0)
		r = sd_bus_message_append(m, "(sv)", "Description", "s", description);
	if (r >= 0)
		r = sd_bus_message_append(m, "(sv)", "PIDs", "au", 1, (uint32_t)getpid());
	if (r >= 0)
		r = sd_bus_message_append(m, "(sv)", "Delegate", "b", 1);
	/* gone once empty, also after a failure */
	if (r >= 0)
		r = sd_bus_message_append(m, "(sv)", "CollectMode", "s", "inactive-or-failed");
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	return r;
}

/* Process the bus until our job is removed (or the timeout). */
static int wait_job(sd_bus *bus, struct job_wait *w)
{
	struct timespec ts;
	uint64_t deadline, now;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000 +
		   SCOPE_JOB_TIMEOUT_US;
	while (!w->result[0]) {
		r = sd_bus_process(bus, NULL);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
		if (now >= deadline)
			return -ETIMEDOUT;
		r = sd_bus_wait(bus, deadline - now);
		if (r < 0)
			return r;
	}
	return 0;
}

int systemd_scope__start(const char *unit, const char *description, struct rf_error *e)
{
	sd_bus_error berr = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	struct job_wait w = { 0 };
	sd_bus *bus = NULL;
	const char *job = NULL;
	int r;

	r = lazylib__systemd(e);
	if (r)
		return r;
	r = bus_open(&bus);
	if (r < 0)
		return rf_error_set(e, r, NULL, "connecting to systemd's bus: %s", strerror(-r));
	/* Before the call: the job may end before the reply is read. */
	r = sd_bus_match_signal(bus, NULL, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
				"org.freedesktop.systemd1.Manager", "JobRemoved",
				on_job_removed, &w);
	if (r >= 0)
		r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.systemd1",
						   "/org/freedesktop/systemd1",
						   "org.freedesktop.systemd1.Manager",
						   "StartTransientUnit");
	if (r >= 0)
		r = sd_bus_message_append(m, "ss", unit, "fail");
	if (r >= 0)
		r = append_props(m, description);
	if (r >= 0)
		r = sd_bus_message_append(m, "a(sa(sv))", 0);
	if (r < 0) {
		rf_error_set(e, r, NULL, "building the StartTransientUnit call: %s", strerror(-r));
		goto out;
	}
	r = sd_bus_call(bus, m, 0, &berr, &reply);
	if (r < 0) {
		rf_error_set(e, r, NULL, "systemd refused the scope %s: %s", unit,
			     berr.message ? berr.message : strerror(-r));
		goto out;
	}
	r = sd_bus_message_read(reply, "o", &job);
	if (r >= 0) {
		w.job = job;
		r = wait_job(bus, &w);
	}
	if (r < 0)
		rf_error_set(e, r, NULL, "waiting for systemd to start the scope %s: %s", unit,
			     strerror(-r));
	else if (strcmp(w.result, "done"))
		r = rf_error_set(e, -EIO, NULL, "systemd's job starting the scope %s: %s", unit,
				 w.result);
	else
		rf_debug("systemd: this process is in the scope %s (Delegate=yes)", unit);
out:
	sd_bus_error_free(&berr);
	sd_bus_message_unref(m);
	sd_bus_message_unref(reply);
	sd_bus_flush_close_unref(bus);
	return r < 0 ? r : 0;
}
