// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <errno.h>
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
		     const struct rf_flow_key *k, const struct rf_flow *f)
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
	(*n)++;
	return 0;
}

int ledger__flows(int fd, uint64_t cgid, struct rf_flow_row **ret_rows, size_t *ret_n)
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
		err = rows_push(&rows, &n, &cap, &k, &f);
		if (err)
			return err;
	}
	if (errno != ENOENT && !first)
		return -errno;
	if (n)
		qsort(rows, n, sizeof(*rows), row_order);
	*ret_rows = TAKE_PTR(rows);
	*ret_n = n;
	return 0;
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

void ledger__dst_text(const struct rf_flow_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";

	inet_ntop(k->family == AF_INET ? AF_INET : AF_INET6, k->addr, a, sizeof(a));
	if (k->family == AF_INET)
		snprintf(buf, len, "%s:%u", a, k->port);
	else
		snprintf(buf, len, "[%s]:%u", a, k->port);
}

const char *ledger__proto(const struct rf_flow_key *k)
{
	return k->proto == IPPROTO_TCP ? "tcp" : k->proto == IPPROTO_UDP ? "udp" : "other";
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
	uint8_t cur[64], next[64];
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

int ledger__forget(int flows_fd, int names_fd, uint64_t cgid)
{
	int err = forget_in(flows_fd, sizeof(struct rf_flow_key), cgid);
	int e2 = forget_in(names_fd, sizeof(struct rf_flow_name_key), cgid);

	return err ? err : e2;
}
