// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-dns: DNS lookups and connects from inside a sandbox, for the DNS gate
 * tests and bench. One line per operation:
 *   udp SERVER PORT NAME[/TYPE]     unconnected sendto/recvfrom; the reply must
 *                                   come from SERVER:PORT (as resolvers check)
 *   udpconn SERVER PORT NAME[/TYPE] connected UDP socket
 *   tcp SERVER PORT NAME[/TYPE]     DNS over TCP
 *     -> "OP NAME RCODE ADDR,ADDR"  ("-" without addresses; RCODE may also be
 *        TIMEOUT, SRCMISMATCH or an errno name such as EPERM)
 *   gai NAME                        getaddrinfo (the libc resolver, resolv.conf)
 *     -> "gai NAME ok ADDR,..." or "gai NAME ERROR"
 *   connect ADDR PORT               TCP connect -> "connect ADDR:PORT ok|EPERM|..."
 *   sleep MS
 *   bench SERVER PORT NAME N        N sequential UDP lookups: "bench N p50_us p99_us qps"
 * Messages are built and parsed with ldns.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <ldns/ldns.h>

static const char *errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ETIMEDOUT: return "TIMEOUT";
	case ENETUNREACH: return "ENETUNREACH";
	case EINVAL: return "EINVAL";
	default: return "EOTHER";
	}
}

static int sockaddr_of(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
		return 0;
	}
	return -1;
}

/* A query for NAME[/TYPE] in wire format. */
static int build_query(const char *spec, uint8_t **wire, size_t *len)
{
	char name[300], *slash;
	ldns_rr_type type = LDNS_RR_TYPE_A;
	ldns_rdf *dname;
	ldns_pkt *q;
	int r = -1;

	snprintf(name, sizeof(name), "%s", spec);
	slash = strchr(name, '/');
	if (slash) {
		*slash = '\0';
		type = ldns_get_rr_type_by_name(slash + 1);
	}
	dname = ldns_dname_new_frm_str(name);
	if (!dname)
		return -1;
	q = ldns_pkt_query_new(dname, type, LDNS_RR_CLASS_IN, LDNS_RD);
	if (q) {
		ldns_pkt_set_random_id(q);
		r = ldns_pkt2wire(wire, q, len) == LDNS_STATUS_OK ? 0 : -1;
		ldns_pkt_free(q);
	}
	return r;
}

static bool wait_in(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* RCODE and the A/AAAA addresses of an answer, into out. */
static void describe(const uint8_t *msg, size_t len, char *out, size_t olen)
{
	ldns_pkt *p = NULL;
	ldns_rr_list *an;
	char *rc;
	size_t i, n = 0;

	if (ldns_wire2pkt(&p, msg, len) != LDNS_STATUS_OK) {
		snprintf(out, olen, "BADREPLY");
		return;
	}
	rc = ldns_pkt_rcode2str(ldns_pkt_get_rcode(p));
	snprintf(out, olen, "%s ", rc ? rc : "?");
	free(rc);
	an = ldns_pkt_answer(p);
	for (i = 0; an && i < ldns_rr_list_rr_count(an); i++) {
		ldns_rr *rr = ldns_rr_list_rr(an, i);
		ldns_rr_type t = ldns_rr_get_type(rr);
		char a[INET6_ADDRSTRLEN];

		if (t != LDNS_RR_TYPE_A && t != LDNS_RR_TYPE_AAAA)
			continue;
		inet_ntop(t == LDNS_RR_TYPE_A ? AF_INET : AF_INET6,
			  ldns_rdf_data(ldns_rr_rdf(rr, 0)), a, sizeof(a));
		snprintf(out + strlen(out), olen - strlen(out), "%s%s", n++ ? "," : "", a);
	}
	if (!n)
		snprintf(out + strlen(out), olen - strlen(out), "-");
	ldns_pkt_free(p);
}

/* One lookup; mode 0 udp, 1 udpconn, 2 tcp. Fills out, returns 0 on an answer. */
static int lookup(int mode, const char *server, int port, const char *spec, char *out,
		  size_t olen)
{
	struct sockaddr_storage ss, from;
	socklen_t sl, fl = sizeof(from);
	uint8_t *q = NULL, buf[65536], hdr[2];
	size_t qlen = 0;
	ssize_t n = -1;
	int fd, r = -1;

	if (sockaddr_of(server, port, &ss, &sl) || build_query(spec, &q, &qlen)) {
		snprintf(out, olen, "EINVAL");
		return -1;
	}
	fd = socket(ss.ss_family, (mode == 2 ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (mode == 0) {
		if (sendto(fd, q, qlen, 0, (struct sockaddr *)&ss, sl) < 0)
			goto fail;
	} else {
		if (connect(fd, (struct sockaddr *)&ss, sl))
			goto fail;
		hdr[0] = (uint8_t)(qlen >> 8);
		hdr[1] = (uint8_t)qlen;
		if ((mode == 2 && write(fd, hdr, 2) != 2) || write(fd, q, qlen) != (ssize_t)qlen)
			goto fail;
	}
	if (!wait_in(fd, 3000)) {
		snprintf(out, olen, "TIMEOUT");
		goto out;
	}
	if (mode == 2) {
		size_t have = 0, want = 0;

		while (!want || have < want + 2) {
			n = read(fd, buf + have, sizeof(buf) - have);
			if (n <= 0)
				break;
			have += (size_t)n;
			if (have >= 2)
				want = (size_t)buf[0] << 8 | buf[1];
		}
		if (!want || have < want + 2) {
			snprintf(out, olen, "TIMEOUT");
			goto out;
		}
		describe(buf + 2, want, out, olen);
		r = 0;
		goto out;
	}
	n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
	if (n < 0)
		goto fail;
	/* what glibc's resolver checks before it takes an answer */
	if (mode == 0 && (fl != sl || memcmp(&from, &ss, sl))) {
		snprintf(out, olen, "SRCMISMATCH");
		goto out;
	}
	describe(buf, (size_t)n, out, olen);
	r = 0;
	goto out;
fail:
	snprintf(out, olen, "%s", errname(errno));
out:
	close(fd);
	free(q);
	return r;
}

static void op_gai(const char *name)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai, *p;
	char line[1024] = "", a[INET6_ADDRSTRLEN];
	int r = getaddrinfo(name, NULL, &hints, &ai);

	if (r) {
		printf("gai %s %s\n", name, r == EAI_NONAME ? "NONAME" : "ERROR");
		return;
	}
	for (p = ai; p; p = p->ai_next) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)p->ai_addr)->sin_addr, a, sizeof(a));
		if (!strstr(line, a))
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
				 line[0] ? "," : "", a);
	}
	freeaddrinfo(ai);
	printf("gai %s ok %s\n", name, line);
}

