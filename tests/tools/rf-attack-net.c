// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-attack-net: one network, signal, scheduling or IPC attack per run, as
 * an attacker inside a sandbox would try it (tests/attack/net.list).
 *
 *   rf-attack-net ATTEMPT ARGS...
 *
 * Exit status: 0 the attempt succeeded (the forbidden thing happened),
 * 10 the kernel refused it (EPERM, EACCES, a signal that never arrived,
 * an outside object that is not visible from here), 3 this kernel cannot
 * do it even unconfined (the attempt does not apply), anything else a
 * setup error (stderr says which). One line on stdout says what happened.
 *
 * Two helpers run OUTSIDE every sandbox:
 *   victim DIR          an outside process of the same uid: its pid in
 *                       DIR/pid, the signals it gets as DIR/sig-N, its death
 *                       as DIR/exit-PID (and a new one); SysV shm/msg/sem, a
 *                       POSIX queue and shm object (keys and ids in DIR), a unix stream
 *                       listener DIR/sock. SIGTERM ends it and removes them.
 *   with-stdin KIND -- CMD ARGS...
 *                       CMD with fd 0 a socket made here: unix-stream (not
 *                       connected) or unix-pair (one end of a socketpair).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mqueue.h>
#include <poll.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>

#define EXIT_REFUSED 10
#define EXIT_SETUP 2
#define EXIT_NA 3

#ifndef IPV6_RTHDR
#define IPV6_RTHDR 57
#endif
#ifndef IPV6_2292RTHDR
#define IPV6_2292RTHDR 5
#endif
#ifndef IPV6_2292PKTOPTIONS
#define IPV6_2292PKTOPTIONS 6
#endif
#ifndef IPV6_HOPOPTS
#define IPV6_HOPOPTS 54
#endif
#ifndef IPV6_DSTOPTS
#define IPV6_DSTOPTS 59
#endif
#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_VALUE_BE7 ((2 << 13) | 7)

/* The address a routing header sends to: RFC 6666's discard-only prefix
 * (off the host only through a default route; no route: ENETUNREACH). */
static const char *segment6 = "100::1";
static const char *segment4 = "192.0.2.1";   /* TEST-NET-1 */

/* ESRCH: the outside process cannot even be named from here (a PID
 * namespace of the sandbox's own); unconfined, where the attempt must
 * work, it fails the run all the same. */
static int verdict(const char *what, int e)
{
	printf("%s: %s%s\n", what, e ? strerror(e) : "ok",
	       e == ESRCH ? " (not visible from here)" : "");
	if (!e)
		return 0;
	return e == EPERM || e == EACCES || e == ESRCH ? EXIT_REFUSED : EXIT_SETUP;
}

static int setup(const char *what)
{
	fprintf(stderr, "rf-attack-net: %s: %s\n", what, strerror(errno));
	return EXIT_SETUP;
}

/* ---- files a victim leaves in its directory ---- */

static int read_num(const char *dir, const char *name, long *ret)
{
	char p[512], buf[64];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	*ret = strtol(buf, NULL, 0);
	return 0;
}

static int write_num(const char *dir, const char *name, long v)
{
	char p[512], tmp[520];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", p);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%ld\n", v);
	if (fclose(f) || rename(tmp, p))
		return -errno;
	return 0;
}

static bool exists(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Wait up to 1 s for DIR/name: 0 it came, EXIT_REFUSED it did not. */
static int await_file(const char *dir, const char *name, const char *what)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	for (i = 0; i < 50; i++) {
		if (exists(dir, name)) {
			printf("%s: delivered (%s)\n", what, name);
			return 0;
		}
		nanosleep(&ts, NULL);
	}
	printf("%s: never arrived\n", what);
	return EXIT_REFUSED;
}

/* An earlier attempt's DIR/name is gone before this one signals. */
static int forget(const char *dir, const char *name)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (unlink(p) && errno != ENOENT) {
		fprintf(stderr, "rf-attack-net: unlink %s: %s\n", p, strerror(errno));
		return -1;
	}
	return 0;
}

static int victim_pid(const char *dir, pid_t *ret)
{
	long v;

	if (read_num(dir, "pid", &v) < 0 || v <= 1) {
		fprintf(stderr, "rf-attack-net: no victim in %s\n", dir);
		return EXIT_SETUP;
	}
	*ret = (pid_t)v;
	return 0;
}

/* ---- the victim (outside) ---- */

static char sig_paths[65][512];

static void on_signal(int sig)
{
	int fd = open(sig_paths[sig], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd >= 0)
		close(fd);
}

static void victim_child(const char *dir)
{
	static const int sigs[] = { SIGIO, SIGURG, SIGUSR1, SIGUSR2, SIGWINCH };
	struct sigaction sa;
	size_t i;

	/* No capabilities: a peer of the sandbox (same uid, same privilege),
	 * not a process the capability rules already shield. */
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		_exit(EXIT_SETUP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		snprintf(sig_paths[sigs[i]], sizeof(sig_paths[0]), "%s/sig-%d", dir, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	for (;;)
		pause();
}

struct victim_ipc {
	int shmid, msqid, semid;
	char mq[64];
};

static int victim_ipc_make(const char *dir, struct victim_ipc *v)
{
	key_t base = (key_t)(0x52460000 | (getpid() & 0xffff));
	struct { long mtype; char text[16]; } m = { 1, "rf-victim" };
	struct mq_attr qa = { .mq_maxmsg = 4, .mq_msgsize = 64 };
	char *mem;
	mqd_t q;

	v->shmid = shmget(base, 4096, IPC_CREAT | IPC_EXCL | 0600);
	v->msqid = msgget(base + 1, IPC_CREAT | IPC_EXCL | 0600);
	v->semid = semget(base + 2, 1, IPC_CREAT | IPC_EXCL | 0600);
	if (v->shmid < 0 || v->msqid < 0 || v->semid < 0)
		return -errno;
	mem = shmat(v->shmid, NULL, 0);
	if (mem == (void *)-1)
		return -errno;
	strcpy(mem, "rf-victim");
	shmdt(mem);
	msgsnd(v->msqid, &m, sizeof(m.text), IPC_NOWAIT);
	snprintf(v->mq, sizeof(v->mq), "/rf-victim-%d", (int)getpid());
	q = mq_open(v->mq, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600, &qa);
	if (q == (mqd_t)-1)
		return -errno;
	mq_close(q);
	/* A POSIX shm object of the same name: a file in the host's /dev/shm. */
	{
		int fd = shm_open(v->mq, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0644);

		if (fd < 0)
			return -errno;
		if (write(fd, "rf-victim", 9) != 9) {
			close(fd);
			return -EIO;
		}
		close(fd);
	}
	if (write_num(dir, "shmkey", base) || write_num(dir, "shmid", v->shmid) ||
	    write_num(dir, "msgkey", base + 1) || write_num(dir, "msqid", v->msqid) ||
	    write_num(dir, "semkey", base + 2) || write_num(dir, "semid", v->semid) ||
	    write_num(dir, "mqpid", getpid()))
		return -EIO;
	return 0;
}

static void victim_ipc_remove(const struct victim_ipc *v)
{
	if (v->shmid >= 0)
		shmctl(v->shmid, IPC_RMID, NULL);
	if (v->msqid >= 0)
		msgctl(v->msqid, IPC_RMID, NULL);
	if (v->semid >= 0)
		semctl(v->semid, 0, IPC_RMID);
	if (v->mq[0]) {
		mq_unlink(v->mq);
		shm_unlink(v->mq);
	}
}

static int victim_listen(const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", dir);
	unlink(a.sun_path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 16))
		return -errno;
	return s;
}

static int do_victim(const char *dir)
{
	struct victim_ipc v = { -1, -1, -1, "" };
	char name[32];
	sigset_t set;
	pid_t child;
	int sig, s, r;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	child = fork();
	if (child < 0)
		return setup("fork");
	if (child == 0) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		victim_child(dir);
	}
	r = victim_ipc_make(dir, &v);
	s = victim_listen(dir);
	if (r < 0 || s < 0 || write_num(dir, "pid", child) || write_num(dir, "ready", 1)) {
		fprintf(stderr, "rf-attack-net: victim setup: %s\n", strerror(r < 0 ? -r : -s));
		kill(child, SIGKILL);
		victim_ipc_remove(&v);
		return EXIT_SETUP;
	}
	for (;;) {
		if (sigwait(&set, &sig))
			continue;
		if (sig != SIGCHLD)
			break;
		if (waitpid(child, NULL, WNOHANG) != child)
			continue;
		/* Killed: say so, and a new target for the next attempt. */
		snprintf(name, sizeof(name), "exit-%d", (int)child);
		write_num(dir, name, 1);
		child = fork();
		if (child == 0) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			victim_child(dir);
		}
		if (child < 0 || write_num(dir, "pid", child))
			break;
	}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	victim_ipc_remove(&v);
	close(s);
	return 0;
}

