// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Detectors over virtual time; their alerts are rolled up by rollup.c.
 * Bursts and resource thresholds have hysteresis: a burst starts at N denials within
 * W ms and ends when fewer than ceil(N/2) remain in the window; a resource
 * alert starts above its threshold and ends at or below 90 % of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "detect.h"
#include "dnstunnel.h"
#include "egress.h"
#include "ledger.h"
#include "names.h"
#include "sysnames.h"
#include "table.h"

#define MS 1000000ULL
#define RING_EXACT_MAX 256      /* bursts up to this N are counted exactly */
#define DEST_OTHER 0xffff
#define PENDING_MAX 256         /* syscalls seen before their sandbox's profile */
#define PENDING_MAX_AGE (10000 * MS)
#define RISE_FACTOR 4
#define RISE_MIN_SAMPLES 3
/* ---- state ------------------------------------------------------------ */

struct slot {
	uint64_t t;
	uint32_t n;
	uint16_t dest;
};

/* Sliding-window counter of one sandbox's denials of one class. */
struct burst {
	struct slot *ring;
	uint32_t cap, head, len;        /* head: oldest */
	uint64_t in_window;
	uint64_t n_thresh, window_ns, gran_ns, low;
	bool active;
	int32_t ep;                     /* alert while active or lingering, else -1 */
	uint32_t n_dests;               /* destinations named by ring slots */
	struct rf_alert_dest dests[RF_ALERT_DESTS];
	char verdict[12];
	struct dest_cache *dc;          /* with ring: the last destination, formatted */
};

/* The fields of a decision its destination is made of, and that
 * destination formatted (dest_of): a burst is mostly the same destination
 * again, and formatting it each time was most of the monitor's CPU time
 * per decision. */
struct dest_cache {
	uint32_t class, op, protocol;
	uint16_t family, port;
	uint8_t addr[16];
	char path[sizeof(((struct rf_event *)0)->path)];
	struct rf_alert_dest dst;
};

enum { RES_CPU, RES_MEM, RES_PIDS, RES_DISK, RES_MAX };
static const char *const res_keys[RES_MAX] = { "cpu", "memory", "pids", "disk_write" };
static const char *const rise_keys[RES_MAX] = { "cpu-rise", "memory-rise", "pids-rise",
						"disk_write-rise" };
static const char *const res_units[RES_MAX] = { "percent", "bytes", "processes", "bytes" };

struct res_state {
	bool over;
	int32_t ep;
	uint64_t ewma;
	uint32_t n;
};

struct sandbox {
	bool used;
	uint64_t cgid;
	struct rf_sandbox_info info;
	bool registered;
	uint64_t last_ns;               /* last activity: created, registered, decision, syscall */
	struct rf_rollup_subject subj;  /* ended, and the alerts that name it */
	struct burst burst[RF_CLASS_KERNEL_MAX];
	struct res_state res[RES_MAX];
	bool have_prev;
	uint64_t prev_t, prev_cpu_ns;
	bool sampled;
	double cpu_pct;
	uint64_t mem;
	int64_t procs;
	uint64_t denials, syscalls_seen;
	uint64_t alerted[RF_MON_SYSCALL_WORDS]; /* unexpected syscalls reported */
	/* caps: the cumulative hit counts last seen (memory.events max +
	 * oom_kill, pids.events max, cpu.stat nr_throttled); the registry's
	 * limit_exceeded reported */
	uint64_t cap_mem, cap_pids, cap_cpu;
	bool cap_registry;
	struct rf_dnst dnst;            /* DNS tunnelling signs */
	struct rf_egress *egress;       /* monitor.egress_bytes: made at the first bytes */
};

struct proc {
	bool used;
	bool exited;
	uint32_t pid, ppid;
	uint64_t cgid;
	char comm[RF_COMM_LEN + 1];
	char path[RF_MON_PATH_LEN + 1];
};

/* A syscall, an exec or an unexpected open seen before its sandbox's
 * registry entry. */
struct pending {
	bool used;
	enum rf_in_type type;           /* RF_IN_SYSCALL, RF_IN_EXEC or RF_IN_DECISION
					 * (an unexpected open: file_*) */
	uint64_t t, cgid;
	struct rf_in_proc p;
	uint32_t file_access;
	char file_path[RF_EVENT_PATH_LEN];
};

struct rf_detect {
	struct rf_detect_opts o;
	uint64_t now;

	struct sandbox *sbs;
	struct rf_index sb_ix;
	struct rf_rollup r;             /* the alerts */
	struct proc *procs;
	struct rf_index proc_ix;
	size_t proc_hand;
	struct pending pending[PENDING_MAX];
	uint32_t pending_next;

	uint64_t lost_total[RF_HOP_MAX];
	uint64_t shed, shed_reported;
	uint64_t sb_shed, sb_ended_freed, sb_idle_freed;
};

/* ---- helpers ------------------------------------------------------------ */

static struct sandbox *sb_get(struct rf_detect *d, uint64_t cgid)
{
	int32_t i = rf_index_get(&d->sb_ix, cgid);

	return i >= 0 ? &d->sbs[i] : NULL;
}

static void burst_setup(struct burst *b, uint64_t n, uint64_t window_ms)
{
	free(b->ring);
	free(b->dc);
	memset(b, 0, sizeof(*b));
	b->ep = -1;
	b->n_thresh = n ? n : 1;
	b->window_ns = (window_ms ? window_ms : 1) * MS;
	b->low = (b->n_thresh + 1) / 2;
	if (b->n_thresh <= RING_EXACT_MAX) {
		b->cap = (uint32_t)b->n_thresh + 1;
		b->gran_ns = 0;
	} else {
		b->cap = RING_EXACT_MAX + 2;
		b->gran_ns = b->window_ns / RING_EXACT_MAX;
	}
}

/* The alert of a detector that went below its threshold lingers from t. */
static void ep_quiet(struct rf_detect *d, int32_t ep, uint64_t t)
{
	rollup__quiet(&d->r, ep, t);
}

/* The alert (rule, sandbox or host-wide, key), see rollup__get. */
static struct rf_episode *ep_get(struct rf_detect *d, enum rf_rule rule, struct sandbox *s,
				 const char *key)
{
	return rollup__get(&d->r, rule, key, s ? &s->subj : NULL, s ? &s->info : NULL);
}

static void ep_commit(struct rf_detect *d, struct rf_episode *e, uint64_t t, bool active)
{
	rollup__commit(&d->r, e, d->now, t, active);
}

/* Everything shed so far: the detectors' tables and the alerts'. */
static uint64_t shed_total(const struct rf_detect *d)
{
	return d->shed + d->r.shed;
}

static uint64_t thr_of(uint64_t policy, uint64_t def)
{
	return policy ? policy : def;
}

