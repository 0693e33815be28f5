// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fileio.h"
#include "resources.h"

#define FILEID_KERNFS 0xfe     /* cgroupfs handles: the 64-bit cgroup id */

static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n = fileio__read_small(AT_FDCWD, path, buf, len);

	return n < 0 ? (int)n : 0;
}

uint32_t resources__probe(const char *cg)
{
	char path[600];
	uint32_t src = 0;

	snprintf(path, sizeof(path), "%s/cpu.stat", cg);
	/* cpu.stat exists without the cpu controller too (usage_usec from
	 * the core): it is the cgroup's own CPU time either way. */
	if (!access(path, R_OK))
		src |= RF_SRC_CPU_CGROUP;
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	if (!access(path, R_OK))
		src |= RF_SRC_MEM_CGROUP;
	snprintf(path, sizeof(path), "%s/pids.current", cg);
	if (!access(path, R_OK))
		src |= RF_SRC_PIDS_CGROUP;
	return src;
}

/* "KEY N" in a flat-keyed cgroup file (memory.events, cpu.stat): N, or 0. */
static uint64_t read_key(const char *cg, const char *file, const char *key)
{
	char path[600];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return fileio__read_key(path, key, &v) ? 0 : v;
}

/* A cap file's number ("max": no cap, 0). */
static uint64_t read_cap(const char *cg, const char *file)
{
	char path[600], buf[64];
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (read_small(path, buf, sizeof(buf)) || sscanf(buf, "%llu", &v) != 1)
		return 0;
	return v;
}

/* The caps a sandbox hit, cumulative, and the caps themselves: what the
 * resource alerts report when a cap holds (cgroup v2 controllers only). */
static void read_caps(const char *cg, struct rf_in_sample *s)
{
	char path[600], buf[64];
	unsigned long long quota, period;

	s->mem_max_events = read_key(cg, "memory.events", "max");
	s->oom_kills = read_key(cg, "memory.events", "oom_kill");
	s->pids_max_events = read_key(cg, "pids.events", "max");
	s->cpu_throttled = read_key(cg, "cpu.stat", "nr_throttled");
	s->mem_cap = read_cap(cg, "memory.max");
	s->pids_cap = read_cap(cg, "pids.max");
	snprintf(path, sizeof(path), "%s/cpu.max", cg);
	if (!read_small(path, buf, sizeof(buf)) &&
	    sscanf(buf, "%llu %llu", &quota, &period) == 2 && period)
		s->cpu_cap_pct = quota * 100 / period;
}

int resources__read_cgroup(const char *cg, uint32_t src, struct rf_in_sample *s)
{
	char path[600], buf[4096];
	unsigned long long v;
	char *p;

	if (src & RF_SRC_CPU_CGROUP) {
		snprintf(path, sizeof(path), "%s/cpu.stat", cg);
		if (!read_small(path, buf, sizeof(buf)) && (p = strstr(buf, "usage_usec ")) &&
		    sscanf(p + 11, "%llu", &v) == 1) {
			s->cpu_ns = v * 1000ULL;
			s->src |= RF_SRC_CPU_CGROUP;
		}
	}
	if (src & RF_SRC_MEM_CGROUP) {
		snprintf(path, sizeof(path), "%s/memory.current", cg);
		if (!read_small(path, buf, sizeof(buf)) && sscanf(buf, "%llu", &v) == 1) {
			s->mem_bytes = v;
			s->src |= RF_SRC_MEM_CGROUP;
		}
	}
	if (src & RF_SRC_PIDS_CGROUP) {
		snprintf(path, sizeof(path), "%s/pids.current", cg);
		if (!read_small(path, buf, sizeof(buf)) && sscanf(buf, "%llu", &v) == 1) {
			s->procs = (int64_t)v;
			if (s->procs_peak < s->procs)
				s->procs_peak = s->procs;
			s->src |= RF_SRC_PIDS_CGROUP;
		}
	}
	if (src & (RF_SRC_CPU_CGROUP | RF_SRC_MEM_CGROUP | RF_SRC_PIDS_CGROUP))
		read_caps(cg, s);
	return 0;
}

