// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The pinned set's tables (from the lists in pins.h) and the access both
 * binaries share: pin paths, opening maps, the meta/ABI check. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "pins.h"

#define RF_PIN_MAP_DEF_(e, pin_, bpf_, flags_, ksz_, off_) \
	[RF_PIN_##e] = { .pin = pin_, .bpf_name = bpf_, .flags = flags_, \
			 .key_size = ksz_, .cgid_off = off_ },
const struct rf_pin_map_def rf_pin_maps[] = { RF_PIN_MAPS(RF_PIN_MAP_DEF_) };
_Static_assert(sizeof(rf_pin_maps) / sizeof(rf_pin_maps[0]) == RF_PIN_MAP_MAX,
	       "rf_pin_maps covers enum rf_pin_map");

#define RF_PIN_LINK_DEF_(e, pin_, prog_, type_, feat_) \
	[RF_LINK_##e] = { .pin = pin_, .prog = prog_, .attach_type = type_, .feature = feat_ },
const struct rf_pin_link_def rf_pin_links[] = { RF_PIN_LINKS(RF_PIN_LINK_DEF_) };
_Static_assert(sizeof(rf_pin_links) / sizeof(rf_pin_links[0]) == RF_PIN_LINK_MAX,
	       "rf_pin_links covers enum rf_pin_link");

/* The selected set: "" (the legacy set) until rf_pins__select. */
static char selected[RF_PIN_SET_LEN];
static char selected_dir[sizeof(RF_PIN_DIR) + RF_PIN_SET_LEN];

void rf_pins__set_name(const uint8_t id[32], char ret_name[RF_PIN_SET_LEN])
{
	size_t i;

	for (i = 0; i < RF_PIN_SET_HEX / 2; i++)
		snprintf(ret_name + 2 * i, 3, "%02x", id[i]);
}

int rf_pins__select(const char *name)
{
	if (!rf_pins__set_valid(name))
		return -EINVAL;
	snprintf(selected, sizeof(selected), "%s", name);
	rf_pins__set_dir(name, selected_dir, sizeof(selected_dir));
	return 0;
}

const char *rf_pins__selected(void)
{
	return selected;
}

const char *rf_pins__dir(void)
{
	return selected_dir[0] ? selected_dir : RF_PIN_DIR;
}

const char *rf_pins__set_dir(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, name[0] ? RF_PIN_DIR "/%s" : RF_PIN_DIR "%s", name);
	return buf;
}

int rf_pins__each_set(int (*fn)(const char *name, void *ctx), void *ctx)
{
	DIR *d = opendir(RF_PIN_DIR);
	struct dirent *de;
	bool legacy = false;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR)
			legacy = true;  /* a flat pin: a build before sets */
		else if (rf_pins__set_valid(de->d_name) && de->d_name[0])
			ret = fn(de->d_name, ctx);
	}
	closedir(d);
	return !ret && legacy ? fn("", ctx) : ret;
}

const char *rf_pins__live_lock(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, name[0] ? "live-%s.lock" : "live.lock", name);
	return buf;
}

const char *rf_pins__path(const char *pin, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", rf_pins__dir(), pin);
	return buf;
}

int rf_pins__get_in(const char *set, const char *pin)
{
	char dir[256], path[320];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", rf_pins__set_dir(set, dir, sizeof(dir)), pin);
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int rf_pins__get(const char *pin)
{
	return rf_pins__get_in(selected, pin);
}

int rf_pins__open_map(enum rf_pin_map m)
{
	return rf_pins__get(rf_pin_maps[m].pin);
}

uint32_t rf_pins__map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.id;
}

uint32_t rf_pins__pinned_id(enum rf_pin_map m)
{
	int fd = rf_pins__open_map(m);
	uint32_t id;

	if (fd < 0)
		return 0;
	id = rf_pins__map_id(fd);
	close(fd);
	return id;
}

int rf_pins__read_meta(struct rf_meta *ret_meta)
{
	return rf_pins__read_meta_in(selected, ret_meta);
}

int rf_pins__read_meta_in(const char *set, struct rf_meta *ret_meta)
{
	__u32 zero = 0;
	int fd, err = 0;

	fd = rf_pins__get_in(set, rf_pin_maps[RF_PIN_META].pin);
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(fd, &zero, ret_meta))
		err = -errno;
	close(fd);
	if (!err && ret_meta->abi_version != RF_ABI_VERSION)
		err = -ESTALE;
	return err;
}

int rf_pins__open_maps(uint32_t features, int fds[RF_PIN_MAP_MAX])
{
	return rf_pins__open_maps_in(selected, features, fds);
}

int rf_pins__open_maps_in(const char *set, uint32_t features, int fds[RF_PIN_MAP_MAX])
{
	size_t i;

	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		fds[i] = -1;
	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		if ((rf_pin_maps[i].flags & RF_PINF_META) ||
		    ((rf_pin_maps[i].flags & RF_PINF_LSM) && !(features & RF_FEAT_LSM)) ||
		    ((rf_pin_maps[i].flags & RF_PINF_OBSERVE) && !(features & RF_FEAT_OBSERVE)))
			continue;
		fds[i] = rf_pins__get_in(set, rf_pin_maps[i].pin);
		if (fds[i] < 0) {
			int err = fds[i];

			rf_pins__close_maps(fds);
			return err;
		}
	}
	return 0;
}

void rf_pins__close_maps(int fds[RF_PIN_MAP_MAX])
{
	size_t i;

	if (!fds)
		return;
	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}
