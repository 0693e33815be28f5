// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "fileio.h"
#include "metrics.h"

static const char *const src_names[RF_EVSRC_MAX] = {
	"decision", "syscall", "fork", "exec", "exit", "sample", "registry", "dns", "flow",
};

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		b->cap = b->cap * 2 + (size_t)(n > 0 ? n : 64);
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			b->oom = true;
			return;
		}
	}
}

void metrics__count_input(struct rf_metrics *m, const struct rf_input *in)
{
	const struct rf_event *ev = &in->u.decision;

	switch (in->type) {
	case RF_IN_DECISION:
		m->events[RF_EVSRC_DECISION]++;
		/* audit mode's observed successes are not denials */
		if (ev->class < RF_CLASS_KERNEL_MAX && ev->verdict < RF_VERDICT_MAX &&
		    !(ev->flags & RF_EVF_ACCESS))
			m->decisions[ev->class][ev->verdict][metrics__decision_backend(ev)]++;
		break;
	case RF_IN_SYSCALL: m->events[RF_EVSRC_SYSCALL]++; break;
	case RF_IN_FORK: m->events[RF_EVSRC_FORK]++; break;
	case RF_IN_EXEC: m->events[RF_EVSRC_EXEC]++; break;
	case RF_IN_EXIT: m->events[RF_EVSRC_EXIT]++; break;
	case RF_IN_SAMPLE: m->events[RF_EVSRC_SAMPLE]++; break;
	case RF_IN_DNS: m->events[RF_EVSRC_DNS]++; break;
	case RF_IN_FLOW: m->events[RF_EVSRC_FLOW]++; break;
	case RF_IN_SANDBOX:
	case RF_IN_SANDBOX_END: m->events[RF_EVSRC_REGISTRY]++; break;
	case RF_IN_LOST:
		if (in->u.lost.hop < RF_HOP_MAX)
			m->lost[in->u.lost.hop] += in->u.lost.count;
		break;
	default: break;
	}
}

void metrics__count_alert(struct rf_metrics *m, const struct rf_alert *a)
{
	if (a->phase == RF_PHASE_OPEN && a->rule < RF_RULE_MAX)
		m->alerts[a->rule]++;
	if (a->phase < RF_PHASE_MAX)
		m->records[a->phase]++;
}

enum rf_backend metrics__decision_backend(const struct rf_event *ev)
{
	if (ev->flags & RF_EVF_INFERRED)
		return ev->class == RF_CLASS_PROCESS ? RF_BE_SECCOMP : RF_BE_LANDLOCK;
	/* the cgroup sock_addr and sock_create hooks; everything else is an
	 * LSM hook */
	return ev->op <= RF_OP_SOCK_CREATE ? RF_BE_CGROUP_SOCK_ADDR : RF_BE_BPF_LSM;
}

static void render_decisions(struct buf *b, const struct rf_metrics *m)
{
	unsigned int c, v, be;

	bprintf(b, "# HELP ringfence_monitor_denials_total Kernel denials drained from the "
		"supervisor's ring buffer, by class, verdict (denied, or audited: would have "
		"been denied) and backend.\n# TYPE ringfence_monitor_denials_total counter\n");
	for (c = 0; c < RF_CLASS_KERNEL_MAX; c++)
		for (v = 1; v < RF_VERDICT_MAX; v++)
			for (be = 0; be < RF_BE_MAX; be++)
				if (m->decisions[c][v][be])
					bprintf(b, "ringfence_monitor_denials_total{class=\"%s\","
						"verdict=\"%s\",backend=\"%s\"} %llu\n",
						names__class(c), names__verdict(v),
						names__backend(be),
						(unsigned long long)m->decisions[c][v][be]);
}

