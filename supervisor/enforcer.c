// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One set of programs and maps serves every sandbox on the host: loaded
 * once, pinned under RF_PIN_DIR, reused by later runs. The pinned meta
 * map names the build that loaded them, so a newer build never writes
 * its map layout into programs compiled for another.
 */
#include <dirent.h>
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
#include <bpf/btf.h>
#include <openssl/evp.h>

#include "rf_abi.h"
#include "bpfutil.h"
#include "enforcer.h"
#include "net.skel.h"
#include "lsm.skel.h"

#define BPF_CGROUP_UNIX_CONNECT_NR 49   /* not in this libbpf's headers */
#define BPF_CGROUP_UNIX_SENDMSG_NR 50

struct pinned_map {
	const char *name;
	size_t off;              /* offsetof fd in struct rf_enforcer */
	bool lsm;                /* pinned by the LSM object: absent without it */
};

static const struct pinned_map pinned_maps[] = {
	{ "sandboxes", offsetof(struct rf_enforcer, sandboxes_fd), false },
	{ "net4", offsetof(struct rf_enforcer, net4_fd), false },
	{ "net6", offsetof(struct rf_enforcer, net6_fd), false },
	{ "unix", offsetof(struct rf_enforcer, unix_fd), false },
	{ "paths", offsetof(struct rf_enforcer, paths_fd), true },
	{ "samples", offsetof(struct rf_enforcer, samples_fd), false },
	{ "events", offsetof(struct rf_enforcer, events_fd), false },
	{ "stats", offsetof(struct rf_enforcer, stats_fd), false },
};
#define N_MAPS (sizeof(pinned_maps) / sizeof(pinned_maps[0]))

/* Pinned links of the LSM programs: LSM_PIN_PREFIX + program name. */
#define LSM_PIN_PREFIX "lsm_"

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
	if (!strcmp(name, "paths")) return NULL;  /* the LSM object's */
	if (!strcmp(name, "sandboxes")) return skel->maps.rf_sandboxes;
	if (!strcmp(name, "net4")) return skel->maps.rf_net4;
	if (!strcmp(name, "net6")) return skel->maps.rf_net6;
	if (!strcmp(name, "unix")) return skel->maps.rf_unix;
	if (!strcmp(name, "samples")) return skel->maps.rf_samples;
	if (!strcmp(name, "events")) return skel->maps.rf_events;
	if (!strcmp(name, "stats")) return skel->maps.rf_stats;
	return NULL;
}

/* sha256 of the embedded BPF objects: the build identity. */
static void build_id(uint8_t out[32])
{
	size_t sz = 0, lsz = 0;
	const void *elf = net_bpf__elf_bytes(&sz);
	const void *lelf = lsm_bpf__elf_bytes(&lsz);
	unsigned int len = 32;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(ctx, elf, sz) || !EVP_DigestUpdate(ctx, lelf, lsz) ||
	    !EVP_DigestFinal_ex(ctx, out, &len))
		memset(out, 0, 32);  /* never equal to a real build's id... */
	EVP_MD_CTX_free(ctx);
}

/* ---- the BPF-LSM object ---- */

/* The maps the LSM object shares with the network object, by the names of
 * its skeleton's maps and the pins (or fds) they reuse. */
static struct bpf_map *lsm_shared_map(struct lsm_bpf *skel, const char *name)
{
	if (!strcmp(name, "sandboxes")) return skel->maps.rf_sandboxes;
	if (!strcmp(name, "unix")) return skel->maps.rf_unix;
	if (!strcmp(name, "samples")) return skel->maps.rf_samples;
	if (!strcmp(name, "events")) return skel->maps.rf_events;
	if (!strcmp(name, "stats")) return skel->maps.rf_stats;
	return NULL;
}

/*
 * Hooks whose arguments changed across kernel releases have one program
 * per signature; load the one whose argument count (BPF_PROG's, without
 * the trailing verdict) matches the running kernel's bpf_lsm_HOOK.
 */
struct lsm_variant {
	const char *hook;
	const char *prog;
	unsigned int nargs;
};

