// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The sinks' delivery (sinks.h). One thread per sink, so that a sink that
 * hangs (a TCP peer that never reads, an HTTP server that never answers)
 * holds up its own records only; the monitor's loop only appends to each
 * sink's memory queue under that sink's lock, which the thread holds for
 * list operations only, never across I/O.
 *
 * The thread keeps order: while its spool holds records, new ones go to
 * the spool's end and delivery resumes from its head. The spool is one
 * file of records, one a line, and a second file with the offset of the
 * first one not yet delivered (written after each delivery from the
 * spool: a crash re-sends at most one record, at-least-once). When the
 * spool is emptied it is truncated; when a record would pass its bound
 * the delivered part is cut off first, and if that is not enough the
 * record is dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "actq.h"
#include "cleanup.h"
#include "log.h"
#include "sink.h"
#include "sinks.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 30000

static const char *const sink_names[] = {
#define RF_SINK_NAME(e, name) [RF_SINK_##e] = name,
	RF_SINKS(RF_SINK_NAME)
#undef RF_SINK_NAME
};
_Static_assert(N_OF(sink_names) == RF_SINK_MAX, "sink_names covers enum rf_sink_kind");

const char *rf_sink_name(enum rf_sink_kind k)
{
	return k < RF_SINK_MAX ? sink_names[k] : "unknown";
}

static const struct { const char *name; const char *needle; } recs[] = {
#define RF_SINK_REC_ROW(e, name, uid) [RF_SINK_REC_##e] = { name, "\"class_uid\":" #uid },
	RF_SINK_RECS(RF_SINK_REC_ROW)
#undef RF_SINK_REC_ROW
};
_Static_assert(N_OF(recs) == RF_SINK_REC_MAX, "recs covers enum rf_sink_rec");

const char *rf_sink_rec_name(enum rf_sink_rec k)
{
	return k < RF_SINK_REC_MAX ? recs[k].name : "other";
}

enum rf_sink_rec sinks__rec_kind(const char *line, size_t len)
{
	int k;

	/* the monitor's records are compact JSON: "class_uid":N, once */
	for (k = 0; k < RF_SINK_REC_OTHER; k++)
		if (memmem(line, len, recs[k].needle, strlen(recs[k].needle)))
			return (enum rf_sink_rec)k;
	return RF_SINK_REC_OTHER;
}

struct qrec {
	struct qrec *next;
	size_t len;             /* without '\n' */
	char data[];            /* len bytes + '\n' */
};

struct sink {
	struct rf_sinks *all;
	enum rf_sink_kind kind;
	const char *addr;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu */
	struct qrec *head, **tail;
	size_t qbytes, qcap;
	uint64_t qcount;
	bool stop;
	struct rf_sink_stats st;
	/* the thread's own */
	struct sink_conn *conn;
	int spool_fd, off_fd;
	char *spool_path, *off_path;
	uint64_t spool_off, spool_size, spool_records, spool_cap;
	uint64_t backoff_ms, retry_at;
	char *rbuf;             /* the spool from rb_off, rb_len bytes */
	size_t rcap, rb_len;
	uint64_t rb_off;
	uint64_t inflight;      /* taken from the queue, not yet delivered or spooled */
	bool logged_down;
};

struct rf_sinks {
	const struct rf_sinks_opts *o;
	char hostname[256];
	bool has_tp;
	struct sink_trace tp;
	struct sink s[RF_SINK_MAX];
	uint64_t deadline;      /* at close */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

bool sinks__any(const struct rf_sinks_opts *o)
{
	int k;

	for (k = 0; k < RF_SINK_MAX; k++)
		if (o->addr[k])
			return true;
	return false;
}

int sinks__check(const struct rf_sinks_opts *o, char *why, size_t len)
{
	struct sink_syslog_addr sa;
	struct sink_trace tp;
	const char *env = getenv("TRACEPARENT");
	int err = 0;

	if (o->addr[RF_SINK_SYSLOG])
		err = sink__parse_syslog(o->addr[RF_SINK_SYSLOG], &sa, why, len);
	if (!err && o->addr[RF_SINK_OTLP])
		err = sink__parse_url("--otlp", o->addr[RF_SINK_OTLP], why, len);
	if (!err && o->addr[RF_SINK_WEBHOOK])
		err = sink__parse_url("--webhook", o->addr[RF_SINK_WEBHOOK], why, len);
	if (!err && o->addr[RF_SINK_OTLP] && env && *env && sink__traceparent(env, &tp)) {
		snprintf(why, len, "--otlp: TRACEPARENT %.60s: expected a W3C traceparent "
			 "00-<32 hex>-<16 hex>-<2 hex>, ids not all zero", env);
		err = -EINVAL;
	}
	return err;
}

/* ---- the spool (the sink's thread only) ------------------------------------- */

static void spool_save_off(struct sink *s)
{
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)s->spool_off);

	if (pwrite(s->off_fd, buf, (size_t)n, 0) != n || ftruncate(s->off_fd, n))
		rf_debug("%s spool: offset not saved: %s", sink_names[s->kind], strerror(errno));
}

