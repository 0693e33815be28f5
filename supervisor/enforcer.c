// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One set of programs and maps serves every sandbox on the host: loaded
 * once, pinned under RF_PIN_DIR, reused by later runs. The pinned meta
 * map names the build that loaded them, so a newer build never writes
 * its map layout into programs compiled for another.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <openssl/evp.h>

#include "rf_abi.h"
#include "enforcer.h"
#include "net.skel.h"

#define BPF_CGROUP_UNIX_CONNECT_NR 49   /* not in this libbpf's headers */
#define BPF_CGROUP_UNIX_SENDMSG_NR 50

struct pinned_map {
	const char *name;
	size_t off;              /* offsetof fd in struct rf_enforcer */
};

static const struct pinned_map pinned_maps[] = {
	{ "sandboxes", offsetof(struct rf_enforcer, sandboxes_fd) },
	{ "net4", offsetof(struct rf_enforcer, net4_fd) },
	{ "net6", offsetof(struct rf_enforcer, net6_fd) },
	{ "unix", offsetof(struct rf_enforcer, unix_fd) },
	{ "samples", offsetof(struct rf_enforcer, samples_fd) },
	{ "events", offsetof(struct rf_enforcer, events_fd) },
	{ "stats", offsetof(struct rf_enforcer, stats_fd) },
};

struct link_spec {
	const char *pin;
	int attach_type;
	uint32_t feature;
};

/* Same order as prog_of() below. */
static const struct link_spec link_specs[] = {
	{ "link_connect4", BPF_CGROUP_INET4_CONNECT, RF_FEAT_INET },
	{ "link_connect6", BPF_CGROUP_INET6_CONNECT, RF_FEAT_INET },
	{ "link_sendmsg4", BPF_CGROUP_UDP4_SENDMSG, RF_FEAT_INET },
	{ "link_sendmsg6", BPF_CGROUP_UDP6_SENDMSG, RF_FEAT_INET },
	{ "link_sock_create", BPF_CGROUP_INET_SOCK_CREATE, RF_FEAT_INET },
	{ "link_connect_unix", BPF_CGROUP_UNIX_CONNECT_NR, RF_FEAT_UNIX },
	{ "link_sendmsg_unix", BPF_CGROUP_UNIX_SENDMSG_NR, RF_FEAT_UNIX },
};
#define N_LINKS (sizeof(link_specs) / sizeof(link_specs[0]))

static struct bpf_program *prog_of(struct net_bpf *skel, size_t i)
{
	struct bpf_program *progs[N_LINKS] = {
		skel->progs.rf_connect4, skel->progs.rf_connect6,
		skel->progs.rf_sendmsg4, skel->progs.rf_sendmsg6,
		skel->progs.rf_sock_create, skel->progs.rf_connect_unix,
		skel->progs.rf_sendmsg_unix,
	};
	return progs[i];
}

static struct bpf_map *map_of(struct net_bpf *skel, const char *name)
{
	if (!strcmp(name, "sandboxes")) return skel->maps.rf_sandboxes;
	if (!strcmp(name, "net4")) return skel->maps.rf_net4;
	if (!strcmp(name, "net6")) return skel->maps.rf_net6;
	if (!strcmp(name, "unix")) return skel->maps.rf_unix;
	if (!strcmp(name, "samples")) return skel->maps.rf_samples;
	if (!strcmp(name, "events")) return skel->maps.rf_events;
	if (!strcmp(name, "stats")) return skel->maps.rf_stats;
	return NULL;
}

/* sha256 of the embedded BPF object: the build identity. */
static void build_id(uint8_t out[32])
{
	size_t sz = 0;
	const void *elf = net_bpf__elf_bytes(&sz);
	unsigned int len = 32;

	EVP_Digest(elf, sz, out, &len, EVP_sha256(), NULL);
}

/* open -> configure -> load; the unix programs only when wanted, with the
 * attach type this libbpf cannot name. */
static int skel_load(bool want_unix, struct net_bpf **ret_skel)
{
	struct net_bpf *skel;
	int err;

	skel = net_bpf__open();
	if (!skel)
		return -errno;
	bpf_program__set_expected_attach_type(skel->progs.rf_connect_unix,
					      BPF_CGROUP_UNIX_CONNECT_NR);
	bpf_program__set_expected_attach_type(skel->progs.rf_sendmsg_unix,
					      BPF_CGROUP_UNIX_SENDMSG_NR);
	bpf_program__set_autoload(skel->progs.rf_connect_unix, want_unix);
	bpf_program__set_autoload(skel->progs.rf_sendmsg_unix, want_unix);
	err = net_bpf__load(skel);
	if (err) {
		net_bpf__destroy(skel);
		return err;
	}
	*ret_skel = skel;
	return 0;
}

