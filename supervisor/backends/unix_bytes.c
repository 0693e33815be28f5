// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "bpfutil.h"
#include "log.h"
#include "runcache.h"
#include "unix_bytes.h"

/* The functions the fexit programs attach to; all must be there. */
static const char *const fx_targets[] = {
	"unix_stream_connect", "unix_dgram_connect", "unix_stream_sendmsg",
	"unix_dgram_sendmsg", "unix_stream_recvmsg", "unix_dgram_recvmsg",
};
/* sendfile and splice into a stream socket before 6.5 (its own program,
 * loaded where the kernel has it) */
#define FX_SENDPAGE "unix_stream_sendpage"
#define FX_PAGE_PROG RF_OBS_UNIX_FX_PREFIX "page"
/* splice and sendfile out of a stream socket (no recvmsg, no length
 * tracepoint on any kernel): its own program, loaded on both ways where
 * the kernel has the function and takes fexit programs */
#define FX_SPLICE "unix_stream_splice_read"
#define FX_SPLICE_PROG RF_OBS_UNIX_FX_PREFIX "splice"

/* What the run cache keeps: a byte. */
enum fx_bits {
	FX_OK = 1u << 0,    /* the fexit programs load and attach here */
	FX_PAGE = 1u << 1,  /* FX_SENDPAGE is there */
	FX_SPLICE_OK = 1u << 2, /* FX_SPLICE is there */
	FX_KNOWN = 1u << 7, /* probed */
};

/* The cgroup unix hooks came in 6.7 (and the length tracepoints in 6.3):
 * the release, as enforcer.c's other per-run kernel checks. */
static bool release_at_least_6_7(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 7);
}

/* Load and attach "r0 = 0; exit" as fexit of the function of BTF id id:
 * it changes nothing, and proves trampolines work here. */
static bool fexit_attaches(int id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpfutil__prog_load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, (uint32_t)id,
				    insns, 2);
	int link;

	if (fd < 0)
		return false;
	link = bpf_raw_tracepoint_open(NULL, fd);
	close(fd);
	if (link < 0)
		return false;
	close(link);
	return true;
}

static unsigned int fx_probe(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	unsigned int bits = FX_KNOWN;
	int id = -1;
	size_t i;

	if (!vmlinux)
		return bits;
	for (i = 0; i < sizeof(fx_targets) / sizeof(fx_targets[0]); i++) {
		int t = btf__find_by_name_kind(vmlinux, fx_targets[i], BTF_KIND_FUNC);

		if (t < 0)
			break;
		if (!strcmp(fx_targets[i], "unix_stream_sendmsg"))
			id = t;
	}
	if (i == sizeof(fx_targets) / sizeof(fx_targets[0]) && id > 0 && fexit_attaches(id))
		bits |= FX_OK;
	if (btf__find_by_name_kind(vmlinux, FX_SENDPAGE, BTF_KIND_FUNC) > 0)
		bits |= FX_PAGE;
	if (btf__find_by_name_kind(vmlinux, FX_SPLICE, BTF_KIND_FUNC) > 0)
		bits |= FX_SPLICE_OK;
	btf__free(vmlinux);
	return bits;
}

/* The fexit bits, probed once per boot and build. */
static unsigned int fx_bits(void)
{
	static unsigned int bits;
	unsigned char b = 0;

	if (bits)
		return bits;
	if (runcache__read("unixfx", &b, 1) == 1 && (b & FX_KNOWN)) {
		bits = b;
		return bits;
	}
	bits = fx_probe();
	rf_debug("unix bytes: fexit programs %s, unix_stream_sendpage %s, "
		 "unix_stream_splice_read %s",
		 (bits & FX_OK) ? "load and attach" : "refused or without targets",
		 (bits & FX_PAGE) ? "there" : "absent", (bits & FX_SPLICE_OK) ? "there" : "absent");
	b = (unsigned char)bits;
	runcache__write("unixfx", &b, 1);
	return bits;
}

enum rf_unix_bytes unix_bytes__kernel(void)
{
	if (release_at_least_6_7())
		return RF_UNIX_BYTES_TP;
	return (fx_bits() & FX_OK) ? RF_UNIX_BYTES_FEXIT : RF_UNIX_BYTES_NONE;
}

bool unix_bytes__key_late(void)
{
	return unix_bytes__kernel() == RF_UNIX_BYTES_TP && (fx_bits() & FX_OK);
}

bool unix_bytes__prog_loads(const char *name)
{
	enum rf_unix_bytes how = unix_bytes__kernel();

	if (!strncmp(name, RF_OBS_UNIX_CX_PREFIX, strlen(RF_OBS_UNIX_CX_PREFIX)))
		return unix_bytes__key_late();
	if (strncmp(name, RF_OBS_UNIX_FX_PREFIX, strlen(RF_OBS_UNIX_FX_PREFIX)))
		return how == RF_UNIX_BYTES_TP;
	/* both ways, where this kernel takes fexit programs (the host's 6.18
	 * does not: the plan's gap limits.egress-unix says so) */
	if (!strcmp(name, FX_SPLICE_PROG))
		return how != RF_UNIX_BYTES_NONE && (fx_bits() & (FX_OK | FX_SPLICE_OK)) ==
							(FX_OK | FX_SPLICE_OK);
	if (how != RF_UNIX_BYTES_FEXIT)
		return false;
	return strcmp(name, FX_PAGE_PROG) || (fx_bits() & FX_PAGE);
}
