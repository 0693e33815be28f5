// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sinks' transports (sink.h), each called from its sink's own delivery
 * thread only: blocking here holds up that sink alone.
 *   - journal: sd_journal_sendv, native fields;
 *   - syslog: RFC 5424 over UDP (one datagram each), TCP (octet-counted
 *     framing, RFC 6587 3.4.1) or a unix socket (datagram, else stream
 *     with the same framing), reconnected on failure;
 *   - otlp, webhook: HTTP POST through libcurl (keep-alive), 2xx delivers.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <curl/curl.h>
#include <systemd/sd-journal.h>

#include "cleanup.h"
#include "input.h"
#include "sink.h"

#define CONNECT_MS 2000
#define IO_MS 5000

struct sink_conn {
	enum rf_sink_kind kind;
	char hostname[256];
	bool has_tp;
	struct sink_trace tp;
	/* syslog */
	struct sink_syslog_addr sa;
	int fd;
	int type;               /* SOCK_DGRAM or SOCK_STREAM once connected */
	/* http */
	CURL *curl;
	struct curl_slist *headers;
	char *url;
	char err[CURL_ERROR_SIZE];
};

int sink_io__global_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -ENOMEM;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

static int http_new(struct sink_conn *c, const char *addr)
{
	c->url = c->kind == RF_SINK_OTLP ? sink__otlp_url(addr) : strdup(addr);
	c->curl = curl_easy_init();
	c->headers = curl_slist_append(NULL, "Content-Type: application/json");
	/* no "Expect: 100-continue" round trip before each body */
	if (c->headers)
		c->headers = curl_slist_append(c->headers, "Expect:");
	if (!c->url || !c->curl || !c->headers)
		return -ENOMEM;
	curl_easy_setopt(c->curl, CURLOPT_URL, c->url);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_MS);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, (long)IO_MS);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->err);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "ringfence-monitor/" RF_MON_VERSION);
	/* no redirects: a POST re-sent elsewhere is not what was configured */
	curl_easy_setopt(c->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	return 0;
}

int sink_io__new(enum rf_sink_kind k, const char *addr, const char *hostname,
		 const struct sink_trace *tp, struct sink_conn **ret)
{
	struct sink_conn *c = calloc(1, sizeof(*c));
	char why[256];
	int err = 0;

	if (!c)
		return -ENOMEM;
	c->kind = k;
	c->fd = -1;
	snprintf(c->hostname, sizeof(c->hostname), "%s", hostname);
	if (tp) {
		c->tp = *tp;
		c->has_tp = true;
	}
	if (k == RF_SINK_SYSLOG)
		err = sink__parse_syslog(addr, &c->sa, why, sizeof(why));
	else if (k == RF_SINK_OTLP || k == RF_SINK_WEBHOOK)
		err = http_new(c, addr);
	if (err) {
		sink_io__free(c);
		return err;
	}
	*ret = c;
	return 0;
}

void sink_io__free(struct sink_conn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->url);
	free(c);
}

/* ---- journal -------------------------------------------------------------- */

static enum sink_result journal_send(struct sink_conn *c, const struct sink_rec *r, char *why,
				     size_t len)
{
	char f[10][320];
	_cleanup_free_ char *ocsf = NULL;
	struct iovec iov[11];
	int n = 0, i, err;

	(void)c;
	snprintf(f[n++], sizeof(f[0]), "MESSAGE=%s", r->message ? r->message : "ringfence record");
	snprintf(f[n++], sizeof(f[0]), "MESSAGE_ID=%s", sink__message_id(r));
	snprintf(f[n++], sizeof(f[0]), "PRIORITY=%d", sink__syslog_severity(r->severity_id));
	snprintf(f[n++], sizeof(f[0]), "SYSLOG_IDENTIFIER=ringfence-monitor");
	snprintf(f[n++], sizeof(f[0]), "RINGFENCE_SEVERITY_ID=%d", r->severity_id);
	snprintf(f[n++], sizeof(f[0]), "RINGFENCE_CLASS_UID=%d", r->class_uid);
	if (r->rule)
		snprintf(f[n++], sizeof(f[0]), "RINGFENCE_RULE=%s", r->rule);
	if (r->sandbox)
		snprintf(f[n++], sizeof(f[0]), "RINGFENCE_SANDBOX=%s", r->sandbox);
	if (r->uid)
		snprintf(f[n++], sizeof(f[0]), "RINGFENCE_UID=%s", r->uid);
	if (r->finding_uid)
		snprintf(f[n++], sizeof(f[0]), "RINGFENCE_FINDING_UID=%s", r->finding_uid);
	for (i = 0; i < n; i++)
		iov[i] = (struct iovec){ .iov_base = f[i], .iov_len = strlen(f[i]) };
	if (asprintf(&ocsf, "RINGFENCE_OCSF=%.*s", (int)r->len, r->line) < 0)
		return SINK_RETRY;
	iov[n++] = (struct iovec){ .iov_base = ocsf, .iov_len = strlen(ocsf) };
	err = sd_journal_sendv(iov, n);
	if (err < 0) {
		snprintf(why, len, "sd_journal_send: %s", strerror(-err));
		return SINK_RETRY;
	}
	return SINK_OK;
}

/* ---- syslog ----------------------------------------------------------------- */

