// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One decision as a line for humans:
 *   VERDICT: CLASS [OP] TARGET [DETAIL] (WHY)[ (inferred)]
 * Every word comes from lib/names.c or from the record itself, so a new
 * operation needs nothing here but its name there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "deny_text.h"
#include "log.h"
#include "names.h"

/* A path shows at most this many characters once escaped: its start and
 * its end (the file name), "..." between. */
#define PATH_HEAD 80
#define PATH_TAIL 117
#define PATH_SHOWN (PATH_HEAD + 3 + PATH_TAIL)

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + n < o->size ? o->len + n : o->size - 1;
}

/* Kernel bytes reach a terminal: only printable ASCII goes out as is
 * (an escape sequence in a file name must not drive the terminal). */
static size_t esc_width(unsigned char c)
{
	return c == '\\' ? 2 : (c >= 0x20 && c < 0x7f) ? 1 : 4;
}

static void esc_put(struct out *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '\\')
			put(o, "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			put(o, "%c", c);
		else
			put(o, "\\x%02x", c);
	}
}

/* s[0..n) escaped, its middle left out when it would not fit PATH_SHOWN. */
static void put_path(struct out *o, const char *s, size_t n)
{
	size_t i, w = 0, head = 0, tail = 0;

	for (i = 0; i < n; i++)
		w += esc_width(s[i]);
	if (w <= PATH_SHOWN) {
		esc_put(o, s, n);
		return;
	}
	for (w = 0; head < n && w + esc_width(s[head]) <= PATH_HEAD; head++)
		w += esc_width(s[head]);
	for (w = 0; tail < n - head && w + esc_width(s[n - 1 - tail]) <= PATH_TAIL; tail++)
		w += esc_width(s[n - 1 - tail]);
	esc_put(o, s, head);
	put(o, "...");
	esc_put(o, s + n - tail, tail);
}

/* rf_access bits as "read", "write", "read,write", ... */
static void put_access(struct out *o, uint32_t bits, const char *prefix, const char *sep)
{
	static const struct { uint32_t bit; const char *name; } acc[] = {
		{ RF_ACC_READ, "read" }, { RF_ACC_WRITE, "write" }, { RF_ACC_EXEC, "exec" },
	};
	const char *s = "";
	size_t i;

	for (i = 0; i < sizeof(acc) / sizeof(acc[0]); i++) {
		if (bits & acc[i].bit) {
			put(o, "%s%s%s", s, prefix, acc[i].name);
			s = sep;
		}
	}
}

static void put_inet(struct out *o, const struct rf_event *ev)
{
	char a[INET6_ADDRSTRLEN] = "?";
	const char *proto = names__proto(ev->protocol & 0xffff);

	if (ev->op == RF_OP_SOCK_CREATE) {
		/* no address yet: the socket's family, type and protocol */
		put(o, " %s %s", ev->family == AF_INET ? "ipv4" : "ipv6",
		    names__sock_type(ev->protocol >> 16));
	} else {
		inet_ntop(ev->family, ev->addr, a, sizeof(a));
		put(o, ev->family == AF_INET6 ? " [%s]:%u" : " %s:%u", a, ev->port);
	}
	if (proto)
		put(o, " %s", proto);
	else
		put(o, " protocol %u", ev->protocol & 0xffff);
}