static void sb_thresholds(struct rf_detect *d, struct sandbox *s)
{
	uint64_t n = thr_of(s->info.burst_count, d->o.burst_count);
	uint64_t w = s->info.burst_count ? s->info.burst_window_ms : d->o.burst_window_ms;
	int c;

	for (c = 0; c < RF_CLASS_KERNEL_MAX; c++) {
		struct burst *b = &s->burst[c];

		if (b->n_thresh == n && b->window_ns == w * MS)
			continue;
		/* Thresholds changed (or first time): a fresh window. An alert
		 * in progress stays open and closes by itself. */
		if (b->ep >= 0) {
			ep_quiet(d, b->ep, d->now);
			rollup__at(&d->r, b->ep)->owner = NULL;
		}
		burst_setup(b, n, w);
	}
}

static size_t sb_make_room(struct rf_detect *d);

/* Index a table slot by key; a full index is a shed input, counted. */
static bool slot_index(struct rf_detect *d, struct rf_index *ix, uint64_t key, size_t slot)
{
	if (!rf_index_put(ix, key, (int32_t)slot))
		return true;
	d->shed++;
	return false;
}

/* The entry of cgid, made if needed (t: its first activity). A full table
 * makes room: a new sandbox is always watched. */
static struct sandbox *sb_add(struct rf_detect *d, uint64_t cgid, uint64_t t)
{
	struct sandbox *s = sb_get(d, cgid);
	size_t i;

	if (s)
		return s;
	for (i = 0; i < d->o.max_sandboxes; i++)
		if (!d->sbs[i].used)
			break;
	if (i == d->o.max_sandboxes)
		i = sb_make_room(d);
	if (!slot_index(d, &d->sb_ix, cgid, i))
		return NULL;
	s = &d->sbs[i];
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->cgid = cgid;
	s->last_ns = t;
	snprintf(s->info.sandbox, sizeof(s->info.sandbox), "cgroup-%llu",
		 (unsigned long long)cgid);
	s->info.cgroup_id = cgid;
	for (i = 0; i < RES_MAX; i++)
		s->res[i].ep = -1;
	for (i = 0; i < RF_CLASS_KERNEL_MAX; i++)
		s->burst[i].ep = -1;
	sb_thresholds(d, s);
	return s;
}

/* The sandbox of an input at time t (made when new), its last activity
 * moved to t. */
static struct sandbox *sb_touch(struct rf_detect *d, uint64_t cgid, uint64_t t)
{
	struct sandbox *s = sb_add(d, cgid, t);

	if (s && t > s->last_ns)
		s->last_ns = t;
	return s;
}

static void sb_free(struct rf_detect *d, struct sandbox *s)
{
	int c;

	rf_index_del(&d->sb_ix, s->cgid);
	for (c = 0; c < RF_CLASS_KERNEL_MAX; c++) {
		free(s->burst[c].ring);
		free(s->burst[c].dc);
	}
	dnst__free(&s->dnst);
	free(s->egress);
	rf_sandbox_info_clear(&s->info);
	memset(s, 0, sizeof(*s));
}

/* ---- processes (lineage) ------------------------------------------------- */

static struct proc *proc_get(struct rf_detect *d, uint32_t pid)
{
	int32_t i = rf_index_get(&d->proc_ix, pid);

	return i >= 0 ? &d->procs[i] : NULL;
}

static struct proc *proc_put(struct rf_detect *d, uint32_t pid)
{
	struct proc *p = proc_get(d, pid);
	size_t i, n = d->o.max_procs, k;

	if (p)
		return p;
	/* A free slot, else the first exited one after the hand, else the
	 * one at the hand (shed). */
	for (k = 0; k < n; k++) {
		i = (d->proc_hand + k) % n;
		if (!d->procs[i].used)
			goto take;
	}
	for (k = 0; k < n; k++) {
		i = (d->proc_hand + k) % n;
		if (d->procs[i].exited)
			goto evict;
	}
	i = d->proc_hand % n;
	d->shed++;
evict:
	rf_index_del(&d->proc_ix, d->procs[i].pid);
take:
	d->proc_hand = (i + 1) % n;
	if (rf_index_put(&d->proc_ix, pid, (int32_t)i)) {
		d->shed++;
		memset(&d->procs[i], 0, sizeof(d->procs[i]));
		return NULL;
	}
	p = &d->procs[i];
	memset(p, 0, sizeof(*p));
	p->used = true;
	p->pid = pid;
	return p;
}

static void fill_proc(struct rf_detect *d, uint32_t pid, const char *comm,
		      struct rf_alert *a)
{
	struct proc *p = proc_get(d, pid), *pp;

	a->has_proc = true;
	a->proc.pid = pid;
	snprintf(a->proc.name, sizeof(a->proc.name), "%s", p && p->comm[0] ? p->comm : comm);
	snprintf(a->proc.path, sizeof(a->proc.path), "%s", p ? p->path : "");
	if (!p || !p->ppid)
		return;
	a->proc.ppid = p->ppid;
	pp = proc_get(d, p->ppid);
	if (pp) {
		a->proc.parent_known = true;
		snprintf(a->proc.parent_name, sizeof(a->proc.parent_name), "%s", pp->comm);
		snprintf(a->proc.parent_path, sizeof(a->proc.parent_path), "%s", pp->path);
	}
}

/* ---- the sandbox table ------------------------------------------------------ */

/* Which of two entries goes first when the table is full: an ended one
 * (its sandbox is gone: nothing is lost), then one outside the registry
 * (most likely a cgroup already gone), then the one idle longest. */
static bool sb_goes_before(const struct sandbox *a, const struct sandbox *b)
{
	if (a->subj.ended != b->subj.ended)
		return a->subj.ended;
	if (a->subj.ended)
		return a->subj.ended_ns < b->subj.ended_ns;
	if (a->registered != b->registered)
		return !a->registered;
	return a->last_ns < b->last_ns;
}

/* Close the alerts that name the entry, then free it. */
static void sb_drop(struct rf_detect *d, struct sandbox *s, const char *reason)
{
	rollup__close_subject(&d->r, &s->subj, d->now, reason);
	sb_free(d, s);
}

/* One live sandbox shed: counted, and one alert per burst of shedding
 * (it closes once no sandbox has been shed for linger_ms). */
static void shed_alert(struct rf_detect *d, const struct sandbox *s)
{
	struct rf_episode *e = ep_get(d, RF_RULE_SHED, NULL, "sandboxes");

	if (!e)
		return;
	e->a.count++;
	e->a.unit = "sandboxes";
	e->a.capacity = d->o.max_sandboxes;
	e->a.shed_total = d->sb_shed;
	snprintf(e->a.last_shed, sizeof(e->a.last_shed), "%s", s->info.sandbox);
	ep_commit(d, e, d->now, false);
}

static size_t sb_make_room(struct rf_detect *d)
{
	size_t i, victim = 0;
	struct sandbox *s;

	for (i = 1; i < d->o.max_sandboxes; i++)
		if (sb_goes_before(&d->sbs[i], &d->sbs[victim]))
			victim = i;
	s = &d->sbs[victim];
	if (s->subj.ended) {
		d->sb_ended_freed++;
		sb_drop(d, s, "sandbox-ended");
	} else {
		d->sb_shed++;
		shed_alert(d, s);
		sb_drop(d, s, "shed");
	}
	return victim;
}