static void syslog_close(struct sink_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* A non-blocking connect waited for CONNECT_MS, then blocking with IO_MS
 * timeouts. 0 or -errno. */
static int connect_wait(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct timeval tv = { .tv_sec = IO_MS / 1000 };
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int flags = fcntl(fd, F_GETFL), err = 0;
	socklen_t el = sizeof(err);

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	if (connect(fd, sa, len)) {
		if (errno != EINPROGRESS)
			return -errno;
		if (poll(&p, 1, CONNECT_MS) != 1)
			return -ETIMEDOUT;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err)
			return -(err ? err : errno);
	}
	fcntl(fd, F_SETFL, flags);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return 0;
}

static int syslog_connect_unix(struct sink_conn *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static const int types[] = { SOCK_DGRAM, SOCK_STREAM };
	int err = -ENOENT;
	size_t i;

	memcpy(sun.sun_path, c->sa.path, strlen(c->sa.path) + 1);
	/* rsyslog's imuxsock and journald take datagrams; syslog-ng's
	 * unix-stream a stream: the socket's own type is what connects */
	for (i = 0; i < 2; i++) {
		int fd = socket(AF_UNIX, types[i] | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		err = connect_wait(fd, (struct sockaddr *)&sun, sizeof(sun));
		if (!err) {
			c->fd = fd;
			c->type = types[i];
			return 0;
		}
		close(fd);
		if (err != -EPROTOTYPE)
			return err;
	}
	return err;
}

static int syslog_connect(struct sink_conn *c, char *why, size_t len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC }, *res = NULL, *ai;
	int err, fd;

	if (c->sa.net == SINK_UNIX) {
		err = syslog_connect_unix(c);
		if (err)
			snprintf(why, len, "connect unix:%s: %s", c->sa.path, strerror(-err));
		return err;
	}
	hints.ai_socktype = c->sa.net == SINK_UDP ? SOCK_DGRAM : SOCK_STREAM;
	err = getaddrinfo(c->sa.host, c->sa.port, &hints, &res);
	if (err) {
		snprintf(why, len, "resolve %s: %s", c->sa.host, gai_strerror(err));
		return -EHOSTUNREACH;
	}
	err = -ENOENT;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		err = connect_wait(fd, ai->ai_addr, ai->ai_addrlen);
		if (!err) {
			c->fd = fd;
			c->type = ai->ai_socktype;
			break;
		}
		close(fd);
	}
	freeaddrinfo(res);
	if (err)
		snprintf(why, len, "connect %s:%s: %s", c->sa.host, c->sa.port, strerror(-err));
	return err;
}

/* A stream the receiver closed (it restarted) is reconnected before the
 * next record rather than written into and lost. */
static bool stream_closed(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char b;

	if (poll(&p, 1, 0) != 1)
		return false;
	return (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) ||
	       recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static enum sink_result syslog_send(struct sink_conn *c, const struct sink_rec *r, char *why,
				    size_t len)
{
	_cleanup_free_ char *msg = sink__rfc5424(r, c->hostname, (int)getpid());
	_cleanup_free_ char *framed = NULL;
	int err;

	if (!msg)
		return SINK_RETRY;
	if (c->fd >= 0 && c->type == SOCK_STREAM && stream_closed(c->fd))
		syslog_close(c);
	if (c->fd < 0 && syslog_connect(c, why, len))
		return SINK_RETRY;
	if (c->type == SOCK_DGRAM) {
		err = send(c->fd, msg, strlen(msg), MSG_NOSIGNAL) < 0 ? -errno : 0;
	} else {
		/* octet counting: "MSG-LEN SP SYSLOG-MSG" */
		if (asprintf(&framed, "%zu %s", strlen(msg), msg) < 0)
			return SINK_RETRY;
		err = write_all(c->fd, framed, strlen(framed));
	}
	if (err) {
		snprintf(why, len, "send: %s", strerror(-err));
		syslog_close(c);
		return err == -EMSGSIZE ? SINK_REFUSED : SINK_RETRY;
	}
	return SINK_OK;
}

/* ---- HTTP --------------------------------------------------------------------- */

static enum sink_result http_send(struct sink_conn *c, const struct sink_rec *r, char *why,
				  size_t len)
{
	_cleanup_free_ char *body = NULL;
	struct sink_rec *one = (struct sink_rec *)r;
	long code = 0;
	CURLcode rc;

	if (c->kind == RF_SINK_OTLP)
		body = sink__otlp_json(&one, 1, c->hostname, c->has_tp ? &c->tp : NULL);
	else
		body = strndup(r->line, r->len);
	if (!body)
		return SINK_RETRY;
	c->err[0] = 0;
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	rc = curl_easy_perform(c->curl);
	if (rc != CURLE_OK) {
		snprintf(why, len, "POST %s: %s", c->url, c->err[0] ? c->err : curl_easy_strerror(rc));
		return SINK_RETRY;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &code);
	if (code >= 200 && code < 300)
		return SINK_OK;
	snprintf(why, len, "POST %s: HTTP %ld", c->url, code);
	/* a client error other than timeout or throttling: the record will
	 * never be taken, retrying it would hold up every later one */
	if (code >= 400 && code < 500 && code != 408 && code != 429)
		return SINK_REFUSED;
	return SINK_RETRY;
}

enum sink_result sink_io__send(struct sink_conn *c, const struct sink_rec *r, char *why,
			       size_t why_len)
{
	switch (c->kind) {
	case RF_SINK_JOURNAL:
		return journal_send(c, r, why, why_len);
	case RF_SINK_SYSLOG:
		return syslog_send(c, r, why, why_len);
	case RF_SINK_OTLP:
	case RF_SINK_WEBHOOK:
		return http_send(c, r, why, why_len);
	case RF_SINK_MAX:
		break;
	}
	return SINK_REFUSED;
}