/* Records (lines) from the offset to the end; a torn last line (a crash
 * mid-write) is cut off. */
static int spool_scan(struct sink *s)
{
	char buf[65536], off[24] = "";
	uint64_t pos, last_nl;
	struct stat st;
	ssize_t n;

	if (pread(s->off_fd, off, sizeof(off) - 1, 0) > 0)
		s->spool_off = strtoull(off, NULL, 10);
	if (fstat(s->spool_fd, &st))
		return -errno;
	if (s->spool_off > (uint64_t)st.st_size)
		s->spool_off = 0;
	last_nl = s->spool_off;
	for (pos = s->spool_off; (n = pread(s->spool_fd, buf, sizeof(buf), (off_t)pos)) > 0;
	     pos += (uint64_t)n) {
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] == '\n') {
				s->spool_records++;
				last_nl = pos + (uint64_t)i + 1;
			}
	}
	if (last_nl < (uint64_t)st.st_size && ftruncate(s->spool_fd, (off_t)last_nl))
		return -errno;
	s->spool_size = last_nl;
	return 0;
}

static int spool_open(struct sink *s, const char *dir)
{
	mkdir(dir, 0700);
	if (asprintf(&s->spool_path, "%s/%s.ndjson", dir, sink_names[s->kind]) < 0 ||
	    asprintf(&s->off_path, "%s/%s.offset", dir, sink_names[s->kind]) < 0)
		return -ENOMEM;
	s->spool_fd = open(s->spool_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->spool_fd < 0)
		return -errno;
	s->off_fd = open(s->off_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (s->off_fd < 0)
		return -errno;
	return spool_scan(s);
}

/* The delivered head cut off: the rest copied to the file's start. */
static int spool_compact(struct sink *s)
{
	uint64_t from = s->spool_off, to = 0;
	char buf[65536];
	ssize_t n;

	while ((n = pread(s->spool_fd, buf, sizeof(buf), (off_t)from)) > 0) {
		if (pwrite(s->spool_fd, buf, (size_t)n, (off_t)to) != n)
			return -EIO;
		from += (uint64_t)n;
		to += (uint64_t)n;
	}
	s->rb_len = 0;
	if (ftruncate(s->spool_fd, (off_t)to))
		return -errno;
	s->spool_size = to;
	s->spool_off = 0;
	spool_save_off(s);
	return 0;
}

/* Under mu: pending and the spool's size as the thread has them now. */
static void refresh_locked(struct sink *s)
{
	s->st.pending = s->qcount + s->inflight + s->spool_records;
	s->st.spool_bytes = s->spool_size;
}

static void count(struct sink *s, uint64_t *field, uint64_t n)
{
	pthread_mutex_lock(&s->mu);
	*field += n;
	refresh_locked(s);
	pthread_mutex_unlock(&s->mu);
}

/* n records of one kind (the line's, or RF_SINK_REC_OTHER unread) had
 * outcome o: in the totals and by kind. */
static void count_rec(struct sink *s, enum rf_sink_outcome o, enum rf_sink_rec k, uint64_t n)
{
	uint64_t *total[RF_SINK_OUTCOMES] = { &s->st.delivered, &s->st.spooled, &s->st.dropped };

	pthread_mutex_lock(&s->mu);
	*total[o] += n;
	s->st.by_kind[k][o] += n;
	refresh_locked(s);
	pthread_mutex_unlock(&s->mu);
}

static void drop(struct sink *s, const char *line, size_t len, const char *why)
{
	count_rec(s, RF_SINK_DROPPED, sinks__rec_kind(line, len), 1);
	rf_debug("%s: record dropped: %s", sink_names[s->kind], why);
}

/* One record (data + '\n') at the spool's end, or dropped. */
static void spool_append(struct sink *s, const struct qrec *r)
{
	size_t n = r->len + 1;

	if (s->spool_size + n > s->spool_cap && s->spool_off)
		spool_compact(s);
	if (s->spool_size + n > s->spool_cap) {
		drop(s, r->data, r->len, "spool full");
		return;
	}
	if (pwrite(s->spool_fd, r->data, n, (off_t)s->spool_size) != (ssize_t)n) {
		drop(s, r->data, r->len, "spool write failed");
		return;
	}
	s->spool_size += n;
	s->spool_records++;
	count_rec(s, RF_SINK_SPOOLED, sinks__rec_kind(r->data, r->len), 1);
}

/* The spool's first record: *ret (in s->rbuf, a window on the file that
 * spares a read per record) and its length without '\n', or -1. */
static ssize_t spool_head(struct sink *s, const char **ret)
{
	int tries;

	for (tries = 0; tries < 32; tries++) {
		ssize_t n;

		if (s->rb_len && s->spool_off >= s->rb_off && s->spool_off < s->rb_off + s->rb_len) {
			size_t at = (size_t)(s->spool_off - s->rb_off);
			char *nl = memchr(s->rbuf + at, '\n', s->rb_len - at);

			if (nl) {
				*ret = s->rbuf + at;
				return nl - (s->rbuf + at);
			}
		}
		if (!s->rcap || (s->rb_len == s->rcap && s->spool_off == s->rb_off)) {
			size_t cap = s->rcap ? s->rcap * 2 : 65536;
			char *p = realloc(s->rbuf, cap);

			if (!p)
				return -1;
			s->rbuf = p;
			s->rcap = cap;
		}
		n = pread(s->spool_fd, s->rbuf, s->rcap, (off_t)s->spool_off);
		s->rb_len = n > 0 ? (size_t)n : 0;
		s->rb_off = s->spool_off;
		if (n <= 0 || (!memchr(s->rbuf, '\n', (size_t)n) && (size_t)n < s->rcap))
			return -1;
	}
	return -1;
}

/* ---- delivery ------------------------------------------------------------------ */

static void backoff(struct sink *s, const char *why)
{
	s->backoff_ms = s->backoff_ms ? s->backoff_ms * 2 : BACKOFF_MIN_MS;
	if (s->backoff_ms > BACKOFF_MAX_MS)
		s->backoff_ms = BACKOFF_MAX_MS;
	s->retry_at = now_ms() + s->backoff_ms;
	if (!s->logged_down)
		rf_info("%s: %s; spooling, retrying with backoff", sink_names[s->kind], why);
	s->logged_down = true;
	pthread_mutex_lock(&s->mu);
	s->st.up = false;
	pthread_mutex_unlock(&s->mu);
}

static void up(struct sink *s)
{
	if (s->logged_down)
		rf_info("%s: delivering again", sink_names[s->kind]);
	s->logged_down = false;
	s->backoff_ms = 0;
	s->retry_at = 0;
	pthread_mutex_lock(&s->mu);
	s->st.up = true;
	pthread_mutex_unlock(&s->mu);
}

/* One record to the receiver: SINK_OK delivered, SINK_REFUSED dropped,
 * SINK_RETRY the caller keeps it. A record that is not JSON is dropped. */
static enum sink_result deliver(struct sink *s, const char *line, size_t len)
{
	struct sink_rec r;
	enum sink_result res;
	char why[512] = "";

	if (sink__rec_parse(line, len, &r)) {
		drop(s, line, len, "not a JSON object");
		return SINK_REFUSED;
	}
	res = sink_io__send(s->conn, &r, why, sizeof(why));
	sink__rec_free(&r);
	if (res == SINK_OK) {
		up(s);
		count_rec(s, RF_SINK_DELIVERED, sinks__rec_kind(line, len), 1);
	} else if (res == SINK_REFUSED) {
		rf_info("%s: %s: record dropped", sink_names[s->kind], why);
		count_rec(s, RF_SINK_DROPPED, sinks__rec_kind(line, len), 1);
	} else {
		backoff(s, why);
	}
	return res;
}

/* From the spool's head while the receiver takes them. */
static void drain_spool(struct sink *s)
{
	while (s->spool_records) {
		const char *line;
		ssize_t n = spool_head(s, &line);

		if (n < 0) {
			/* unreadable: what is left cannot be delivered */
			count_rec(s, RF_SINK_DROPPED, RF_SINK_REC_OTHER, s->spool_records);
			s->spool_records = 0;
			break;
		}
		if (deliver(s, line, (size_t)n) == SINK_RETRY)
			return;
		s->spool_off += (uint64_t)n + 1;
		s->spool_records--;
		spool_save_off(s);
		count(s, &s->st.delivered, 0);     /* pending, refreshed */
	}
	if (s->spool_off && !ftruncate(s->spool_fd, 0)) {
		s->spool_off = s->spool_size = 0;
		s->rb_len = 0;
		spool_save_off(s);
		count(s, &s->st.delivered, 0);
	}
}

/* A batch from the queue, in order: straight to the receiver while it
 * takes them and the spool is empty, else to the spool. */
static void handle(struct sink *s, struct qrec *batch, bool stopping)
{
	while (batch) {
		struct qrec *r = batch;

		batch = r->next;
		s->inflight--;
		if (s->spool_records || now_ms() < s->retry_at ||
		    (stopping && now_ms() >= s->all->deadline) ||
		    deliver(s, r->data, r->len) == SINK_RETRY)
			spool_append(s, r);
		free(r);
	}
}

static struct qrec *take_queue(struct sink *s)
{
	struct qrec *b = s->head;

	s->head = NULL;
	s->tail = &s->head;
	s->qbytes = 0;
	s->inflight += s->qcount;
	s->qcount = 0;
	return b;
}

/* Under mu, with nothing queued: until a record comes, the spool's retry
 * is due, or the drain at close runs out. */
static void wait_work(struct sink *s)
{
	uint64_t now = now_ms(), until = UINT64_MAX, d = s->all->deadline;
	struct timespec ts;

	if (s->spool_records) {
		if (s->retry_at <= now)
			return;
		until = s->retry_at;
	}
	if (s->stop) {
		if (d <= now)
			return;
		if (d < until)
			until = d;
	}
	if (until == UINT64_MAX) {
		pthread_cond_wait(&s->cv, &s->mu);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)((until - now) / 1000);
	ts.tv_nsec += (long)((until - now) % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&s->cv, &s->mu, &ts);
}

static void *sink_thread(void *arg)
{
	struct sink *s = arg;

	actq__lower_priority();   /* a sink never takes CPU from the drain first */
	for (;;) {
		struct qrec *batch;
		bool stopping, done;

		pthread_mutex_lock(&s->mu);
		if (!s->head && !(s->stop && (!s->spool_records || now_ms() >= s->all->deadline)))
			wait_work(s);
		stopping = s->stop;
		batch = take_queue(s);
		refresh_locked(s);
		pthread_mutex_unlock(&s->mu);
		if (s->spool_records && now_ms() >= s->retry_at &&
		    !(stopping && now_ms() >= s->all->deadline))
			drain_spool(s);
		handle(s, batch, stopping);
		pthread_mutex_lock(&s->mu);
		done = s->stop && !s->head &&
		       (!s->spool_records || now_ms() >= s->all->deadline);
		pthread_mutex_unlock(&s->mu);
		if (done)
			break;
	}
	if (s->spool_records)
		rf_info("%s: %llu records left in %s for the next start", sink_names[s->kind],
			(unsigned long long)s->spool_records, s->spool_path);
	return NULL;
}

/* ---- the monitor's side ---------------------------------------------------------- */

void sinks__push(struct rf_sinks *ss, const char *line)
{
	size_t len = strcspn(line, "\n");
	int k;

	if (!ss)
		return;
	for (k = 0; k < RF_SINK_MAX; k++) {
		struct sink *s = &ss->s[k];
		struct qrec *r;

		if (!s->started)
			continue;
		r = malloc(sizeof(*r) + len + 1);
		pthread_mutex_lock(&s->mu);
		s->st.queued++;
		if (!r || s->qbytes + len + 1 > s->qcap) {
			s->st.dropped++;
			s->st.by_kind[sinks__rec_kind(line, len)][RF_SINK_DROPPED]++;
			pthread_mutex_unlock(&s->mu);
			free(r);
			continue;
		}
		r->next = NULL;
		r->len = len;
		memcpy(r->data, line, len);
		r->data[len] = '\n';
		*s->tail = r;
		s->tail = &r->next;
		s->qbytes += len + 1;
		s->qcount++;
		s->st.pending++;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

static void sink_free(struct sink *s)
{
	struct qrec *r = take_queue(s);

	while (r) {
		struct qrec *n = r->next;

		free(r);
		r = n;
	}
	sink_io__free(s->conn);
	if (s->spool_fd >= 0)
		close(s->spool_fd);
	if (s->off_fd >= 0)
		close(s->off_fd);
	free(s->spool_path);
	free(s->off_path);
	free(s->rbuf);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
}

static int sink_start(struct rf_sinks *ss, enum rf_sink_kind k, struct rf_error *e)
{
	struct sink *s = &ss->s[k];
	int err;

	s->all = ss;
	s->kind = k;
	s->addr = ss->o->addr[k];
	s->qcap = ss->o->queue_bytes ? ss->o->queue_bytes : 8u << 20;
	s->spool_cap = ss->o->spool_bytes;
	s->st.on = true;
	err = spool_open(s, ss->o->spool_dir);
	if (err)
		return rf_error_set(e, err, NULL, "--spool-dir %s: %s spool: %s", ss->o->spool_dir,
				    sink_names[k], strerror(-err));
	s->st.pending = s->spool_records;
	s->st.spool_bytes = s->spool_size;
	if (s->spool_records)
		rf_info("%s: %llu records spooled by an earlier run, delivering them first",
			sink_names[k], (unsigned long long)s->spool_records);
	err = sink_io__new(k, s->addr, ss->hostname, ss->has_tp ? &ss->tp : NULL, &s->conn);
	if (!err) {
		/* every signal blocked in the thread (it inherits the mask): the
		 * monitor takes INT, TERM and HUP through its signalfd, which a
		 * thread with them unblocked would have taken first (SIGHUP's
		 * default action ends the process) */
		sigset_t all, old;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		err = -pthread_create(&s->thread, NULL, sink_thread, s);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (err)
		return rf_error_set(e, err, NULL, "%s sink: %s", sink_names[k], strerror(-err));
	s->started = true;
	return 0;
}

int sinks__open(const struct rf_sinks_opts *o, const char *hostname, struct rf_sinks **ret,
		struct rf_error *e)
{
	struct rf_sinks *ss;
	const char *env = getenv("TRACEPARENT");
	int k, err = 0;

	*ret = NULL;
	if (!sinks__any(o))
		return 0;
	ss = calloc(1, sizeof(*ss));
	if (!ss || sink_io__global_init()) {
		free(ss);
		return rf_error_set(e, -ENOMEM, "sinks", "%s", strerror(ENOMEM));
	}
	ss->o = o;
	snprintf(ss->hostname, sizeof(ss->hostname), "%s", hostname);
	ss->has_tp = o->addr[RF_SINK_OTLP] && env && *env && !sink__traceparent(env, &ss->tp);
	for (k = 0; k < RF_SINK_MAX; k++) {
		struct sink *s = &ss->s[k];
		pthread_condattr_t ca;

		s->spool_fd = s->off_fd = -1;
		s->tail = &s->head;
		pthread_mutex_init(&s->mu, NULL);
		/* wait_work's deadlines are CLOCK_MONOTONIC (a condvar's default
		 * clock is the wall clock: every wait would end at once) */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&s->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	mkdir(o->spool_dir, 0700);
	for (k = 0; k < RF_SINK_MAX && !err; k++)
		if (o->addr[k])
			err = sink_start(ss, (enum rf_sink_kind)k, e);
	*ret = ss;
	if (err) {
		sinks__close(ss, NULL);
		*ret = NULL;
	}
	return err;
}

void sinks__close(struct rf_sinks *ss, struct rf_sink_stats ret_final[RF_SINK_MAX])
{
	int k;

	if (!ss)
		return;
	ss->deadline = now_ms() + ss->o->drain_ms;
	for (k = 0; k < RF_SINK_MAX; k++) {
		struct sink *s = &ss->s[k];

		if (!s->started)
			continue;
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_signal(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	for (k = 0; k < RF_SINK_MAX; k++)
		if (ss->s[k].started)
			pthread_join(ss->s[k].thread, NULL);
	if (ret_final)
		sinks__stats(ss, ret_final);
	for (k = 0; k < RF_SINK_MAX; k++)
		sink_free(&ss->s[k]);
	free(ss);
}

void sinks__stats(const struct rf_sinks *ss, struct rf_sink_stats ret[RF_SINK_MAX])
{
	int k;

	for (k = 0; k < RF_SINK_MAX; k++) {
		struct sink *s = ss ? (struct sink *)&ss->s[k] : NULL;

		memset(&ret[k], 0, sizeof(ret[k]));
		if (!s || !s->started)
			continue;
		pthread_mutex_lock(&s->mu);
		ret[k] = s->st;
		pthread_mutex_unlock(&s->mu);
	}
}

uint64_t sinks__dropped(const struct rf_sinks *ss)
{
	struct rf_sink_stats st[RF_SINK_MAX];
	uint64_t n = 0;
	int k;

	if (!ss)
		return 0;
	sinks__stats(ss, st);
	for (k = 0; k < RF_SINK_MAX; k++)
		n += st[k].dropped;
	return n;
}
