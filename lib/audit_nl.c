// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/netlink.h>

#include "audit_nl.h"

/* The first AUDIT_GET answer (or error) to request seq on fd. */
static int audit_nl_answer(int fd, unsigned int seq, struct audit_status *ret)
{
	_Alignas(struct nlmsghdr) char buf[8192];
	struct nlmsghdr *nh;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			size_t len = nh->nlmsg_len - NLMSG_LENGTH(0);

			if (nh->nlmsg_seq != seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				if (len >= sizeof(*e) && e->error)
					return e->error;
			} else if (nh->nlmsg_type == AUDIT_GET &&
				   len >= offsetof(struct audit_status, backlog)) {
				memcpy(ret, NLMSG_DATA(nh), len < sizeof(*ret) ? len : sizeof(*ret));
				return 0;
			}
		}
	}
	return n < 0 ? -errno : -EPROTO;
}

int audit_nl__request(const char **ret_what)
{
	struct nlmsghdr req = { .nlmsg_len = NLMSG_LENGTH(0), .nlmsg_type = AUDIT_GET,
				.nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 1 };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		if (ret_what)
			*ret_what = "NETLINK_AUDIT socket";
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, &req, req.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		err = -errno;
		close(fd);
		if (ret_what)
			*ret_what = "AUDIT_GET";
		return err;
	}
	return fd;
}

int audit_nl__answer(int fd, struct audit_status *ret, const char **ret_what)
{
	int err;

	memset(ret, 0, sizeof(*ret));
	if (fd < 0)
		return fd;
	err = audit_nl_answer(fd, 1, ret);
	close(fd);
	if (err && ret_what)
		*ret_what = "AUDIT_GET";
	return err;
}

int audit_nl__status(struct audit_status *ret, const char **ret_what)
{
	return audit_nl__answer(audit_nl__request(ret_what), ret, ret_what);
}
