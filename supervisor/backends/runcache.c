// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Results reused across runs of one binary on one boot (runcache.h). */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "fileio.h"
#include "paths.h"
#include "runcache.h"

#define CACHE_DIR RF_RUN_DIR "/cache"

struct build_id {
	char hex[2 * 32 + 1];
};

/* The main program's NT_GNU_BUILD_ID note, from its program headers in
 * memory (the first object dl_iterate_phdr reports). */
static int note_of_main(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct build_id *id = ctx;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			const unsigned char *desc = (const unsigned char *)p + sizeof(*nh) +
						    ((nh->n_namesz + 3) & ~3u);
			unsigned j;

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(p + sizeof(*nh), "GNU", 4) && nh->n_descsz >= 8 &&
			    nh->n_descsz <= 32 && (const char *)desc + nh->n_descsz <= end) {
				for (j = 0; j < nh->n_descsz; j++)
					snprintf(id->hex + 2 * j, 3, "%02x", desc[j]);
				return 1;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	return 1;  /* only the main program */
}

/* The boot id, read once per process: a run asks for several caches
 * (the seccomp filter, the names of two objects), and it cannot change
 * under a running process. */
static const char *boot_id(void)
{
	static char boot[40];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (boot[0])
		return boot;
	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;
	if (n < 36) {
		boot[0] = '\0';
		return NULL;
	}
	boot[36] = '\0';
	return boot;
}

static int cache_path(const char *kind, char *buf, size_t len)
{
	static struct build_id id;
	static bool looked;
	const char *boot;

	if (!looked) {
		looked = true;
		dl_iterate_phdr(note_of_main, &id);
	}
	if (!id.hex[0])
		return -ENOENT;
	boot = boot_id();
	if (!boot)
		return -ENOENT;
	snprintf(buf, len, CACHE_DIR "/%s-%s-%s", kind, id.hex, boot);
	return 0;
}

long runcache__read(const char *kind, void *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	char path[256];
	struct stat st;
	ssize_t n;
	int err;

	err = cache_path(kind, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* written by this user (root) and no one else */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (size_t)st.st_size > len)
		return -EINVAL;
	n = read(fd, buf, len);
	if (n < 0)
		return -errno;
	return n == st.st_size ? n : -EINVAL;
}

/* The same kind's files of other builds or boots: one per kind is kept
 * (written rarely, so the directory is walked only then). */
static void prune(const char *kind, const char *keep)
{
	size_t klen = strlen(kind);
	DIR *d = opendir(CACHE_DIR);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, kind, klen) && de->d_name[klen] == '-' &&
		    strcmp(de->d_name, keep) && !strstr(de->d_name, ".tmp"))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
}

void runcache__write(const char *kind, const void *buf, size_t len)
{
	/* the reader takes only a file no one else may write */
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_PID, .mode = 0600 };
	char path[256];

	if (cache_path(kind, path, sizeof(path)))
		return;
	if (mkdir(RF_RUN_DIR, 0755) && errno != EEXIST)
		return;
	if (mkdir(CACHE_DIR, 0700) && errno != EEXIST)
		return;
	if (!fileio__write_atomic(path, buf, len, &how))
		prune(kind, strrchr(path, '/') + 1);
}
