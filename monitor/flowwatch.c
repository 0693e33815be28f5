// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "flowwatch.h"
#include "ledger.h"
#include "pins.h"
#include "table.h"

/* One flow: the counts its records have carried so far. */
struct fw_ent {
	bool used;
	bool final;                 /* its final record is written: nothing more */
	uint32_t misses;            /* reads in a row no map had it */
	struct rf_flow_key key;     /* without RF_FLOW_UNIX_BYTES: ... */
	bool unix_bytes;            /* ... kept here once a read had it */
	struct rf_flow seen;        /* connections and bytes already in records */
	uint64_t last_ns;           /* its previous record (0: none) */
};

struct rf_flowwatch {
	struct fw_ent *e;
	size_t max;
	size_t top;                 /* entries past it never used: the loops stop there */
	int32_t *free_slots;        /* below top, unused (a stack) */
	size_t n_free;
	struct rf_index ix;
	uint64_t shed;
	uint32_t gen;
};

static uint64_t key_hash(const struct rf_flow_key *k)
{
	return rf_hash64(k, sizeof(*k), RF_HASH_SEED);
}

int flowwatch__new(size_t max, struct rf_flowwatch **ret)
{
	struct rf_flowwatch *fw = calloc(1, sizeof(*fw));

	if (!fw)
		return -ENOMEM;
	fw->max = max ? max : RF_FLOWWATCH_MAX;
	fw->e = calloc(fw->max, sizeof(*fw->e));
	fw->free_slots = calloc(fw->max, sizeof(*fw->free_slots));
	if (!fw->e || !fw->free_slots || rf_index_init(&fw->ix, fw->max)) {
		flowwatch__free(fw);
		return -ENOMEM;
	}
	*ret = fw;
	return 0;
}

void flowwatch__free(struct rf_flowwatch *fw)
{
	if (!fw)
		return;
	rf_index_free(&fw->ix);
	free(fw->free_slots);
	free(fw->e);
	free(fw);
}

static void ent_drop(struct rf_flowwatch *fw, struct fw_ent *e)
{
	rf_index_del(&fw->ix, key_hash(&e->key));
	memset(e, 0, sizeof(*e));
	fw->free_slots[fw->n_free++] = (int32_t)(e - fw->e);
}

/* The entry of k, made when new (NULL: no room, counted). */
static struct fw_ent *ent_get(struct rf_flowwatch *fw, const struct rf_flow_key *key)
{
	/* one flow whether its sandbox's ledger entry (which the mark comes
	 * from) is still there or already deleted */
	struct rf_flow_key id = *key, *k = &id;
	uint64_t h;
	int32_t i;

	id.flags &= ~(uint32_t)RF_FLOW_UNIX_BYTES;
	h = key_hash(k);
	i = rf_index_get(&fw->ix, h);
	/* a 64-bit hash of another key: as good as no room (counted) */
	if (i >= 0 && !memcmp(&fw->e[i].key, k, sizeof(*k))) {
		fw->e[i].unix_bytes |= (key->flags & RF_FLOW_UNIX_BYTES) != 0;
		return &fw->e[i];
	}
	if (i >= 0 || (!fw->n_free && fw->top == fw->max)) {
		fw->shed++;
		return NULL;
	}
	i = fw->n_free ? fw->free_slots[fw->n_free - 1] : (int32_t)fw->top;
	if (rf_index_put(&fw->ix, h, i)) {
		fw->shed++;
		return NULL;
	}
	if (fw->n_free)
		fw->n_free--;
	else
		fw->top++;
	memset(&fw->e[i], 0, sizeof(fw->e[i]));
	fw->e[i].used = true;
	fw->e[i].key = *k;
	fw->e[i].unix_bytes = (key->flags & RF_FLOW_UNIX_BYTES) != 0;
	return &fw->e[i];
}

