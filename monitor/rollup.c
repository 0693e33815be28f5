// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The table of open alerts and their records (rollup.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rollup.h"

#define MS 1000000ULL

int rollup__init(struct rf_rollup *r, size_t max_alerts, uint64_t update_ms,
		 uint64_t linger_ms, rf_alert_fn fn, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->fn = fn;
	r->ctx = ctx;
	r->update_ms = update_ms;
	r->linger_ms = linger_ms;
	r->max_alerts = max_alerts;
	r->n_slots = max_alerts + RF_ROLLUP_OWN;
	r->eps = calloc(r->n_slots, sizeof(*r->eps));
	if (!r->eps || rf_index_init(&r->ep_ix, r->n_slots)) {
		rollup__free(r);
		return -ENOMEM;
	}
	return 0;
}

void rollup__free(struct rf_rollup *r)
{
	rf_index_free(&r->ep_ix);
	free(r->eps);
	r->eps = NULL;
}

static uint64_t ep_hash(enum rf_rule rule, uint64_t cgid, const char *key)
{
	uint64_t h = RF_HASH_SEED;
	uint32_t rr = rule;

	h = rf_hash64(&rr, sizeof(rr), h);
	h = rf_hash64(&cgid, sizeof(cgid), h);
	return rf_hash64(key, strlen(key), h);
}

static void emit(struct rf_rollup *r, struct rf_episode *e, uint64_t now, enum rf_phase phase)
{
	e->a.phase = phase;
	e->a.time_ns = now;
	e->a.suppressed = e->a.count - e->count_at_open;
	e->last_emit_ns = now;
	e->count_at_emit = e->a.count;
	r->fn(&e->a, r->ctx);
}

/* The slots a rule's new alert may take: lost-event alerts and the
 * table-shed alert have slots of their own, so a full table can still
 * say that it is full. */
static void slot_range(const struct rf_rollup *r, enum rf_rule rule, size_t *ret_lo,
		       size_t *ret_hi)
{
	*ret_lo = 0;
	*ret_hi = r->max_alerts;
	if (rule == RF_RULE_LOST) {
		*ret_lo = r->max_alerts;
		*ret_hi = r->max_alerts + RF_HOP_MAX;
	} else if (rule == RF_RULE_SHED) {
		*ret_lo = r->max_alerts + RF_HOP_MAX;
		*ret_hi = *ret_lo + 1;
	}
}

static void ep_fill_subject(struct rf_episode *e, struct rf_rollup_subject *subj,
			    const struct rf_sandbox_info *info)
{
	e->subj = subj;
	if (!info)
		return;
	snprintf(e->a.sandbox, sizeof(e->a.sandbox), "%s", info->sandbox);
	snprintf(e->a.policy_id, sizeof(e->a.policy_id), "%s", info->policy_id);
	e->a.n_labels = info->n_labels;
	memcpy(e->a.labels, info->labels, sizeof(e->a.labels));
	memcpy(e->a.traceparent, info->traceparent, sizeof(e->a.traceparent));
	e->a.response = info->on_alert;
	if (subj)
		subj->n_eps++;
}

struct rf_episode *rollup__get(struct rf_rollup *r, enum rf_rule rule, const char *key,
			       struct rf_rollup_subject *subj,
			       const struct rf_sandbox_info *info)
{
	uint64_t cgid = info ? info->cgroup_id : 0, h = ep_hash(rule, cgid, key);
	int32_t i = rf_index_get(&r->ep_ix, h);
	struct rf_episode *e;
	size_t k, lo, hi;

	if (i >= 0) {
		e = &r->eps[i];
		if (e->a.rule == rule && e->a.cgroup_id == cgid && !strcmp(e->a.key, key))
			return e;
		r->shed++;  /* 64-bit hash collision: not worth a chain */
		return NULL;
	}
	slot_range(r, rule, &lo, &hi);
	for (k = lo; k < hi; k++)
		if (!r->eps[k].used)
			break;
	if (k == hi || rf_index_put(&r->ep_ix, h, (int32_t)k)) {
		r->shed++;
		return NULL;
	}
	e = &r->eps[k];
	memset(e, 0, sizeof(*e));
	e->used = true;
	e->hkey = h;
	e->a.rule = rule;
	snprintf(e->a.key, sizeof(e->a.key), "%s", key);
	e->a.cgroup_id = cgid;
	e->a.unit = "events";
	ep_fill_subject(e, subj, info);
	return e;
}