/* /proc/self: CPU seconds, memory, start time (Prometheus' process_* names). */
static void render_process(struct buf *b)
{
	char stat[1024], *p;
	unsigned long long ut = 0, st = 0, start = 0, vsize = 0, btime = 0;
	long long rss = 0;
	long tck = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	_cleanup_close_ int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, stat, sizeof(stat) - 1) : -1;
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_closedir_ DIR *d = NULL;
	struct rlimit rl = { 0 };
	int fds = 0;

	stat[n > 0 ? n : 0] = 0;
	p = strrchr(stat, ')');
	/* after "pid (comm)": state is field 3; utime 14, stime 15, starttime 22,
	 * vsize 23, rss 24 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
			 "%*d %*d %*d %*d %llu %llu %lld", &ut, &st, &start, &vsize, &rss) != 5)
		return;
	f = fopen("/proc/stat", "re");
	while (f && fgets(stat, sizeof(stat), f))
		if (sscanf(stat, "btime %llu", &btime) == 1)
			break;
	d = opendir("/proc/self/fd");
	while (d && readdir(d))
		fds++;
	fds = fds > 3 ? fds - 3 : 0;    /* ".", ".." and the directory's own fd */
	getrlimit(RLIMIT_NOFILE, &rl);
	bprintf(b, "# HELP process_cpu_seconds_total Total user and system CPU time spent in "
		"seconds.\n# TYPE process_cpu_seconds_total counter\n"
		"process_cpu_seconds_total %.2f\n", (double)(ut + st) / (double)tck);
	bprintf(b, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
		"# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %lld\n",
		rss * page);
	bprintf(b, "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
		"# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %llu\n",
		vsize);
	bprintf(b, "# HELP process_start_time_seconds Start time of the process since unix "
		"epoch in seconds.\n# TYPE process_start_time_seconds gauge\n"
		"process_start_time_seconds %.2f\n", (double)btime + (double)start / (double)tck);
	bprintf(b, "# HELP process_open_fds Number of open file descriptors.\n"
		"# TYPE process_open_fds gauge\nprocess_open_fds %d\n", fds);
	bprintf(b, "# HELP process_max_fds Maximum number of open file descriptors.\n"
		"# TYPE process_max_fds gauge\nprocess_max_fds %llu\n",
		(unsigned long long)rl.rlim_cur);
}

/* Per sink on: every record pushed ends delivered or dropped, or is
 * pending (queued = delivered + dropped + pending; spooled counts what
 * went through the spool on its way). */
/* The activity thread's records: queued = rendered + dropped + pending. */
static void render_activity(struct buf *b, const struct rf_metrics *m)
{
	const struct rf_actq_stats *a = &m->activity;

	if (!m->activity_on)
		return;
	bprintf(b, "# HELP ringfence_monitor_activity_records_total Activity records (DNS "
		"Activity) by outcome: queued for the activity thread, rendered (to --activity "
		"and the sinks), dropped (its queue full).\n"
		"# TYPE ringfence_monitor_activity_records_total counter\n"
		"ringfence_monitor_activity_records_total{outcome=\"queued\"} %llu\n"
		"ringfence_monitor_activity_records_total{outcome=\"rendered\"} %llu\n"
		"ringfence_monitor_activity_records_total{outcome=\"dropped\"} %llu\n"
		"# HELP ringfence_monitor_activity_pending_records Activity records queued, "
		"not yet rendered.\n# TYPE ringfence_monitor_activity_pending_records gauge\n"
		"ringfence_monitor_activity_pending_records %llu\n",
		(unsigned long long)a->queued, (unsigned long long)a->rendered,
		(unsigned long long)a->dropped, (unsigned long long)a->pending);
}