static int do_with_stdin(const char *kind, char **cmd)
{
	int fds[2], s;

	if (!strcmp(kind, "unix-stream")) {
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if (s < 0)
			return setup("socket");
	} else if (!strcmp(kind, "unix-pair")) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			return setup("socketpair");
		s = fds[0];  /* the other end stays open here, across exec */
	} else {
		fprintf(stderr, "rf-attack-net: with-stdin: unknown kind %s\n", kind);
		return EXIT_SETUP;
	}
	if (dup2(s, 0) < 0)
		return setup("dup2");
	execvp(cmd[0], cmd);
	return setup(cmd[0]);
}

/* ---- network: routing headers and their neighbours ---- */

static int udp6_to(const char *addr, int port, struct sockaddr_in6 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	sa->sin6_port = htons((uint16_t)port);
	if (inet_pton(AF_INET6, addr, &sa->sin6_addr) != 1) {
		fprintf(stderr, "rf-attack-net: bad address %s\n", addr);
		return -EINVAL;
	}
	return 0;
}

/* A type-4 (segment routing) header with one segment: the kernel sends
 * the packet to that segment, the address written goes inside. */
static size_t make_srh(uint8_t *b, const char *seg)
{
	memset(b, 0, 24);
	b[1] = 2;   /* hdrlen: 2 * 8 bytes after the first 8 */
	b[2] = 4;   /* type 4 */
	b[3] = 0;   /* segments_left */
	b[4] = 0;   /* first_segment */
	inet_pton(AF_INET6, seg, b + 8);
	return 24;
}

/* A type-2 (mobile IPv6) header: one address, segments_left 1. */
static size_t make_rh2(uint8_t *b, const char *seg)
{
	memset(b, 0, 24);
	b[1] = 2;
	b[2] = 2;
	b[3] = 1;
	inet_pton(AF_INET6, seg, b + 8);
	return 24;
}

/* Sent (a TCP SYN: in progress): it went to the header's address. No
 * route to that address: nothing left, the attempt does not apply here. */
static int judge_send(const char *what, int e)
{
	if (e == 0 || e == EINPROGRESS) {
		printf("%s: sent toward the header's address (%s)\n", what,
		       e ? strerror(e) : "sent");
		return 0;
	}
	if (e == ENETUNREACH || e == EHOSTUNREACH) {
		printf("%s: the header's address has no route here (%s)\n", what, strerror(e));
		return EXIT_NA;
	}
	return verdict(what, e);
}


/* A receiver on the allowed address itself (binding is not confined):
 * a datagram the routing header sent elsewhere never reaches it. */
static int receiver = -1;

static bool received(int ms)
{
	struct pollfd p = { receiver, POLLIN, 0 };
	char b[8];

	if (poll(&p, 1, ms) != 1)
		return false;
	return recv(receiver, b, sizeof(b), MSG_DONTWAIT) > 0;
}

/* Control: the plain datagram to the allowed address works and arrives. */
static int udp6_plain(int s, const struct sockaddr_in6 *sa)
{
	receiver = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (receiver < 0 || bind(receiver, (const struct sockaddr *)sa, sizeof(*sa))) {
		fprintf(stderr, "rf-attack-net: binding the receiver: %s\n", strerror(errno));
		return EXIT_SETUP;
	}
	if (sendto(s, "rf", 2, 0, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		fprintf(stderr, "rf-attack-net: the plain datagram already fails: %s\n",
			strerror(errno));
		return EXIT_SETUP;
	}
	if (!received(1000)) {
		fprintf(stderr, "rf-attack-net: the plain datagram did not arrive\n");
		return EXIT_SETUP;
	}
	return 0;
}

/* A datagram with a routing header: sent, and not at the allowed address. */
static int judge_routed(const char *what, int e)
{
	if (e == 0 && receiver >= 0 && received(300)) {
		printf("%s: arrived at the address written: the header was ignored\n", what);
		return EXIT_NA;
	}
	return judge_send(what, e);
}

static int do_udp6_send(const char *addr, int port)
{
	struct sockaddr_in6 sa;
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), hops = 9;

	if (s < 0 || udp6_to(addr, port, &sa))
		return setup("socket");
	/* an option that redirects nothing stays allowed */
	if (setsockopt(s, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)))
		return verdict("udp6 setsockopt IPV6_UNICAST_HOPS", errno);
	return verdict("udp6 send to an allowed address",
		       sendto(s, "rf", 2, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0);
}