/* Attach the programs of one feature to cgroup_fd and detach them again. */
static int probe_attach(struct net_bpf *skel, int cgroup_fd, uint32_t feature,
			struct rf_backend_probe *p)
{
	int fds[N_LINKS], err = 0;
	size_t i;

	for (i = 0; i < N_LINKS; i++) {
		fds[i] = -1;
		if (link_specs[i].feature != feature || err)
			continue;
		fds[i] = bpf_link_create(bpf_program__fd(prog_of(skel, i)), cgroup_fd,
					 link_specs[i].attach_type, NULL);
		if (fds[i] < 0) {
			err = -errno;
			p->err = err;
			snprintf(p->detail, sizeof(p->detail), "attach %s: %s",
				 bpf_program__name(prog_of(skel, i)), strerror(errno));
		}
	}
	for (i = 0; i < N_LINKS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

void enforcer__probe(int cgroup_fd, struct rf_backend_probe *inet,
		     struct rf_backend_probe *unx)
{
	struct net_bpf *skel = NULL;
	bool with_unix = true;
	int err;

	memset(inet, 0, sizeof(*inet));
	memset(unx, 0, sizeof(*unx));

	/* One load with every program; only if that fails, find out whether
	 * the unix hooks alone are the problem. */
	err = skel_load(true, &skel);
	if (err) {
		unx->err = err;
		snprintf(unx->detail, sizeof(unx->detail),
			 "load cgroup/connect_unix,sendmsg_unix (attach types 49, 50): %s",
			 strerror(-err));
		with_unix = false;
		err = skel_load(false, &skel);
	}
	if (err) {
		inet->err = err;
		snprintf(inet->detail, sizeof(inet->detail),
			 "load cgroup/connect4,connect6,sendmsg4,sendmsg6,sock_create: %s",
			 strerror(-err));
		return;
	}
	if (!probe_attach(skel, cgroup_fd, RF_FEAT_INET, inet)) {
		inet->ok = true;
		snprintf(inet->detail, sizeof(inet->detail),
			 "cgroup/connect4,connect6,sendmsg4,sendmsg6,sock_create loaded and attached");
	}
	if (with_unix && !probe_attach(skel, cgroup_fd, RF_FEAT_UNIX, unx)) {
		unx->ok = true;
		snprintf(unx->detail, sizeof(unx->detail),
			 "cgroup/connect_unix,sendmsg_unix loaded and attached");
	}
	net_bpf__destroy(skel);
}

/* A pinned link still attached reports the id of its cgroup: it must be
 * the ringfence parent this run uses, or sandboxes below it would run
 * without any program attached. */
static bool link_attached(const char *pin, uint64_t parent_id)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	char path[256];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), RF_PIN_DIR "/%s", pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	memset(&info, 0, sizeof(info));
	ok = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_CGROUP &&
	     info.cgroup.cgroup_id == parent_id;
	close(fd);
	return ok;
}

/* Every link of the features the pinned set claims is attached to parent. */
static bool links_attached(uint32_t features, uint64_t parent_id)
{
	size_t i;

	for (i = 0; i < N_LINKS; i++)
		if ((features & link_specs[i].feature) &&
		    !link_attached(link_specs[i].pin, parent_id))
			return false;
	return (features & RF_FEAT_INET) != 0;
}

static uint64_t fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_ino;
}

static int read_meta(struct rf_meta *meta);
static void build_id(uint8_t out[32]);

int enforcer__probe_pinned(int parent_fd, struct rf_backend_probe *inet,
			   struct rf_backend_probe *unx)
{
	struct rf_meta meta;
	uint8_t id[32];

	if (read_meta(&meta))
		return -ENOENT;
	build_id(id);
	if (meta.abi_version != RF_ABI_VERSION || memcmp(meta.build_id, id, 32) ||
	    !(meta.features & RF_FEAT_UNIX) || !links_attached(meta.features, fd_ino(parent_fd)))
		return -ENOENT;  /* only a fresh load can tell */
	memset(inet, 0, sizeof(*inet));
	memset(unx, 0, sizeof(*unx));
	inet->ok = true;
	snprintf(inet->detail, sizeof(inet->detail),
		 "this build's cgroup/connect4,connect6,sendmsg4,sendmsg6,sock_create are "
		 "attached to the ringfence cgroup now (pinned in %s)", RF_PIN_DIR);
	unx->ok = true;
	snprintf(unx->detail, sizeof(unx->detail),
		 "this build's cgroup/connect_unix,sendmsg_unix are attached to the ringfence "
		 "cgroup now (pinned in %s)", RF_PIN_DIR);
	return 0;
}

