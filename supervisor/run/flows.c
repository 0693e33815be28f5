// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "backends/enforcer.h"
#include "cleanup.h"
#include "flows.h"
#include "ledger.h"
#include "log.h"
#include "observe/trace.h"
#include "pins.h"
#include "sandbox.h"

static bool ledger_disabled(void)
{
	const char *gate = getenv("RINGFENCE_TEST_HOOKS");
	const char *off = getenv("RINGFENCE_TEST_NO_LEDGER");

	return gate && !strcmp(gate, "1") && off && !strcmp(off, "1");
}

bool flows__ledger_wanted(void)
{
	return !ledger_disabled();
}

bool flows__unix_bytes_wanted(const struct rf_policy *p, const struct rf_plan *plan,
			      const struct rf_caps *caps)
{
	/* a run that reaches no unix peer attaches nothing for them, and no
	 * socket of the host pays for it */
	bool reach = plan__unix_reach(plan, p);
	/* --no-observe: no tracepoint of ours on the host for this sandbox */
	enum rf_unix_bytes how = reach && flows__ledger_wanted() && !plan->observe_off ?
				 caps->unix_bytes : RF_UNIX_BYTES_NONE;

	/* the tracepoints count only sockets the cgroup unix hooks keyed */
	return how == RF_UNIX_BYTES_FEXIT || (how == RF_UNIX_BYTES_TP && caps->unix_sock_addr.ok);
}

uint32_t flows__ledger_unix_flags(const struct rf_enforcer *enf)
{
	if (!enforcer__unix_bytes(enf))
		return 0;
	return RF_LEDGER_UNIX_BYTES | (enforcer__unix_key_late(enf) ? RF_LEDGER_UNIX_KEY_LATE : 0);
}

int flows__start(struct sandbox *sb)
{
	struct rf_flow_watch *w = &sb->flows;
	const struct rf_limit_plan *l = sb->plan.limits;
	struct rf_ledger led = { 0 };
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	int fd = sb->enf->map_fd[RF_PIN_LEDGER];
	unsigned ms;

	w->started = true;
	w->timer_fd = -1;
	w->disk_written = -1;
	w->budget = l[RF_LIMIT_EGRESS].set && l[RF_LIMIT_EGRESS].enforced ?
		    l[RF_LIMIT_EGRESS].value : 0;
	w->disk_bytes = l[RF_LIMIT_DISK_WRITE].set && l[RF_LIMIT_DISK_WRITE].enforced ?
			l[RF_LIMIT_DISK_WRITE].value << 20 : 0;
	if (fd >= 0 && (!ledger_disabled() || w->budget)) {
		led.egress_budget = w->budget;
		led.flags = flows__ledger_unix_flags(sb->enf);
		if (bpf_map_update_elem(fd, &sb->cgid, &led, BPF_ANY))
			return -errno;
		w->on = true;
	}
	if (!w->on && !w->disk_bytes)
		return 0;
	/* The kernel rings no bell when the budget is reached (a cgroup_skb
	 * program cannot signal): read it often while one is set. */
	ms = w->budget || w->disk_bytes ? RF_FLOWS_BUDGET_MS : RF_FLOWS_INTERVAL_MS;
	w->ticks_per_emit = RF_FLOWS_INTERVAL_MS / ms;
	w->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (w->timer_fd < 0)
		return -errno;
	its.it_value.tv_sec = its.it_interval.tv_sec = ms / 1000;
	its.it_value.tv_nsec = its.it_interval.tv_nsec = (long)(ms % 1000) * 1000000;
	return timerfd_settime(w->timer_fd, 0, &its, NULL) ? -errno : 0;
}

int flows__fd(const struct sandbox *sb)
{
	return sb->flows.timer_fd;
}