static int do_rthdr_udp(const char *addr, int port)
{
	struct sockaddr_in6 sa;
	uint8_t rh[24];
	size_t n = make_srh(rh, segment6);
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (s < 0 || udp6_to(addr, port, &sa))
		return setup("socket");
	r = udp6_plain(s, &sa);
	if (r)
		return r;
	if (setsockopt(s, IPPROTO_IPV6, IPV6_RTHDR, rh, (socklen_t)n))
		return verdict("setsockopt IPV6_RTHDR (type 4)", errno);
	return judge_routed("udp6 with a routing header",
			  sendto(s, "rf", 2, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0);
}

static int do_rthdr_tcp(const char *addr, int port)
{
	struct sockaddr_in6 sa;
	uint8_t rh[24];
	size_t n = make_srh(rh, segment6);
	int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (s < 0 || udp6_to(addr, port, &sa))
		return setup("socket");
	if (setsockopt(s, IPPROTO_IPV6, IPV6_RTHDR, rh, (socklen_t)n))
		return verdict("setsockopt IPV6_RTHDR (type 4) on tcp", errno);
	return judge_send("tcp6 connect with a routing header",
			  connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0);
}

/* A routing header in ancillary data: cmsg_type IPV6_RTHDR or the RFC
 * 2292 IPV6_2292RTHDR. Only type 2 is taken there (kernels with MIP6). */
static int do_rthdr_cmsg(const char *addr, int port, int type)
{
	union { char buf[CMSG_SPACE(24)]; struct cmsghdr align; } u;
	struct sockaddr_in6 sa;
	struct iovec iov = { "rf", 2 };
	struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov,
			    .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (s < 0 || udp6_to(addr, port, &sa))
		return setup("socket");
	r = udp6_plain(s, &sa);
	if (r)
		return r;
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(24);
	make_rh2(CMSG_DATA(c), segment6);
	r = sendmsg(s, &m, 0) < 0 ? errno : 0;
	if (r == EINVAL) {
		printf("sendmsg with a type-2 routing header: EINVAL (no MIP6 in this kernel)\n");
		return EXIT_NA;
	}
	return judge_routed("udp6 sendmsg with a routing header cmsg", r);
}

/* RFC 2292's sticky form: a buffer of cmsgs given to setsockopt. */
static int do_rthdr_pktoptions(const char *addr, int port)
{
	union { char buf[CMSG_SPACE(24)]; struct cmsghdr align; } u;
	struct cmsghdr *c = &u.align;
	struct sockaddr_in6 sa;
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (s < 0 || udp6_to(addr, port, &sa))
		return setup("socket");
	r = udp6_plain(s, &sa);
	if (r)
		return r;
	memset(&u, 0, sizeof(u));
	c->cmsg_level = IPPROTO_IPV6;
	c->cmsg_type = IPV6_RTHDR;
	c->cmsg_len = CMSG_LEN(24);
	make_rh2(CMSG_DATA(c), segment6);
	if (setsockopt(s, IPPROTO_IPV6, IPV6_2292PKTOPTIONS, u.buf, sizeof(u.buf))) {
		if (errno == EINVAL) {
			printf("IPV6_2292PKTOPTIONS with a type-2 header: EINVAL (no MIP6)\n");
			return EXIT_NA;
		}
		return verdict("setsockopt IPV6_2292PKTOPTIONS", errno);
	}
	return judge_routed("udp6 with sticky RFC 2292 options",
			  sendto(s, "rf", 2, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? errno : 0);
}

/* Hop-by-hop and destination options: privileged (CAP_NET_RAW). */
static int do_ext_opts(int optname, const char *what)
{
	uint8_t o[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };  /* PadN */
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return setup("socket");
	return verdict(what, setsockopt(s, IPPROTO_IPV6, optname, o, sizeof(o)) ? errno : 0);
}

/* IPv4 loose source route: 4 bytes of option header + the first hop. */
static size_t make_lsrr(uint8_t *o, const char *hop)
{
	memset(o, 0, 12);
	o[0] = IPOPT_NOP;
	o[1] = IPOPT_LSRR;
	o[2] = 7;
	o[3] = 4;
	inet_pton(AF_INET, hop, o + 4);
	o[8] = IPOPT_END;
	return 12;
}

static int udp4_to(const char *addr, int port, struct sockaddr_in *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, addr, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

static int do_ip_lsrr(const char *addr, int port, bool cmsg)
{
	union { char buf[CMSG_SPACE(12)]; struct cmsghdr align; } u;
	struct sockaddr_in sa;
	struct iovec iov = { "rf", 2 };
	struct msghdr m = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov,
			    .msg_iovlen = 1 };
	uint8_t o[12];
	size_t n = make_lsrr(o, segment4);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct cmsghdr *c;

	if (s < 0 || udp4_to(addr, port, &sa))
		return setup("socket");
	if (sendto(s, "rf", 2, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return setup("the plain datagram");
	if (!cmsg) {
		if (setsockopt(s, IPPROTO_IP, IP_OPTIONS, o, (socklen_t)n))
			return verdict("setsockopt IP_OPTIONS (LSRR)", errno);
		return judge_send("udp4 with a source route",
				  sendto(s, "rf", 2, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0 ?
				  errno : 0);
	}
	memset(&u, 0, sizeof(u));
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_RETOPTS;
	c->cmsg_len = CMSG_LEN(n);
	memcpy(CMSG_DATA(c), o, n);
	return judge_send("udp4 sendmsg with a source route cmsg",
			  sendmsg(s, &m, 0) < 0 ? errno : 0);
}

/* fd 0, a unix stream socket made outside, connected to path. */
static int do_unix_stdin_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int type = 0, dom = 0;
	socklen_t l = sizeof(int);

	if (getsockopt(0, SOL_SOCKET, SO_DOMAIN, &dom, &l) || dom != AF_UNIX) {
		fprintf(stderr, "rf-attack-net: fd 0 is not a unix socket\n");
		return EXIT_SETUP;
	}
	l = sizeof(int);
	getsockopt(0, SOL_SOCKET, SO_TYPE, &type, &l);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	return verdict("connect of the inherited unix stream socket",
		       connect(0, (struct sockaddr *)&a, sizeof(a)) ? errno : 0);
}

/* The twin: the inherited socket is already connected; it still works. */
static int do_unix_stdin_write(void)
{
	return verdict("write to the inherited connected socket",
		       write(0, "rf", 2) == 2 ? 0 : errno);
}

/* ---- sockets handed in (SCM_RIGHTS) ---- */

/* Outside: a broker at path that hands every unix client the socket it
 * asks for ('i': an unconnected TCP socket, 'u': one end of a unix
 * socketpair, 'x': an unconnected unix stream socket), and a TCP server at 127.0.0.1:port that greets with
 * "rf-server" (a destination no policy of net.list allows); path.ready
 * once both listen. Runs until killed. */
static int broker_hand(int c)
{
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } ctl;
	char kind = 0;
	struct iovec iov = { .iov_base = &kind, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b) };
	int pair[2] = { -1, -1 }, fd;

	if (read(c, &kind, 1) != 1)
		return -1;
	if (kind == 'u' && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0)
		fd = pair[0];
	else if (kind == 'x')
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	else
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ctl, 0, sizeof(ctl));
	ctl.h.cmsg_level = SOL_SOCKET;
	ctl.h.cmsg_type = SCM_RIGHTS;
	ctl.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&ctl.h), &fd, sizeof(int));
	if (sendmsg(c, &m, MSG_NOSIGNAL) != 1)
		perror("rf-attack-net: sock-broker: sendmsg");
	close(fd);
	if (pair[1] >= 0)
		close(pair[1]);
	return 0;
}