static const struct lsm_variant lsm_variants[] = {
	{ "bpf", "rf_bpf", 3 },
	{ "bpf", "rf_bpf_v69", 4 },
	{ "inode_setattr", "rf_inode_setattr", 2 },
	{ "inode_setattr", "rf_inode_setattr_v63", 3 },
};
#define N_VARIANTS (sizeof(lsm_variants) / sizeof(lsm_variants[0]))

/* Arguments of the kernel's bpf_lsm_HOOK, or -errno. */
static int hook_nargs(const struct btf *vmlinux, const char *hook)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "bpf_lsm_%s", hook);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type);
	return t ? (int)btf_vlen(t) : -ENOENT;
}

/* Turn autoload off for the variants this kernel does not match; an error
 * (why filled) when a hook has no matching variant. */
static int lsm_select(struct lsm_bpf *skel, char *why, size_t why_len)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	size_t i, j;
	int err = 0;

	if (!vmlinux) {
		err = -errno;
		snprintf(why, why_len, "read the kernel's BTF: %s", strerror(-err));
		return err;
	}
	for (i = 0; i < N_VARIANTS && !err; i++) {
		struct bpf_program *prog =
			bpf_object__find_program_by_name(skel->obj, lsm_variants[i].prog);
		int n = hook_nargs(vmlinux, lsm_variants[i].hook);
		bool any = false;

		if (!prog)
			continue;
		bpf_program__set_autoload(prog, n >= 0 && (unsigned int)n == lsm_variants[i].nargs);
		for (j = 0; j < N_VARIANTS; j++)
			if (!strcmp(lsm_variants[j].hook, lsm_variants[i].hook) && n >= 0 &&
			    (unsigned int)n == lsm_variants[j].nargs)
				any = true;
		if (!any) {
			err = -EOPNOTSUPP;
			snprintf(why, why_len, "lsm hook %s has %d arguments on this kernel; this "
				 "build knows other signatures", lsm_variants[i].hook, n);
		}
	}
	btf__free(vmlinux);
	return err;
}

/* Open and load the LSM object. map_fd(name) gives the fd to reuse for a
 * shared map, or -1 to let it create its own (the probe). */
static int lsm_load(const struct rf_enforcer *shared, struct lsm_bpf **ret_skel,
		    char *why, size_t why_len)
{
	struct lsm_bpf *skel;
	size_t i;
	int err;

	skel = lsm_bpf__open();
	if (!skel) {
		err = -errno;
		snprintf(why, why_len, "open the BPF-LSM object: %s", strerror(-err));
		return err;
	}
	err = lsm_select(skel, why, why_len);
	if (err) {
		lsm_bpf__destroy(skel);
		return err;
	}
	for (i = 0; shared && i < N_MAPS; i++) {
		struct bpf_map *m = lsm_shared_map(skel, pinned_maps[i].name);
		int fd = *(const int *)((const char *)shared + pinned_maps[i].off);

		if (!m)
			continue;
		err = bpf_map__reuse_fd(m, fd);
		if (err) {
			snprintf(why, why_len, "reuse map %s for the BPF-LSM object: %s",
				 pinned_maps[i].name, strerror(-err));
			lsm_bpf__destroy(skel);
			return err;
		}
	}
	err = lsm_bpf__load(skel);
	if (err) {
		snprintf(why, why_len, "loading the BPF-LSM programs failed: %s", strerror(-err));
		lsm_bpf__destroy(skel);
		return err;
	}
	*ret_skel = skel;
	return 0;
}

/* Attach every LSM program; pin its link when pin (and the paths map).
 * parent_fd (>= 0): the ringfence cgroup, the programs' fast path. */