/* What the operation aimed at. */
static void put_target(struct out *o, const struct rf_event *ev)
{
	uint32_t n = ev->path_len < RF_EVENT_PATH_LEN ? ev->path_len : RF_EVENT_PATH_LEN;
	const char *arg = names__op_arg(ev->op);

	switch (ev->class) {
	case RF_CLASS_FILE:
	case RF_CLASS_EXEC:
		put(o, " ");
		put_path(o, ev->path, strnlen(ev->path, n));
		if (ev->class == RF_CLASS_FILE && ev->need) {
			put(o, " ");
			put_access(o, ev->need, "", ",");
		}
		return;
	case RF_CLASS_NET:
	case RF_CLASS_UNIX:
		if (ev->family == AF_INET || ev->family == AF_INET6) {
			put_inet(o, ev);
		} else if (ev->family == AF_UNIX) {
			/* abstract names ('@...') may hold any byte: path_len says */
			put(o, " ");
			put_path(o, ev->path, n < RF_UNIX_PATH_MAX ? n : RF_UNIX_PATH_MAX);
			put(o, " %s", names__sock_type(ev->protocol));
		}
		return;
	}
	/* process and anything newer: the numbers the record carries */
	if (ev->target_pid)
		put(o, " pid %u", ev->target_pid);
	if (ev->op == RF_OP_PSEUDO_FS_WRITE)
		put(o, " %s", names__op(ev->arg));
	else if (arg)
		put(o, " %s %u", arg, ev->arg);
	if (ev->op == RF_OP_CGROUP_WRITE) {
		put(o, " ");
		put_path(o, ev->path, strnlen(ev->path, n));
	}
}

/* Why: the policy entry that would have allowed it, or the reason. */
static void put_why(struct out *o, const struct rf_event *ev)
{
	uint32_t missing = ev->need & ~(ev->reason == RF_REASON_ACCESS ? ev->have : 0);
	bool no_entry = ev->reason == RF_REASON_NO_RULE || ev->reason == RF_REASON_ACCESS;
	const char *r = names__reason(ev->reason);

	put(o, " (");
	if (no_entry && ev->class == RF_CLASS_FILE && (missing & (RF_ACC_READ | RF_ACC_WRITE))) {
		put(o, "not in ");
		put_access(o, missing & (RF_ACC_READ | RF_ACC_WRITE), "files.", ", ");
	} else if (no_entry && ev->class == RF_CLASS_EXEC) {
		put(o, "not in exec");
	} else if (ev->reason == RF_REASON_NO_RULE && ev->class == RF_CLASS_NET) {
		put(o, "not in network.connect");
	} else if (ev->reason == RF_REASON_NO_RULE && ev->class == RF_CLASS_UNIX) {
		put(o, "not in network.unix");
	} else {
		/* the trace's reason name, as words */
		for (; *r; r++)
			put(o, "%c", *r == '-' ? ' ' : *r);
	}
	put(o, ")");
}

void deny_text__format(const struct rf_event *ev, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };
	const char *class = names__class(ev->class), *op = names__op(ev->op);

	if (!size)
		return;
	buf[0] = 0;
	put(&o, "%s: %s", names__verdict(ev->verdict), class);
	/* "exec exec /bin/sh" says nothing twice */
	if (strcmp(op, class))
		put(&o, " %s", op);
	put_target(&o, ev);
	put_why(&o, ev);
	if (ev->flags & RF_EVF_INFERRED)
		put(&o, " (inferred)");
}

void deny_log__add(struct deny_log *l, const struct rf_event *ev, bool verbose,
		   uint64_t now_ms)
{
	char line[RF_DENY_TEXT_LEN];

	l->seen++;
	if (l->n_first < RF_DENY_SUMMARY_FIRST)
		deny_text__format(ev, l->first[l->n_first++], RF_DENY_TEXT_LEN);
	if (!verbose || l->printed >= RF_DENY_PRINT_PER_RUN)
		return;
	if (!l->printed || now_ms - l->win_start_ms >= 1000) {
		l->win_start_ms = now_ms;
		l->win_printed = 0;
	}
	if (l->win_printed >= RF_DENY_PRINT_PER_SEC)
		return;
	deny_text__format(ev, line, sizeof(line));
	rf_info("%s", line);
	l->printed++;
	l->win_printed++;
}

void deny_log__finish(const struct deny_log *l, bool verbose, uint64_t unkept)
{
	uint64_t total = l->seen + unkept;
	unsigned int i;

	if (verbose) {
		if (total > l->printed)
			rf_info("%llu more denial%s not shown; see --trace",
				(unsigned long long)(total - l->printed),
				total - l->printed == 1 ? "" : "s");
		return;
	}
	for (i = 0; i < l->n_first; i++)
		rf_info("  %s", l->first[i]);
	if (l->n_first && total > l->n_first)
		rf_info("  and %llu more; see --trace", (unsigned long long)(total - l->n_first));
}