static int do_sock_broker(const char *path, int port)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct sockaddr_in t = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct pollfd p[2] = { { .events = POLLIN }, { .events = POLLIN } };
	char ready[sizeof(a.sun_path) + 8];
	int one = 1, c, fd;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	snprintf(ready, sizeof(ready), "%s.ready", path);
	p[0].fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	p[1].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p[0].fd < 0 || p[1].fd < 0 || bind(p[0].fd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(p[0].fd, 16) || chmod(path, 0666) ||
	    setsockopt(p[1].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(p[1].fd, (struct sockaddr *)&t, sizeof(t)) || listen(p[1].fd, 16))
		return setup("sock-broker: listen");
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return setup("sock-broker: ready file");
	close(fd);
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			c = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0)
				continue;
			if (i == 0)
				broker_hand(c);
			else if (write(c, "rf-server", 9) < 0)
				perror("rf-attack-net: sock-broker: greet");
			close(c);
		}
	}
}

/* Inside: ask the broker at path for a socket of kind: 'inet' is then
 * connected to 127.0.0.1:target, which the policy does not allow (0 once
 * the outside server's greeting arrived); 'xunix' (unconnected) to the
 * unix name target, which it does not allow either; 'unix' (connected, a
 * socketpair's end) only arrives. A socket the kernel would not install
 * (MSG_CTRUNC, no fd) is refused. */
static int do_sock_passed(const char *path, const char *kind, const char *target)
{
	int port = atoi(target);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct sockaddr_in t = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } ctl;
	char k = kind[0], byte, buf[16] = "";
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b) };
	struct cmsghdr *h;
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), fd = -1;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a)) || write(s, &k, 1) != 1)
		return setup("sock-passed: the broker");
	memset(&ctl, 0, sizeof(ctl));
	if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) != 1)
		return setup("sock-passed: recvmsg");
	h = CMSG_FIRSTHDR(&m);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(h), sizeof(int));
	if (fd < 0 && !(m.msg_flags & MSG_CTRUNC)) {
		fprintf(stderr, "rf-attack-net: sock-passed: the broker sent no fd\n");
		return EXIT_SETUP;
	}
	if (fd < 0)
		return verdict("receive a socket made outside (not installed: MSG_CTRUNC)", EPERM);
	if (k == 'x') {
		struct sockaddr_un u = { .sun_family = AF_UNIX };

		snprintf(u.sun_path, sizeof(u.sun_path), "%s", target);
		return verdict("connect of the unix socket made outside",
			       connect(fd, (struct sockaddr *)&u, sizeof(u)) ? errno : 0);
	}
	if (k != 'i')
		return verdict("receive a unix socket made outside", 0);
	if (connect(fd, (struct sockaddr *)&t, sizeof(t)))
		return verdict("connect of the socket made outside", errno);
	if (read(fd, buf, sizeof(buf) - 1) != 9 || strcmp(buf, "rf-server")) {
		printf("connected to 127.0.0.1:%d, but no greeting\n", port);
		return EXIT_SETUP;
	}
	printf("connect 127.0.0.1:%d through a socket made outside: reached the server\n", port);
	return 0;
}

/* ---- signals through file ownership ---- */

static int own_file(int fd, pid_t to, int sig)
{
	int fl = fcntl(fd, F_GETFL);

	if (fcntl(fd, F_SETOWN, to) || fcntl(fd, F_SETSIG, sig) ||
	    fcntl(fd, F_SETFL, fl | O_ASYNC))
		return -errno;
	return 0;
}

/* F_SETOWN + O_ASYNC on a pipe: the write sends sig to the owner. */
static int do_sigio(const char *dir, int sig)
{
	char name[32];
	pid_t v;
	int p[2], r = victim_pid(dir, &v);

	if (r)
		return r;
	if (pipe2(p, O_CLOEXEC))
		return setup("pipe");
	r = own_file(p[0], v, sig);
	if (r)
		return verdict("F_SETOWN to the outside process", -r);
	snprintf(name, sizeof(name), "sig-%d", sig ? sig : SIGIO);
	if (forget(dir, name))
		return EXIT_SETUP;
	if (write(p[1], "x", 1) != 1)
		return setup("write");
	if (sig == SIGKILL) {
		snprintf(name, sizeof(name), "exit-%d", (int)v);
		return await_file(dir, name, "SIGKILL through SIGIO");
	}
	return await_file(dir, name, "SIGIO to the outside process");
}