/* The uid every record of one alert carries. */
static void ep_uid(struct rf_episode *e)
{
	const char *rule = rf_rule_id(e->a.rule);
	uint64_t h = RF_HASH_SEED;

	h = rf_hash64(rule, strlen(rule), h);
	h = rf_hash64(e->a.sandbox, strlen(e->a.sandbox), h);
	h = rf_hash64(&e->a.cgroup_id, sizeof(e->a.cgroup_id), h);
	h = rf_hash64(e->a.key, strlen(e->a.key), h);
	h = rf_hash64(&e->a.first_ns, sizeof(e->a.first_ns), h);
	snprintf(e->a.uid, sizeof(e->a.uid), "rf-%016llx", (unsigned long long)h);
}

void rollup__commit(struct rf_rollup *r, struct rf_episode *e, uint64_t now, uint64_t t,
		    bool active)
{
	if (!e->a.first_ns)
		e->a.first_ns = t ? t : 1;
	if (t > e->a.last_ns)
		e->a.last_ns = t;
	e->active = active;
	if (!active)
		e->quiet_since = now;
	if (!e->opened) {
		ep_uid(e);
		e->count_at_open = e->a.count;
		e->opened = true;
		emit(r, e, now, RF_PHASE_OPEN);
	}
}

void rollup__quiet(struct rf_rollup *r, int32_t ep, uint64_t t)
{
	if (ep < 0)
		return;
	r->eps[ep].active = false;
	r->eps[ep].quiet_since = t;
}

void rollup__close(struct rf_rollup *r, struct rf_episode *e, uint64_t now, const char *reason)
{
	e->a.close_reason = reason;
	emit(r, e, now, RF_PHASE_CLOSE);
	if (e->owner)
		*e->owner = -1;
	if (e->subj && e->subj->n_eps)
		e->subj->n_eps--;
	rf_index_del(&r->ep_ix, e->hkey);
	memset(e, 0, sizeof(*e));
}

void rollup__close_subject(struct rf_rollup *r, const struct rf_rollup_subject *subj,
			   uint64_t now, const char *reason)
{
	size_t i;

	for (i = 0; i < r->max_alerts && subj->n_eps; i++)
		if (r->eps[i].used && r->eps[i].subj == subj)
			rollup__close(r, &r->eps[i], now, reason);
}

void rollup__close_all(struct rf_rollup *r, uint64_t now, const char *reason)
{
	size_t i;

	for (i = 0; i < r->n_slots; i++)
		if (r->eps[i].used)
			rollup__close(r, &r->eps[i], now, reason);
}

void rollup__tick(struct rf_rollup *r, uint64_t now)
{
	size_t i;

	for (i = 0; i < r->n_slots; i++) {
		struct rf_episode *e = &r->eps[i];
		const struct rf_rollup_subject *s = e->subj;

		if (!e->used)
			continue;
		if (!e->active && now >= e->quiet_since + r->linger_ms * MS) {
			rollup__close(r, e, now, s && s->ended ? "sandbox-ended" : "quiet");
			continue;
		}
		if (s && s->ended && now >= s->ended_ns + RF_END_GRACE_MS * MS) {
			rollup__close(r, e, now, "sandbox-ended");
			continue;
		}
		if (now >= e->last_emit_ns + r->update_ms * MS && e->a.count != e->count_at_emit)
			emit(r, e, now, RF_PHASE_UPDATE);
	}
}
