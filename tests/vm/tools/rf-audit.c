// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-audit on|off|get: switch the kernel's audit on or off (AUDIT_SET
 * enabled=1/0) or print "enabled=N lost=N". For the VM only: ringfence
 * never changes the kernel's audit, and neither must a test on the host.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static int request(int fd, int type, const void *data, size_t len)
{
	_Alignas(struct nlmsghdr) char buf[NLMSG_SPACE(sizeof(struct audit_status))];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	memset(buf, 0, sizeof(buf));
	nh->nlmsg_len = NLMSG_LENGTH(len);
	nh->nlmsg_type = type;
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nh->nlmsg_seq = 1;
	memcpy(NLMSG_DATA(nh), data, len);
	if (sendto(fd, buf, nh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/* The AUDIT_GET reply (or the ack's error). */
static int answer(int fd, struct audit_status *st)
{
	_Alignas(struct nlmsghdr) char buf[8192];
	struct nlmsghdr *nh;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (e->error || !st)
					return e->error;
			} else if (st && nh->nlmsg_type == AUDIT_GET) {
				memset(st, 0, sizeof(*st));
				memcpy(st, NLMSG_DATA(nh), nh->nlmsg_len - NLMSG_HDRLEN < sizeof(*st) ?
				       nh->nlmsg_len - NLMSG_HDRLEN : sizeof(*st));
				return 0;
			}
		}
	}
	return n < 0 ? -errno : -EPROTO;
}

int main(int argc, char **argv)
{
	struct timeval tv = { .tv_sec = 2 };
	struct audit_status st = { 0 };
	int fd, err;

	if (argc != 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off") && strcmp(argv[1], "get"))) {
		fprintf(stderr, "usage: rf-audit on|off|get\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		perror("rf-audit: socket");
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (strcmp(argv[1], "get")) {
		st.mask = AUDIT_STATUS_ENABLED;
		st.enabled = !strcmp(argv[1], "on");
		err = request(fd, AUDIT_SET, &st, sizeof(st));
		if (!err)
			err = answer(fd, NULL);
		if (err) {
			fprintf(stderr, "rf-audit: AUDIT_SET: %s\n", strerror(-err));
			return 1;
		}
	}
	err = request(fd, AUDIT_GET, &st, 0);
	if (!err)
		err = answer(fd, &st);
	if (err) {
		fprintf(stderr, "rf-audit: AUDIT_GET: %s\n", strerror(-err));
		return 1;
	}
	printf("enabled=%u lost=%u\n", st.enabled, st.lost);
	return 0;
}