/* dnotify: a change in a directory signals its owner. */
static int do_dnotify(const char *dir)
{
	char sub[512], f[560];
	pid_t v;
	int d, r = victim_pid(dir, &v);

	if (r)
		return r;
	snprintf(sub, sizeof(sub), "%s/dn-%d", dir, (int)getpid());
	if (mkdir(sub, 0700) && errno != EEXIST)
		return setup("mkdir");
	d = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return setup("open dir");
	if (fcntl(d, F_SETOWN, v) || fcntl(d, F_SETSIG, SIGUSR1))
		return verdict("F_SETOWN on a directory", errno);
	if (forget(dir, "sig-10"))
		return EXIT_SETUP;
	if (fcntl(d, F_NOTIFY, DN_CREATE))
		return verdict("F_NOTIFY", errno);
	snprintf(f, sizeof(f), "%s/new", sub);
	close(open(f, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	r = await_file(dir, "sig-10", "dnotify signal to the outside process");
	unlink(f);
	rmdir(sub);
	return r;
}

static volatile sig_atomic_t got_sigio;
static void on_sigio(int sig)
{
	(void)sig;
	got_sigio = 1;
}

/* The twin: SIGIO to a process of the same sandbox (itself) arrives. */
static int do_sigio_self(void)
{
	struct sigaction sa = { .sa_handler = on_sigio };
	int p[2], r, i;

	sigaction(SIGURG, &sa, NULL);
	if (pipe2(p, O_CLOEXEC))
		return setup("pipe");
	r = own_file(p[0], getpid(), SIGURG);
	if (r)
		return verdict("F_SETOWN to itself", -r);
	if (write(p[1], "x", 1) != 1)
		return setup("write");
	for (i = 0; i < 100 && !got_sigio; i++)
		usleep(10000);
	return verdict("SIGIO to itself", got_sigio ? 0 : ETIMEDOUT);
}

/* ---- scheduling and limits of another process ---- */

static int sched_attempt(const char *what, pid_t pid)
{
	struct sched_param sp = { 0 };
	struct rlimit rl;
	cpu_set_t cpus;
	long r;

	if (!strcmp(what, "setpriority")) {
		errno = 0;
		r = getpriority(PRIO_PROCESS, (id_t)pid);
		if (r == -1 && errno)
			return errno == ESRCH ? verdict("getpriority", errno) : setup("getpriority");
		r = setpriority(PRIO_PROCESS, (id_t)pid, (int)(r < 19 ? r + 1 : r));
	} else if (!strcmp(what, "prlimit")) {
		if (prlimit(pid, RLIMIT_CORE, NULL, &rl))
			return errno == ESRCH ? verdict("prlimit (read)", errno) : setup("prlimit (read)");
		rl.rlim_cur = 0;
		r = prlimit(pid, RLIMIT_CORE, &rl, NULL);
	} else if (!strcmp(what, "ioprio")) {
		r = syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, pid, IOPRIO_VALUE_BE7);
	} else if (!strcmp(what, "setscheduler")) {
		r = sched_setscheduler(pid, SCHED_BATCH, &sp);
	} else if (!strcmp(what, "setaffinity")) {
		if (sched_getaffinity(pid, sizeof(cpus), &cpus))
			return errno == ESRCH ? verdict("sched_getaffinity", errno) : setup("sched_getaffinity");
		r = sched_setaffinity(pid, sizeof(cpus), &cpus);
	} else if (!strcmp(what, "setattr")) {
		uint32_t a[14] = { 56 };  /* size; policy SCHED_OTHER, nice 0 */
		r = syscall(SYS_sched_setattr, pid, a, 0);
	} else {
		fprintf(stderr, "rf-attack-net: unknown scheduling attempt %s\n", what);
		return EXIT_SETUP;
	}
	return verdict(what, r < 0 ? errno : 0);
}

/* ---- SysV IPC and POSIX queues of an outside process ---- */

/* Found by key, else by id: the id space is the IPC namespace's. */
static int do_sysv(const char *dir, const char *kind)
{
	long key, id;
	int h = -1;

	if (read_num(dir, !strcmp(kind, "shm") ? "shmkey" : !strcmp(kind, "msg") ? "msgkey" :
			  "semkey", &key) ||
	    read_num(dir, !strcmp(kind, "shm") ? "shmid" : !strcmp(kind, "msg") ? "msqid" :
			  "semid", &id))
		return setup("the victim's IPC ids");
	if (!strcmp(kind, "shm")) {
		char *m;

		h = shmget((key_t)key, 0, 0);
		m = shmat(h >= 0 ? h : (int)id, NULL, SHM_RDONLY);
		if (m == (void *)-1)
			return errno == EINVAL || errno == ENOENT || errno == EIDRM ?
				(printf("shm: not visible\n"), EXIT_REFUSED) :
				verdict("shmat of the outside segment", errno);
		printf("shm: read \"%.9s\" from the outside segment\n", m);
		return strncmp(m, "rf-victim", 9) ? EXIT_SETUP : 0;
	}
	if (!strcmp(kind, "msg")) {
		struct { long mtype; char text[16]; } m = { 1, "rf-attacker" };

		h = msgget((key_t)key, 0);
		if (msgsnd(h >= 0 ? h : (int)id, &m, sizeof(m.text), IPC_NOWAIT))
			return errno == EINVAL || errno == ENOENT || errno == EIDRM ?
				(printf("msg: not visible\n"), EXIT_REFUSED) :
				verdict("msgsnd to the outside queue", errno);
		printf("msg: sent to the outside queue\n");
		return 0;
	}
	{
		struct sembuf op = { 0, 1, IPC_NOWAIT };

		h = semget((key_t)key, 0, 0);
		if (semop(h >= 0 ? h : (int)id, &op, 1))
			return errno == EINVAL || errno == ENOENT || errno == EIDRM ?
				(printf("sem: not visible\n"), EXIT_REFUSED) :
				verdict("semop on the outside set", errno);
		printf("sem: changed the outside semaphore\n");
		return 0;
	}
}

static int do_mq(const char *dir)
{
	char name[64];
	long pid;
	mqd_t q;

	if (read_num(dir, "mqpid", &pid))
		return setup("the victim's queue");
	snprintf(name, sizeof(name), "/rf-victim-%ld", pid);
	q = mq_open(name, O_WRONLY | O_CLOEXEC);
	if (q == (mqd_t)-1)
		return errno == ENOENT ? (printf("mq: not visible\n"), EXIT_REFUSED) :
					 verdict("mq_open of the outside queue", errno);
	return verdict("mq_send to the outside queue", mq_send(q, "rf", 2, 0) ? errno : 0);
}

/* The victim's POSIX shm object, by name (shm_open: /dev/shm). */
static int do_posix_shm(const char *dir)
{
	char name[64], buf[16] = "";
	long pid;
	int fd;

	if (read_num(dir, "mqpid", &pid))
		return setup("the victim's shm object");
	snprintf(name, sizeof(name), "/rf-victim-%ld", pid);
	fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? (printf("posix-shm: %s not visible\n", name),
					  EXIT_REFUSED) :
					 verdict("shm_open of the outside object", errno);
	if (read(fd, buf, 9) != 9 || strncmp(buf, "rf-victim", 9)) {
		close(fd);
		return setup("reading the outside shm object");
	}
	close(fd);
	printf("posix-shm: read \"%s\" from the outside object\n", buf);
	return 0;
}

/* The twin: a POSIX shm object of the sandbox's own, written and read
 * back through a second shm_open. */
static int do_posix_shm_own(void)
{
	char name[64], buf[4] = "";
	int fd, r = 0;

	snprintf(name, sizeof(name), "/rf-own-%d", (int)getpid());
	fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, "own", 3) != 3)
		r = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	fd = r ? -1 : shm_open(name, O_RDONLY | O_CLOEXEC, 0);
	if (!r && (fd < 0 || read(fd, buf, 3) != 3 || strncmp(buf, "own", 3)))
		r = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	shm_unlink(name);
	return verdict("own POSIX shm object", r);
}

/* /proc/PID/FILE of the outside victim (or of self): gone from a PID
 * namespace's own /proc (ENOENT), refused (EACCES/EPERM), or read. */
static int do_proc(const char *dir, const char *file)
{
	char path[96], buf[256];
	pid_t v = 0;
	ssize_t n;
	int fd, r;

	if (strcmp(dir, "self")) {
		r = victim_pid(dir, &v);
		if (r)
			return r;
		snprintf(path, sizeof(path), "/proc/%d/%s", (int)v, file);
	} else {
		snprintf(path, sizeof(path), "/proc/self/%s", file);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ESRCH)) {
		printf("proc: %s not there\n", path);
		return EXIT_REFUSED;
	}
	if (fd < 0)
		return verdict(path, errno);
	n = read(fd, buf, sizeof(buf));
	r = n < 0 ? errno : 0;
	close(fd);
	if (!r && n <= 0)
		return setup("an empty /proc file");
	return verdict(path, r == ESRCH ? EACCES : r);
}