static json_t *flow_json(const struct sandbox *sb, const struct rf_flow_row *r, bool final)
{
	char dst[RF_UNIX_FLOW_TEXT + 64], name[RF_FLOW_NAME_LEN], first[64], last[64];
	bool unx = r->key.family == AF_UNIX;
	struct timespec t;
	uint64_t d;
	json_t *o;

	ledger__dst_text(&r->key, r->unix_name, dst, sizeof(dst));
	ledger__boot_to_real(r->flow.first_ns, &t);
	trace__format_ts(&t, first, sizeof(first));
	/* one clock reading for both: last is never before first */
	d = r->flow.last_ns > r->flow.first_ns ? r->flow.last_ns - r->flow.first_ns : 0;
	t.tv_sec += (time_t)(d / 1000000000);
	t.tv_nsec += (long)(d % 1000000000);
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	trace__format_ts(&t, last, sizeof(last));
	o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:s, s:s, s:b, s:b, s:b}",
		      "dst", dst, "proto", ledger__proto(&r->key),
		      "connections", (json_int_t)r->flow.connections,
		      "bytes_sent", (json_int_t)r->flow.bytes_sent,
		      "bytes_received", (json_int_t)r->flow.bytes_received,
		      "first", first, "last", last,
		      "inbound", (r->key.flags & RF_FLOW_INBOUND) != 0,
		      "loopback", (r->key.flags & RF_FLOW_LOOPBACK) != 0, "final", final);
	if (o && unx) {
		/* a unix peer: its connections are counted; its bytes where the
		 * unix byte programs were attached for this sandbox (the socket
		 * length tracepoints, or the fexit programs before 6.7), else
		 * null, not 0 (the plan's limits.egress-unix) */
		if (!(r->key.flags & RF_FLOW_UNIX_BYTES)) {
			json_object_set_new(o, "bytes_sent", json_null());
			json_object_set_new(o, "bytes_received", json_null());
		}
		json_object_set_new(o, "unix", json_pack("{s:s, s:b, s:s}", "socket_type",
							 ledger__unix_type(&r->key), "abstract",
							 r->unix_name[0] == '@', "origin",
							 ledger__unix_origin(&r->key)));
		return o;
	}
	if (o && !ledger__name(sb->enf->map_fd[RF_PIN_FLOW_NAMES], sb->cgid, r->key.family,
			       r->key.addr, name, sizeof(name)))
		json_object_set_new(o, "name", json_string(name));
	return o;
}

/* One network.flow per destination: the counts so far (final: at the end,
 * then also to the monitor, before flows__stop deletes them). */
static int read_ledger(const struct sandbox *sb, struct rf_ledger *ret);

/* Has the sandbox any rf_flows or rf_unix_flows entry? Finding its own
 * means walking every bucket of the host-wide maps (65,536; 0.8 ms of a
 * run's end in the VM, three walks a run); the programs say first
 * (flows_made, set before an entry is made), so a sandbox that sent and
 * received nothing walks none. Unknown (no ledger entry): walk. */
static bool made_flows(const struct sandbox *sb)
{
	struct rf_ledger led;

	return read_ledger(sb, &led) || led.flows_made;
}

static size_t emit_all(struct sandbox *sb, bool final)
{
	_cleanup_free_ struct rf_flow_row *rows = NULL;
	_cleanup_close_ int note = -1;
	const int *fd = sb->enf->map_fd;
	size_t n = 0, i;
	int err;

	if (!sb->flows.on || (!final && !trace__on(sb->trace)) || !made_flows(sb))
		return 0;
	err = ledger__flows(fd[RF_PIN_FLOWS], fd[RF_PIN_UNIX_FLOWS], sb->cgid, &rows, &n);
	if (err) {
		rf_debug("sandbox %s: reading the flows: %s", sb->name, strerror(-err));
		return 0;
	}
	ledger__mark_unix_bytes(fd[RF_PIN_LEDGER], rows, n);
	for (i = 0; i < n && trace__on(sb->trace); i++)
		trace__emit(sb->trace, "network.flow", flow_json(sb, &rows[i], final));
	if (final) {
		note = rf_pins__get(RF_PIN_DNS_NOTE);
		ledger__note_final(note, rows, n, fd[RF_PIN_FLOW_NAMES], sb->cgid);
	}
	return n;
}

static int read_ledger(const struct sandbox *sb, struct rf_ledger *ret)
{
	int fd = sb->enf->map_fd[RF_PIN_LEDGER];

	return fd < 0 || bpf_map_lookup_elem(fd, &sb->cgid, ret) ? -ENOENT : 0;
}

static bool hit(struct sandbox *sb, enum rf_limit l, uint64_t value, uint64_t threshold)
{
	if (sb->lw.hit != RF_LIMIT_MAX)
		return false;
	sb->lw.hit = l;
	sb->lw.hit_value = value;
	sb->lw.hit_threshold = threshold;
	return true;
}

bool flows__check(struct sandbox *sb)
{
	struct rf_flow_watch *w = &sb->flows;
	struct rf_ledger led;
	uint64_t disk;

	if (w->budget && !read_ledger(sb, &led) && (led.flags & RF_LEDGER_EXCEEDED))
		/* value: what it tried to send, the refused bytes included */
		return hit(sb, RF_LIMIT_EGRESS, led.bytes_sent + led.dropped_bytes, w->budget);
	if (w->disk_bytes && !sandbox_limits__io_write_bytes(&sb->cg, &disk) &&
	    disk > w->disk_bytes)
		return hit(sb, RF_LIMIT_DISK_WRITE, disk >> 20, w->disk_bytes >> 20);
	return false;
}

