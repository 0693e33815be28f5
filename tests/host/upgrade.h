/*
 * Another build of ringfence for the upgrade tests (test_upgrade,
 * test_run_death): the binary under test with its build id (gen/build_id.h,
 * the hash of its BPF objects, embedded once) changed, which is all that
 * tells two builds apart to ringfence (the pinned set's name and meta);
 * made in a moment, where compiling a second build dir would take minutes.
 */
#ifndef RF_TEST_UPGRADE_H
#define RF_TEST_UPGRADE_H

#include <dirent.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#include "gen/build_id.h"
#include "paths.h"
#include "pins.h"

/* src copied to dst as a new file (a new inode: what an upgrade leaves). */
static inline void h_copy_binary(const char *src, const char *dst)
{
	struct stat st;
	int in, out;
	off_t off = 0;

	unlink(dst);
	in = open(src, O_RDONLY | O_CLOEXEC);
	assert_true(in >= 0);
	assert_int_equal(fstat(in, &st), 0);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(out >= 0);
	while (off < st.st_size)
		assert_true(sendfile(out, in, &off, (size_t)(st.st_size - off)) > 0);
	close(in);
	close(out);
}

/* dst: src with its build id changed; ret_a, ret_b: the two builds' set
 * names. The id must be in src exactly once (else it is not this build's
 * binary, or the id is not what names its set). */
static inline void h_other_build(const char *src, const char *dst, char ret_a[RF_PIN_SET_LEN],
				 char ret_b[RF_PIN_SET_LEN])
{
	static const uint8_t id[32] = RF_BUILD_ID;
	uint8_t other[32];
	unsigned char *buf, *at = NULL;
	struct stat st;
	size_t i, found = 0;
	int fd;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	for (i = 0; i + 32 <= (size_t)st.st_size; i++)
		if (buf[i] == id[0] && !memcmp(buf + i, id, 32)) {
			at = buf + i;
			found++;
		}
	assert_int_equal(found, 1);
	memcpy(other, id, 32);
	for (i = 0; i < 32; i++)
		other[i] ^= 0x5a;
	memcpy(at, other, 32);
	unlink(dst);
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	free(buf);
	rf_pins__set_name(id, ret_a);
	rf_pins__set_name(other, ret_b);
}

/* Unpin a set this test made (none of its sandboxes lives): its pins,
 * directory and live lock; RF_PIN_DIR too if no other set is left.
 * 0 or -errno. */
static inline int h_unpin_set(const char *set)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", RF_PIN_DIR, set);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	if (rmdir(path))
		return -errno;
	rmdir(RF_PIN_DIR);
	snprintf(path, sizeof(path), "%s/live-%s.lock", RF_RUN_DIR, set);
	unlink(path);
	return 0;
}

#endif