/* Running in a ringfence sandbox (its cgroup is under ringfence/). */
static bool in_ringfence(void)
{
	char buf[512] = "";
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (strstr(buf, "/ringfence/"))
				break;
		fclose(f);
	}
	return strstr(buf, "/ringfence/") != NULL;
}

/* The same queue through an mqueue mount made outside (it names the
 * IPC namespace it was mounted in, not the caller's). */
static int do_mq_fs(const char *dir)
{
	char path[96];
	struct statfs sf;
	long pid;
	int fd;

	if (read_num(dir, "mqpid", &pid))
		return setup("the victim's queue");
	if (statfs("/dev/mqueue", &sf) || sf.f_type != 0x19800202 /* MQUEUE_MAGIC */) {
		/* Inside a sandbox the mount was taken away; elsewhere there
		 * is none to try. */
		printf("mq-fs: /dev/mqueue is no mqueue mount here\n");
		return in_ringfence() ? EXIT_REFUSED : EXIT_NA;
	}
	snprintf(path, sizeof(path), "/dev/mqueue/rf-victim-%ld", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* no such queue: applicable only where the mount is the host's */
		printf("mq-fs: %s not visible\n", path);
		return EXIT_REFUSED;
	}
	return verdict("open of the outside queue through /dev/mqueue", fd < 0 ? errno : 0);
}

/* The twins: private objects of the sandbox's own still work. */
static int do_ipc_own(void)
{
	struct { long mtype; char text[8]; } m = { 1, "x" };
	struct mq_attr qa = { .mq_maxmsg = 2, .mq_msgsize = 16 };
	char name[64], *mem;
	int shm, msq, r = 0;
	mqd_t q;

	shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	mem = shm >= 0 ? shmat(shm, NULL, 0) : (void *)-1;
	if (mem == (void *)-1)
		r = errno;
	else
		shmdt(mem);
	if (shm >= 0)
		shmctl(shm, IPC_RMID, NULL);
	msq = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	if (!r && (msq < 0 || msgsnd(msq, &m, sizeof(m.text), 0) ||
		   msgrcv(msq, &m, sizeof(m.text), 0, 0) < 0))
		r = errno;
	if (msq >= 0)
		msgctl(msq, IPC_RMID, NULL);
	snprintf(name, sizeof(name), "/rf-own-%d", (int)getpid());
	q = mq_open(name, O_CREAT | O_RDWR | O_CLOEXEC, 0600, &qa);
	if (!r && (q == (mqd_t)-1 || mq_send(q, "x", 1, 0)))
		r = errno;
	if (q != (mqd_t)-1) {
		mq_close(q);
		mq_unlink(name);
	}
	return verdict("own shm, msg queue and POSIX queue", r);
}

static int usage(void);

/* ---- unix socket names (tests/attack/unix.list) ---- */

/* Outside: a unix stream server at path that greets every client with
 * "rf-server" and hangs up; path.ready once it listens. Runs until killed. */
static int do_unix_serve(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char ready[sizeof(a.sun_path) + 8];
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), c, fd;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	snprintf(ready, sizeof(ready), "%s.ready", path);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) || listen(s, 16))
		return setup("unix-serve: bind");
	fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return setup("unix-serve: ready file");
	close(fd);
	for (;;) {
		c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		if (write(c, "rf-server", 9) < 0)
			perror("rf-attack-net: unix-serve: write");
		close(c);
	}
}

/* Connect to path; 0 once the outside server's greeting arrived. */
static int unix_reach(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char buf[16] = "";

	if (s < 0)
		return setup("socket");
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (connect(s, (struct sockaddr *)&a, sizeof(a)))
		return verdict("connect", errno);
	if (read(s, buf, sizeof(buf) - 1) != 9 || strcmp(buf, "rf-server")) {
		printf("connected to %s, but no greeting\n", path);
		return EXIT_SETUP;
	}
	printf("connect %s: reached the outside server\n", path);
	return 0;
}

/* A socket made to answer to another name: OP (rename, link, symlink)
 * from src to dst, then a connect to reach (default dst). */
static int do_unix_move(const char *op, const char *src, const char *dst, const char *reach)
{
	int r;

	if (!strcmp(op, "rename"))
		r = rename(src, dst);
	else if (!strcmp(op, "link"))
		r = link(src, dst);
	else if (!strcmp(op, "symlink"))
		r = symlink(src, dst);
	else
		return usage();
	if (r) {
		int e = errno;

		printf("%s %s %s: %s\n", op, src, dst, strerror(e));
		return e == EPERM || e == EACCES || e == EXDEV || e == EROFS || e == EBUSY ?
		       EXIT_REFUSED : EXIT_SETUP;
	}
	return unix_reach(reach ? reach : dst);
}

/* One step of an attempt on the directories on the way to a name: 0, or
 * the attempt's exit (a mount point refused with EBUSY, crossing a mount
 * with EXDEV, and Landlock's and seccomp's refusals: refused). */
static int way_step(const char *what, const char *a, const char *b, int r)
{
	int e = errno;

	if (!r)
		return 0;
	printf("%s %s%s%s: %s\n", what, a, b ? " " : "", b ? b : "", strerror(e));
	return e == EPERM || e == EACCES || e == EXDEV || e == EROFS || e == EBUSY ?
	       EXIT_REFUSED : EXIT_SETUP;
}

/* A socket of the outside given an allowed name by replacing a directory
 * on the way to it (unix.pin in unix.list); then a connect to reach:
 *   exchange SRC DIR REACH   renameat2 RENAME_EXCHANGE of SRC and DIR
 *   rmdir SRC DIR REACH      rmdir DIR, rename SRC onto its name
 *   symlink SRC DIR REACH    rmdir DIR, a symlink to SRC in its place
 *   ancestor SRC DIR REACH   DIR renamed away (DIR.old), a new DIR made,
 *                            SRC renamed to DIR/LAST (LAST: REACH's
 *                            directory's last component)
 *   rebind - - REACH         the server's name unlinked, a socket of its own
 *                            bound there (0 once bound)
 *   rebind-mknod - - REACH   ... a socket inode made there with mknod
 *   rebind-symlink|rebind-link|rebind-rename|rebind-exchange SRC - REACH
 *                            a socket of its own bound at SRC; the name
 *                            unlinked (if there), SRC symlinked, linked or
 *                            renamed there; or exchanged with it
 *   rebind-as SPELLING LNK REACH  the name unlinked, a socket of its own
 *                            bound by SPELLING (through LNK, a symlink to
 *                            REACH's directory made first, or "..")
 *   rebind-dir|rebind-dirlink SRC DIR REACH  a directory SRC made holding a
 *                            socket of its own named as REACH's; DIR moved
 *                            away (DIR.old), SRC renamed or symlinked there
 *                            (each 0 once the name is in place)
 *   userns SRC DIR REACH     a user and mount namespace of its own, DIR
 *                            unmounted there (if it is a mount), SRC
 *                            renamed onto DIR */