static uint64_t gain(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

/* The record of e now that the kernel says f; false when nothing moved
 * (and it is not final). */
static bool ent_record(struct fw_ent *e, const struct rf_flow *f, const char *name, bool final,
		       uint64_t t_ns, struct rf_input *in)
{
	struct rf_in_flow *r = &in->u.flow;

	memset(in, 0, sizeof(*in));
	r->connections = gain(f->connections, e->seen.connections);
	r->bytes_sent = gain(f->bytes_sent, e->seen.bytes_sent);
	r->bytes_received = gain(f->bytes_received, e->seen.bytes_received);
	if (!final && !r->connections && !r->bytes_sent && !r->bytes_received && e->last_ns)
		return false;
	in->type = RF_IN_FLOW;
	in->t_ns = t_ns;
	in->cgroup_id = e->key.cgroup_id;
	r->key = e->key;
	if (e->unix_bytes)
		r->key.flags |= RF_FLOW_UNIX_BYTES;
	r->total = *f;
	r->since_ns = e->last_ns ? e->last_ns : f->first_ns;
	r->final = final;
	rf_printable(r->name, name ? name : "", sizeof(r->name) - 1);
	/* the kernel's counters only grow: what a record carried stays carried */
	if (f->connections > e->seen.connections)
		e->seen.connections = f->connections;
	if (f->bytes_sent > e->seen.bytes_sent)
		e->seen.bytes_sent = f->bytes_sent;
	if (f->bytes_received > e->seen.bytes_received)
		e->seen.bytes_received = f->bytes_received;
	e->last_ns = t_ns;
	e->final |= final;
	return true;
}

void flowwatch__read(struct rf_flowwatch *fw, int flows_fd, int unix_fd, int names_fd,
		     int ledger_fd, uint64_t t_ns, rf_flow_fn fn, void *ctx)
{
	_cleanup_free_ struct rf_flow_row *rows = NULL;
	struct rf_input in;
	size_t n = 0, i;

	if (ledger__flows(flows_fd, unix_fd, 0, &rows, &n))
		return;
	ledger__mark_unix_bytes(ledger_fd, rows, n);
	for (i = 0; i < n; i++) {
		struct fw_ent *e = ent_get(fw, &rows[i].key);
		char name[RF_FLOW_NAME_LEN] = "";

		if (!e)
			continue;
		e->misses = 0;
		/* the supervisor's final counts are written: what it reads
		 * again before deleting them is no news */
		if (e->final)
			continue;
		if (rows[i].key.family == AF_UNIX)
			snprintf(name, sizeof(name), "%s", rows[i].unix_name);
		else if (!e->last_ns || memcmp(&e->seen, &rows[i].flow, 3 * sizeof(uint64_t)))
			ledger__name(names_fd, rows[i].key.cgroup_id, rows[i].key.family,
				     rows[i].key.addr, name, sizeof(name));
		if (ent_record(e, &rows[i].flow, name, false, t_ns, &in))
			fn(&in, ctx);
	}
}

struct poll_ctx {
	struct rf_flowwatch *fw;
	uint64_t t_ns;
	rf_flow_fn fn;
	void *ctx;
	size_t sets;
};

static int poll_set(const char *name, void *arg)
{
	struct poll_ctx *p = arg;
	_cleanup_close_ int fd = -1, names = -1, unx = -1, led = -1;
	struct rf_meta meta;

	if (p->sets == 8)
		return 1;
	if (rf_pins__read_meta_in(name, &meta))
		return 0;
	fd = rf_pins__get_in(name, rf_pin_maps[RF_PIN_FLOWS].pin);
	if (fd < 0)
		return 0;
	names = rf_pins__get_in(name, rf_pin_maps[RF_PIN_FLOW_NAMES].pin);
	/* a set of a build before unix flows has none: -1 */
	unx = rf_pins__get_in(name, rf_pin_maps[RF_PIN_UNIX_FLOWS].pin);
	led = rf_pins__get_in(name, rf_pin_maps[RF_PIN_LEDGER].pin);
	p->sets++;
	flowwatch__read(p->fw, fd, unx, names, led, p->t_ns, p->fn, p->ctx);
	return 0;
}

void flowwatch__poll(struct rf_flowwatch *fw, uint64_t t_ns, rf_flow_fn fn, void *ctx)
{
	struct poll_ctx p = { fw, t_ns, fn, ctx, 0 };
	size_t i;

	for (i = 0; i < fw->top; i++)
		if (fw->e[i].used)
			fw->e[i].misses++;
	rf_pins__each_set(poll_set, &p);
	/* gone from every map: its sandbox ended (the final record came, or
	 * the supervisor died: the reaper purged it), or its set went */
	for (i = 0; i < fw->top; i++)
		if (fw->e[i].used && fw->e[i].misses &&
		    (fw->e[i].final || fw->e[i].misses >= RF_FLOWWATCH_MISSES))
			ent_drop(fw, &fw->e[i]);
}

void flowwatch__idle(struct rf_flowwatch *fw)
{
	size_t i;

	for (i = 0; i < fw->top; i++)
		if (fw->e[i].used && fw->e[i].final)
			ent_drop(fw, &fw->e[i]);
}

void flowwatch__final(struct rf_flowwatch *fw, const struct rf_flow_record *r, uint64_t t_ns,
		      rf_flow_fn fn, void *ctx)
{
	struct rf_flow_key k = r->key;
	char name[RF_FLOW_NAME_LEN];
	struct rf_input in;
	struct fw_ent *e;

	k.cgroup_id = r->cgroup_id;
	e = ent_get(fw, &k);
	if (!e || e->final)
		return;
	memcpy(name, r->name, sizeof(name));
	name[sizeof(name) - 1] = 0;
	if (ent_record(e, &r->flow, name, true, t_ns, &in))
		fn(&in, ctx);
	/* kept until a read no longer finds it, so that read adds nothing */
	e->misses = 0;
}

uint64_t flowwatch__shed(const struct rf_flowwatch *fw)
{
	return fw->shed;
}

size_t flowwatch__size(const struct rf_flowwatch *fw)
{
	return fw->ix.live;
}