/* An entry of a cgroup the registry never named, idle long enough that
 * its windows are empty: most likely a cgroup already gone. It holds no
 * alert and nothing a later decision could not rebuild. */
static bool sb_idle_unregistered(const struct rf_detect *d, const struct sandbox *s)
{
	int c;

	if (s->registered || s->subj.ended || s->subj.n_eps ||
	    d->now < s->last_ns + RF_UNREG_IDLE_MS * MS)
		return false;
	for (c = 0; c < RF_CLASS_KERNEL_MAX; c++)
		if (s->burst[c].len || s->burst[c].active)
			return false;
	return true;
}

/* ---- bursts -------------------------------------------------------------- */

/* The destination of a decision, as evidence. */
static void dest_of(const struct rf_event *ev, struct rf_alert_dest *o)
{
	memset(o, 0, sizeof(*o));
	o->family = ev->family;
	if (ev->family == AF_INET || ev->family == AF_INET6) {
		const char *proto = names__proto(ev->protocol & 0xffff);

		snprintf(o->protocol, sizeof(o->protocol), "%s", proto ? proto : "other");
		o->protocol_num = (int)(ev->protocol & 0xffff);
		if (ev->op == RF_OP_SOCK_CREATE) {
			snprintf(o->key, sizeof(o->key), "socket:%s/%u",
				 ev->family == AF_INET ? "ipv4" : "ipv6", ev->protocol & 0xffff);
			return;
		}
		inet_ntop(ev->family, ev->addr, o->address, sizeof(o->address));
		o->port = ev->port;
		snprintf(o->key, sizeof(o->key), ev->family == AF_INET ? "%s:%u/%s" : "[%s]:%u/%s",
			 o->address, ev->port, o->protocol);
	} else if (ev->path[0]) {
		snprintf(o->path, sizeof(o->path), "%s", ev->path);
		o->dir = ev->op == RF_OP_MKDIR || ev->op == RF_OP_RMDIR;
		snprintf(o->key, sizeof(o->key), "%s:%s",
			 ev->family == AF_UNIX ? "unix" : names__class(ev->class), ev->path);
	} else {
		/* no address or path (e.g. a process-boundary operation) */
		snprintf(o->key, sizeof(o->key), "%s:%s", names__class(ev->class), names__op(ev->op));
	}
}

/* dest_of, formatted again only when the destination differs from the
 * last one (dc allocated). */
static const struct rf_alert_dest *dest_cached(struct dest_cache *dc, const struct rf_event *ev)
{
	if (dc->family == ev->family && dc->port == ev->port && dc->op == ev->op &&
	    dc->class == ev->class && dc->protocol == ev->protocol &&
	    !memcmp(dc->addr, ev->addr, sizeof(dc->addr)) &&
	    !strncmp(dc->path, ev->path, sizeof(dc->path)) && dc->dst.key[0])
		return &dc->dst;
	dc->family = ev->family;
	dc->port = ev->port;
	dc->op = ev->op;
	dc->class = ev->class;
	dc->protocol = ev->protocol;
	memcpy(dc->addr, ev->addr, sizeof(dc->addr));
	strncpy(dc->path, ev->path, sizeof(dc->path));
	dest_of(ev, &dc->dst);
	return &dc->dst;
}

static uint16_t burst_dest(struct burst *b, const struct rf_alert_dest *dst)
{
	uint32_t i;

	for (i = 0; i < b->n_dests; i++)
		if (!strcmp(b->dests[i].key, dst->key))
			return (uint16_t)i;
	if (b->n_dests == RF_ALERT_DESTS)
		return DEST_OTHER;
	b->dests[b->n_dests] = *dst;
	b->dests[b->n_dests].count = 0;
	return (uint16_t)b->n_dests++;
}

static void burst_expire(struct burst *b, uint64_t now)
{
	while (b->len) {
		struct slot *s = &b->ring[b->head];

		if (now < b->window_ns || s->t > now - b->window_ns)
			break;
		b->in_window -= s->n;
		b->head = (b->head + 1) % b->cap;
		b->len--;
	}
	if (!b->len && !b->active)
		b->n_dests = 0;     /* idle: forget the destination names */
}

/* Count to dests of an alert, most first. */
static void alert_dest_add(struct rf_alert *a, const struct rf_alert_dest *dst, uint64_t n)
{
	uint32_t i;

	for (i = 0; i < a->n_dests; i++)
		if (!strcmp(a->dests[i].key, dst->key))
			break;
	if (i == a->n_dests) {
		if (a->n_dests == RF_ALERT_DESTS) {
			a->other_dests += n;
			return;
		}
		a->dests[i] = *dst;
		a->dests[i].count = 0;
		a->n_dests++;
	}
	a->dests[i].count += n;
	while (i > 0 && a->dests[i].count > a->dests[i - 1].count) {
		struct rf_alert_dest tmp = a->dests[i];

		a->dests[i] = a->dests[i - 1];
		a->dests[i - 1] = tmp;
		i--;
	}
}

static void burst_add(struct rf_detect *d, struct sandbox *s, const struct rf_event *ev,
		      uint64_t t)
{
	struct burst *b = &s->burst[ev->class];
	const struct rf_alert_dest *dst;
	const char *verdict;
	struct rf_episode *e;
	uint16_t di;

	if (!b->ring) {
		b->ring = calloc(b->cap, sizeof(*b->ring));
		if (b->ring && !b->dc && !(b->dc = calloc(1, sizeof(*b->dc)))) {
			free(b->ring);
			b->ring = NULL;
		}
		if (!b->ring) {
			d->shed++;
			return;
		}
	}
	dst = dest_cached(b->dc, ev);
	burst_expire(b, t);
	di = burst_dest(b, dst);
	if (b->len) {
		struct slot *last = &b->ring[(b->head + b->len - 1) % b->cap];

		if (t < last->t)
			t = last->t;        /* two CPUs: keep the window ordered */
		if (t - last->t <= b->gran_ns && last->dest == di) {
			last->n++;
			goto added;
		}
	}
	if (b->len == b->cap) {
		b->in_window -= b->ring[b->head].n;
		b->head = (b->head + 1) % b->cap;
		b->len--;
	}
	b->ring[(b->head + b->len) % b->cap] = (struct slot){ .t = t, .n = 1, .dest = di };
	b->len++;
added:
	b->in_window++;
	verdict = names__verdict(ev->verdict);
	if (strncmp(b->verdict, verdict, sizeof(b->verdict)))
		snprintf(b->verdict, sizeof(b->verdict), "%s", verdict);

	if (b->active) {
		e = rollup__at(&d->r, b->ep);
		e->a.count++;
		alert_dest_add(&e->a, dst, 1);
		ep_commit(d, e, t, true);
		return;
	}
	if (b->in_window < b->n_thresh)
		return;
	/* A burst starts: the denials in the window are its first count. */
	e = ep_get(d, ev->class <= RF_CLASS_UNIX ? RF_RULE_DENY_BURST : RF_RULE_FAILED_OPS, s,
		   names__class(ev->class));
	if (!e)
		return;
	b->active = true;
	b->ep = rollup__index(&d->r, e);
	e->owner = &b->ep;
	if (!e->a.count) {
		fill_proc(d, ev->pid, ev->comm, &e->a);
		e->a.window_ms = b->window_ns / MS;
		e->a.threshold = b->n_thresh;
		e->a.unit = "denials";
		snprintf(e->a.verdict, sizeof(e->a.verdict), "%s", b->verdict);
	}
	e->a.count += b->in_window;
	if (e->a.first_ns == 0)
		e->a.first_ns = b->ring[b->head].t ? b->ring[b->head].t : 1;
	{
		uint32_t k;

		for (k = 0; k < b->len; k++) {
			struct slot *sl = &b->ring[(b->head + k) % b->cap];

			if (sl->dest == DEST_OTHER)
				e->a.other_dests += sl->n;
			else
				alert_dest_add(&e->a, &b->dests[sl->dest], sl->n);
		}
	}
	ep_commit(d, e, t, true);
}