/* A listening socket of the sandbox's own at path: 0, or the way_step exit. */
static int own_socket(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return setup("socket");
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	return way_step("bind", path, NULL,
			bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1));
}

/* The neighbours of rebind (unix.rebind/ in unix.list): the allowed name
 * answered by a socket of the sandbox's own made another way. */
static int do_unix_rebind(const char *how, const char *src, const char *dir, const char *reach)
{
	char path[PATH_MAX], old[PATH_MAX];
	const char *base = strrchr(reach, '/');
	int r = 0;

	if (!base)
		return usage();
	if (!strcmp(how, "rebind-dir") || !strcmp(how, "rebind-dirlink")) {
		snprintf(path, sizeof(path), "%s%s", src, base);
		snprintf(old, sizeof(old), "%s.old", dir);
		r = way_step("mkdir", src, NULL, mkdir(src, 0755));
		if (!r)
			r = own_socket(path);
		if (!r)
			r = way_step("rename", dir, old, rename(dir, old));
		if (!r && !strcmp(how, "rebind-dir"))
			r = way_step("rename", src, dir, rename(src, dir));
		else if (!r)
			r = way_step("symlink", src, dir, symlink(src, dir));
	} else if (!strcmp(how, "rebind-as")) {
		snprintf(path, sizeof(path), "%.*s", (int)(base - reach), reach);
		if (strcmp(dir, "-"))
			r = way_step("symlink", path, dir, symlink(path, dir));
		if (!r)
			r = way_step("unlink", reach, NULL, unlink(reach) && errno != ENOENT);
		if (!r)
			r = own_socket(src);
	} else {
		if (strcmp(how, "rebind-mknod"))
			r = own_socket(src);
		/* an exchange keeps the name to swap it; a subtree's may be absent */
		if (!r && strcmp(how, "rebind-exchange"))
			r = way_step("unlink", reach, NULL, unlink(reach) && errno != ENOENT);
		if (r)
			return r;
		if (!strcmp(how, "rebind-mknod"))
			r = way_step("mknod", reach, NULL, mknod(reach, S_IFSOCK | 0644, 0));
		else if (!strcmp(how, "rebind-symlink"))
			r = way_step("symlink", src, reach, symlink(src, reach));
		else if (!strcmp(how, "rebind-link"))
			r = way_step("link", src, reach, link(src, reach));
		else if (!strcmp(how, "rebind-rename"))
			r = way_step("rename", src, reach, rename(src, reach));
		else if (!strcmp(how, "rebind-exchange"))
			r = way_step("exchange", src, reach,
				     (int)syscall(SYS_renameat2, AT_FDCWD, src, AT_FDCWD, reach,
						  2 /* RENAME_EXCHANGE */));
		else
			return usage();
	}
	if (!r)
		printf("%s: %s answers for the sandbox\n", how, reach);
	return r;
}

static int do_unix_way(const char *how, const char *src, const char *dir, const char *reach)
{
	char old[PATH_MAX], sub[PATH_MAX];
	const char *last, *end;
	int r = 0;

	if (!strcmp(how, "exchange")) {
		r = way_step("exchange", src, dir,
			     (int)syscall(SYS_renameat2, AT_FDCWD, src, AT_FDCWD, dir, 2 /* RENAME_EXCHANGE */));
	} else if (!strcmp(how, "rmdir") || !strcmp(how, "symlink")) {
		r = way_step("rmdir", dir, NULL, rmdir(dir));
		if (!r && !strcmp(how, "rmdir"))
			r = way_step("rename", src, dir, rename(src, dir));
		else if (!r)
			r = way_step("symlink", src, dir, symlink(src, dir));
	} else if (!strcmp(how, "ancestor")) {
		end = strrchr(reach, '/');
		for (last = end; last && last > reach && last[-1] != '/'; last--)
			;
		if (!end || !last || last == reach)
			return usage();
		snprintf(old, sizeof(old), "%s.old", dir);
		snprintf(sub, sizeof(sub), "%s/%.*s", dir, (int)(end - last), last);
		r = way_step("rename", dir, old, rename(dir, old));
		if (!r)
			r = way_step("mkdir", dir, NULL, mkdir(dir, 0755));
		if (!r)
			r = way_step("rename", src, sub, rename(src, sub));
	} else if (!strncmp(how, "rebind-", 7)) {
		return do_unix_rebind(how, src, dir, reach);
	} else if (!strcmp(how, "rebind")) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return setup("socket");
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", reach);
		r = way_step("unlink", reach, NULL, unlink(reach));
		if (!r)
			r = way_step("bind", reach, NULL,
				     bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1));
		if (!r)
			printf("bound %s itself\n", reach);
		return r;
	} else if (!strcmp(how, "userns")) {
		r = way_step("unshare", "user+mount", NULL, unshare(CLONE_NEWUSER | CLONE_NEWNS));
		if (!r && umount2(dir, MNT_DETACH) && errno != EINVAL)
			r = way_step("umount", dir, NULL, -1);
		if (!r)
			r = way_step("rename", src, dir, rename(src, dir));
	} else {
		return usage();
	}
	return r ? r : unix_reach(reach);
}

/* The twin: a directory made and renamed in DIR, and one made below it
 * renamed there, where nothing is on the way to a name. */
static int do_unix_mkdir_rename(const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	int r;

	snprintf(a, sizeof(a), "%s/made", dir);
	snprintf(b, sizeof(b), "%s/moved", dir);
	r = way_step("mkdir", a, NULL, mkdir(a, 0755));
	if (!r)
		r = way_step("rename", a, b, rename(a, b));
	if (!r)
		r = way_step("rmdir", b, NULL, rmdir(b));
	if (!r)
		printf("mkdir, rename, rmdir in %s: ok\n", dir);
	return r;
}

/* The twins of the narrowed write rules: a KIND (file, sock, symlink, a file
 * renamed into place: file-rename) made at path by the sandbox itself; 0
 * when it was made. */
static int do_unix_make(const char *kind, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int r, fd;

	if (!strcmp(kind, "file")) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		r = fd < 0 ? -1 : close(fd);
	} else if (!strcmp(kind, "sock")) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return setup("socket");
		snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
		r = bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1) ? -1 : 0;
	} else if (!strcmp(kind, "symlink")) {
		r = symlink("/", path);
	} else if (!strcmp(kind, "file-rename")) {
		char tmp[PATH_MAX];

		snprintf(tmp, sizeof(tmp), "%s.tmp", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		r = fd < 0 || close(fd) ? -1 : rename(tmp, path);
	} else {
		return usage();
	}
	return verdict(kind, r ? errno : 0);
}

