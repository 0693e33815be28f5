// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-net: run inside a sandbox by the tests and the demo. Each operation
 * on the command line is attempted for real and reported on one line:
 *   OP TARGET RESULT      (RESULT is "ok" or the errno name, e.g. EPERM)
 * Operations:
 *   tcp HOST PORT        connect a TCP socket (IPv4 or IPv6 literal)
 *   udp HOST PORT        unconnected UDP sendto
 *   udpconn HOST PORT    connect a UDP socket
 *   tfo HOST PORT        TCP Fast Open: sendto(MSG_FASTOPEN) unconnected
 *   unix PATH|@NAME      connect a unix stream socket
 *   unixdgram PATH|@NAME sendto from an unbound unix datagram socket
 *   ping4                create an ICMP "ping" socket
 *   raw4                 create a raw socket
 *   write FILE TEXT      write TEXT to FILE (e.g. a cgroup.procs)
 *   burst N HOST PORT    N TCP connects, one summary line
 *   upload HOST PORT N   connect, send N bytes, shut down writing, read to
 *                        the end: "upload HOST:PORT RESULT sent=S received=R"
 *   udpsend HOST PORT N SIZE  N datagrams of SIZE bytes: ok=K then the first
 *                        error's name
 *   bulk HOST PORT N     upload N bytes as fast as it goes (the bench):
 *                        "bulk HOST:PORT RESULT MB_PER_S CPU_NS_PER_MB" (CPU:
 *                        this process's user + system time, which on
 *                        loopback holds the stack's work for its packets)
 *   sink HOST PORT N     listen, accept N connections one after the other,
 *                        read each to its end: "sink HOST:PORT BYTES"
 *   unixio PATH|@NAME N M  connect a unix stream socket, write N bytes,
 *                        peek at the answer (MSG_PEEK) then read M bytes:
 *                        "unixio NAME RESULT sent=S received=R"
 *   unixsend PATH|@NAME N SIZE  N datagrams of SIZE bytes by sendto from one
 *                        unbound socket: "unixsend NAME ok=K" then the first
 *                        error's name
 *   unixdgio PATH|@NAME N SIZE M  from an autobound unix datagram socket, N
 *                        datagrams of SIZE bytes by sendto, a peek, then
 *                        datagrams read until M bytes came (5 s at most):
 *                        "unixdgio NAME RESULT sent=S received=R"
 *   unixdgcio PATH|@NAME N SIZE M  the same connected: connect, then send
 *   userve PATH N        listen on a unix stream socket PATH, accept N
 *                        connections one after the other: "userve PATH N"
 *   usink PATH N         as userve, each read to its end: "usink PATH N BYTES"
 *   ureply PATH N WANT REPLY  as userve, each: read WANT bytes, write REPLY,
 *                        read to its end: "ureply PATH N BYTES_READ"
 *   udecho PATH N REPLY  bind a unix datagram socket at PATH, take N
 *                        datagrams, answer each sender REPLY bytes:
 *                        "udecho PATH N BYTES_READ"
 *   upair N M            a socketpair: N bytes one way, M back:
 *                        "upair RESULT sent=S received=R"
 *   upass PATH PEER      listen on PATH, accept one connection, pass it a
 *                        stream socket connected to PEER (SCM_RIGHTS, one
 *                        byte), read to its end: "upass PATH RESULT"
 *   urecvfd PATH N M     connect to PATH, take the socket it passes, write N
 *                        bytes to it then read M: "urecvfd PATH RESULT sent=S
 *                        received=R"
 *   unixsplice PATH|@NAME N M  as unixio without the peek, the answer read
 *                        by splice() into a pipe
 *   sleep MS             wait
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

static const char *err_name(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ECONNREFUSED: return "ECONNREFUSED";
	case ENOENT: return "ENOENT";
	case EROFS: return "EROFS";
	case ENETUNREACH: return "ENETUNREACH";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EINVAL: return "EINVAL";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EINPROGRESS: return "EINPROGRESS";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	}
	return strerror(e);
}

static socklen_t inet_addr_of(const char *host, const char *port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((unsigned short)atoi(port));
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((unsigned short)atoi(port));
		return sizeof(*in6);
	}
	fprintf(stderr, "rf-net: bad address %s\n", host);
	exit(2);
}