static void render_sinks(struct buf *b, const struct rf_metrics *m)
{
	static const char *const outcomes[RF_SINK_OUTCOMES] = { "delivered", "spooled", "dropped" };
	int k, i;
	bool any = false;

	for (k = 0; k < RF_SINK_MAX; k++)
		any |= m->sinks[k].on;
	if (!any)
		return;
	bprintf(b, "# HELP ringfence_monitor_sink_records_queued_total Records handed to a sink.\n"
		"# TYPE ringfence_monitor_sink_records_queued_total counter\n");
	for (k = 0; k < RF_SINK_MAX; k++)
		if (m->sinks[k].on)
			bprintf(b, "ringfence_monitor_sink_records_queued_total{sink=\"%s\"} %llu\n",
				rf_sink_name((enum rf_sink_kind)k),
				(unsigned long long)m->sinks[k].queued);
	bprintf(b, "# HELP ringfence_monitor_sink_records_total Records of a sink by outcome: "
		"delivered, spooled (on disk while it was down) or dropped.\n"
		"# TYPE ringfence_monitor_sink_records_total counter\n");
	for (k = 0; k < RF_SINK_MAX; k++) {
		const struct rf_sink_stats *s = &m->sinks[k];
		const uint64_t v[] = { s->delivered, s->spooled, s->dropped };

		for (i = 0; s->on && i < 3; i++)
			bprintf(b, "ringfence_monitor_sink_records_total{sink=\"%s\",outcome=\"%s\"} "
				"%llu\n", rf_sink_name((enum rf_sink_kind)k), outcomes[i],
				(unsigned long long)v[i]);
	}
	bprintf(b, "# HELP ringfence_monitor_sink_records_by_kind_total The same by record kind: "
		"finding, network_activity, dns_activity (--sink-activity), other.\n"
		"# TYPE ringfence_monitor_sink_records_by_kind_total counter\n");
	for (k = 0; k < RF_SINK_MAX; k++) {
		const struct rf_sink_stats *s = &m->sinks[k];
		int r;

		for (r = 0; s->on && r < RF_SINK_REC_MAX; r++)
			for (i = 0; i < RF_SINK_OUTCOMES; i++)
				bprintf(b, "ringfence_monitor_sink_records_by_kind_total{sink=\"%s\","
					"kind=\"%s\",outcome=\"%s\"} %llu\n",
					rf_sink_name((enum rf_sink_kind)k),
					rf_sink_rec_name((enum rf_sink_rec)r), outcomes[i],
					(unsigned long long)s->by_kind[r][i]);
	}
	bprintf(b, "# HELP ringfence_monitor_sink_pending_records Records of a sink in its "
		"queue or spool now.\n# TYPE ringfence_monitor_sink_pending_records gauge\n");
	for (k = 0; k < RF_SINK_MAX; k++)
		if (m->sinks[k].on)
			bprintf(b, "ringfence_monitor_sink_pending_records{sink=\"%s\"} %llu\n",
				rf_sink_name((enum rf_sink_kind)k),
				(unsigned long long)m->sinks[k].pending);
	bprintf(b, "# HELP ringfence_monitor_sink_spool_bytes Size of a sink's spool file.\n"
		"# TYPE ringfence_monitor_sink_spool_bytes gauge\n");
	for (k = 0; k < RF_SINK_MAX; k++)
		if (m->sinks[k].on)
			bprintf(b, "ringfence_monitor_sink_spool_bytes{sink=\"%s\"} %llu\n",
				rf_sink_name((enum rf_sink_kind)k),
				(unsigned long long)m->sinks[k].spool_bytes);
	bprintf(b, "# HELP ringfence_monitor_sink_up The last delivery to a sink succeeded.\n"
		"# TYPE ringfence_monitor_sink_up gauge\n");
	for (k = 0; k < RF_SINK_MAX; k++)
		if (m->sinks[k].on)
			bprintf(b, "ringfence_monitor_sink_up{sink=\"%s\"} %d\n",
				rf_sink_name((enum rf_sink_kind)k), m->sinks[k].up ? 1 : 0);
}