/* The socket's inode through /proc/self/fd of an O_PATH fd. */
static int do_unix_procfd(const char *path)
{
	char p[64];
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return verdict("open O_PATH", errno);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return unix_reach(p);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: rf-attack-net ATTEMPT ARGS\n"
		"  udp6-send ADDR6 PORT | rthdr-udp ADDR6 PORT | rthdr-tcp ADDR6 PORT\n"
		"  rthdr-cmsg ADDR6 PORT | rthdr2292-cmsg ADDR6 PORT | rthdr-pktoptions ADDR6 PORT\n"
		"  hopopts | dstopts | ip-lsrr ADDR4 PORT | ip-lsrr-cmsg ADDR4 PORT\n"
		"  unix-stdin-connect PATH | unix-stdin-write\n"
		"  sigio DIR | sigio-kill DIR | dnotify DIR | sigio-self\n"
		"  setpriority|prlimit|ioprio|setscheduler|setaffinity|setattr DIR|self\n"
		"  shm DIR | msg DIR | sem DIR | mq DIR | mq-fs DIR | ipc-own\n"
		"  posix-shm DIR | posix-shm-own | proc DIR|self cmdline|stat|status|maps\n"
		"  unix-move rename|link|symlink SRC DST [CONNECT] | unix-connect PATH\n"
		"  unix-procfd PATH | unix-make file|sock|symlink|file-rename PATH\n"
		"  unix-way exchange|rmdir|symlink|ancestor|rebind|userns SRC DIR CONNECT\n"
		"  unix-way rebind-mknod|-symlink|-link|-rename|-exchange|-as|-dir|-dirlink\n"
		"           SRC DIR NAME\n"
		"  unix-mkdir-rename DIR  (the write area's own directories move)\n"
		"  victim DIR | with-stdin unix-stream|unix-pair -- CMD ARGS  (outside)\n"
		"  unix-serve PATH | sock-broker PATH PORT  (outside)\n"
		"  sock-passed PATH inet PORT | sock-passed PATH xunix PATH2 | sock-passed PATH unix -\n");
	return EXIT_SETUP;
}

static int net_attempt(int argc, char **argv)
{
	const char *a = argv[1];
	int port = argc > 3 ? atoi(argv[3]) : 0;

	if (argc < 4)
		return -1;
	if (!strcmp(a, "udp6-send"))
		return do_udp6_send(argv[2], port);
	if (!strcmp(a, "rthdr-udp"))
		return do_rthdr_udp(argv[2], port);
	if (!strcmp(a, "rthdr-tcp"))
		return do_rthdr_tcp(argv[2], port);
	if (!strcmp(a, "rthdr-cmsg"))
		return do_rthdr_cmsg(argv[2], port, IPV6_RTHDR);
	if (!strcmp(a, "rthdr2292-cmsg"))
		return do_rthdr_cmsg(argv[2], port, IPV6_2292RTHDR);
	if (!strcmp(a, "rthdr-pktoptions"))
		return do_rthdr_pktoptions(argv[2], port);
	if (!strcmp(a, "ip-lsrr"))
		return do_ip_lsrr(argv[2], port, false);
	if (!strcmp(a, "ip-lsrr-cmsg"))
		return do_ip_lsrr(argv[2], port, true);
	return -1;
}

static int dir_attempt(const char *a, const char *dir)
{
	static const char *const sched[] = { "setpriority", "prlimit", "ioprio", "setscheduler",
					     "setaffinity", "setattr" };
	size_t i;
	pid_t v;
	int r;

	for (i = 0; i < sizeof(sched) / sizeof(sched[0]); i++) {
		if (strcmp(a, sched[i]))
			continue;
		if (!strcmp(dir, "self"))
			return sched_attempt(a, 0);
		r = victim_pid(dir, &v);
		return r ? r : sched_attempt(a, v);
	}
	if (!strcmp(a, "sigio"))
		return do_sigio(dir, 0);
	if (!strcmp(a, "sigio-kill"))
		return do_sigio(dir, SIGKILL);
	if (!strcmp(a, "dnotify"))
		return do_dnotify(dir);
	if (!strcmp(a, "shm") || !strcmp(a, "msg") || !strcmp(a, "sem"))
		return do_sysv(dir, a);
	if (!strcmp(a, "mq"))
		return do_mq(dir);
	if (!strcmp(a, "mq-fs"))
		return do_mq_fs(dir);
	if (!strcmp(a, "posix-shm"))
		return do_posix_shm(dir);
	if (!strcmp(a, "unix-stdin-connect"))
		return do_unix_stdin_connect(dir);
	if (!strcmp(a, "victim"))
		return do_victim(dir);
	return -1;
}

int main(int argc, char **argv)
{
	const char *a;
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	a = argv[1];
	if (getenv("RF_ATTACK_SEGMENT6"))
		segment6 = getenv("RF_ATTACK_SEGMENT6");
	if (!strcmp(a, "hopopts"))
		return do_ext_opts(IPV6_HOPOPTS, "setsockopt IPV6_HOPOPTS");
	if (!strcmp(a, "dstopts"))
		return do_ext_opts(IPV6_DSTOPTS, "setsockopt IPV6_DSTOPTS");
	if (!strcmp(a, "sigio-self"))
		return do_sigio_self();
	if (!strcmp(a, "ipc-own"))
		return do_ipc_own();
	if (!strcmp(a, "posix-shm-own"))
		return do_posix_shm_own();
	if (!strcmp(a, "proc") && argc > 3)
		return do_proc(argv[2], argv[3]);
	if (!strcmp(a, "unix-stdin-write"))
		return do_unix_stdin_write();
	if (!strcmp(a, "unix-serve") && argc > 2)
		return do_unix_serve(argv[2]);
	if (!strcmp(a, "sock-broker") && argc > 3)
		return do_sock_broker(argv[2], atoi(argv[3]));
	if (!strcmp(a, "sock-passed") && argc > 4)
		return do_sock_passed(argv[2], argv[3], argv[4]);
	if (!strcmp(a, "unix-connect") && argc > 2)
		return unix_reach(argv[2]);
	if (!strcmp(a, "unix-make") && argc > 3)
		return do_unix_make(argv[2], argv[3]);
	if (!strcmp(a, "unix-procfd") && argc > 2)
		return do_unix_procfd(argv[2]);
	if (!strcmp(a, "unix-mkdir-rename") && argc > 2)
		return do_unix_mkdir_rename(argv[2]);
	if (!strcmp(a, "unix-way") && argc > 5)
		return do_unix_way(argv[2], argv[3], argv[4], argv[5]);
	if (!strcmp(a, "unix-move") && argc > 4)
		return do_unix_move(argv[2], argv[3], argv[4], argc > 5 ? argv[5] : NULL);
	if (!strcmp(a, "with-stdin") && argc > 4 && !strcmp(argv[3], "--"))
		return do_with_stdin(argv[2], argv + 4);
	r = net_attempt(argc, argv);
	if (r >= 0)
		return r;
	if (argc < 3)
		return usage();
	r = dir_attempt(a, argv[2]);
	return r >= 0 ? r : usage();
}