static void burst_tick(struct rf_detect *d, struct burst *b, uint64_t now)
{
	burst_expire(b, now);
	if (b->active && b->in_window < b->low) {
		b->active = false;
		ep_quiet(d, b->ep, now);
	}
}

/* ---- syscalls ------------------------------------------------------------ */

static int cmp_name(const void *k, const void *m)
{
	return strcmp(k, *(char *const *)m);
}

static void syscall_judge(struct rf_detect *d, struct sandbox *s, const struct rf_in_proc *p,
			  uint64_t t)
{
	char name[RF_SYSCALL_NAME_LEN];
	struct rf_episode *e;

	if (!s->info.has_profile)
		return;
	if (p->name[0])
		snprintf(name, sizeof(name), "%s", p->name);
	else
		snprintf(name, sizeof(name), "syscall_%d", p->nr);
	if (bsearch(name, s->info.allow, s->info.n_allow, sizeof(char *), cmp_name))
		return;
	/* Always allowed, as by the supervisor's seccomp allowlist: the
	 * launcher execs the command, and every process must be able to exit. */
	if (!strcmp(name, "execve") || !strcmp(name, "exit") || !strcmp(name, "exit_group"))
		return;
	if (p->nr >= 0 && p->nr < RF_MON_SYSCALL_MAX) {
		uint64_t bit = 1ULL << (p->nr % 64);

		if (s->alerted[p->nr / 64] & bit)
			return;
		s->alerted[p->nr / 64] |= bit;
	}
	e = ep_get(d, RF_RULE_SYSCALL, s, name);
	if (!e)
		return;
	if (!e->a.count) {
		fill_proc(d, p->pid, p->comm, &e->a);
		snprintf(e->a.syscall, sizeof(e->a.syscall), "%s", name);
		e->a.syscall_nr = p->nr;
		e->a.syscall_err = p->err;
		e->a.refused = rf_syscall_refused(p->err);
		e->a.syscall_listener = p->listener;
		e->a.syscall_unknown = p->unknown;
		e->a.unit = "syscalls";
	}
	e->a.count++;
	ep_commit(d, e, t, false);
}

static void pending_add(struct rf_detect *d, enum rf_in_type type, uint64_t cgid,
			const struct rf_in_proc *p, uint64_t t)
{
	struct pending *q = &d->pending[d->pending_next++ % PENDING_MAX];

	if (q->used)
		d->shed++;
	q->used = true;
	q->type = type;
	q->t = t;
	q->cgid = cgid;
	q->p = *p;
}

static void exec_judge(struct rf_detect *d, struct sandbox *s, const struct rf_in_proc *p,
		       uint64_t t);
static void file_alert(struct rf_detect *d, struct sandbox *s, const struct rf_in_proc *p,
		       const char *path, uint32_t access, uint64_t t);

static void pending_flush(struct rf_detect *d, struct sandbox *s)
{
	size_t i;

	for (i = 0; i < PENDING_MAX; i++) {
		struct pending *q = &d->pending[(d->pending_next + i) % PENDING_MAX];

		if (!q->used || q->cgid != s->cgid)
			continue;
		q->used = false;
		if (q->type == RF_IN_EXEC)
			exec_judge(d, s, &q->p, q->t);
		else if (q->type == RF_IN_DECISION)
			file_alert(d, s, &q->p, q->file_path, q->file_access, q->t);
		else
			syscall_judge(d, s, &q->p, q->t);
	}
}

static void pending_expire(struct rf_detect *d)
{
	size_t i;

	for (i = 0; i < PENDING_MAX; i++)
		if (d->pending[i].used && d->now > d->pending[i].t + PENDING_MAX_AGE)
			d->pending[i].used = false;  /* no profile ever came: nothing to judge */
}

/* ---- programs (monitor.exec) ------------------------------------------------ */

/* An entry without '/' names a program by its file name's last component
 * (any directory); one with '/' is the whole file name as exec'd. */
static bool exec_expected(const struct rf_sandbox_info *si, const char *path)
{
	const char *base = strrchr(path, '/');

	if (bsearch(path, si->exec, si->n_exec, sizeof(char *), cmp_name))
		return true;
	return base && bsearch(base + 1, si->exec, si->n_exec, sizeof(char *), cmp_name);
}

static void exec_judge(struct rf_detect *d, struct sandbox *s, const struct rf_in_proc *p,
		       uint64_t t)
{
	struct rf_episode *e;

	if (!s->info.has_exec || !p->path[0] || exec_expected(&s->info, p->path))
		return;
	e = ep_get(d, RF_RULE_EXEC, s, p->path);
	if (!e)
		return;
	if (!e->a.count) {
		fill_proc(d, p->pid, p->comm, &e->a);
		snprintf(e->a.proc.path, sizeof(e->a.proc.path), "%s", p->path);
		e->a.unit = "execs";
	}
	e->a.count++;
	ep_commit(d, e, t, false);
}

/* ---- file paths (monitor.files) --------------------------------------------------- */

static void proc_note(struct rf_detect *d, uint64_t cgid, uint32_t pid, const char *comm);

/* An open outside monitor.files (the supervisor judged it: filewatch.c):
 * one alert per sandbox and path, the access kinds seen added up. */
static void file_alert(struct rf_detect *d, struct sandbox *s, const struct rf_in_proc *p,
		       const char *path, uint32_t access, uint64_t t)
{
	struct rf_episode *e = ep_get(d, RF_RULE_FILES, s, path);

	if (!e)
		return;
	if (!e->a.count) {
		fill_proc(d, p->pid, p->comm, &e->a);
		if (!e->a.proc.ppid && p->ppid)
			e->a.proc.ppid = p->ppid;
		snprintf(e->a.dests[0].path, sizeof(e->a.dests[0].path), "%s", path);
		snprintf(e->a.dests[0].key, sizeof(e->a.dests[0].key), "file:%s", path);
		e->a.dests[0].count = 1;
		e->a.n_dests = 1;
		e->a.unit = "opens";
	}
	e->a.file_access |= access;
	e->a.count++;
	ep_commit(d, e, t, false);
}

