// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * rf-linkdetach PIN: open a pinned BPF link and ask the kernel to detach
 * it (BPF_LINK_DETACH); print "detached" or the errno's name/text. VM
 * only: tests/vm/guest/lsm.sh checks that an LSM link cannot be detached
 * while pinned (enforcer.c relies on it). Exit 0 when the call was made,
 * 1 when the pin cannot be opened, 2 on usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: rf-linkdetach PIN\n");
		return 2;
	}
	fd = bpf_obj_get(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "rf-linkdetach: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (!bpf_link_detach(fd))
		printf("detached\n");
	else
		printf("%s\n", errno == EOPNOTSUPP ? "EOPNOTSUPP" : strerror(errno));
	close(fd);
	return 0;
}