bool flows__tick(struct sandbox *sb)
{
	struct rf_flow_watch *w = &sb->flows;
	uint64_t n;

	if (w->timer_fd < 0 || read(w->timer_fd, &n, sizeof(n)) != sizeof(n))
		return false;
	w->ticks += n;
	if (w->ticks_per_emit && w->ticks >= w->ticks_per_emit) {
		w->ticks = 0;
		emit_all(sb, false);
	}
	return flows__check(sb);
}

void flows__finish(struct sandbox *sb, json_t *ex)
{
	struct rf_ledger led = { 0 };
	size_t n;

	n = emit_all(sb, true);
	if (!ex)
		return;
	if (sb->flows.on && !read_ledger(sb, &led)) {
		json_object_set_new(ex, "bytes_sent", json_integer((json_int_t)led.bytes_sent));
		json_object_set_new(ex, "bytes_received",
				    json_integer((json_int_t)led.bytes_received));
		json_object_set_new(ex, "flows", json_integer((json_int_t)n));
		json_object_set_new(ex, "flows_lost", json_integer((json_int_t)led.flows_lost));
	} else {
		json_object_set_new(ex, "bytes_sent", json_null());
		json_object_set_new(ex, "bytes_received", json_null());
	}
	if (!sb->flows.started)
		return;
	/* null where the kernel counts no writes per cgroup (no io controller) */
	json_object_set_new(ex, "disk_write_bytes", sb->flows.disk_written >= 0 ?
			    json_integer((json_int_t)sb->flows.disk_written) : json_null());
}

void flows__settle(struct sandbox *sb)
{
	uint64_t disk;

	if (sb->flows.started && !sandbox_limits__io_write_bytes(&sb->cg, &disk))
		sb->flows.disk_written = (int64_t)disk;
}

/* Set SO_LINGER 0 on every TCP socket of process pid: its last close
 * aborts it (RST) and discards what it still had queued. */
static unsigned abort_tcp_of(pid_t pid)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	_cleanup_closedir_ DIR *d = NULL;
	_cleanup_close_ int pfd = -1;
	char path[64], link[64];
	struct dirent *de;
	unsigned n = 0;

	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = pfd >= 0 ? opendir(path) : NULL;
	while (d && (de = readdir(d))) {
		int fd, s, proto = 0;
		socklen_t len = sizeof(proto);
		ssize_t l = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);

		if (l <= 0 || strncmp(link, "socket:", 7))
			continue;
		fd = atoi(de->d_name);
		s = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
		if (s < 0)
			continue;
		if (!getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &len) &&
		    proto == IPPROTO_TCP &&
		    !setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
			n++;
		close(s);
	}
	return n;
}

/*
 * The budget ended the run. What its TCP sockets queued before the
 * kernel refused it would still leave once their processes are killed:
 * a dead cgroup runs no programs, and closing a socket sends its queue.
 * Frozen (nothing new is queued), each is set to abort at its last close.
 */
void flows__abort_sockets(struct sandbox *sb)
{
	char buf[8192], *p, *end;
	unsigned n = 0;
	ssize_t len;
	int fd;

	if (sb->cg.dir_fd < 0)
		return;
	fd = openat(sb->cg.dir_fd, "cgroup.freeze", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0)
			rf_debug("sandbox %s: cgroup.freeze: %s", sb->name, strerror(errno));
		close(fd);
	}
	fd = openat(sb->cg.dir_fd, "cgroup.procs", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			n += abort_tcp_of((pid_t)pid);
		while (*end == '\n')
			end++;
	}
	rf_debug("sandbox %s: %u TCP socket(s) set to abort", sb->name, n);
}

void flows__stop(struct sandbox *sb)
{
	struct rf_flow_watch *w = &sb->flows;
	bool flows;

	if (!w->started)
		return;
	if (w->timer_fd >= 0)
		close(w->timer_fd);
	w->timer_fd = -1;
	if (!w->on)
		return;
	/* read before the entry goes: after, no program counts this sandbox
	 * (one still running on a packet sent before the kill may add an
	 * entry after the walk either way) */
	flows = made_flows(sb);
	w->on = false;
	if (sb->enf->map_fd[RF_PIN_LEDGER] >= 0)
		bpf_map_delete_elem(sb->enf->map_fd[RF_PIN_LEDGER], &sb->cgid);
	/* rf_flow_names: written by this sandbox's DNS gate only */
	ledger__forget(flows ? sb->enf->map_fd[RF_PIN_FLOWS] : -1,
		       flows ? sb->enf->map_fd[RF_PIN_UNIX_FLOWS] : -1,
		       w->named ? sb->enf->map_fd[RF_PIN_FLOW_NAMES] : -1, sb->cgid);
}
