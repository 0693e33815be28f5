/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What net.bpf.c and lsm.bpf.c share: the maps both objects use (user
 * space loads the network object first and hands its map fds to the LSM
 * object before that one loads, so there is one instance of each) and the
 * helpers that find the sandbox of the current task and record decisions.
 */
#ifndef RF_COMMON_BPF_H
#define RF_COMMON_BPF_H

#include "rf_abi.h"
#include "rf_util.bpf.h"
#include "rf_sbmap.bpf.h"

#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_SEQPACKET 5
#define IPPROTO_TCP 6
#define IPPROTO_UDP 17

#define ALLOW 1
#define DENY 0

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RF_MAX_SANDBOXES);
	__type(key, __u64);
	__type(value, struct rf_sandbox);
} rf_sandboxes SEC(".maps");

RF_SB_MAP(rf_unix, BPF_MAP_TYPE_LPM_TRIE, struct rf_unix_key, __u32);

/* Each sandbox's first sample_limit denial records (its inner map holds
 * exactly that many). */
RF_SB_MAP(rf_samples, BPF_MAP_TYPE_HASH, struct rf_sample_key, struct rf_event);

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	/* 16 MiB, about 42,000 records: 40 ms of a million decisions a
	 * second, so a monitor on a busy host can be descheduled that long
	 * without a loss (1 MiB lost records at 500,000/s). */
	__uint(max_entries, 16 * 1024 * 1024);
} rf_events SEC(".maps");

RF_PERCPU_COUNTERS(rf_stats, RF_STAT_MAX);

static __always_inline void stat_inc(__u32 idx)
{
	counter_inc(&rf_stats, idx);
}

/* The sandbox this task belongs to, or NULL when it is in none. */
static __always_inline struct rf_sandbox *current_sandbox(__u64 *ret_cgid)
{
	__u64 own = bpf_get_current_cgroup_id();
	struct rf_sandbox *sb;

	/* A sandboxed task is in its sandbox's cgroup itself (the boundary
	 * keeps it from making or entering others): one lookup. A sandbox
	 * cgroup is never under another one, so this is the ancestor the
	 * walk below would find. */
	sb = bpf_map_lookup_elem(&rf_sandboxes, &own);
	if (sb) {
		*ret_cgid = own;
		return sb;
	}
	for (int lvl = 1; lvl < RF_MAX_LEVEL; lvl++) {
		__u64 cgid = bpf_get_current_ancestor_cgroup_id(lvl);

		/* the task's own level was looked up above; deeper is 0 */
		if (!cgid || cgid == own)
			break;
		sb = bpf_map_lookup_elem(&rf_sandboxes, &cgid);
		if (sb) {
			*ret_cgid = cgid;
			return sb;
		}
	}
	*ret_cgid = 0;
	return NULL;
}

/* Without memory to record a decision: the verdict decide() would give. */
static __always_inline int fallback_verdict(const struct rf_sandbox *sb)
{
	return (sb->flags & RF_SB_AUDIT) ? ALLOW : DENY;
}

/*
 * Publish a decision record (ev->seq set): count it, keep it as a sample
 * while the sandbox has sample slots left, and put it on the ring buffer
 * for the monitor.
 */
static __always_inline void publish(const struct rf_sandbox *sb, __u64 cgid,
				    struct rf_event *ev)
{
	__u32 limit = sb->sample_limit ? sb->sample_limit : RF_SAMPLE_LIMIT_DEFAULT;
	struct rf_sample_key skey = { .cgroup_id = cgid, .seq = ev->seq };
	struct rf_event *rb;

	stat_inc(RF_STAT_DECISIONS);
	if (ev->seq < limit && rf_sb_insert(&rf_samples, sb, cgid, &skey, ev, BPF_NOEXIST))
		stat_inc(RF_STAT_SAMPLE_LOST);
	rb = bpf_ringbuf_reserve(&rf_events, sizeof(*rb), 0);
	if (rb) {
		__builtin_memcpy(rb, ev, sizeof(*rb));
		bpf_ringbuf_submit(rb, 0);
	} else {
		stat_inc(RF_STAT_RINGBUF_LOST);
	}
}

/*
 * Count the decision exactly, then publish it. Returns the verdict for
 * the hook: deny unless the sandbox audits. task: the hook runs in the
 * deciding task's context (every hook but a packet's cgroup_skb, where
 * the current task is not the sender's and Linux 6.1 refuses the
 * task helpers: that event carries no pid, uid or comm).
 */
static __always_inline int decide_as(struct rf_sandbox *sb, __u64 cgid,
				     struct rf_event *ev, __u32 class, bool task)
{
	bool audit = sb->flags & RF_SB_AUDIT;

	if (class < RF_CLASS_KERNEL_MAX)
		__sync_fetch_and_add(&sb->denials[class], 1);
	ev->seq = __sync_fetch_and_add(&sb->deny_seq, 1);
	if (task) {
		RF_EVENT_TASK(ev, cgid, RF_EV_DECISION);
	} else {
		ev->ts_boot_ns = bpf_ktime_get_boot_ns();
		ev->cgroup_id = cgid;
		ev->kind = RF_EV_DECISION;
		ev->pid = 0;
		ev->tid = 0;
		ev->uid = 0;
		__builtin_memset(ev->comm, 0, sizeof(ev->comm));
	}
	ev->class = class;
	ev->verdict = audit ? RF_VERDICT_AUDITED : RF_VERDICT_DENIED;
	publish(sb, cgid, ev);
	return audit ? ALLOW : DENY;
}

static __always_inline int decide(struct rf_sandbox *sb, __u64 cgid,
				  struct rf_event *ev, __u32 class)
{
	return decide_as(sb, cgid, ev, class, true);
}