char *metrics__render(const struct rf_metrics *m)
{
	struct buf b = { .cap = 4096 };
	int i;

	b.p = malloc(b.cap);
	if (!b.p)
		return NULL;
	b.p[0] = 0;
	bprintf(&b, "# HELP ringfence_monitor_info Build of the running ringfence-monitor.\n"
		"# TYPE ringfence_monitor_info gauge\n"
		"ringfence_monitor_info{version=\"%s\"} 1\n", RF_MON_VERSION);
	bprintf(&b, "# HELP ringfence_monitor_start_time_seconds When the monitor started.\n"
		"# TYPE ringfence_monitor_start_time_seconds gauge\n"
		"ringfence_monitor_start_time_seconds %.3f\n", m->start_time);
	bprintf(&b, "# HELP ringfence_monitor_events_total Events consumed, by source.\n"
		"# TYPE ringfence_monitor_events_total counter\n");
	for (i = 0; i < RF_EVSRC_MAX; i++)
		bprintf(&b, "ringfence_monitor_events_total{source=\"%s\"} %llu\n", src_names[i],
			(unsigned long long)m->events[i]);
	bprintf(&b, "# HELP ringfence_monitor_alerts_total Alerts opened, by rule.\n"
		"# TYPE ringfence_monitor_alerts_total counter\n");
	for (i = 0; i < RF_RULE_MAX; i++)
		bprintf(&b, "ringfence_monitor_alerts_total{rule=\"%s\"} %llu\n",
			rf_rule_id((enum rf_rule)i), (unsigned long long)m->alerts[i]);
	bprintf(&b, "# HELP ringfence_monitor_alert_records_total Alert records written, by phase.\n"
		"# TYPE ringfence_monitor_alert_records_total counter\n");
	for (i = 0; i < RF_PHASE_MAX; i++)
		bprintf(&b, "ringfence_monitor_alert_records_total{phase=\"%s\"} %llu\n",
			rf_phase_name((enum rf_phase)i), (unsigned long long)m->records[i]);
	bprintf(&b, "# HELP ringfence_monitor_lost_events_total Events lost, by hop.\n"
		"# TYPE ringfence_monitor_lost_events_total counter\n");
	for (i = 0; i < RF_HOP_MAX; i++)
		bprintf(&b, "ringfence_monitor_lost_events_total{hop=\"%s\"} %llu\n",
			rf_hop_name((uint32_t)i), (unsigned long long)m->lost[i]);
	bprintf(&b, "# HELP ringfence_monitor_sandboxes Sandboxes watched now.\n"
		"# TYPE ringfence_monitor_sandboxes gauge\n"
		"ringfence_monitor_sandboxes %llu\n", (unsigned long long)m->sandboxes);
	bprintf(&b, "# HELP ringfence_monitor_sandbox_table_entries Entries in the sandbox "
		"table (ended sandboxes included).\n# TYPE ringfence_monitor_sandbox_table_entries "
		"gauge\nringfence_monitor_sandbox_table_entries %zu\n", m->table.entries);
	bprintf(&b, "# HELP ringfence_monitor_sandbox_table_capacity Capacity of the sandbox "
		"table.\n# TYPE ringfence_monitor_sandbox_table_capacity gauge\n"
		"ringfence_monitor_sandbox_table_capacity %zu\n", m->table.capacity);
	bprintf(&b, "# HELP ringfence_monitor_sandboxes_shed_total Live sandboxes shed from the "
		"full sandbox table (oldest idle first).\n"
		"# TYPE ringfence_monitor_sandboxes_shed_total counter\n"
		"ringfence_monitor_sandboxes_shed_total %llu\n", (unsigned long long)m->table.shed);
	bprintf(&b, "# HELP ringfence_monitor_sandboxes_removed_total Entries that left the "
		"sandbox table without loss, by reason.\n"
		"# TYPE ringfence_monitor_sandboxes_removed_total counter\n"
		"ringfence_monitor_sandboxes_removed_total{reason=\"ended\"} %llu\n"
		"ringfence_monitor_sandboxes_removed_total{reason=\"idle-unregistered\"} %llu\n",
		(unsigned long long)m->table.ended_freed, (unsigned long long)m->table.idle_freed);
	bprintf(&b, "# HELP ringfence_monitor_flow_polls_total Reads of the pinned connection "
		"ledgers (only while --activity, --sink-activity, --record or a sandbox's "
		"monitor.egress_bytes use them)."
		"\n# TYPE ringfence_monitor_flow_polls_total counter\n"
		"ringfence_monitor_flow_polls_total %llu\n", (unsigned long long)m->flow_polls);
	bprintf(&b, "# HELP ringfence_monitor_cgroups_gone_total Sandboxes ended because their "
		"cgroup no longer exists.\n# TYPE ringfence_monitor_cgroups_gone_total counter\n"
		"ringfence_monitor_cgroups_gone_total %llu\n", (unsigned long long)m->cgroups_gone);
	bprintf(&b, "# HELP ringfence_monitor_decisions_attached The supervisor's ring buffer "
		"is being drained.\n# TYPE ringfence_monitor_decisions_attached gauge\n"
		"ringfence_monitor_decisions_attached %d\n", m->decisions_attached ? 1 : 0);
	render_decisions(&b, m);
	render_sinks(&b, m);
	render_activity(&b, m);
	if (!m->replay)
		render_process(&b);
	if (b.oom)
		return NULL;
	return b.p;
}