static int ensure_bpffs(void)
{
	struct statfs st;

	if (mkdir("/sys/fs/bpf", 0700) && errno != EEXIST)
		return -errno;
	if (statfs("/sys/fs/bpf", &st))
		return -errno;
	if (st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

static int lock_file(const char *name, int op)
{
	char path[256];
	int fd;

	if (mkdir(RF_RUN_DIR, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), RF_RUN_DIR "/%s", name);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, op)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void unpin_all(void)
{
	char path[256];
	size_t i;

	/* Unlinking a pinned link drops its last reference: it detaches. */
	for (i = 0; i < N_LINKS; i++) {
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s", link_specs[i].pin);
		unlink(path);
	}
	for (i = 0; i < sizeof(pinned_maps) / sizeof(pinned_maps[0]); i++) {
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s", pinned_maps[i].name);
		unlink(path);
	}
	unlink(RF_PIN_DIR "/meta");
	rmdir(RF_PIN_DIR);
}

static int *fd_slot(struct rf_enforcer *enf, size_t i)
{
	return (int *)((char *)enf + pinned_maps[i].off);
}

static struct rf_enforcer *enforcer_new(void)
{
	struct rf_enforcer *enf = calloc(1, sizeof(*enf));
	size_t i;

	if (!enf)
		return NULL;
	for (i = 0; i < sizeof(pinned_maps) / sizeof(pinned_maps[0]); i++)
		*fd_slot(enf, i) = -1;
	enf->live_lock_fd = -1;
	return enf;
}

void enforcer__close(struct rf_enforcer *enf)
{
	size_t i;

	if (!enf)
		return;
	for (i = 0; i < sizeof(pinned_maps) / sizeof(pinned_maps[0]); i++)
		if (*fd_slot(enf, i) >= 0)
			close(*fd_slot(enf, i));
	if (enf->live_lock_fd >= 0)
		close(enf->live_lock_fd);
	free(enf);
}

/* Read meta of the pinned set: 0, -ENOENT if none, or -errno. */
static int read_meta(struct rf_meta *meta)
{
	__u32 zero = 0;
	int fd, err = 0;

	fd = bpf_obj_get(RF_PIN_DIR "/meta");
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, meta))
		err = -errno;
	close(fd);
	return err;
}

static int open_pinned_maps(struct rf_enforcer *enf)
{
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(pinned_maps) / sizeof(pinned_maps[0]); i++) {
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s", pinned_maps[i].name);
		*fd_slot(enf, i) = bpf_obj_get(path);
		if (*fd_slot(enf, i) < 0)
			return -errno;
	}
	return 0;
}

int enforcer__open_pinned(struct rf_enforcer **ret_enf)
{
	struct rf_enforcer *enf = enforcer_new();
	struct rf_meta meta;
	int err;

	if (!enf)
		return -ENOMEM;
	err = read_meta(&meta);
	if (err)
		goto cleanup;
	if (meta.abi_version != RF_ABI_VERSION) {
		err = -ESTALE;
		goto cleanup;
	}
	enf->features = meta.features;
	err = open_pinned_maps(enf);
	if (err)
		goto cleanup;
	*ret_enf = enf;
	return 0;
cleanup:
	enforcer__close(enf);
	return err;
}

/* Load, attach to the ringfence parent cgroup, pin; meta last, so a
 * half-pinned set is never taken for a complete one. */
static int load_and_pin(int parent_fd, bool want_unix, const uint8_t id[32],
			char *why, size_t why_len)
{
	struct net_bpf *skel = NULL;
	struct rf_meta meta = { .abi_version = RF_ABI_VERSION };
	char path[256];
	__u32 zero = 0;
	size_t i;
	int err, fd;

	err = skel_load(want_unix, &skel);
	if (err) {
		snprintf(why, why_len, "loading the network programs failed: %s", strerror(-err));
		return err;
	}
	if (mkdir(RF_PIN_DIR, 0700) && errno != EEXIST) {
		err = -errno;
		snprintf(why, why_len, "mkdir %s: %s", RF_PIN_DIR, strerror(errno));
		goto cleanup;
	}
	for (i = 0; i < sizeof(pinned_maps) / sizeof(pinned_maps[0]); i++) {
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s", pinned_maps[i].name);
		err = bpf_map__pin(map_of(skel, pinned_maps[i].name), path);
		if (err) {
			snprintf(why, why_len, "pin %s: %s", path, strerror(-err));
			goto cleanup;
		}
	}
	for (i = 0; i < N_LINKS; i++) {
		if (link_specs[i].feature == RF_FEAT_UNIX && !want_unix)
			continue;
		fd = bpf_link_create(bpf_program__fd(prog_of(skel, i)), parent_fd,
				     link_specs[i].attach_type, NULL);
		if (fd < 0) {
			err = -errno;
			snprintf(why, why_len, "attach %s: %s",
				 bpf_program__name(prog_of(skel, i)), strerror(errno));
			goto cleanup;
		}
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s", link_specs[i].pin);
		err = bpf_obj_pin(fd, path) ? -errno : 0;
		close(fd);
		if (err) {
			snprintf(why, why_len, "pin %s: %s", path, strerror(-err));
			goto cleanup;
		}
		meta.features |= link_specs[i].feature;
	}
	memcpy(meta.build_id, id, 32);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.rf_meta), &zero, &meta, BPF_ANY)) {
		err = -errno;
		snprintf(why, why_len, "write meta: %s", strerror(errno));
		goto cleanup;
	}
	err = bpf_map__pin(skel->maps.rf_meta, RF_PIN_DIR "/meta");
	if (err)
		snprintf(why, why_len, "pin meta: %s", strerror(-err));