static void file_decision(struct rf_detect *d, const struct rf_input *in)
{
	const struct rf_event *ev = &in->u.decision;
	struct sandbox *s = sb_touch(d, in->cgroup_id, in->t_ns);
	struct rf_in_proc p;

	if (!s || !ev->path[0])
		return;
	memset(&p, 0, sizeof(p));
	p.pid = ev->pid;
	p.tid = ev->tid;
	p.ppid = ev->target_pid;
	memcpy(p.comm, ev->comm, RF_COMM_LEN);
	proc_note(d, in->cgroup_id, p.pid, p.comm);
	{
		/* the supervisor read the parent when it saw the open */
		struct proc *pr = proc_get(d, p.pid);

		if (pr && !pr->ppid)
			pr->ppid = p.ppid;
	}
	if (s->registered) {
		file_alert(d, s, &p, ev->path, ev->need, in->t_ns);
		return;
	}
	pending_add(d, RF_IN_DECISION, in->cgroup_id, &p, in->t_ns);
	{
		struct pending *q = &d->pending[(d->pending_next - 1) % PENDING_MAX];

		q->file_access = ev->need;
		snprintf(q->file_path, sizeof(q->file_path), "%s", ev->path);
	}
}

/* ---- DNS (the gate's records) ------------------------------------------------- */

static void dns_alert(struct rf_detect *d, struct sandbox *s, const struct rf_dns_record *r,
		      const struct rf_dnst_result *res, const struct rf_dnst_limits *lim,
		      bool names, uint64_t t)
{
	const char *suffix = r->suffix_off < r->name_len ? r->name + r->suffix_off : r->name;
	char key[RF_KEY_LEN];
	struct rf_episode *e;

	snprintf(key, sizeof(key), "%s:%s", names ? "names" : "label", suffix);
	e = ep_get(d, RF_RULE_DNS_TUNNEL, s, key);
	if (!e)
		return;
	if (!e->a.count) {
		e->a.dns_signal = names ? "distinct-names" :
				  res->label_long ? "long-label" : "random-label";
		snprintf(e->a.dns_suffix, sizeof(e->a.dns_suffix), "%s", suffix);
		e->a.threshold = names ? lim->names : lim->label_len;
		e->a.window_ms = lim->window_ns / MS;
		e->a.unit = names ? "names" : "labels";
	}
	/* the latest name; the longest label */
	snprintf(e->a.dns_name, sizeof(e->a.dns_name), "%s", r->name);
	if (names && res->distinct > e->a.value)
		e->a.value = res->distinct;
	if (!names && res->label_len > e->a.dns_label_len) {
		e->a.dns_label_len = res->label_len;
		e->a.dns_entropy = res->entropy;
		snprintf(e->a.dns_label, sizeof(e->a.dns_label), "%s", res->label);
	}
	e->a.count++;
	ep_commit(d, e, t, false);
}

/* Only names that left the gate (answered; audit mode forwards every
 * name) can carry data out: refusals and the gate's own failures are not
 * counted. */
static void dns_record(struct rf_detect *d, const struct rf_input *in)
{
	const struct rf_dns_record *r = &in->u.dns;
	struct rf_dnst_limits lim;
	struct rf_dnst_result res;
	struct sandbox *s = sb_touch(d, in->cgroup_id, in->t_ns);

	if (!s || (r->verdict != RF_DNS_ANSWERED && r->verdict != RF_DNS_AUDITED) || !r->name[0])
		return;
	lim.names = thr_of(s->info.dns_names, RF_DNST_NAMES_DEFAULT);
	lim.window_ns = (s->info.dns_names ? s->info.dns_window_ms :
			 RF_DNST_WINDOW_MS_DEFAULT) * MS;
	lim.label_len = (uint32_t)thr_of(s->info.dns_label_len, RF_DNST_LABEL_LEN_DEFAULT);
	if (dnst__add(&s->dnst, r->name, r->suffix_off, in->t_ns, &lim, &res)) {
		d->shed++;
		return;
	}
	if (res.names_over)
		dns_alert(d, s, r, &res, &lim, true, in->t_ns);
	if (res.label_odd)
		dns_alert(d, s, r, &res, &lim, false, in->t_ns);
}

/* ---- egress volume --------------------------------------------------------- */

/* More than monitor.egress_bytes within the window, sent by the sandbox
 * in all (key "sandbox") or to one destination (key "dst:ADDR:PORT/PROTO",
 * the DNS name the gate opened it through in the alert). An occurrence per
 * FLOW record over the threshold; quiet for linger_ms, the alert closes. */
static void egress_alert(struct rf_detect *d, struct sandbox *s, const struct rf_in_flow *f,
			 bool dest, uint64_t bytes, uint64_t t)
{
	char key[RF_KEY_LEN], dst[80];
	struct rf_episode *e;

	ledger__dst_text(&f->key, f->name, dst, sizeof(dst));
	if (dest)
		snprintf(key, sizeof(key), "dst:%s/%s", dst, ledger__proto(&f->key));
	else
		snprintf(key, sizeof(key), "sandbox");
	e = ep_get(d, RF_RULE_EGRESS, s, key);
	if (!e)
		return;
	if (!e->a.count) {
		e->a.threshold = s->info.egress_bytes;
		e->a.window_ms = s->egress->window_ns / MS;
		e->a.unit = "bytes";
	}
	if (bytes > e->a.value)
		e->a.value = bytes;
	/* the destination that sent the sandbox over (dest: its own) */
	if (!e->a.n_dests || dest) {
		struct rf_alert_dest *ad = &e->a.dests[0];
		char a[48] = "";

		memset(ad, 0, sizeof(*ad));
		inet_ntop(f->key.family == AF_INET ? AF_INET : AF_INET6, f->key.addr, a, sizeof(a));
		snprintf(ad->key, sizeof(ad->key), "%s/%s", dst, ledger__proto(&f->key));
		ad->family = f->key.family;
		snprintf(ad->address, sizeof(ad->address), "%s", a);
		ad->port = f->key.port;
		snprintf(ad->protocol, sizeof(ad->protocol), "%s", ledger__proto(&f->key));
		ad->protocol_num = f->key.proto;
		ad->count = bytes;
		e->a.n_dests = 1;
		snprintf(e->a.dns_name, sizeof(e->a.dns_name), "%s", f->name);
	}
	e->a.count++;
	ep_commit(d, e, t, false);
}

