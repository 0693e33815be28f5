// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "cleanup.h"
#include "ledger.h"

static int row_order(const void *a, const void *b)
{
	const struct rf_flow_row *x = a, *y = b;

	return x->flow.first_ns < y->flow.first_ns ? -1 : x->flow.first_ns > y->flow.first_ns;
}

static int rows_push(struct rf_flow_row **rows, size_t *n, size_t *cap,
		     const struct rf_flow_key *k, const struct rf_flow *f, const char *unix_name)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct rf_flow_row *p = realloc(*rows, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*rows = p;
		*cap = c;
	}
	(*rows)[*n].key = *k;
	(*rows)[*n].flow = *f;
	snprintf((*rows)[*n].unix_name, sizeof((*rows)[*n].unix_name), "%s", unix_name);
	(*n)++;
	return 0;
}

/* FNV-1a over bytes, from h. */
static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A unix peer as a row: its name as text, its key (the name hashed). */
static void unix_key(const struct rf_unix_flow_key *u, struct rf_flow_key *k, char *text,
		     size_t len)
{
	size_t n = u->len < sizeof(u->name) ? u->len : sizeof(u->name), i, o = 0;
	uint64_t h[2];

	if (u->abstract && o + 1 < len)
		text[o++] = '@';
	for (i = 0; i < n && o + 1 < len; i++)
		text[o++] = u->name[i] >= 0x20 && u->name[i] < 0x7f ? (char)u->name[i] : '?';
	text[o] = 0;
	memset(k, 0, sizeof(*k));
	k->cgroup_id = u->cgroup_id;
	k->family = AF_UNIX;
	k->proto = u->type;
	/* how the sandbox came by the socket (rf_unix_origin) */
	k->flags = u->origin == RF_UNIX_ORIGIN_ACCEPT	 ? RF_FLOW_INBOUND :
		   u->origin == RF_UNIX_ORIGIN_PEER	 ? RF_FLOW_UNIX_PEER :
		   u->origin == RF_UNIX_ORIGIN_UNNAMED ? RF_FLOW_UNIX_UNNAMED : 0;
	/* the whole key but its cgroup id: abstract, length and bytes */
	h[0] = fnv1a(&u->len, sizeof(*u) - offsetof(struct rf_unix_flow_key, len),
		     0xcbf29ce484222325ULL);
	h[1] = fnv1a(&u->len, sizeof(*u) - offsetof(struct rf_unix_flow_key, len),
		     0x84222325cbf29ce4ULL);
	memcpy(k->addr, h, sizeof(h));
}

static int unix_rows(int fd, uint64_t cgid, struct rf_flow_row **rows, size_t *n,
		     size_t *cap)
{
	struct rf_unix_flow_key u, next;
	char text[RF_UNIX_FLOW_TEXT];
	struct rf_flow_key k;
	struct rf_flow f;
	bool first = true;
	int err;

	while (!bpf_map_get_next_key(fd, first ? NULL : &u, &next)) {
		first = false;
		u = next;
		if ((cgid && u.cgroup_id != cgid) || bpf_map_lookup_elem(fd, &u, &f))
			continue;
		unix_key(&u, &k, text, sizeof(text));
		err = rows_push(rows, n, cap, &k, &f, text);
		if (err)
			return err;
	}
	return errno != ENOENT && !first ? -errno : 0;
}

int ledger__flows(int fd, int unix_fd, uint64_t cgid, struct rf_flow_row **ret_rows,
		  size_t *ret_n)
{
	_cleanup_free_ struct rf_flow_row *rows = NULL;
	struct rf_flow_key k, next;
	struct rf_flow f;
	size_t n = 0, cap = 0;
	bool first = true;
	int err;

	while (!bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		first = false;
		k = next;
		if (cgid && k.cgroup_id != cgid)
			continue;
		/* deleted between the two calls: not there */
		if (bpf_map_lookup_elem(fd, &k, &f))
			continue;
		err = rows_push(&rows, &n, &cap, &k, &f, "");
		if (err)
			return err;
	}
	if (errno != ENOENT && !first)
		return -errno;
	if (unix_fd >= 0) {
		err = unix_rows(unix_fd, cgid, &rows, &n, &cap);
		if (err)
			return err;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), row_order);
	*ret_rows = TAKE_PTR(rows);
	*ret_n = n;
	return 0;
}

void ledger__mark_unix_bytes(int ledger_fd, struct rf_flow_row *rows, size_t n)
{
	uint64_t cgid = 0;
	bool counted = false, looked = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (rows[i].key.family != AF_UNIX)
			continue;
		/* rows of one sandbox are many: one lookup per sandbox in a run */
		if (!looked || rows[i].key.cgroup_id != cgid) {
			struct rf_ledger led;

			looked = true;
			cgid = rows[i].key.cgroup_id;
			counted = ledger_fd >= 0 && !bpf_map_lookup_elem(ledger_fd, &cgid, &led) &&
				  (led.flags & RF_LEDGER_UNIX_BYTES);
		}
		if (counted)
			rows[i].key.flags |= RF_FLOW_UNIX_BYTES;
	}
}

static void name_key(struct rf_flow_name_key *nk, uint64_t cgid, int family,
		     const uint8_t *addr)
{
	memset(nk, 0, sizeof(*nk));
	nk->cgroup_id = cgid;
	nk->family = (uint32_t)family;
	memcpy(nk->addr, addr, family == AF_INET ? 4 : 16);
}