int metrics__write_file(const char *path, const char *text)
{
	/* The mode whatever the umask (the unit's is 0077): node_exporter
	 * reads the file as another user. */
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_PID,
						  .mode = RF_METRICS_FILE_MODE };

	return fileio__write_atomic(path, text, strlen(text), &how);
}

int metrics__parse_addr(const char *spec, void *ret_sa, unsigned int *ret_len,
			char *why, size_t why_len)
{
	char host[64];
	const char *colon;
	char *end;
	long port;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host))
			goto bad;
		memcpy(host, spec + 1, (size_t)(rb - spec - 1));
		host[rb - spec - 1] = 0;
		colon = rb + 1;
	} else {
		colon = strrchr(spec, ':');
		if (!colon || (size_t)(colon - spec) >= sizeof(host))
			goto bad;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = 0;
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || port < 1 || port > 65535 || colon[1] == '+' || colon[1] == '-')
		goto bad;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	{
		struct sockaddr_in *in = ret_sa;
		struct sockaddr_in6 *in6 = ret_sa;

		memset(ret_sa, 0, sizeof(struct sockaddr_in6));
		if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
			if ((ntohl(in->sin_addr.s_addr) >> 24) != 127)
				goto not_loopback;
			in->sin_family = AF_INET;
			in->sin_port = htons((uint16_t)port);
			*ret_len = sizeof(*in);
			return 0;
		}
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
			if (!IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
				goto not_loopback;
			in6->sin6_family = AF_INET6;
			in6->sin6_port = htons((uint16_t)port);
			*ret_len = sizeof(*in6);
			return 0;
		}
	}
bad:
	snprintf(why, why_len, "--metrics %s: expected ADDRESS:PORT with a loopback IP "
		 "address, e.g. 127.0.0.1:9464 or [::1]:9464", spec);
	return -EINVAL;
not_loopback:
	snprintf(why, why_len, "--metrics %s: %s is not a loopback address; metrics are "
		 "served on loopback only (use --metrics-file for node_exporter's textfile "
		 "collector, or a local proxy)", spec, host);
	return -EINVAL;
}

#define HTTP_CONNS 16
#define HTTP_REQ_MAX 2048
#define HTTP_TIMEOUT_MS 5000

struct conn {
	int fd;
	size_t len;
	uint64_t deadline;
	char req[HTTP_REQ_MAX];
};

struct rf_http {
	int lfd, ep;
	struct conn c[HTTP_CONNS];
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int http__open(const char *spec, struct rf_http **ret, struct rf_error *e)
{
	char why[512];
	struct sockaddr_in6 sa;
	struct epoll_event ev = { .events = EPOLLIN };
	struct rf_http *h;
	unsigned int len;
	int one = 1, err, i;

	err = metrics__parse_addr(spec, &sa, &len, why, sizeof(why));
	if (err)
		return rf_error_set(e, err, NULL, "%s", why);
	h = calloc(1, sizeof(*h));
	if (!h)
		return rf_error_set(e, -ENOMEM, NULL, "--metrics %s: %s", spec, strerror(ENOMEM));
	for (i = 0; i < HTTP_CONNS; i++)
		h->c[i].fd = -1;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	h->lfd = socket(((struct sockaddr *)&sa)->sa_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->ep < 0 || h->lfd < 0)
		goto fail;
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(h->lfd, (struct sockaddr *)&sa, len) || listen(h->lfd, 16))
		goto fail;
	ev.data.fd = h->lfd;
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, h->lfd, &ev))
		goto fail;
	*ret = h;
	return 0;