static void flow_record(struct rf_detect *d, const struct rf_input *in)
{
	const struct rf_in_flow *f = &in->u.flow;
	struct sandbox *s = sb_touch(d, in->cgroup_id, in->t_ns);
	uint64_t total, dest, window_ms;

	/* IP egress, as the kernel's egress_bytes budget: a unix peer's bytes
	 * are in its flow records, not in this volume */
	if (!s || !s->info.egress_bytes || !f->bytes_sent || f->key.family == AF_UNIX)
		return;
	window_ms = s->info.egress_window_ms ? s->info.egress_window_ms :
		    RF_EGRESS_WINDOW_MS_DEFAULT;
	if (!s->egress || s->egress->window_ns != window_ms * MS) {
		free(s->egress);
		s->egress = malloc(sizeof(*s->egress));
		if (!s->egress) {
			d->shed++;
			return;
		}
		egress__init(s->egress, window_ms * MS);
	}
	if (!egress__add(s->egress, &f->key, f->bytes_sent, in->t_ns, &total, &dest))
		return;
	if (total > s->info.egress_bytes)
		egress_alert(d, s, f, false, total, in->t_ns);
	if (dest > s->info.egress_bytes)
		egress_alert(d, s, f, true, dest, in->t_ns);
}

/* ---- resources ----------------------------------------------------------- */

static void res_check(struct rf_detect *d, struct sandbox *s, int r, uint64_t value,
		      uint64_t thr, uint64_t t)
{
	struct res_state *rs = &s->res[r];
	/* a cumulative count (disk writes) has no rise */
	static const uint64_t rise_min[RES_MAX] = { 0, 256ULL << 20, 64, 0 };
	struct rf_episode *e;

	if (thr && value > thr) {
		e = rs->ep >= 0 ? rollup__at(&d->r, rs->ep) : ep_get(d, RF_RULE_RESOURCE, s, res_keys[r]);
		if (e) {
			if (!e->a.count) {
				e->a.threshold = thr;
				e->a.unit = res_units[r];
			}
			e->a.count++;
			if (value > e->a.value)
				e->a.value = value;
			rs->ep = rollup__index(&d->r, e);
			e->owner = &rs->ep;
			rs->over = true;
			ep_commit(d, e, t, true);
		}
	} else if (rs->over && value * 10 <= thr * 9) {
		rs->over = false;
		ep_quiet(d, rs->ep, t);
	}
	/* A sudden rise (memory, processes): RISE_FACTOR times the moving
	 * average and at least rise_min more, after a few samples. */
	if (rise_min[r] && rs->n >= RISE_MIN_SAMPLES && value >= RISE_FACTOR * rs->ewma &&
	    value - rs->ewma >= rise_min[r]) {
		e = ep_get(d, RF_RULE_RESOURCE, s, rise_keys[r]);
		if (e) {
			if (!e->a.count) {
				e->a.rise = true;
				e->a.baseline = rs->ewma;
				e->a.threshold = rs->ewma * RISE_FACTOR;
				e->a.unit = res_units[r];
			}
			e->a.count++;
			if (value > e->a.value)
				e->a.value = value;
			ep_commit(d, e, t, false);
		}
	}
	rs->ewma = rs->n ? (4 * rs->ewma + value) / 5 : value;
	rs->n++;
}

/* The registry's units are the supervisor's (sandbox_limits.c); alerts
 * keep a static string. */
static const char *cap_unit(const char *u)
{
	static const char *const known[] = { "MiB", "processes", "percent", "seconds", "bytes" };
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(u, known[i]))
			return known[i];
	return "";
}

/* A cap of the policy's limits held: one episode per limit and sandbox. */
static void cap_hit(struct rf_detect *d, struct sandbox *s, const char *limit, uint64_t value,
		    uint64_t cap, const char *unit, uint64_t events, uint64_t t)
{
	char key[RF_KEY_LEN];
	struct rf_episode *e;

	snprintf(key, sizeof(key), "%s-cap", limit);
	e = ep_get(d, RF_RULE_RESOURCE, s, key);
	if (!e)
		return;
	if (!e->a.count) {
		e->a.cap = true;
		e->a.threshold = cap;
		e->a.unit = unit;
	}
	e->a.count++;
	e->a.cap_events += events;
	if (value > e->a.value)
		e->a.value = value;
	ep_commit(d, e, t, false);
}

/* The cgroup's own counts of caps hit went up since the last sample. */
static void caps_check(struct rf_detect *d, struct sandbox *s, const struct rf_in_sample *m,
		       uint64_t t)
{
	uint64_t mem = m->mem_max_events + m->oom_kills;

	/* in MiB, as the policy's memory_mb and the registry say it */
	if (m->mem_cap && mem > s->cap_mem)
		cap_hit(d, s, "memory_mb", (m->mem_bytes + (1 << 20) - 1) >> 20, m->mem_cap >> 20,
			"MiB", m->oom_kills, t);
	if (m->pids_cap && m->pids_max_events > s->cap_pids)
		cap_hit(d, s, "pids", (uint64_t)(m->procs_peak > 0 ? m->procs_peak : 0),
			m->pids_cap, "processes", m->pids_max_events - s->cap_pids, t);
	if (m->cpu_cap_pct && m->cpu_throttled > s->cap_cpu)
		cap_hit(d, s, "cpu_percent", (uint64_t)(s->cpu_pct + 0.5), m->cpu_cap_pct,
			"percent", m->cpu_throttled - s->cap_cpu, t);
	if (mem > s->cap_mem)
		s->cap_mem = mem;
	if (m->pids_max_events > s->cap_pids)
		s->cap_pids = m->pids_max_events;
	if (m->cpu_throttled > s->cap_cpu)
		s->cap_cpu = m->cpu_throttled;
}

static void sample(struct rf_detect *d, struct sandbox *s, const struct rf_input *in)
{
	const struct rf_in_sample *m = &in->u.sample;
	uint64_t t = in->t_ns, procs;

	procs = (uint64_t)(m->procs_peak > m->procs ? m->procs_peak : (m->procs > 0 ? m->procs : 0));
	s->mem = m->mem_bytes;
	s->procs = m->procs > 0 ? m->procs : 0;
	if (s->have_prev && t > s->prev_t && m->cpu_ns >= s->prev_cpu_ns) {
		uint64_t pct = (m->cpu_ns - s->prev_cpu_ns) * 100 / (t - s->prev_t);

		s->cpu_pct = (double)(m->cpu_ns - s->prev_cpu_ns) * 100.0 / (double)(t - s->prev_t);
		res_check(d, s, RES_CPU, pct, thr_of(s->info.cpu_percent, d->o.cpu_percent), t);
	}
	s->have_prev = true;
	s->prev_t = t;
	s->prev_cpu_ns = m->cpu_ns;
	s->sampled = true;
	res_check(d, s, RES_MEM, m->mem_bytes,
		  thr_of(s->info.memory_mb, d->o.memory_mb) << 20, t);
	res_check(d, s, RES_PIDS, procs, thr_of(s->info.pids, d->o.pids), t);
	if (m->src & RF_SRC_DISK_KNOWN)
		res_check(d, s, RES_DISK, m->disk_write_bytes, s->info.disk_write_mb << 20, t);
	caps_check(d, s, m, t);
}

/* ---- lost events --------------------------------------------------------- */