static socklen_t unix_addr_of(const char *name, struct sockaddr_un *sun)
{
	size_t n = strlen(name);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (name[0] == '@') {
		if (n > sizeof(sun->sun_path))
			n = sizeof(sun->sun_path);
		memcpy(sun->sun_path + 1, name + 1, n - 1);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	}
	if (n >= sizeof(sun->sun_path))
		n = sizeof(sun->sun_path) - 1;
	memcpy(sun->sun_path, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

static int do_inet(const char *op, const char *host, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of(host, port, &ss);
	int type = (!strcmp(op, "tcp") || !strcmp(op, "tfo")) ? SOCK_STREAM : SOCK_DGRAM;
	int fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return errno;
	if (!strcmp(op, "udp"))
		rc = sendto(fd, "x", 1, 0, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
	else if (!strcmp(op, "tfo"))
		rc = sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&ss, len) < 0 ? errno : 0;
	else
		rc = connect(fd, (struct sockaddr *)&ss, len) ? errno : 0;
	close(fd);
	return rc;
}

static int do_unix(const char *op, const char *name)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(name, &sun);
	int dgram = !strcmp(op, "unixdgram");
	int fd = socket(AF_UNIX, (dgram ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return errno;
	if (dgram)
		rc = sendto(fd, "x", 1, 0, (struct sockaddr *)&sun, len) < 0 ? errno : 0;
	else
		rc = connect(fd, (struct sockaddr *)&sun, len) ? errno : 0;
	close(fd);
	return rc;
}

/* Write n bytes of 'u' to fd; *ret_sent: how many went. 0 or an errno. */
static int write_n(int fd, long long n, long long *ret_sent)
{
	static char buf[65536];
	ssize_t k;

	memset(buf, 'u', sizeof(buf));
	while (*ret_sent < n) {
		long long want = n - *ret_sent;

		k = write(fd, buf, want < (long long)sizeof(buf) ? (size_t)want : sizeof(buf));
		if (k < 0)
			return errno;
		*ret_sent += k;
	}
	return 0;
}

/* Write n bytes to name's peer, then peek at and read m. */
static int do_unixio(const char *name, long long n, long long m, long long *ret_sent,
		     long long *ret_rcvd)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(name, &sun);
	static char buf[65536];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;
	ssize_t k;

	*ret_sent = *ret_rcvd = 0;
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&sun, len)) {
		rc = errno;
		close(fd);
		return rc;
	}
	rc = write_n(fd, n, ret_sent);
	/* the whole answer seen once without taking it: not received twice */
	if (!rc && m > 0 && recv(fd, buf, m < (long long)sizeof(buf) ? (size_t)m : sizeof(buf),
				 MSG_PEEK | MSG_WAITALL) < 0)
		rc = errno;
	while (!rc && *ret_rcvd < m) {
		long long want = m - *ret_rcvd;

		k = read(fd, buf, want < (long long)sizeof(buf) ? (size_t)want : sizeof(buf));
		if (k <= 0) {
			rc = k < 0 ? errno : EPIPE;
			break;
		}
		*ret_rcvd += k;
	}
	close(fd);
	return rc;
}

/* Datagrams to name's peer from an autobound socket (connected first when
 * conn), then a peek and reads until m bytes came. */