/*
 * The dynamic loader, by the name of the file run (ld-linux*, ld-musl-*,
 * ld.so): run as the program it maps any readable file executable. A copy
 * under another name needs a directory both writable and executable, where
 * the exec rules allow any code already. n: at least 8 readable bytes.
 */
static __always_inline bool rf_loader_name(const char *n)
{
	if (n[0] != 'l' || n[1] != 'd')
		return false;
	if (n[2] == '.' && n[3] == 's' && n[4] == 'o' && !n[5])
		return true;
	if (n[2] != '-')
		return false;
	return (n[3] == 'l' && n[4] == 'i' && n[5] == 'n' && n[6] == 'u' && n[7] == 'x') ||
	       (n[3] == 'm' && n[4] == 'u' && n[5] == 's' && n[6] == 'l' && n[7] == '-');
}

/*
 * The unix LPM key of a name, shared by both backends so they agree:
 * kind byte, name bytes, 0 terminator.
 *
 * The state of a bpf_loop walk lives in map memory (struct scan_state in
 * the caller's scratch), not on the stack: verifiers before Linux 6.7
 * check a callback as if it ran once and hard-wire branches on the
 * constants they saw on the stack; values read from a map are unknown to
 * them, so every branch stays.
 */
struct scan_state {
	__u32 len;      /* bytes of the name the caller gave */
	__u32 n;        /* name bytes seen */
	__u32 seg;      /* bytes in the current path component */
	__u32 dots;     /* of which '.' */
	__u32 reason;
	__u32 _pad;
};

struct path_scan {
	__u8 *d;                /* key data: d[0] kind, d[1..] name */
	struct scan_state *st;  /* in map memory */
};

/* Pathname: stop at NUL; flag "//", "." and ".." components. */
static long scan_pathname(__u32 i, void *vctx)
{
	struct path_scan *c = vctx;
	struct scan_state *st = c->st;
	__u64 k = i;  /* 64-bit: keeps the verifier's bound through k + 1 */
	__u8 ch;

	if (k >= RF_UNIX_PATH_MAX || k >= st->len)
		return 1;
	ch = c->d[1 + k];
	if (!ch)
		return 1;
	st->n++;
	if (ch == '/') {
		if (k != 0 && (st->seg == 0 || (st->seg == st->dots && st->dots <= 2)))
			st->reason = RF_REASON_BAD_PATH;
		st->seg = 0;
		st->dots = 0;
	} else {
		st->seg++;
		if (ch == '.')
			st->dots++;
	}
	return 0;
}

/* Abstract: drop the leading NUL. Names are length-delimited, so one with
 * a NUL inside could otherwise match an exact rule as its prefix. */
static long scan_abstract(__u32 i, void *vctx)
{
	struct path_scan *c = vctx;
	struct scan_state *st = c->st;
	__u64 k = i;
	__u8 ch;

	if (k >= RF_UNIX_PATH_MAX - 1 || k >= st->n)
		return 1;
	ch = c->d[2 + k];
	c->d[1 + k] = ch;
	if (!ch)
		st->reason = RF_REASON_BAD_PATH;
	return 0;
}

/*
 * Turn key->data[1..] holding a sun_path of len bytes (as given by the
 * caller, len <= RF_UNIX_PATH_MAX) into the lookup key; look it up.
 * Returns 0 when a rule allows it, else an rf_reason; *ret_n gets the
 * name length and *ret_abstract the kind, for the event. st: map memory.
 */
static __always_inline __u32 unix_lookup(struct rf_unix_key *key, struct scan_state *st,
					 __u64 cgid, __u32 len, __u32 *ret_n, bool *ret_abstract)
{
	struct path_scan c = { .d = key->data, .st = st };
	__u8 *d = key->data;
	bool abstract;
	__u32 n;

	__builtin_memset(st, 0, sizeof(*st));
	abstract = len > 0 && d[1] == 0;
	st->len = len;
	if (abstract) {
		d[0] = RF_UNIX_ABSTRACT;
		st->n = len - 1;
		bpf_loop(RF_UNIX_PATH_MAX, scan_abstract, &c, 0);
	} else {
		d[0] = RF_UNIX_PATHNAME;
		bpf_loop(RF_UNIX_PATH_MAX, scan_pathname, &c, 0);
		if (st->n == 0 || d[1] != '/' ||
		    (st->seg > 0 && st->seg == st->dots && st->dots <= 2))
			st->reason = RF_REASON_BAD_PATH;
	}
	n = st->n;
	if (n > RF_UNIX_PATH_MAX - 1)
		n = RF_UNIX_PATH_MAX - 1;
	d[1 + n] = 0;

	if (!st->reason) {
		key->cgroup_id = cgid;
		key->prefixlen = 64 + 8 * (n + 2);
		if (!rf_sb_lookup(&rf_unix, NULL, cgid, key))
			st->reason = RF_REASON_NO_RULE;
	}
	*ret_n = n;
	*ret_abstract = abstract;
	return st->reason;
}

/* The unix name of a decision into the event: '@' before abstract names. */
static __always_inline void unix_event_path(struct rf_event *ev, const __u8 *d, __u32 n,
					    bool abstract)
{
	if (abstract) {
		ev->path[0] = '@';
		__builtin_memcpy(&ev->path[1], &d[1], RF_UNIX_PATH_MAX - 1);
		ev->path_len = n + 1;
	} else {
		__builtin_memcpy(ev->path, &d[1], RF_UNIX_PATH_MAX);
		ev->path_len = n;
	}
}

#endif /* RF_COMMON_BPF_H */