static void lost(struct rf_detect *d, uint32_t hop, uint64_t n, bool before_start, uint64_t t)
{
	struct rf_episode *e;

	if (hop >= RF_HOP_MAX || !n)
		return;
	d->lost_total[hop] += n;
	e = ep_get(d, RF_RULE_LOST, NULL, rf_hop_name(hop));
	if (!e)
		return;
	e->a.count += n;
	e->a.unit = "events";
	e->a.lost_total = d->lost_total[hop];
	e->a.before_start |= before_start;
	ep_commit(d, e, t, false);
}

/* ---- ticks --------------------------------------------------------------- */

static void tick(struct rf_detect *d)
{
	size_t i;
	int c;

	if (shed_total(d) > d->shed_reported) {
		uint64_t n = shed_total(d) - d->shed_reported;

		d->shed_reported = shed_total(d);
		lost(d, RF_HOP_MONITOR_TABLES, n, false, d->now);
	}
	for (i = 0; i < d->o.max_sandboxes; i++) {
		struct sandbox *s = &d->sbs[i];

		if (!s->used)
			continue;
		for (c = 0; c < RF_CLASS_KERNEL_MAX; c++)
			if (s->burst[c].len || s->burst[c].active)
				burst_tick(d, &s->burst[c], d->now);
	}
	rollup__tick(&d->r, d->now);
	for (i = 0; i < d->o.max_sandboxes; i++) {
		struct sandbox *s = &d->sbs[i];

		if (s->used && s->subj.ended && !s->subj.n_eps &&
		    d->now >= s->subj.ended_ns + RF_END_GRACE_MS * MS) {
			d->sb_ended_freed++;
			sb_free(d, s);
		} else if (s->used && sb_idle_unregistered(d, s)) {
			d->sb_idle_freed++;
			sb_free(d, s);
		}
	}
	pending_expire(d);
}

/* ---- input ---------------------------------------------------------------- */

/* An exec in a sandbox: judged against monitor.exec once its registry
 * entry is known. */
static void exec_event(struct rf_detect *d, const struct rf_input *in)
{
	struct sandbox *s = sb_get(d, in->cgroup_id);

	if (s && s->registered)
		exec_judge(d, s, &in->u.proc, in->t_ns);
	else
		pending_add(d, RF_IN_EXEC, in->cgroup_id, &in->u.proc, in->t_ns);
}

static void proc_event(struct rf_detect *d, const struct rf_input *in)
{
	const struct rf_in_proc *p = &in->u.proc;
	struct proc *pr, *parent;

	switch (in->type) {
	case RF_IN_FORK:
		pr = proc_put(d, p->pid);
		if (!pr)
			return;
		parent = proc_get(d, p->ppid);
		pr->exited = false;
		pr->ppid = p->ppid;
		pr->cgid = in->cgroup_id;
		snprintf(pr->comm, sizeof(pr->comm), "%s", p->comm);
		snprintf(pr->path, sizeof(pr->path), "%s", parent ? parent->path : "");
		break;
	case RF_IN_EXEC:
	case RF_IN_PROC:
		pr = proc_put(d, p->pid);
		if (!pr)
			return;
		pr->exited = false;
		if (p->ppid)
			pr->ppid = p->ppid;
		pr->cgid = in->cgroup_id;
		snprintf(pr->comm, sizeof(pr->comm), "%s", p->comm);
		snprintf(pr->path, sizeof(pr->path), "%s", p->path);
		if (in->type == RF_IN_EXEC)
			exec_event(d, in);
		break;
	case RF_IN_EXIT:
		pr = proc_get(d, p->pid);
		if (pr)
			pr->exited = true;
		break;
	default:
		break;
	}
}

static void sb_register(struct rf_detect *d, const struct rf_input *in)
{
	struct sandbox *s = sb_add(d, in->cgroup_id, d->now);

	if (!s)
		return;
	s->last_ns = d->now;
	rf_sandbox_info_clear(&s->info);
	if (rf_sandbox_info_copy(&s->info, in->u.sb)) {
		d->shed++;
		snprintf(s->info.sandbox, sizeof(s->info.sandbox), "cgroup-%llu",
			 (unsigned long long)in->cgroup_id);
	}
	s->info.cgroup_id = in->cgroup_id;
	s->registered = true;
	s->subj.ended = false;
	sb_thresholds(d, s);
	pending_flush(d, s);
	/* The supervisor wrote the cap that ended the run (also wall_seconds
	 * and output_bytes, which no cgroup file shows). */
	if (s->info.cap_limit[0] && !s->cap_registry) {
		s->cap_registry = true;
		cap_hit(d, s, s->info.cap_limit, s->info.cap_value, s->info.cap_threshold,
			cap_unit(s->info.cap_unit), 0, d->now);
	}
}

/* The sandbox is gone: its alerts linger, then close. */
static void sb_end(struct rf_detect *d, uint64_t cgid)
{
	struct sandbox *s = sb_get(d, cgid);
	int c;

	if (!s || s->subj.ended)
		return;
	s->subj.ended = true;
	s->subj.ended_ns = d->now;
	for (c = 0; c < RF_CLASS_KERNEL_MAX; c++)
		ep_quiet(d, s->burst[c].ep, d->now);
	for (c = 0; c < RES_MAX; c++)
		ep_quiet(d, s->res[c].ep, d->now);
}

/* A process first seen by a decision or a syscall: its name for the alert. */
static void proc_note(struct rf_detect *d, uint64_t cgid, uint32_t pid, const char *comm)
{
	struct proc *p;

	if (proc_get(d, pid))
		return;
	p = proc_put(d, pid);
	if (p) {
		p->cgid = cgid;
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	}
}

/* The supervisor's record of the first call of a syscall outside the
 * sandbox's profile (notify.c, op "syscall"): judged as the sensor's
 * would be. Refused: EPERM (deny, or the boundary); let through (alert):
 * it ran after the listener's answer, so how it ended is unknown. */
static void syscall_decision(struct rf_detect *d, const struct rf_input *in)
{
	const struct rf_event *ev = &in->u.decision;
	struct rf_in_proc p;
	struct sandbox *s;

	if (ev->op != RF_OP_SYSCALL || !(ev->flags & RF_EVF_SYSCALL))
		return;
	memset(&p, 0, sizeof(p));
	p.pid = ev->pid;
	p.tid = ev->tid;
	p.uid = ev->uid;
	memcpy(p.comm, ev->comm, RF_COMM_LEN);
	p.nr = ev->syscall;
	snprintf(p.name, sizeof(p.name), "%s", sysnames__name(ev->syscall));
	p.listener = true;
	p.unknown = ev->verdict != RF_VERDICT_DENIED;
	p.err = p.unknown ? 0 : (ev->flags & RF_EVF_ERRNO_EPERM) ? EPERM : EACCES;
	s = sb_touch(d, in->cgroup_id, in->t_ns);
	if (!s)
		return;
	proc_note(d, in->cgroup_id, p.pid, p.comm);
	if (s->registered)
		syscall_judge(d, s, &p, in->t_ns);
	else
		pending_add(d, RF_IN_SYSCALL, in->cgroup_id, &p, in->t_ns);
}

