// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "actq.h"
#include "cleanup.h"

/* The writer of each kind of activity record (one entry per kind). */
typedef int (*act_write_fn)(const struct rf_input *in, const struct rf_act_sb *sb, uint64_t seq,
			    int64_t boot_to_real_ns, const struct rf_alert_origin *og, char *buf,
			    size_t len);

static const act_write_fn writers[RF_IN_MAX] = {
	[RF_IN_DNS] = activity__dns_write,
	[RF_IN_FLOW] = activity__json_write,   /* a writer of its own when flows are many */
};

#define LINE_BYTES 16384        /* one record: its labels, names and message are bounded */
#define IDLE_MS 20
#define BATCH 256               /* records between two idle calls (flushes) */

struct rf_actq {
	struct rf_act_item *slots;
	size_t mask;
	/* the producer writes tail, the thread head; each reads the other's */
	_Atomic uint64_t head, tail;
	_Atomic uint64_t rendered, dropped_render;
	uint64_t dropped_full;          /* producer only */
	uint64_t seq;                   /* producer only: metadata.sequence, dropped ones too */
	_Atomic bool sleeping, stop, reopen;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool started;
	int64_t boot_to_real;
	struct rf_alert_origin og;
	rf_act_emit_fn emit;
	rf_act_idle_fn idle;
	void *ctx;
	char line[LINE_BYTES];
};

bool actq__kind_known(enum rf_in_type t)
{
	return (unsigned)t < RF_IN_MAX && writers[t];
}

static void render_one(struct rf_actq *q, const struct rf_act_item *it)
{
	int n = writers[it->in.type](&it->in, &it->sb, it->seq, q->boot_to_real, &q->og, q->line,
				     sizeof(q->line) - 1);

	if (n <= 0) {
		atomic_fetch_add_explicit(&q->dropped_render, 1, memory_order_relaxed);
		return;
	}
	q->line[n] = 0;
	q->emit(q->ctx, q->line, (size_t)n);
	atomic_fetch_add_explicit(&q->rendered, 1, memory_order_relaxed);
}

/* Render up to BATCH of what is in the ring; false when it was empty. */
static bool render_batch(struct rf_actq *q)
{
	uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&q->tail, memory_order_acquire);

	if (h == t)
		return false;
	if (t - h > BATCH)
		t = h + BATCH;
	for (; h != t; h++) {
		render_one(q, &q->slots[h & q->mask]);
		atomic_store_explicit(&q->head, h + 1, memory_order_release);
	}
	return true;
}

/* The drain before this thread and the sinks' when CPUs are short: nice
 * 10 above the monitor's (Linux keeps a nice value per thread). */
void actq__lower_priority(void)
{
	errno = 0;
	int p = getpriority(PRIO_PROCESS, 0);

	if (p != -1 || !errno)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), p + 10 > 19 ? 19 : p + 10);
}

static void *run(void *arg)
{
	struct rf_actq *q = arg;

	actq__lower_priority();
	for (;;) {
		struct timespec ts;
		bool did = render_batch(q);

		q->idle(q->ctx, atomic_exchange(&q->reopen, false));
		if (did)
			continue;
		if (atomic_load(&q->stop))
			break;
		/* sleeping is set before the ring is looked at again: a push
		 * after that look sees it and signals; one that raced it is
		 * picked up at the timeout */
		pthread_mutex_lock(&q->lock);
		atomic_store(&q->sleeping, true);
		if (atomic_load(&q->head) == atomic_load(&q->tail) && !atomic_load(&q->stop)) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += IDLE_MS * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&q->wake, &q->lock, &ts);
		}
		atomic_store(&q->sleeping, false);
		pthread_mutex_unlock(&q->lock);
	}
	return NULL;
}

static void actq_free(struct rf_actq *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->wake);
	free(q->slots);
	free(q);
}
RF_DEFINE_CLEANUP(struct rf_actq, actq_free)

int actq__open(size_t slots, int64_t boot_to_real_ns, const struct rf_alert_origin *og,
	       rf_act_emit_fn emit, rf_act_idle_fn idle, void *ctx, struct rf_actq **ret)
{
	_cleanup_(actq_freep) struct rf_actq *q = calloc(1, sizeof(*q));
	sigset_t all, old;
	size_t n = 64;
	int err;

	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->wake, NULL);
	while (n < slots && n < ((size_t)1 << 20))
		n <<= 1;
	q->slots = calloc(n, sizeof(*q->slots));
	if (!q->slots)
		return -ENOMEM;
	q->mask = n - 1;
	q->boot_to_real = boot_to_real_ns;
	q->og = *og;
	q->emit = emit;
	q->idle = idle;
	q->ctx = ctx;
	/* no signal for this thread: the main loop takes them by signalfd */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&q->thread, NULL, run, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	q->started = true;
	*ret = TAKE_PTR(q);
	return 0;
}

bool actq__push(struct rf_actq *q, const struct rf_input *in, const struct rf_sandbox_info *si)
{
	uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
	struct rf_act_item *it;

	q->seq++;
	if (!actq__kind_known(in->type) ||
	    t - atomic_load_explicit(&q->head, memory_order_acquire) > q->mask) {
		q->dropped_full++;
		return false;
	}
	it = &q->slots[t & q->mask];
	it->in.t_ns = in->t_ns;
	it->in.type = in->type;
	it->in.cgroup_id = in->cgroup_id;
	/* of the union, what the kind uses */
	if (in->type == RF_IN_DNS)
		it->in.u.dns = in->u.dns;
	else
		it->in.u = in->u;
	activity__sb_copy(&it->sb, si);
	it->seq = q->seq;
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	if (atomic_load(&q->sleeping)) {
		pthread_mutex_lock(&q->lock);
		pthread_cond_signal(&q->wake);
		pthread_mutex_unlock(&q->lock);
	}
	return true;
}

void actq__reopen(struct rf_actq *q)
{
	if (q)
		atomic_store(&q->reopen, true);
}

void actq__close(struct rf_actq *q)
{
	if (!q)
		return;
	/* the thread renders what the ring holds (bounded) before it stops */
	atomic_store(&q->stop, true);
	pthread_mutex_lock(&q->lock);
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
	if (q->started)
		pthread_join(q->thread, NULL);
	actq_free(q);
}

void actq__stats(struct rf_actq *q, struct rf_actq_stats *ret)
{
	uint64_t t = atomic_load(&q->tail), h = atomic_load(&q->head);

	ret->rendered = atomic_load(&q->rendered);
	ret->dropped = q->dropped_full + atomic_load(&q->dropped_render);
	ret->pending = t - h;
	ret->queued = t + q->dropped_full;
}