static int lsm_attach(struct lsm_bpf *skel, bool pin, int parent_fd, char *why,
		      size_t why_len)
{
	struct bpf_program *prog;
	char path[256];
	__u32 zero = 0;
	int err = 0;

	if (parent_fd >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(skel->maps.rf_parent), &zero, &parent_fd, BPF_ANY)) {
		err = -errno;
		snprintf(why, why_len, "set the ringfence cgroup for the BPF-LSM programs: %s",
			 strerror(-err));
		return err;
	}

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;  /* another kernel's signature */
		link = bpf_program__attach_lsm(prog);
		if (!link) {
			err = -errno;
			snprintf(why, why_len, "attach lsm program %s: %s",
				 bpf_program__name(prog), strerror(-err));
			return err;
		}
		if (pin) {
			snprintf(path, sizeof(path), RF_PIN_DIR "/" LSM_PIN_PREFIX "%s",
				 bpf_program__name(prog));
			err = bpf_link__pin(link, path);
			if (err) {
				snprintf(why, why_len, "pin %s: %s", path, strerror(-err));
				bpf_link__destroy(link);
				return err;
			}
		}
		/* A pinned link stays attached after its fd closes. */
		bpf_link__destroy(link);
	}
	if (pin) {
		err = bpf_map__pin(skel->maps.rf_paths, RF_PIN_DIR "/paths");
		if (err)
			snprintf(why, why_len, "pin %s/paths: %s", RF_PIN_DIR, strerror(-err));
	}
	return err;
}

/* Every LSM program of this build has its pinned link (the programs are
 * attached as long as the pins hold them). */
static bool lsm_links_pinned(void)
{
	struct bpf_program *prog;
	struct lsm_bpf *skel = lsm_bpf__open();
	bool ok = skel != NULL;
	char path[256], why[200];

	if (!skel)
		return false;
	if (lsm_select(skel, why, sizeof(why))) {
		lsm_bpf__destroy(skel);
		return false;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_link_info info;
		__u32 len = sizeof(info);
		int fd;

		if (!bpf_program__autoload(prog))
			continue;
		snprintf(path, sizeof(path), RF_PIN_DIR "/" LSM_PIN_PREFIX "%s",
			 bpf_program__name(prog));
		fd = bpf_obj_get(path);
		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    info.type != BPF_LINK_TYPE_TRACING)
			ok = false;
		if (fd >= 0)
			close(fd);
		if (!ok)
			break;
	}
	lsm_bpf__destroy(skel);
	return ok;
}

void enforcer__probe_lsm(struct rf_backend_probe *p)
{
	struct lsm_bpf *skel = NULL;
	char why[200];
	int err;

	memset(p, 0, sizeof(*p));
	err = lsm_load(NULL, &skel, why, sizeof(why));
	if (!err) {
		/* Attached unpinned: detached again by the destroy below. */
		struct bpf_program *prog;

		bpf_object__for_each_program(prog, skel->obj) {
			struct bpf_link *link;

			if (!bpf_program__autoload(prog))
				continue;
			link = bpf_program__attach_lsm(prog);
			if (!link) {
				err = -errno;
				snprintf(why, sizeof(why), "attach lsm program %s: %s",
					 bpf_program__name(prog), strerror(-err));
				break;
			}
			bpf_link__destroy(link);
		}
	}
	lsm_bpf__destroy(skel);
	p->err = err;
	p->ok = !err;
	if (err)
		snprintf(p->detail, sizeof(p->detail), "%s", why);
	else
		snprintf(p->detail, sizeof(p->detail),
			 "lsm.bpf.c (files, exec, unix, process hooks) loaded and attached");
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

/* Every pinned LSM link, whatever build pinned it. */
static void unpin_lsm_links(void)
{
	DIR *d = opendir(RF_PIN_DIR);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, LSM_PIN_PREFIX, strlen(LSM_PIN_PREFIX)))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
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
	unpin_lsm_links();
	for (i = 0; i < N_MAPS; i++) {
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
	for (i = 0; i < N_MAPS; i++)
		*fd_slot(enf, i) = -1;
	enf->live_lock_fd = -1;
	return enf;
}