void detect__input(struct rf_detect *d, const struct rf_input *in)
{
	struct sandbox *s = NULL;

	if (in->t_ns > d->now)
		d->now = in->t_ns;
	switch (in->type) {
	case RF_IN_SANDBOX:
		sb_register(d, in);
		break;
	case RF_IN_SANDBOX_END:
		sb_end(d, in->cgroup_id);
		break;
	case RF_IN_DECISION:
		if (in->u.decision.flags & RF_EVF_UNEXPECTED) {
			file_decision(d, in);
			return;
		}
		if (in->u.decision.class == RF_CLASS_SYSCALLS) {
			syscall_decision(d, in);
			return;
		}
		if (in->u.decision.class >= RF_CLASS_KERNEL_MAX)
			return;
		s = sb_touch(d, in->cgroup_id, in->t_ns);
		if (!s)
			return;
		s->denials++;
		proc_note(d, in->cgroup_id, in->u.decision.pid, in->u.decision.comm);
		burst_add(d, s, &in->u.decision, in->t_ns);
		break;
	case RF_IN_SYSCALL:
		s = sb_touch(d, in->cgroup_id, in->t_ns);
		if (!s)
			return;
		s->syscalls_seen++;
		proc_note(d, in->cgroup_id, in->u.proc.pid, in->u.proc.comm);
		if (s->registered)
			syscall_judge(d, s, &in->u.proc, in->t_ns);
		else
			pending_add(d, RF_IN_SYSCALL, in->cgroup_id, &in->u.proc, in->t_ns);
		break;
	case RF_IN_FORK:
	case RF_IN_EXEC:
	case RF_IN_EXIT:
	case RF_IN_PROC:
		proc_event(d, in);
		break;
	case RF_IN_SAMPLE:
		s = sb_get(d, in->cgroup_id);
		if (s && !s->subj.ended)
			sample(d, s, in);
		break;
	case RF_IN_LOST:
		lost(d, in->u.lost.hop, in->u.lost.count, in->u.lost.before_start, in->t_ns);
		break;
	case RF_IN_TICK:
		tick(d);
		break;
	case RF_IN_DNS:
		dns_record(d, in);
		break;
	case RF_IN_FLOW:
		flow_record(d, in);
		break;
	case RF_IN_MAX:
		break;
	}
}

void detect__finish(struct rf_detect *d, uint64_t t_ns)
{
	if (t_ns > d->now)
		d->now = t_ns;
	tick(d);
	rollup__close_all(&d->r, d->now, "shutdown");
}

/* ---- life cycle ------------------------------------------------------------ */

int detect__new(const struct rf_detect_opts *opts, rf_alert_fn fn, void *ctx,
		struct rf_detect **ret)
{
	struct rf_detect *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	if (opts)
		d->o = *opts;
	/* 0: the default */
	d->o.burst_count = thr_of(d->o.burst_count, 20);
	d->o.burst_window_ms = thr_of(d->o.burst_window_ms, 1000);
	d->o.update_ms = thr_of(d->o.update_ms, 10000);
	d->o.linger_ms = thr_of(d->o.linger_ms, 3000);
	d->o.max_sandboxes = (size_t)thr_of(d->o.max_sandboxes, 1024);
	d->o.max_procs = (size_t)thr_of(d->o.max_procs, 8192);
	d->o.max_alerts = (size_t)thr_of(d->o.max_alerts, 1024);
	d->sbs = calloc(d->o.max_sandboxes, sizeof(*d->sbs));
	d->procs = calloc(d->o.max_procs, sizeof(*d->procs));
	if (!d->sbs || !d->procs ||
	    rollup__init(&d->r, d->o.max_alerts, d->o.update_ms, d->o.linger_ms, fn, ctx) ||
	    rf_index_init(&d->sb_ix, d->o.max_sandboxes) ||
	    rf_index_init(&d->proc_ix, d->o.max_procs)) {
		detect__free(d);
		return -ENOMEM;
	}
	*ret = d;
	return 0;
}

void detect__free(struct rf_detect *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; d->sbs && i < d->o.max_sandboxes; i++)
		if (d->sbs[i].used)
			sb_free(d, &d->sbs[i]);
	rf_index_free(&d->sb_ix);
	rollup__free(&d->r);
	rf_index_free(&d->proc_ix);
	free(d->sbs);
	free(d->procs);
	free(d);
}

const struct rf_detect_opts *detect__opts(const struct rf_detect *d)
{
	return &d->o;
}

void detect__foreach_sandbox(const struct rf_detect *d, rf_status_fn fn, void *ctx)
{
	size_t i;

	for (i = 0; i < d->o.max_sandboxes; i++) {
		const struct sandbox *s = &d->sbs[i];
		struct rf_sandbox_status st;

		if (!s->used)
			continue;
		memset(&st, 0, sizeof(st));
		snprintf(st.sandbox, sizeof(st.sandbox), "%s", s->info.sandbox);
		snprintf(st.policy_id, sizeof(st.policy_id), "%s", s->info.policy_id);
		st.cgroup_id = s->cgid;
		st.ended = s->subj.ended;
		st.sampled = s->sampled;
		st.cpu_percent = s->cpu_pct;
		st.mem_bytes = s->mem;
		st.procs = s->procs;
		st.denials = s->denials;
		st.syscalls_seen = s->syscalls_seen;
		st.open_alerts = s->subj.n_eps;
		st.thr_cpu_percent = thr_of(s->info.cpu_percent, d->o.cpu_percent);
		st.thr_memory_mb = thr_of(s->info.memory_mb, d->o.memory_mb);
		st.thr_pids = thr_of(s->info.pids, d->o.pids);
		fn(&st, ctx);
	}
}

size_t detect__n_sandboxes(const struct rf_detect *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->o.max_sandboxes; i++)
		n += d->sbs[i].used && !d->sbs[i].subj.ended;
	return n;
}

uint64_t detect__shed(const struct rf_detect *d)
{
	return shed_total(d);
}

void detect__table_stats(const struct rf_detect *d, struct rf_table_stats *ret)
{
	size_t i;

	memset(ret, 0, sizeof(*ret));
	for (i = 0; i < d->o.max_sandboxes; i++)
		ret->entries += d->sbs[i].used;
	ret->capacity = d->o.max_sandboxes;
	ret->shed = d->sb_shed;
	ret->ended_freed = d->sb_ended_freed;
	ret->idle_freed = d->sb_idle_freed;
}

bool detect__has(const struct rf_detect *d, uint64_t cgroup_id)
{
	return rf_index_get(&d->sb_ix, cgroup_id) >= 0;
}

bool detect__wants_flows(const struct rf_detect *d)
{
	size_t i;

	for (i = 0; i < d->o.max_sandboxes; i++)
		if (d->sbs[i].used && !d->sbs[i].subj.ended && d->sbs[i].info.egress_bytes)
			return true;
	return false;
}

const struct rf_sandbox_info *detect__info(const struct rf_detect *d, uint64_t cgroup_id)
{
	int32_t i = rf_index_get(&d->sb_ix, cgroup_id);

	return i >= 0 && d->sbs[i].registered ? &d->sbs[i].info : NULL;
}