static int walk(const char *dir, pid_t *pids, size_t max, size_t *n, int depth)
{
	char path[4200];
	struct dirent *de;
	FILE *f;
	DIR *d;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1) {
		if (*n < max)
			pids[*n] = pid;
		(*n)++;
	}
	fclose(f);
	if (depth >= 16)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		walk(path, pids, max, n, depth + 1);
	}
	closedir(d);
	return 0;
}

int resources__procs(const char *cg, pid_t *pids, size_t max)
{
	size_t n = 0;
	int err = walk(cg, pids, max, &n, 0);

	return err ? err : (int)n;
}

/* "MAJ:MIN rbytes=N wbytes=N ..." lines: the wbytes summed. */
static int io_stat_wbytes(const char *cg, uint64_t *ret)
{
	char path[600], buf[4096], *p;
	unsigned long long v;

	snprintf(path, sizeof(path), "%s/io.stat", cg);
	if (read_small(path, buf, sizeof(buf)))
		return -ENOENT;
	*ret = 0;
	for (p = buf; (p = strstr(p, "wbytes=")); p += 7)
		if (sscanf(p + 7, "%llu", &v) == 1)
			*ret += v;
	return 0;
}

#define DISK_PROCS_MAX 4096

int resources__disk_write(const char *cg, uint64_t *ret, bool *ret_cgroup)
{
	char path[64], buf[512], *p;
	unsigned long long v;
	pid_t *pids;
	int n, i;

	*ret = 0;
	*ret_cgroup = !io_stat_wbytes(cg, ret);
	if (*ret_cgroup)
		return 0;
	pids = calloc(DISK_PROCS_MAX, sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	n = resources__procs(cg, pids, DISK_PROCS_MAX);
	for (i = 0; i < n && i < DISK_PROCS_MAX; i++) {
		snprintf(path, sizeof(path), "/proc/%d/io", pids[i]);
		/* cancelled_write_bytes (truncated before writeback) are not
		 * subtracted: what was written is what the policy bounds */
		if (!read_small(path, buf, sizeof(buf)) && (p = strstr(buf, "\nwrite_bytes: ")) &&
		    sscanf(p + 14, "%llu", &v) == 1)
			*ret += v;
	}
	free(pids);
	return n < 0 ? n : 0;
}

int resources__proc_info(pid_t pid, struct rf_in_proc *p, uint64_t *ret_rss)
{
	char path[64], buf[1024], exe[RF_MON_PATH_LEN + 1];
	unsigned long long size, resident;
	ssize_t n;
	char *q;
	int ppid;

	memset(p, 0, sizeof(*p));
	p->pid = p->tid = (uint32_t)pid;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)))
		return -ESRCH;
	q = strrchr(buf, ')');
	if (!q || sscanf(q + 2, "%*c %d", &ppid) != 1)
		return -EINVAL;
	p->ppid = (uint32_t)ppid;
	*q = 0;
	q = strchr(buf, '(');
	rf_printable(p->comm, q ? q + 1 : "", sizeof(p->comm) - 1);
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		rf_printable(p->path, exe, sizeof(p->path) - 1);
	}
	*ret_rss = 0;
	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	if (!read_small(path, buf, sizeof(buf)) &&
	    sscanf(buf, "%llu %llu", &size, &resident) == 2)
		*ret_rss = resident * (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

int resources__cgroup_alive(int mount_fd, uint64_t cgid)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t), .handle_type = FILEID_KERNFS } };
	int fd;

	if (mount_fd < 0)
		return -EBADF;
	memcpy(h.fh.f_handle, &cgid, sizeof(cgid));
	fd = open_by_handle_at(mount_fd, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return errno == ESTALE || errno == ENOENT ? 0 : -errno;
}