void enforcer__close(struct rf_enforcer *enf)
{
	size_t i;

	if (!enf)
		return;
	for (i = 0; i < N_MAPS; i++)
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

/* The LSM object's maps only when the pinned set has it. */
static int open_pinned_maps(struct rf_enforcer *enf)
{
	char path[256];
	size_t i;

	for (i = 0; i < N_MAPS; i++) {
		if (pinned_maps[i].lsm && !(enf->features & RF_FEAT_LSM))
			continue;
		snprintf(path, sizeof(path), RF_PIN_DIR "/%s", pinned_maps[i].name);
		*fd_slot(enf, i) = bpf_obj_get(path);
		if (*fd_slot(enf, i) < 0)
			return -errno;
	}
	return 0;
}

/* Add the LSM object to this build's pinned set (loaded without it):
 * its programs reuse the pinned maps, then meta says it is there. Live
 * sandboxes keep running: their entries have no LSM flags. */
static int lsm_add(int parent_fd, const uint8_t id[32], char *why, size_t why_len)
{
	struct rf_enforcer *tmp = enforcer_new();
	struct lsm_bpf *skel = NULL;
	struct rf_meta meta;
	__u32 zero = 0;
	int err, fd;

	if (!tmp)
		return -ENOMEM;
	err = read_meta(&meta);
	if (!err)
		err = open_pinned_maps(tmp);  /* features 0: the network maps */
	if (err) {
		snprintf(why, why_len, "open pinned maps in %s: %s", RF_PIN_DIR, strerror(-err));
		goto cleanup;
	}
	unpin_lsm_links();
	unlink(RF_PIN_DIR "/paths");
	err = lsm_load(tmp, &skel, why, why_len);
	if (!err)
		err = lsm_attach(skel, true, parent_fd, why, why_len);
	if (err) {
		unpin_lsm_links();
		unlink(RF_PIN_DIR "/paths");
		goto cleanup;
	}
	meta.features |= RF_FEAT_LSM;
	memcpy(meta.build_id, id, 32);
	fd = bpf_obj_get(RF_PIN_DIR "/meta");
	if (fd < 0 || bpf_map_update_elem(fd, &zero, &meta, BPF_ANY)) {
		err = -errno;
		snprintf(why, why_len, "write meta: %s", strerror(errno));
	}
	if (fd >= 0)
		close(fd);
cleanup:
	lsm_bpf__destroy(skel);
	enforcer__close(tmp);
	return err;
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
static int load_and_pin(int parent_fd, bool want_unix, bool want_lsm, const uint8_t id[32],
			char *why, size_t why_len)
{
	struct net_bpf *skel = NULL;
	struct lsm_bpf *lskel = NULL;
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
	for (i = 0; i < N_MAPS; i++) {
		if (pinned_maps[i].lsm)
			continue;
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
	if (want_lsm) {
		struct rf_enforcer shared;

		memset(&shared, -1, sizeof(shared));
		for (i = 0; i < N_MAPS; i++)
			if (!pinned_maps[i].lsm)
				*fd_slot(&shared, i) = bpf_map__fd(map_of(skel, pinned_maps[i].name));
		err = lsm_load(&shared, &lskel, why, why_len);
		if (!err)
			err = lsm_attach(lskel, true, parent_fd, why, why_len);
		if (err)
			goto cleanup;
		meta.features |= RF_FEAT_LSM;
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
	lsm_bpf__destroy(lskel);
	net_bpf__destroy(skel);
	return err;
}

int enforcer__open(int parent_fd, bool want_unix, bool want_lsm,
		       struct rf_enforcer **ret_enf, char *why, size_t why_len)
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
		links_attached(meta.features, fd_ino(parent_fd)) &&
		(!(meta.features & RF_FEAT_LSM) || lsm_links_pinned());
	if (reuse && want_lsm && !(meta.features & RF_FEAT_LSM)) {
		/* This build's set without the LSM object: add it. */
		err = lsm_add(parent_fd, id, why, why_len);
		if (err)
			goto cleanup;
		err = read_meta(&meta);
		if (err) {
			snprintf(why, why_len, "read pinned meta: %s", strerror(-err));
			goto cleanup;
		}
	}
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
		err = load_and_pin(parent_fd, want_unix, want_lsm, id, why, why_len);
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
	return bpfutil__percpu_sum(enf->stats_fd, idx, ret_val);
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