static int do_unixdgio(const char *name, bool conn, int n, int size, long long m,
		       long long *ret_sent, long long *ret_rcvd)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(name, &sun);
	sa_family_t fam = AF_UNIX;
	struct timeval tv = { 5, 0 };
	static char buf[65536];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0, k;
	ssize_t r;

	*ret_sent = *ret_rcvd = 0;
	if (size > (int)sizeof(buf))
		size = (int)sizeof(buf);
	if (fd < 0 || bind(fd, (struct sockaddr *)&fam, sizeof(fam)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    (conn && connect(fd, (struct sockaddr *)&sun, len)))
		rc = errno;
	for (k = 0; !rc && k < n; k++) {
		r = conn ? send(fd, buf, (size_t)size, 0)
			 : sendto(fd, buf, (size_t)size, 0, (struct sockaddr *)&sun, len);
		if (r < 0)
			rc = errno;
		else
			*ret_sent += r;
	}
	if (!rc && m > 0 && recv(fd, buf, sizeof(buf), MSG_PEEK) < 0)
		rc = errno;
	while (!rc && *ret_rcvd < m) {
		r = recv(fd, buf, sizeof(buf), 0);
		if (r < 0)
			rc = errno;
		else
			*ret_rcvd += r;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Read up to n bytes of fd (fewer at its end): how many came. */
static long long read_n(int fd, long long n)
{
	static char buf[65536];
	long long got = 0;
	ssize_t r;

	while (got < n) {
		long long want = n - got;

		r = read(fd, buf, want < (long long)sizeof(buf) ? (size_t)want : sizeof(buf));
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

/* Accept n connections at path: each, read want bytes, answer reply
 * bytes, read to its end. How many came. */
static int do_ureply(const char *path, int n, long long want, long long reply,
		     long long *ret_bytes)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(path, &sun);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), k, c;
	long long sent;

	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len) || listen(fd, 64))
		return -1;
	for (k = 0; k < n && (c = accept(fd, NULL, NULL)) >= 0; k++) {
		sent = 0;
		*ret_bytes += read_n(c, want);
		write_n(c, reply, &sent);
		*ret_bytes += read_n(c, 1LL << 62);
		close(c);
	}
	close(fd);
	return k;
}

/* Bind a datagram socket at path, take n datagrams, answer each sender
 * reply bytes. How many came. */
static int do_udecho(const char *path, int n, int reply, long long *ret_bytes)
{
	struct sockaddr_un sun, from;
	socklen_t len = unix_addr_of(path, &sun), flen;
	static char buf[65536];
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), k;
	ssize_t r;

	unlink(path);
	if (reply > (int)sizeof(buf))
		reply = (int)sizeof(buf);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len))
		return -1;
	for (k = 0; k < n; k++) {
		flen = sizeof(from);
		r = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
		if (r < 0)
			break;
		*ret_bytes += r;
		if (reply > 0 && flen > offsetof(struct sockaddr_un, sun_path))
			sendto(fd, buf, (size_t)reply, 0, (struct sockaddr *)&from, flen);
	}
	close(fd);
	return k;
}

/* Accept n connections on a new listener at path (each read to its end
 * when ret_bytes): how many came. */
static int do_userve(const char *path, int n, long long *ret_bytes)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(path, &sun);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), k = 0, c;
	static char buf[65536];
	ssize_t r;

	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len) || listen(fd, 64))
		return -1;
	for (k = 0; k < n && (c = accept(fd, NULL, NULL)) >= 0; k++) {
		while (ret_bytes && (r = read(c, buf, sizeof(buf))) > 0)
			*ret_bytes += r;
		close(c);
	}
	close(fd);
	return k;
}

/* Read exactly n bytes of fd (0), else the errno (EPIPE: its end). */
static int read_all(int fd, long long n, long long *ret_got)
{
	static char buf[65536];
	ssize_t r;

	while (*ret_got < n) {
		long long want = n - *ret_got;

		r = read(fd, buf, want < (long long)sizeof(buf) ? (size_t)want : sizeof(buf));
		if (r <= 0)
			return r < 0 ? errno : EPIPE;
		*ret_got += r;
	}
	return 0;
}

/* A socketpair: n bytes from one end to the other, m back. */
static int do_upair(long long n, long long m, long long *ret_sent, long long *ret_rcvd)
{
	long long s[2] = { 0, 0 }, r[2] = { 0, 0 };
	int sv[2], rc;

	*ret_sent = *ret_rcvd = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return errno;
	/* both take counts to reach: one each way */
	rc = write_n(sv[0], n, &s[0]);
	if (!rc)
		rc = read_all(sv[1], n, &r[0]);
	if (!rc)
		rc = write_n(sv[1], m, &s[1]);
	if (!rc)
		rc = read_all(sv[0], m, &r[1]);
	close(sv[0]);
	close(sv[1]);
	*ret_sent = s[0] + s[1];
	*ret_rcvd = r[0] + r[1];
	return rc;
}

