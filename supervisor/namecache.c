// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Names computed from this build's BPF objects, per boot (namecache.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "namecache.h"
#include "paths.h"

#define CACHE_DIR RF_RUN_DIR "/cache"
#define NAMES_MAX 256
#define NAME_LEN 64
#define END_LINE "."

static int cache_path(const char *kind, const uint8_t id[32], char *buf, size_t len)
{
	char boot[40] = "";
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;
	char hex[65];
	int i;

	if (fd >= 0)
		close(fd);
	if (n < 36)
		return -ENOENT;
	boot[36] = '\0';
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(buf, len, CACHE_DIR "/names-%s-%s-%s", kind, hex, boot);
	return 0;
}

static bool name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return i > 0 && i < NAME_LEN;
}

static void names_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

/* One name a line, then END_LINE: a file cut short is not taken. */
static int parse(char *text, char ***ret_v, size_t *ret_n)
{
	char **v = calloc(NAMES_MAX, sizeof(*v)), *line, *save = NULL;
	size_t n = 0;
	bool end = false;

	if (!v)
		return -ENOMEM;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (end || (!strcmp(line, END_LINE) && (end = true)))
			continue;
		if (n == NAMES_MAX || !name_ok(line) || !(v[n] = strdup(line))) {
			names_free(v, n);
			return -EINVAL;
		}
		n++;
	}
	if (!end || !n) {
		names_free(v, n);
		return -EINVAL;
	}
	*ret_v = v;
	*ret_n = n;
	return 0;
}

int namecache__read(const char *kind, const uint8_t build_id[32], char ***ret_v, size_t *ret_n)
{
	char path[256], text[NAMES_MAX * NAME_LEN];
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t n;
	int err;

	err = cache_path(kind, build_id, path, sizeof(path));
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	/* written by this user (root) and no one else */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return -EINVAL;
	n = read(fd, text, sizeof(text) - 1);
	if (n <= 0 || (size_t)n == sizeof(text) - 1)
		return -EINVAL;
	text[n] = '\0';
	return parse(text, ret_v, ret_n);
}

void namecache__write(const char *kind, const uint8_t build_id[32], char *const *v, size_t n)
{
	char path[256], tmp[272];
	size_t i;
	FILE *f;
	int fd;

	if (cache_path(kind, build_id, path, sizeof(path)))
		return;
	if (mkdir(RF_RUN_DIR, 0755) && errno != EEXIST)
		return;
	if (mkdir(CACHE_DIR, 0700) && errno != EEXIST)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", v[i]);
	fprintf(f, END_LINE "\n");
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}