fail:
	err = rf_error_set(e, -errno, NULL, "--metrics %s: %s", spec, strerror(errno));
	http__close(h);
	return err;
}

static void conn_close(struct rf_http *h, struct conn *c)
{
	epoll_ctl(h->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->len = 0;
}

void http__close(struct rf_http *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < HTTP_CONNS; i++)
		if (h->c[i].fd >= 0)
			conn_close(h, &h->c[i]);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->ep >= 0)
		close(h->ep);
	free(h);
}

int http__fd(const struct rf_http *h)
{
	return h->ep;
}

/* "GET /metrics", "GET /metrics?...", "GET /" (and the same for HEAD). */
static bool is_metrics_path(const char *req, const char *method)
{
	size_t n = strlen(method);

	if (strncmp(req, method, n))
		return false;
	req += n;
	return !strncmp(req, "/metrics ", 9) || !strncmp(req, "/metrics?", 9) ||
	       !strncmp(req, "/ ", 2);
}

/* head: a HEAD request gets the headers (Content-Length of the body it
 * would get) and no body. */
static void respond(struct conn *c, int code, const char *type, const char *body, bool head)
{
	char hdr[256];
	size_t bl = strlen(body);

	snprintf(hdr, sizeof(hdr), "HTTP/1.0 %d %s\r\nContent-Type: %s\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n", code,
		 code == 200 ? "OK" : code == 404 ? "Not Found" : "Bad Request", type, bl);
	/* small answers: the socket buffer takes them whole */
	if (send(c->fd, hdr, strlen(hdr), MSG_NOSIGNAL | MSG_DONTWAIT) > 0 && bl && !head)
		send(c->fd, body, bl, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void conn_read(struct rf_http *h, struct conn *c, char *(*body)(void *), void *ctx)
{
	ssize_t n = read(c->fd, c->req + c->len, sizeof(c->req) - 1 - c->len);

	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		conn_close(h, c);
		return;
	}
	c->len += (size_t)n;
	c->req[c->len] = 0;
	if (!strstr(c->req, "\r\n\r\n") && !strstr(c->req, "\n\n")) {
		if (c->len == sizeof(c->req) - 1) {
			respond(c, 400, "text/plain", "request too long\n", false);
			conn_close(h, c);
		}
		return;
	}
	if (is_metrics_path(c->req, "GET ") || is_metrics_path(c->req, "HEAD ")) {
		_cleanup_free_ char *text = body(ctx);

		respond(c, 200, "text/plain; version=0.0.4; charset=utf-8", text ? text : "",
			c->req[0] == 'H');
	} else {
		respond(c, 404, "text/plain", "GET or HEAD /metrics\n", c->req[0] == 'H');
	}
	conn_close(h, c);
}

void http__process(struct rf_http *h, char *(*body)(void *ctx), void *ctx)
{
	struct epoll_event evs[HTTP_CONNS + 1];
	uint64_t now = mono_ms();
	int n, i, k;

	n = epoll_wait(h->ep, evs, HTTP_CONNS + 1, 0);
	for (i = 0; i < n; i++) {
		if (evs[i].data.fd == h->lfd) {
			int fd;

			while ((fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				struct epoll_event ev = { .events = EPOLLIN };

				for (k = 0; k < HTTP_CONNS && h->c[k].fd >= 0; k++)
					;
				if (k == HTTP_CONNS) {
					close(fd);  /* busy: the scraper retries */
					continue;
				}
				h->c[k].fd = fd;
				h->c[k].len = 0;
				h->c[k].deadline = now + HTTP_TIMEOUT_MS;
				ev.data.fd = fd;
				if (epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev))
					conn_close(h, &h->c[k]);
			}
			continue;
		}
		for (k = 0; k < HTTP_CONNS; k++)
			if (h->c[k].fd == evs[i].data.fd) {
				conn_read(h, &h->c[k], body, ctx);
				break;
			}
	}
	for (k = 0; k < HTTP_CONNS; k++)
		if (h->c[k].fd >= 0 && now > h->c[k].deadline)
			conn_close(h, &h->c[k]);
}