static int unix_connect(const char *name)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(name, &sun);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, len)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Accept one connection at path, pass it a socket connected to peer. */
static int do_upass(const char *path, const char *peer)
{
	struct sockaddr_un sun;
	socklen_t len = unix_addr_of(path, &sun);
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char c = 'f';
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), a, p, rc = 0;

	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, len) || listen(fd, 4))
		return errno;
	a = accept(fd, NULL, NULL);
	p = unix_connect(peer);
	if (a < 0 || p < 0)
		return errno;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p, sizeof(p));
	if (sendmsg(a, &m, 0) != 1)
		rc = errno;
	close(p);
	read_n(a, 1LL << 62);
	close(a);
	close(fd);
	return rc;
}

/* Connect to path, take the socket passed, n bytes to it, m from it. */
static int do_urecvfd(const char *path, long long n, long long mm, long long *ret_sent,
		      long long *ret_rcvd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char c;
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	int fd = unix_connect(path), p, rc;

	*ret_sent = *ret_rcvd = 0;
	if (fd < 0)
		return errno;
	if (recvmsg(fd, &m, MSG_CMSG_CLOEXEC) != 1 || !(cm = CMSG_FIRSTHDR(&m)) ||
	    cm->cmsg_type != SCM_RIGHTS) {
		close(fd);
		return EPROTO;
	}
	memcpy(&p, CMSG_DATA(cm), sizeof(p));
	rc = write_n(p, n, ret_sent);
	if (!rc)
		rc = read_all(p, mm, ret_rcvd);
	close(p);
	close(fd);
	return rc;
}

/* Connect to name, write n bytes, splice m of the answer into a pipe. */
static int do_unixsplice(const char *name, long long n, long long m, long long *ret_sent,
			 long long *ret_rcvd)
{
	static char buf[65536];
	int fd = unix_connect(name), pp[2], rc;
	ssize_t k;

	*ret_sent = *ret_rcvd = 0;
	if (fd < 0)
		return errno;
	if (pipe2(pp, O_CLOEXEC)) {
		close(fd);
		return errno;
	}
	rc = write_n(fd, n, ret_sent);
	while (!rc && *ret_rcvd < m) {
		k = splice(fd, NULL, pp[1], NULL, (size_t)(m - *ret_rcvd) < sizeof(buf) ?
					      (size_t)(m - *ret_rcvd) : sizeof(buf), 0);
		if (k <= 0) {
			rc = k < 0 ? errno : EPIPE;
			break;
		}
		*ret_rcvd += k;
		if (read(pp[0], buf, (size_t)k) != k)
			rc = EIO;
	}
	close(pp[0]);
	close(pp[1]);
	close(fd);
	return rc;
}

static int do_socket(int family, int type, int proto)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int do_write(const char *file, const char *text)
{
	int fd = open(file, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		rc = errno;
	close(fd);
	return rc;
}

/* Send n bytes, then read what the peer answers until it closes. */
static int do_upload(const char *host, const char *port, long long n, long long *ret_sent,
		     long long *ret_rcvd)
{
	struct sockaddr_storage ss;
	socklen_t len = inet_addr_of(host, port, &ss);
	static char buf[65536];
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;
	ssize_t k;

	*ret_sent = *ret_rcvd = 0;
	if (fd < 0)
		return errno;
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		rc = errno;
		close(fd);
		return rc;
	}
	rc = write_n(fd, n, ret_sent);
	shutdown(fd, SHUT_WR);
	while (!rc && (k = read(fd, buf, sizeof(buf))) > 0)
		*ret_rcvd += k;
	close(fd);
	return rc;
}