int ledger__name(int fd, uint64_t cgid, int family, const uint8_t *addr, char *buf,
		 size_t len)
{
	struct rf_flow_name_key nk;
	struct rf_flow_name v;

	if (fd < 0)
		return -ENOENT;
	name_key(&nk, cgid, family, addr);
	if (bpf_map_lookup_elem(fd, &nk, &v))
		return -errno;
	v.name[sizeof(v.name) - 1] = 0;
	snprintf(buf, len, "%s", v.name);
	return 0;
}

int ledger__note_name(int fd, uint64_t cgid, int family, const uint8_t *addr,
		      const char *name)
{
	struct rf_flow_name_key nk;
	struct rf_flow_name v = { { 0 } };
	size_t l = strlen(name);

	if (fd < 0)
		return -EBADF;
	/* "example.com." as answered: the name without the root's dot */
	if (l && name[l - 1] == '.')
		l--;
	if (l >= sizeof(v.name))
		l = sizeof(v.name) - 1;
	memcpy(v.name, name, l);
	name_key(&nk, cgid, family, addr);
	return bpf_map_update_elem(fd, &nk, &v, BPF_ANY) ? -errno : 0;
}

size_t ledger__note_final(int note_fd, const struct rf_flow_row *rows, size_t n,
			  int names_fd, uint64_t cgid)
{
	struct rf_flow_record rec;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &rec, .ctx_size_in = sizeof(rec));
	size_t i, sent = 0;

	for (i = 0; note_fd >= 0 && i < n; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.cgroup_id = cgid;
		rec.kind = RF_EV_FLOW;
		rec.seq = i;
		rec.final = 1;
		rec.key = rows[i].key;
		rec.flow = rows[i].flow;
		/* a unix peer's name, or the DNS gate's name of the address */
		if (rows[i].key.family == AF_UNIX)
			snprintf(rec.name, sizeof(rec.name), "%s", rows[i].unix_name);
		else if (ledger__name(names_fd, cgid, rows[i].key.family, rows[i].key.addr,
				      rec.name, sizeof(rec.name)))
			rec.name[0] = 0;
		/* the program's own answer: -ENOENT (no such sandbox now),
		 * -ENOSPC (the ring buffer full: counted there) */
		if (!bpf_prog_test_run_opts(note_fd, &opts) && !opts.retval)
			sent++;
	}
	return sent;
}

void ledger__dst_text(const struct rf_flow_key *k, const char *name, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	if (k->family == AF_UNIX) {
		snprintf(buf, len, "%s", name ? name : "");
		return;
	}
	inet_ntop(k->family == AF_INET ? AF_INET : AF_INET6, k->addr, a, sizeof(a));
	if (k->family == AF_INET)
		snprintf(buf, len, "%s:%u", a, k->port);
	else
		snprintf(buf, len, "[%s]:%u", a, k->port);
}

const char *ledger__proto(const struct rf_flow_key *k)
{
	if (k->family == AF_UNIX)
		return "unix";
	return k->proto == IPPROTO_TCP ? "tcp" : k->proto == IPPROTO_UDP ? "udp" : "other";
}

const char *ledger__unix_origin(const struct rf_flow_key *k)
{
	return (k->flags & RF_FLOW_INBOUND)	 ? "accept" :
	       (k->flags & RF_FLOW_UNIX_PEER)	 ? "peer" :
	       (k->flags & RF_FLOW_UNIX_UNNAMED) ? "unnamed" : "connect";
}

const char *ledger__unix_type(const struct rf_flow_key *k)
{
	return k->proto == SOCK_STREAM ? "stream" : k->proto == SOCK_DGRAM ? "dgram" :
	       k->proto == SOCK_SEQPACKET ? "seqpacket" : "other";
}

void ledger__boot_to_real(uint64_t boot_ns, struct timespec *ret)
{
	struct timespec real, boot;
	int64_t ns;

	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	ns = (int64_t)real.tv_sec * 1000000000 + real.tv_nsec -
	     ((int64_t)boot.tv_sec * 1000000000 + boot.tv_nsec) + (int64_t)boot_ns;
	ret->tv_sec = ns / 1000000000;
	ret->tv_nsec = ns % 1000000000;
}

/* Delete the keys of map fd (key_size bytes, the cgroup id first) of cgid. */
static int forget_in(int fd, size_t key_size, uint64_t cgid)
{
	_cleanup_free_ uint8_t *keys = NULL;
	uint8_t cur[sizeof(struct rf_unix_flow_key)], next[sizeof(cur)];
	size_t n = 0, cap = 0, i;
	bool first = true;
	int err = 0;

	if (fd < 0 || key_size > sizeof(cur))
		return 0;
	while (!bpf_map_get_next_key(fd, first ? NULL : cur, next)) {
		uint64_t id;

		first = false;
		memcpy(cur, next, key_size);
		memcpy(&id, cur, sizeof(id));
		if (id != cgid)
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 16;
			uint8_t *p = realloc(keys, c * key_size);

			if (!p)
				return -ENOMEM;
			keys = p;
			cap = c;
		}
		memcpy(keys + n++ * key_size, cur, key_size);
	}
	for (i = 0; i < n; i++)
		if (bpf_map_delete_elem(fd, keys + i * key_size) && errno != ENOENT && !err)
			err = -errno;
	return err;
}

int ledger__forget(int flows_fd, int unix_fd, int names_fd, uint64_t cgid)
{
	int err = forget_in(flows_fd, sizeof(struct rf_flow_key), cgid);
	int e2 = forget_in(unix_fd, sizeof(struct rf_unix_flow_key), cgid);
	int e3 = forget_in(names_fd, sizeof(struct rf_flow_name_key), cgid);

	return err ? err : e2 ? e2 : e3;
}