static void op_connect(const char *host, int port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, r;

	if (sockaddr_of(host, port, &ss, &sl)) {
		printf("connect %s:%d EINVAL\n", host, port);
		return;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = connect(fd, (struct sockaddr *)&ss, sl);
	printf("connect %s:%d %s\n", host, port, r ? errname(errno) : "ok");
	close(fd);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void op_bench(const char *server, int port, const char *name, int n)
{
	uint64_t *lat = calloc((size_t)n, sizeof(*lat)), t0 = now_us(), t;
	char out[512];
	int i, fails = 0;

	for (i = 0; i < n; i++) {
		t = now_us();
		if (lookup(1, server, port, name, out, sizeof(out)) || strncmp(out, "NOERROR", 7))
			fails++;
		lat[i] = now_us() - t;
	}
	t = now_us() - t0;
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("bench %d %llu %llu %.0f fails=%d\n", n, (unsigned long long)lat[n / 2],
	       (unsigned long long)lat[(n * 99) / 100], n * 1e6 / (double)(t ? t : 1), fails);
	free(lat);
}

int main(int argc, char **argv)
{
	char out[1024];
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		const char *op = argv[i];
		int mode = !strcmp(op, "udp") ? 0 : !strcmp(op, "udpconn") ? 1 :
			   !strcmp(op, "tcp") ? 2 : -1;

		if (mode >= 0 && i + 3 < argc) {
			lookup(mode, argv[i + 1], atoi(argv[i + 2]), argv[i + 3], out, sizeof(out));
			printf("%s %s %s\n", op, argv[i + 3], out);
			i += 4;
		} else if (!strcmp(op, "gai") && i + 1 < argc) {
			op_gai(argv[i + 1]);
			i += 2;
		} else if (!strcmp(op, "connect") && i + 2 < argc) {
			op_connect(argv[i + 1], atoi(argv[i + 2]));
			i += 3;
		} else if (!strcmp(op, "sleep") && i + 1 < argc) {
			usleep((useconds_t)atoi(argv[i + 1]) * 1000);
			i += 2;
		} else if (!strcmp(op, "bench") && i + 4 < argc) {
			op_bench(argv[i + 1], atoi(argv[i + 2]), argv[i + 3], atoi(argv[i + 4]));
			i += 5;
		} else {
			fprintf(stderr, "rf-dns: bad operation at \"%s\"\n", op);
			return 2;
		}
	}
	return 0;
}