cleanup:
	if (err)
		unpin_all();
	net_bpf__destroy(skel);
	return err;
}

int enforcer__open(int parent_fd, bool want_unix, struct rf_enforcer **ret_enf,
		   char *why, size_t why_len)
{
	struct rf_enforcer *enf = NULL;
	struct rf_meta meta;
	uint8_t id[32];
	int load_fd = -1, live_fd, err;
	bool reuse;

	why[0] = 0;
	err = ensure_bpffs();
	if (err) {
		snprintf(why, why_len, "mount bpffs at /sys/fs/bpf: %s", strerror(-err));
		return err;
	}
	enf = enforcer_new();
	if (!enf)
		return -ENOMEM;
	/* Serialise first runs: exactly one of them loads and pins. */
	load_fd = lock_file("load.lock", LOCK_EX);
	if (load_fd < 0) {
		err = load_fd;
		snprintf(why, why_len, "lock %s/load.lock: %s", RF_RUN_DIR, strerror(-err));
		goto cleanup;
	}
	build_id(id);
	err = read_meta(&meta);
	reuse = !err && meta.abi_version == RF_ABI_VERSION &&
		!memcmp(meta.build_id, id, 32) &&
		(!want_unix || (meta.features & RF_FEAT_UNIX)) &&
		links_attached(meta.features, fd_ino(parent_fd));
	if (!reuse && err != -ENOENT) {
		/* Pinned by another build (or incomplete): replace it, but
		 * only when no supervisor is using it. */
		live_fd = lock_file("live.lock", LOCK_EX | LOCK_NB);
		if (live_fd < 0) {
			err = -ESTALE;
			snprintf(why, why_len,
				 "the pinned enforcement programs in %s come from another "
				 "ringfence build, or are attached to another cgroup than "
				 "this run's, and sandboxes are live; retry when they end, "
				 "or run `ringfence unload --force`", RF_PIN_DIR);
			goto cleanup;
		}
		unpin_all();
		close(live_fd);
	}
	if (!reuse) {
		err = load_and_pin(parent_fd, want_unix, id, why, why_len);
		if (err)
			goto cleanup;
		enf->loaded_now = true;
		err = read_meta(&meta);
		if (err) {
			snprintf(why, why_len, "read pinned meta: %s", strerror(-err));
			goto cleanup;
		}
	}
	enf->features = meta.features;
	err = open_pinned_maps(enf);
	if (err) {
		snprintf(why, why_len, "open pinned maps in %s: %s", RF_PIN_DIR, strerror(-err));
		goto cleanup;
	}
	enf->live_lock_fd = lock_file("live.lock", LOCK_SH);
	if (enf->live_lock_fd < 0) {
		err = enf->live_lock_fd;
		snprintf(why, why_len, "lock %s/live.lock: %s", RF_RUN_DIR, strerror(-err));
		goto cleanup;
	}
	*ret_enf = enf;
	enf = NULL;
cleanup:
	if (load_fd >= 0)
		close(load_fd);
	enforcer__close(enf);
	return err;
}

int enforcer__stat(const struct rf_enforcer *enf, uint32_t idx, uint64_t *ret_val)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;
	int i, err = 0;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(enf->stats_fd, &idx, vals)) {
		err = -errno;
		goto cleanup;
	}
	for (i = 0; i < ncpu; i++)
		sum += vals[i];
	*ret_val = sum;
cleanup:
	free(vals);
	return err;
}

int enforcer__unload(bool force)
{
	int load_fd, live_fd = -1, err = 0;

	load_fd = lock_file("load.lock", LOCK_EX);
	if (load_fd < 0)
		return load_fd;
	live_fd = lock_file("live.lock", LOCK_EX | (force ? 0 : LOCK_NB));
	if (live_fd < 0) {
		err = live_fd == -EWOULDBLOCK ? -EBUSY : live_fd;
		goto cleanup;
	}
	unpin_all();
cleanup:
	if (live_fd >= 0)
		close(live_fd);
	close(load_fd);
	return err;
}