static void need(int argc, int i, int n)
{
	if (i + n >= argc) {
		fprintf(stderr, "rf-net: missing arguments\n");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		const char *op = argv[i];

		if (!strcmp(op, "tcp") || !strcmp(op, "udp") || !strcmp(op, "udpconn") ||
		    !strcmp(op, "tfo")) {
			need(argc, i, 2);
			printf("%s %s:%s %s\n", op, argv[i + 1], argv[i + 2],
			       err_name(do_inet(op, argv[i + 1], argv[i + 2])));
			i += 3;
		} else if (!strcmp(op, "unix") || !strcmp(op, "unixdgram")) {
			need(argc, i, 1);
			printf("%s %s %s\n", op, argv[i + 1], err_name(do_unix(op, argv[i + 1])));
			i += 2;
		} else if (!strcmp(op, "unixio")) {
			long long sent, rcvd;
			int e;

			need(argc, i, 3);
			e = do_unixio(argv[i + 1], atoll(argv[i + 2]), atoll(argv[i + 3]), &sent,
				      &rcvd);
			printf("unixio %s %s sent=%lld received=%lld\n", argv[i + 1], err_name(e),
			       sent, rcvd);
			i += 4;
		} else if (!strcmp(op, "unixsend")) {
			struct sockaddr_un sun;
			socklen_t len;
			static char dg[65536];
			int fd, n, size, k, ok = 0, e = 0;

			need(argc, i, 3);
			len = unix_addr_of(argv[i + 1], &sun);
			n = atoi(argv[i + 2]);
			size = atoi(argv[i + 3]);
			if (size > (int)sizeof(dg))
				size = (int)sizeof(dg);
			fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			for (k = 0; fd >= 0 && k < n && !e; k++) {
				if (sendto(fd, dg, (size_t)size, 0, (struct sockaddr *)&sun, len) < 0)
					e = errno;
				else
					ok++;
			}
			if (fd < 0)
				e = errno;
			else
				close(fd);
			printf("unixsend %s ok=%d%s%s\n", argv[i + 1], ok, e ? " " : "",
			       e ? err_name(e) : "");
			i += 4;
		} else if (!strcmp(op, "unixdgio") || !strcmp(op, "unixdgcio")) {
			long long sent, rcvd;
			int e;

			need(argc, i, 4);
			e = do_unixdgio(argv[i + 1], !strcmp(op, "unixdgcio"), atoi(argv[i + 2]),
					atoi(argv[i + 3]), atoll(argv[i + 4]), &sent, &rcvd);
			printf("%s %s %s sent=%lld received=%lld\n", op, argv[i + 1], err_name(e),
			       sent, rcvd);
			i += 5;
		} else if (!strcmp(op, "ureply")) {
			long long bytes = 0;
			int k;

			need(argc, i, 4);
			k = do_ureply(argv[i + 1], atoi(argv[i + 2]), atoll(argv[i + 3]),
				      atoll(argv[i + 4]), &bytes);
			printf("ureply %s %d %lld\n", argv[i + 1], k, bytes);
			i += 5;
		} else if (!strcmp(op, "udecho")) {
			long long bytes = 0;
			int k;

			need(argc, i, 3);
			k = do_udecho(argv[i + 1], atoi(argv[i + 2]), atoi(argv[i + 3]), &bytes);
			printf("udecho %s %d %lld\n", argv[i + 1], k, bytes);
			i += 4;
		} else if (!strcmp(op, "userve")) {
			need(argc, i, 2);
			printf("userve %s %d\n", argv[i + 1],
			       do_userve(argv[i + 1], atoi(argv[i + 2]), NULL));
			i += 3;
		} else if (!strcmp(op, "usink")) {
			long long bytes = 0;
			int k;

			need(argc, i, 2);
			k = do_userve(argv[i + 1], atoi(argv[i + 2]), &bytes);
			printf("usink %s %d %lld\n", argv[i + 1], k, bytes);
			i += 3;
		} else if (!strcmp(op, "upair")) {
			long long sent, rcvd;
			int e;

			need(argc, i, 2);
			e = do_upair(atoll(argv[i + 1]), atoll(argv[i + 2]), &sent, &rcvd);
			printf("upair %s sent=%lld received=%lld\n", err_name(e), sent, rcvd);
			i += 3;
		} else if (!strcmp(op, "upass")) {
			need(argc, i, 2);
			printf("upass %s %s\n", argv[i + 1],
			       err_name(do_upass(argv[i + 1], argv[i + 2])));
			i += 3;
		} else if (!strcmp(op, "urecvfd") || !strcmp(op, "unixsplice")) {
			long long sent, rcvd;
			int e;

			need(argc, i, 3);
			e = (!strcmp(op, "urecvfd") ? do_urecvfd : do_unixsplice)(
				argv[i + 1], atoll(argv[i + 2]), atoll(argv[i + 3]), &sent, &rcvd);
			printf("%s %s %s sent=%lld received=%lld\n", op, argv[i + 1], err_name(e),
			       sent, rcvd);
			i += 4;
		} else if (!strcmp(op, "ping4")) {
			printf("ping4 - %s\n", err_name(do_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP)));
			i += 1;
		} else if (!strcmp(op, "raw4")) {
			printf("raw4 - %s\n", err_name(do_socket(AF_INET, SOCK_RAW, IPPROTO_UDP)));
			i += 1;
		} else if (!strcmp(op, "write")) {
			need(argc, i, 2);
			printf("write %s %s\n", argv[i + 1], err_name(do_write(argv[i + 1], argv[i + 2])));
			i += 3;
		} else if (!strcmp(op, "burst")) {
			int n, k, ok = 0, denied = 0, other = 0;

			need(argc, i, 3);
			n = atoi(argv[i + 1]);
			for (k = 0; k < n; k++) {
				int e = do_inet("tcp", argv[i + 2], argv[i + 3]);

				if (!e)
					ok++;
				else if (e == EPERM)
					denied++;
				else
					other++;
			}
			printf("burst %s:%s ok=%d EPERM=%d other=%d\n", argv[i + 2], argv[i + 3],
			       ok, denied, other);
			i += 4;
		} else if (!strcmp(op, "upload")) {
			long long s, r;
			int e;

			need(argc, i, 3);
			e = do_upload(argv[i + 1], argv[i + 2], atoll(argv[i + 3]), &s, &r);
			printf("upload %s:%s %s sent=%lld received=%lld\n", argv[i + 1], argv[i + 2],
			       err_name(e), s, r);
			i += 4;
		} else if (!strcmp(op, "udpsend")) {
			struct sockaddr_storage ss;
			socklen_t len;
			static char dg[65507];
			int fd, n, size, k, ok = 0, e = 0;

			need(argc, i, 4);
			len = inet_addr_of(argv[i + 1], argv[i + 2], &ss);
			n = atoi(argv[i + 3]);
			size = atoi(argv[i + 4]);
			if (size > (int)sizeof(dg))
				size = (int)sizeof(dg);
			fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			for (k = 0; fd >= 0 && k < n && !e; k++) {
				if (sendto(fd, dg, (size_t)size, 0, (struct sockaddr *)&ss, len) < 0)
					e = errno;
				else
					ok++;
			}
			if (fd < 0)
				e = errno;
			else
				close(fd);
			printf("udpsend %s:%s ok=%d %s\n", argv[i + 1], argv[i + 2], ok, err_name(e));
			i += 5;
		} else if (!strcmp(op, "bulk")) {
			struct timespec t0, t1, c0, c1;
			long long s, r;
			double sec, cpu;
			int e;

			need(argc, i, 3);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
			e = do_upload(argv[i + 1], argv[i + 2], atoll(argv[i + 3]), &s, &r);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			sec = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
			cpu = (double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec);
			printf("bulk %s:%s %s %.1f %.0f\n", argv[i + 1], argv[i + 2], err_name(e),
			       sec > 0 ? (double)s / sec / 1e6 : 0.0, s > 0 ? cpu / ((double)s / 1e6) : 0.0);
			i += 4;
		} else if (!strcmp(op, "sink")) {
			struct sockaddr_storage ss;
			socklen_t len;
			static char sb[262144];
			long long total = 0;
			int lfd, one = 1, k;

			need(argc, i, 3);
			len = inet_addr_of(argv[i + 1], argv[i + 2], &ss);
			lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 64)) {
				printf("sink %s:%s %s\n", argv[i + 1], argv[i + 2], err_name(errno));
				return 1;
			}
			for (k = 0; k < atoi(argv[i + 3]); k++) {
				int c = accept(lfd, NULL, NULL);
				ssize_t n;

				while (c >= 0 && (n = read(c, sb, sizeof(sb))) > 0)
					total += n;
				if (c >= 0)
					close(c);
			}
			close(lfd);
			printf("sink %s:%s %lld\n", argv[i + 1], argv[i + 2], total);
			i += 4;
		} else if (!strcmp(op, "sleep")) {
			struct timespec ts;
			long ms;

			need(argc, i, 1);
			ms = atol(argv[i + 1]);
			ts.tv_sec = ms / 1000;
			ts.tv_nsec = (ms % 1000) * 1000000L;
			nanosleep(&ts, NULL);
			i += 2;
		} else {
			fprintf(stderr, "rf-net: unknown operation %s\n", op);
			return 2;
		}
	}
	return 0;
}
