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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>

#include "rf_abi.h"
#include "bpfutil.h"
#include "cgroup.h"
#include "log.h"
#include "registry.h"
#include "runlock.h"
#include "enforcer.h"
#include "sbmaps.h"
#include "namecache.h"
#include "unix_bytes.h"
#include "gen/build_id.h"
#include "net.skel.h"
#include "lsm.skel.h"
#include "obs_syscalls.h"
#include "observe.skel.h"

/* A map of an object by the pin table's name of it. */
static struct bpf_map *obj_map(struct bpf_object *obj, enum rf_pin_map m)
{
	return bpf_object__find_map_by_name(obj, rf_pin_maps[m].bpf_name);
}

/* The network program a pinned link attaches. */
static struct bpf_program *link_prog(struct net_bpf *skel, enum rf_pin_link l)
{
	return bpf_object__find_program_by_name(skel->obj, rf_pin_links[l].prog);
}

/* sha256 of the three objects, computed by the Makefile (build_id.h):
 * the build identity. Read from its one copy in the binary (volatile: never
 * folded into the code), which is all that tells builds apart
 * (tests/host/upgrade.h makes another build by changing it). */
static const volatile uint8_t rf_build_id[32] = RF_BUILD_ID;

static void build_id(uint8_t out[32])
{
	size_t i;

	for (i = 0; i < 32; i++)
		out[i] = rf_build_id[i];
}

/* Whatever links the enforcer acts on its own build's set (pins.h), from
 * the first probe on: selected before main. */
__attribute__((constructor)) static void select_own_set(void)
{
	char name[RF_PIN_SET_LEN];
	uint8_t id[32];

	build_id(id);
	rf_pins__set_name(id, name);
	rf_pins__select(name);
}

/* ---- the BPF-LSM object ---- */

/*
 * Hooks whose arguments changed across kernel releases have one program
 * per signature; load the one whose argument count (BPF_PROG's, without
 * the trailing verdict) matches the running kernel's bpf_lsm_HOOK.
 */
struct lsm_variant {
	const char *hook;
	const char *prog;
	unsigned int nargs;
	bool optional;          /* a kernel without the hook loads none */
};

static const struct lsm_variant lsm_variants[] = {
	{ "bpf", "rf_bpf", 3, false },
	{ "bpf", "rf_bpf_v69", 4, false },
	{ "inode_setattr", "rf_inode_setattr", 2, false },
	{ "inode_setattr", "rf_inode_setattr_v63", 3, false },
	/* 6.2+; before, ACLs pass inode_setxattr */
	{ "inode_set_acl", "rf_inode_set_acl", 4, true },
	{ "inode_remove_acl", "rf_inode_remove_acl", 3, true },
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
 * (e filled) when a hook has no matching variant. */
static int lsm_select(struct bpf_object *obj, struct rf_error *e)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	size_t i, j;
	int err = 0;

	if (!vmlinux) {
		err = -errno;
		return rf_error_set(e, err, NULL, "read the kernel's BTF: %s", strerror(-err));
	}
	for (i = 0; i < N_VARIANTS && !err; i++) {
		struct bpf_program *prog =
			bpf_object__find_program_by_name(obj, lsm_variants[i].prog);
		int n = hook_nargs(vmlinux, lsm_variants[i].hook);
		bool any = false;

		if (!prog)
			continue;
		bpf_program__set_autoload(prog, n >= 0 && (unsigned int)n == lsm_variants[i].nargs);
		for (j = 0; j < N_VARIANTS; j++)
			if (!strcmp(lsm_variants[j].hook, lsm_variants[i].hook) && n >= 0 &&
			    (unsigned int)n == lsm_variants[j].nargs)
				any = true;
		if (!any && !(n == -ENOENT && lsm_variants[i].optional))
			err = rf_error_set(e, -EOPNOTSUPP, NULL,
					   "lsm hook %s has %d arguments on this kernel; this "
					   "build knows other signatures", lsm_variants[i].hook, n);
	}
	btf__free(vmlinux);
	return err;
}

/* ---- the objects added to the network object's set ---- */

/*
 * The BPF-LSM object and the observe object (sys_enter/sys_exit of
 * sandboxed tasks) go through one sequence: open, load reusing the
 * network object's shared maps, attach every program, pin its link under
 * link_prefix and the maps the object owns (pin_owner). This is what
 * differs between them.
 */
struct extra_obj {
	const char *label;        /* in messages: "the %s object", "the %s programs" */
	const char *attach_what;  /* in messages: "%s PROG: why" */
	const char *link_prefix;  /* RF_PIN_*_LINK_PREFIX */
	/* RF_PIN_*_PROG_PREFIX, or NULL. Set: the programs are pinned, not
	 * attached, by the pinned set, and attached only while sandboxes
	 * are live (obs_links_up, enforcer__observe_idle). */
	const char *prog_prefix;
	unsigned int pin_owner;   /* RF_PINF_* of the maps it pins */
	uint32_t feature;         /* RF_FEAT_* */
	const char *parent_map;   /* array[1] of the ringfence cgroup fd: the fast path */
	enum bpf_link_type link_type;
	struct bpf_link *(*attach)(const struct bpf_program *prog);
	/* the skeleton's: open (NULL, errno set), load, destroy (NULL allowed) */
	void *(*open)(struct bpf_object **ret_obj);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	/* after open (NULL e allowed) and after load; either may be NULL */
	int (*prepare)(struct bpf_object *obj, struct rf_error *e);
	int (*loaded)(struct bpf_object *obj, struct rf_error *e);
	unsigned int shared;      /* RF_PINF_* of the network object's maps it reuses */
	uint32_t (*features)(void); /* RF_FEAT_* beyond feature it brings; may be NULL */
};

/* The skeleton functions of an object, for struct extra_obj. */
#define SKEL_OPS(name)								\
	static void *name##_open(struct bpf_object **ret_obj)			\
	{									\
		struct name##_bpf *skel = name##_bpf__open();			\
										\
		if (skel)							\
			*ret_obj = skel->obj;					\
		return skel;							\
	}									\
	static int name##_load(void *skel)					\
	{									\
		return name##_bpf__load(skel);					\
	}									\
	static void name##_destroy(void *skel)					\
	{									\
		name##_bpf__destroy(skel);					\
	}
SKEL_OPS(lsm)
SKEL_OPS(observe)

/* Fill the observe object's syscall table: right after the load, before
 * anything is attached. */
static int obs_fill(struct bpf_object *obj, struct rf_error *e)
{
	struct rf_obs_syscall *table = calloc(RF_OBS_SYSCALL_MAX, sizeof(*table));
	int fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "rf_obs_syscalls"));
	int err = 0;
	__u32 nr;

	if (!table)
		return rf_error_set(e, -ENOMEM, NULL, "%s", strerror(ENOMEM));
	obs_syscalls__table(table);
	for (nr = 0; nr < RF_OBS_SYSCALL_MAX && !err; nr++)
		if (table[nr].op && bpf_map_update_elem(fd, &nr, &table[nr], BPF_ANY))
			err = rf_error_set(e, -errno, NULL, "fill rf_obs_syscalls: %s",
					   strerror(errno));
	free(table);
	return err;
}

enum rf_unix_bytes enforcer__kernel_unix_bytes(void)
{
	return unix_bytes__kernel();
}

/* The programs of the group RF_OBS_UNIX_BYTES: this kernel's way of
 * counting unix bytes (unix_bytes.h), the tracepoints or the fexit
 * programs (a program without its tracepoint or function fails the whole
 * load, and a kernel that refuses fexit would too). */
static int obs_select(struct bpf_object *obj, struct rf_error *e)
{
	struct bpf_program *prog;

	(void)e;
	bpf_object__for_each_program(prog, obj)
		if (!strncmp(bpf_program__name(prog), RF_OBS_UNIX_PREFIX,
			     strlen(RF_OBS_UNIX_PREFIX)))
			bpf_program__set_autoload(prog,
						  unix_bytes__prog_loads(bpf_program__name(prog)));
	return 0;
}

static uint32_t obs_features(void)
{
	return enforcer__kernel_unix_bytes() != RF_UNIX_BYTES_NONE ? RF_FEAT_UNIX_BYTES : 0;
}

/* In the order of struct extra_obj's fields. tp_btf programs attach by raw
 * tracepoint links. */
static const struct extra_obj lsm_obj = {
	"BPF-LSM", "attach lsm program", RF_PIN_LSM_LINK_PREFIX, NULL, RF_PINF_LSM, RF_FEAT_LSM,
	"rf_parent", BPF_LINK_TYPE_TRACING, bpf_program__attach_lsm,
	lsm_open, lsm_load, lsm_destroy, lsm_select, NULL, RF_PINF_SHARED, NULL,
};
static const struct extra_obj obs_obj = {
	"observe", "attach", RF_PIN_OBS_LINK_PREFIX, RF_PIN_OBS_PROG_PREFIX, RF_PINF_OBSERVE,
	RF_FEAT_OBSERVE,
	"rf_obs_parent", BPF_LINK_TYPE_RAW_TRACEPOINT, bpf_program__attach_trace,
	observe_open, observe_load, observe_destroy, obs_select, obs_fill,
	RF_PINF_SHARED | RF_PINF_OBS_SHARED, obs_features,
};

/* RF_PIN_DIR/PREFIXPROG: the pinned link of one program. */
static const char *link_path(const struct extra_obj *o, const struct bpf_program *prog,
			     char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s", rf_pins__dir(), o->link_prefix, bpf_program__name(prog));
	return buf;
}

/* RF_PIN_DIR/PREFIXPROG: the pinned program (objects with prog_prefix). */
static const char *prog_path(const struct extra_obj *o, const struct bpf_program *prog,
			     char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s%s", rf_pins__dir(), o->prog_prefix, bpf_program__name(prog));
	return buf;
}

/* The pin owner of a map: the object that creates and pins it (0: the
 * network object). */
#define PIN_OWNERS (RF_PINF_LSM | RF_PINF_OBSERVE | RF_PINF_META)

/* Pin the maps of obj that owner pins. */
static int pin_maps(struct bpf_object *obj, unsigned int owner, struct rf_error *e)
{
	char path[256];
	size_t i;
	int err;

	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		if ((rf_pin_maps[i].flags & PIN_OWNERS) != owner)
			continue;
		rf_pins__path(rf_pin_maps[i].pin, path, sizeof(path));
		err = bpf_map__pin(obj_map(obj, (enum rf_pin_map)i), path);
		if (err)
			return rf_error_set(e, err, NULL, "pin %s: %s", path, strerror(-err));
	}
	return 0;
}

/* Open and load one object. shared_fds (by enum rf_pin_map): the network
 * object's maps it reuses (RF_PINF_SHARED); NULL lets it create its own
 * (the probe). */
static int obj_load(const struct extra_obj *o, const int *shared_fds, void **ret_skel,
		    struct bpf_object **ret_obj, struct rf_error *e)
{
	struct bpf_object *obj = NULL;
	void *skel;
	size_t i;
	int err;

	skel = o->open(&obj);
	if (!skel) {
		err = -errno;
		return rf_error_set(e, err, NULL, "open the %s object: %s", o->label,
				    strerror(-err));
	}
	err = o->prepare ? o->prepare(obj, e) : 0;
	for (i = 0; !err && shared_fds && i < RF_PIN_MAP_MAX; i++) {
		if (!(rf_pin_maps[i].flags & o->shared))
			continue;
		err = bpf_map__reuse_fd(obj_map(obj, (enum rf_pin_map)i), shared_fds[i]);
		if (err)
			rf_error_set(e, err, NULL, "reuse map %s for the %s object: %s",
				     rf_pin_maps[i].pin, o->label, strerror(-err));
	}
	if (!err) {
		err = o->load(skel);
		if (err)
			rf_error_set(e, err, NULL, "loading the %s programs failed: %s", o->label,
				     strerror(-err));
	}
	if (!err && o->loaded)
		err = o->loaded(obj, e);
	if (err) {
		o->destroy(skel);
		return err;
	}
	*ret_skel = skel;
	*ret_obj = obj;
	return 0;
}

/* A program run on demand (BPF_PROG_TEST_RUN: observe.bpf.c's
 * rf_obs_verdict), never attached: it is pinned with the others, no link. */
static bool prog_on_demand(const struct bpf_program *prog)
{
	return bpf_program__type(prog) == BPF_PROG_TYPE_SYSCALL;
}

/* Attach every program of a loaded object; pin its link when pin (and the
 * maps the object owns). Unpinned, each is detached again at once (the
 * probe). With o->prog_prefix and pin, the programs are pinned instead of
 * attached (obs_links_up attaches them). parent_fd (>= 0): the ringfence
 * cgroup, the programs' fast path. */
static int obj_attach(const struct extra_obj *o, struct bpf_object *obj, bool pin,
		      int parent_fd, struct rf_error *e)
{
	struct bpf_program *prog;
	char path[256];
	__u32 zero = 0;
	int err;

	if (parent_fd >= 0 &&
	    bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(obj, o->parent_map)),
				&zero, &parent_fd, BPF_ANY)) {
		err = -errno;
		return rf_error_set(e, err, NULL, "set the ringfence cgroup for the %s programs: %s",
				    o->label, strerror(-err));
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;  /* another kernel's signature */
		if (pin && o->prog_prefix) {
			err = bpf_program__pin(prog, prog_path(o, prog, path, sizeof(path)));
			if (err)
				return rf_error_set(e, err, NULL, "pin %s: %s", path,
						    strerror(-err));
			continue;
		}
		if (prog_on_demand(prog))
			continue;
		link = o->attach(prog);
		if (!link) {
			err = -errno;
			return rf_error_set(e, err, NULL, "%s %s: %s", o->attach_what,
					    bpf_program__name(prog), strerror(-err));
		}
		/* A pinned link stays attached after its fd closes. */
		err = pin ? bpf_link__pin(link, link_path(o, prog, path, sizeof(path))) : 0;
		bpf_link__destroy(link);
		if (err)
			return rf_error_set(e, err, NULL, "pin %s: %s", path, strerror(-err));
	}
	return pin ? pin_maps(obj, o->pin_owner, e) : 0;
}

/* Load and attach one object, pinned when pin (see obj_attach). */
static int obj_install(const struct extra_obj *o, const int *shared_fds, bool pin,
		       int parent_fd, struct rf_error *e)
{
	struct bpf_object *obj = NULL;
	void *skel = NULL;
	int err;

	err = obj_load(o, shared_fds, &skel, &obj, e);
	if (!err)
		err = obj_attach(o, obj, pin, parent_fd, e);
	o->destroy(skel);
	return err;
}

/* Call fn for every program of this build's object this kernel loads
 * (without loading it): 0, or the first nonzero fn returned. */
static int obj_each_prog(const struct extra_obj *o,
			 int (*fn)(const struct extra_obj *o, const struct bpf_program *prog,
				   void *ctx),
			 void *ctx)
{
	struct bpf_object *obj = NULL;
	struct bpf_program *prog;
	void *skel = o->open(&obj);
	int ret = 0;

	if (!skel)
		return errno ? -errno : -ENOMEM;
	if (o->prepare)
		ret = o->prepare(obj, NULL);
	bpf_object__for_each_program(prog, obj) {
		if (ret)
			break;
		if (bpf_program__autoload(prog))
			ret = fn(o, prog, ctx);
	}
	o->destroy(skel);
	return ret;
}

/* The names of an object's programs that load on this kernel (after its
 * prepare: the LSM object picks variants from the kernel's BTF), found
 * once per process: the pin checks below ask several times per run. */
struct prog_names {
	const struct extra_obj *o;
	char **v;
	size_t n;
};

static int collect_name(const struct extra_obj *o, const struct bpf_program *prog, void *ctx)
{
	struct prog_names *pn = ctx;
	char **v;

	(void)o;
	/* run on demand, never attached: no link to look for */
	if (prog_on_demand(prog))
		return 0;
	v = realloc(pn->v, (pn->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	pn->v = v;
	v[pn->n] = strdup(bpf_program__name(prog));
	return v[pn->n++] ? 0 : -ENOMEM;
}

static const struct prog_names *obj_prog_names(const struct extra_obj *o)
{
	static struct prog_names cache[4];
	size_t i;

	for (i = 0; i < 4 && cache[i].o; i++)
		if (cache[i].o == o)
			return &cache[i];
	if (i == 4)
		return NULL;
	/* Kept across runs too (namecache.h): opening the object is the
	 * costly part of a pin check. */
	if (!namecache__read(o->link_prefix, &cache[i].v, &cache[i].n)) {
		cache[i].o = o;
		return &cache[i];
	}
	if (obj_each_prog(o, collect_name, &cache[i])) {
		while (cache[i].n)
			free(cache[i].v[--cache[i].n]);
		free(cache[i].v);
		cache[i].v = NULL;
		return NULL;
	}
	cache[i].o = o;
	namecache__write(o->link_prefix, cache[i].v, cache[i].n);
	return &cache[i];
}

/* The pinned link of program name is there and of the object's link type. */
static int link_pinned_name(const struct extra_obj *o, const char *name)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s%s", rf_pins__dir(), o->link_prefix, name);
	fd = bpf_obj_get(path);
	memset(&info, 0, sizeof(info));
	/* a tracing object's fexit programs (RF_OBS_UNIX_BYTES before 6.7)
	 * have trampoline links, its tp_btf ones raw tracepoint links */
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    (info.type != o->link_type &&
	     !(o->link_type == BPF_LINK_TYPE_RAW_TRACEPOINT && info.type == BPF_LINK_TYPE_TRACING)))
		ret = -ENOENT;
	if (fd >= 0)
		close(fd);
	return ret;
}

static int link_pinned(const struct extra_obj *o, const struct bpf_program *prog, void *ctx)
{
	(void)ctx;
	if (prog_on_demand(prog))
		return 0;
	return link_pinned_name(o, bpf_program__name(prog));
}

/*
 * The entry names of this build's set directory, sorted: one read of the
 * directory answers a run's "is every program and link pinned" (a
 * bpf_obj_get, BPF_OBJ_GET_INFO_BY_FD and close per pin: the enforcer
 * step took 0.5 ms of guest time longer in the 6.1 VM for the 38 LSM
 * links).
 *
 * A name there is as good as the per-pin look: entries in bpffs are made
 * only by BPF_OBJ_PIN (it has no create), in this build's own 0700
 * directory, and an entry holds its object. An LSM (tracing) link has no
 * detach (BPF_LINK_DETACH answers EOPNOTSUPP: tests/vm/guest/lsm.sh
 * checks it on both kernels), so it is attached exactly while something
 * holds it: its pin. A pinned program needs no more than to exist.
 * The cgroup links, which can be detached (and whose cgroup matters),
 * are still asked one by one (links_attached).
 */
struct pin_list {
	char **v;
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void pin_list_free(struct pin_list *pl)
{
	while (pl->n)
		free(pl->v[--pl->n]);
	free(pl->v);
	pl->v = NULL;
}

static int pin_list_read(struct pin_list *pl)
{
	DIR *d = opendir(rf_pins__dir());
	struct dirent *de;
	char **v;
	int err = 0;

	pl->v = NULL;
	pl->n = 0;
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		v = realloc(pl->v, (pl->n + 1) * sizeof(*v));
		if (!v) {
			err = -ENOMEM;
			break;
		}
		pl->v = v;
		v[pl->n] = strdup(de->d_name);
		err = v[pl->n] ? 0 : -ENOMEM;
		pl->n += !err;
	}
	closedir(d);
	if (err)
		pin_list_free(pl);
	else if (pl->n)
		qsort(pl->v, pl->n, sizeof(*pl->v), cmp_str);
	return err;
}

/* Every name of o's programs, after prefix, is in the list. */
static bool names_listed(const struct pin_list *pl, const struct extra_obj *o,
			 const char *prefix)
{
	const struct prog_names *pn = obj_prog_names(o);
	char name[256];
	const char *key = name;
	size_t i;

	for (i = 0; pn && i < pn->n; i++) {
		snprintf(name, sizeof(name), "%s%s", prefix, pn->v[i]);
		if (!bsearch(&key, pl->v, pl->n, sizeof(*pl->v), cmp_str))
			return false;
	}
	return pn != NULL;
}

/* Every program of this build's object has its pinned link (the programs
 * are attached as long as the pins hold them). */
static bool obj_links_pinned(const struct pin_list *pl, const struct extra_obj *o)
{
	return names_listed(pl, o, o->link_prefix);
}

/* Every program of this build's object is pinned (objects with
 * prog_prefix), attached or not. */
static bool obj_progs_pinned(const struct pin_list *pl, const struct extra_obj *o)
{
	return names_listed(pl, o, o->prog_prefix);
}

/* Attach one pinned program (a tp_btf one: a raw tracepoint link) and pin
 * the link, unless it is pinned already. */
/* The observe links by group: the lock its wanters hold shared (a
 * printf format of the set's name) and the programs in it (the others:
 * RF_OBS_SYSCALLS). */
static const struct obs_group {
	const char *lock_fmt;
	const char *prog;  /* names start so; NULL: every program not in another group */
} obs_groups[] = {
	[RF_OBS_SYSCALLS] = { "observe-%s.lock", NULL },
	[RF_OBS_EXEC] = { "observe-exec-%s.lock", "rf_obs_exec" },
	[RF_OBS_ENTER] = { "observe-enter-%s.lock", "rf_obs_enter" },
	[RF_OBS_UNIX_BYTES] = { "observe-unix-%s.lock", RF_OBS_UNIX_PREFIX },
};
_Static_assert(sizeof(obs_groups) / sizeof(obs_groups[0]) == RF_OBS_GROUP_MAX,
	       "obs_groups covers enum rf_obs_group");

/* The group of an observe program, by its name. */
static enum rf_obs_group obs_group_of(const char *prog)
{
	enum rf_obs_group g;

	for (g = 0; g < RF_OBS_GROUP_MAX; g++)
		if (obs_groups[g].prog &&
		    !strncmp(obs_groups[g].prog, prog, strlen(obs_groups[g].prog)))
			return g;
	return RF_OBS_SYSCALLS;
}

/* link_up's: the groups wanted, where to say why not, the enforcer that
 * keeps their programs' fds. */
struct link_up_ctx {
	unsigned int want;  /* RF_OBS_WANT() bits */
	struct rf_error *e;
	struct rf_enforcer *enf;
};

/* The pinned program prog_fd kept for its skipped runs, or closed. */
static void keep_prog(struct rf_enforcer *enf, int prog_fd)
{
	if (enf->n_obs_prog < RF_OBS_PROG_FDS)
		enf->obs_prog_fd[enf->n_obs_prog++] = prog_fd;
	else
		close(prog_fd);
}

static int link_up(const struct extra_obj *o, const struct bpf_program *prog, void *ctx)
{
	const struct link_up_ctx *c = ctx;
	struct rf_error *e = c->e;
	char path[256];
	int prog_fd, link_fd, err = 0;

	if (!(c->want & RF_OBS_WANT(obs_group_of(bpf_program__name(prog)))) ||
	    prog_on_demand(prog))
		return 0;
	prog_fd = bpf_obj_get(prog_path(o, prog, path, sizeof(path)));
	if (prog_fd < 0) {
		err = -errno;
		return rf_error_set(e, err, NULL, "open pinned %s: %s", path, strerror(-err));
	}
	if (!link_pinned(o, prog, NULL)) {
		keep_prog(c->enf, prog_fd);
		return 0;
	}
	unlink(link_path(o, prog, path, sizeof(path)));  /* of another type: replaced */
	link_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	if (link_fd < 0) {
		err = -errno;
		rf_error_set(e, err, NULL, "%s %s: %s", o->attach_what, bpf_program__name(prog),
			     strerror(-err));
	} else if (bpf_obj_pin(link_fd, link_path(o, prog, path, sizeof(path)))) {
		err = -errno;
		rf_error_set(e, err, NULL, "pin %s: %s", path, strerror(-err));
	}
	if (link_fd >= 0)
		close(link_fd);
	if (err)
		close(prog_fd);
	else
		keep_prog(c->enf, prog_fd);
	return err;
}

/* Load and attach one object, detached again at once. */
static void probe_obj(const struct extra_obj *o, struct rf_backend_probe *p, const char *ok)
{
	struct rf_error e = { 0 };
	int err;

	err = obj_install(o, NULL, false, -1, &e);
	p->err = err;
	p->ok = !err;
	snprintf(p->detail, sizeof(p->detail), "%s", err ? e.why : ok);
}

/* The pinned set is this build's and holds feature's object. */
static bool pinned_by_this_build(uint32_t feature)
{
	struct rf_meta meta;
	uint8_t id[32];

	build_id(id);
	return !rf_pins__read_meta(&meta) && !memcmp(meta.build_id, id, 32) &&
	       (meta.features & feature);
}

bool enforcer__lsm_loaded(void)
{
	return pinned_by_this_build(RF_FEAT_LSM);
}

bool enforcer__lsm_pinned(void)
{
	struct pin_list pl;
	bool ok;

	if (!pinned_by_this_build(RF_FEAT_LSM) || pin_list_read(&pl))
		return false;
	ok = obj_links_pinned(&pl, &lsm_obj);
	pin_list_free(&pl);
	return ok;
}

void enforcer__probe_lsm_pinned(struct rf_backend_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->ok = true;
	snprintf(p->detail, sizeof(p->detail), "this build's lsm.bpf.c programs are "
		 "loaded and attached (pinned in %s)", rf_pins__dir());
}

void enforcer__probe_lsm(struct rf_backend_probe *p)
{
	/* This build's programs attached by their pinned links: the verifier
	 * took every one of them on this kernel already. */
	if (enforcer__lsm_pinned()) {
		enforcer__probe_lsm_pinned(p);
		return;
	}
	memset(p, 0, sizeof(*p));
	probe_obj(&lsm_obj, p, "lsm.bpf.c (files, exec, unix, process hooks) loaded and attached");
}

void enforcer__probe_observe(struct rf_backend_probe *p)
{
	memset(p, 0, sizeof(*p));
	/* Pinned by this build: loaded after a probe that attached them. */
	/* (the programs' pins themselves: enforcer__open's check) */
	if (pinned_by_this_build(RF_FEAT_OBSERVE)) {
		p->ok = true;
		snprintf(p->detail, sizeof(p->detail), "this build's tp_btf/sys_enter,sys_exit "
			 "observe programs were loaded on this boot (pinned in %s), attached "
			 "while a sandbox is live", rf_pins__dir());
		return;
	}
	probe_obj(&obs_obj, p, "observe.bpf.c (tp_btf/sys_enter, sys_exit) loaded and attached");
}

/* open -> configure -> load: each program with its link's attach type
 * (the unix ones have types this libbpf cannot name), the unix programs
 * only when wanted. */
static int skel_load(bool want_unix, struct net_bpf **ret_skel)
{
	struct net_bpf *skel;
	size_t i;
	int err = 0;

	skel = net_bpf__open();
	if (!skel)
		return -errno;
	for (i = 0; i < RF_PIN_LINK_MAX; i++) {
		struct bpf_program *prog = link_prog(skel, (enum rf_pin_link)i);

		if (!prog) {
			err = -ENOENT;
			break;
		}
		bpf_program__set_expected_attach_type(prog, rf_pin_links[i].attach_type);
		bpf_program__set_autoload(prog, rf_pin_links[i].feature != RF_FEAT_UNIX || want_unix);
	}
	if (!err)
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
	int fds[RF_PIN_LINK_MAX], err = 0;
	size_t i;

	for (i = 0; i < RF_PIN_LINK_MAX; i++) {
		fds[i] = -1;
		if (rf_pin_links[i].feature != feature || err)
			continue;
		fds[i] = bpf_link_create(bpf_program__fd(link_prog(skel, (enum rf_pin_link)i)), cgroup_fd,
					 rf_pin_links[i].attach_type, NULL);
		if (fds[i] < 0) {
			err = -errno;
			p->err = err;
			snprintf(p->detail, sizeof(p->detail), "attach %s: %s",
				 bpf_program__name(link_prog(skel, (enum rf_pin_link)i)), strerror(errno));
		}
	}
	for (i = 0; i < RF_PIN_LINK_MAX; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

static void probe_load_failed(struct rf_backend_probe *p, int err, const char *progs)
{
	p->err = err;
	snprintf(p->detail, sizeof(p->detail), "load %s: %s", progs, strerror(-err));
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
		probe_load_failed(unx, err, "cgroup/connect_unix,sendmsg_unix (attach types 49, 50)");
		with_unix = false;
		err = skel_load(false, &skel);
	}
	if (err) {
		probe_load_failed(inet, err, "cgroup/connect4,connect6,sendmsg4,sendmsg6,sock_create");
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
	bool ok;
	int fd;

	fd = rf_pins__get(pin);
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

	for (i = 0; i < RF_PIN_LINK_MAX; i++)
		if ((features & rf_pin_links[i].feature) &&
		    !link_attached(rf_pin_links[i].pin, parent_id))
			return false;
	return (features & RF_FEAT_INET) != 0;
}

static uint64_t fd_ino(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_ino;
}

int enforcer__probe_pinned(int parent_fd, struct rf_backend_probe *inet,
			   struct rf_backend_probe *unx)
{
	struct rf_meta meta;
	uint8_t id[32];

	if (rf_pins__read_meta(&meta))
		return -ENOENT;
	build_id(id);
	/* A set loaded without the unix hooks although this kernel has
	 * them (neither flag): only a fresh load can tell. */
	/* The meta map is pinned last, once every link is attached and
	 * pinned: this build's complete set on this boot proves the kernel
	 * takes its programs. Whether the links are still attached to
	 * parent_fd is the enforcer step's to check (enforcer__open, under
	 * load.lock), which reloads a set missing one; asking here too was
	 * 11 BPF_OBJ_GETs a run. */
	(void)parent_fd;
	if (memcmp(meta.build_id, id, 32) || !(meta.features & (RF_FEAT_UNIX | RF_FEAT_NO_UNIX)) ||
	    !(meta.features & RF_FEAT_INET))
		return -ENOENT;
	memset(inet, 0, sizeof(*inet));
	memset(unx, 0, sizeof(*unx));
	inet->ok = true;
	snprintf(inet->detail, sizeof(inet->detail),
		 "this build's cgroup/connect4,connect6,sendmsg4,sendmsg6,sock_create are "
		 "loaded and attached to the ringfence cgroup (pinned in %s)", rf_pins__dir());
	if (meta.features & RF_FEAT_NO_UNIX) {
		/* as enforcer__probe says it when the load is refused */
		unx->err = -EINVAL;
		snprintf(unx->detail, sizeof(unx->detail),
			 "this kernel refused cgroup/connect_unix and sendmsg_unix when this "
			 "build's programs were pinned in %s (hooks of Linux 6.7 and later)",
			 rf_pins__dir());
		return 0;
	}
	unx->ok = true;
	snprintf(unx->detail, sizeof(unx->detail),
		 "this build's cgroup/connect_unix,sendmsg_unix are loaded and attached to the "
		 "ringfence cgroup (pinned in %s)", rf_pins__dir());
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

/* Every pin in dir (a set's directory) whose name starts with prefix.
 * Unlinking a pinned link drops its last reference: it detaches. */
static void unpin_prefix(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

/* Every pinned link and program of an object in dir, whatever build
 * pinned them, and the maps it owns. */
static void unpin_obj(const char *dir, const struct extra_obj *o)
{
	char path[PATH_MAX];
	size_t i;

	unpin_prefix(dir, o->link_prefix);
	if (o->prog_prefix)
		unpin_prefix(dir, o->prog_prefix);
	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		if (rf_pin_maps[i].flags & o->pin_owner) {
			snprintf(path, sizeof(path), "%s/%s", dir, rf_pin_maps[i].pin);
			unlink(path);
		}
}

/* What another build pinned and this one does not name (a map it added
 * or dropped): a set's directory is ringfence's alone, and left behind it
 * would keep the directory, so an unload that said "removed" had not.
 * Unlinking while listing may skip an entry: again until a pass removes
 * nothing. Only pins: in RF_PIN_DIR (the legacy set) the other sets'
 * directories stay. */
static void unpin_unknown(const char *dir)
{
	struct dirent *de;
	bool more = true;
	DIR *d;

	while (more && (d = opendir(dir))) {
		more = false;
		while ((de = readdir(d)))
			if (de->d_name[0] != '.' && de->d_type != DT_DIR &&
			    !unlinkat(dirfd(d), de->d_name, 0))
				more = true;
		closedir(d);
	}
}

/* Unpin the set name, detaching its programs: 0 when its pins are gone
 * (its directory too; RF_PIN_DIR as well once no set is left), or why
 * not. */
static int unpin_set(const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	size_t i;
	int err = 0;

	rf_pins__set_dir(name, dir, sizeof(dir));
	/* Unlinking a pinned link drops its last reference: it detaches. */
	for (i = 0; i < RF_PIN_LINK_MAX; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rf_pin_links[i].pin);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, RF_PIN_DNS_NOTE);
	unlink(path);
	unpin_obj(dir, &lsm_obj);
	unpin_obj(dir, &obs_obj);
	/* meta last: the table ends with it */
	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, rf_pin_maps[i].pin);
		unlink(path);
	}
	unpin_unknown(dir);
	if (name[0] && rmdir(dir) && errno != ENOENT)
		err = -errno;
	/* the last set gone: the parent too (ENOTEMPTY while others live) */
	if (rmdir(RF_PIN_DIR) && errno != ENOENT && errno != ENOTEMPTY && !err)
		err = -errno;
	return err;
}

/* Some pin of the selected set starts with prefix. */
static bool prefix_pinned(const char *prefix)
{
	DIR *d = opendir(rf_pins__dir());
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d)))
		found = !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return found;
}

/* A set's live lock, taken with op. */
static int take_live(const char *name, int op)
{
	char lock[64];

	return runlock__take(rf_pins__live_lock(name, lock, sizeof(lock)), op);
}

/* A set's lock of observe group g, taken with op: held shared by its
 * supervisors whose sandbox wants that group. */
static int take_obs(const char *name, enum rf_obs_group g, int op)
{
	char lock[64];

	snprintf(lock, sizeof(lock), obs_groups[g].lock_fmt, name);
	return runlock__take(lock, op);
}

/* Unpin the set's observe links of group g (detaching them). Any left:
 * true. */
static bool obs_links_pinned(enum rf_obs_group g, bool unpin)
{
	size_t n = strlen(RF_PIN_OBS_LINK_PREFIX);
	DIR *d = opendir(rf_pins__dir());
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, RF_PIN_OBS_LINK_PREFIX, n) ||
		    obs_group_of(de->d_name + n) != g)
			continue;
		found = true;
		if (unpin)
			unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
	return found;
}

/* The live and observe lock files of a set just unpinned, its live lock
 * held exclusive (one pair per build would pile up). Safe under
 * load.lock: every taker of these locks holds load.lock from opening the
 * file to locking it, so none holds an old file while another creates a
 * new one. */
static void drop_live(const char *name)
{
	char lock[64], path[128];

	if (!name[0])
		return;  /* the legacy live.lock: older builds may still run */
	snprintf(path, sizeof(path), RF_RUN_DIR "/%s",
		 rf_pins__live_lock(name, lock, sizeof(lock)));
	unlink(path);
	for (enum rf_obs_group g = 0; g < RF_OBS_GROUP_MAX; g++) {
		snprintf(lock, sizeof(lock), obs_groups[g].lock_fmt, name);
		snprintf(path, sizeof(path), RF_RUN_DIR "/%s", lock);
		unlink(path);
	}
}

int enforcer__observe_idle(void)
{
	enum rf_obs_group g;
	int load_fd, fd, ret = 1;

	/* Links are pinned only by a supervisor that then holds the group's
	 * lock shared (both under load.lock), so none pinned needs no lock. */
	if (!prefix_pinned(RF_PIN_OBS_LINK_PREFIX))
		return 1;
	load_fd = runlock__take("load.lock", LOCK_EX);
	if (load_fd < 0)
		return load_fd;
	/* Held shared by each supervisor of this set whose sandbox wants the
	 * group: one that is not observed (--no-observe) keeps no tracepoint
	 * on the host. */
	for (g = 0; g < RF_OBS_GROUP_MAX; g++) {
		if (!obs_links_pinned(g, false))
			continue;
		fd = take_obs(rf_pins__selected(), g, LOCK_EX | LOCK_NB);
		if (fd >= 0) {
			obs_links_pinned(g, true);
			close(fd);
		} else if (ret == 1) {
			ret = fd == -EWOULDBLOCK ? 0 : fd;
		}
	}
	close(load_fd);
	return ret;
}

/* ---- retiring the sets of other builds ---- */

/* The id of a set's pinned meta map: map ids only grow, so the set with
 * the highest was loaded last (0: no meta, a half-pinned set). */
static uint32_t set_meta_id(const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	uint32_t id;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", rf_pins__set_dir(name, dir, sizeof(dir)),
		 rf_pin_maps[RF_PIN_META].pin);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return 0;
	id = rf_pins__map_id(fd);
	close(fd);
	return id;
}

struct sets {
	char name[16][RF_PIN_SET_LEN];
	uint32_t meta_id[16];
	size_t n;
};

static int add_set(const char *name, void *ctx)
{
	struct sets *s = ctx;

	if (s->n == sizeof(s->name) / sizeof(s->name[0]))
		return 0;  /* more than 16: the rest on a later pass */
	snprintf(s->name[s->n], RF_PIN_SET_LEN, "%s", name);
	s->meta_id[s->n++] = set_meta_id(name);
	return 0;
}

/* A sandbox of set name may still be confined by it: its supervisor
 * runs, or its cgroup has processes (kept running, or survivors of a
 * kill that gc will retry). Entries without a set are the legacy set's. */
static bool set_has_sandboxes(const char *name)
{
	struct rf_registry_entry *v = NULL;
	size_t n = 0, i;
	bool any = false;

	if (registry__list(&v, &n))
		return true;  /* cannot tell: keep it */
	for (i = 0; i < n && !any; i++)
		any = !strcmp(v[i].pin_set, name) &&
		      (registry__supervisor_alive(&v[i]) || !cgroup__is_empty(v[i].cgroup_path));
	registry__list_free(v, n);
	return any;
}

/*
 * Unpin every set but the newest (the last loaded: the one new runs of
 * its build reuse) whose last sandbox has ended: no supervisor holds its
 * live lock, and no registry file names a sandbox of it that may still
 * have processes. Called holding load.lock, which every load, reuse
 * (enforcer__open takes the live lock under it) and unload takes: no run
 * can start on a set between the check and the unpinning. The legacy set
 * (a build before sets) is never the newest.
 */
static void retire_locked(void)
{
	struct sets s = { .n = 0 };
	size_t i, newest = 0;

	rf_pins__each_set(add_set, &s);
	for (i = 0; i < s.n; i++)
		if (s.name[i][0] && s.meta_id[i] > s.meta_id[newest])
			newest = i;
	if (s.n && !s.name[newest][0])
		newest = s.n;  /* only the legacy set has meta: none is kept */
	for (i = 0; i < s.n; i++) {
		int live_fd;

		if (i == newest)
			continue;
		live_fd = take_live(s.name[i], LOCK_EX | LOCK_NB);
		if (live_fd < 0)
			continue;
		if (!set_has_sandboxes(s.name[i])) {
			int err = unpin_set(s.name[i]);

			if (!err)
				drop_live(s.name[i]);
			rf_debug("pinned set %s of another build: its last sandbox ended, %s",
				 s.name[i][0] ? s.name[i] : "(legacy, " RF_PIN_DIR ")",
				 err ? strerror(-err) : "unloaded");
		}
		close(live_fd);
	}
}

/* Nothing to retire: no set, or only one of sets (the legacy set is
 * always retired). Unlocked: a set loaded after this look retires the
 * others itself (enforcer__open, under load.lock). */
static int only_a_set(const char *name, void *ctx)
{
	int *n = ctx;

	*n += name[0] ? 1 : 2;
	return 0;
}

int enforcer__retire_idle(void)
{
	int n = 0, load_fd;

	rf_pins__each_set(only_a_set, &n);
	if (n <= 1)
		return 0;
	load_fd = runlock__take("load.lock", LOCK_EX);
	if (load_fd < 0)
		return load_fd;
	retire_locked();
	close(load_fd);
	return 0;
}

static struct rf_enforcer *enforcer_new(void)
{
	struct rf_enforcer *enf = calloc(1, sizeof(*enf));
	size_t i;

	if (!enf)
		return NULL;
	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		enf->map_fd[i] = -1;
	enf->live_lock_fd = -1;
	for (i = 0; i < RF_OBS_GROUP_MAX; i++)
		enf->obs_lock_fd[i] = -1;
	return enf;
}

void enforcer__close(struct rf_enforcer *enf)
{
	bool was_live, held_obs = false;

	if (!enf)
		return;
	rf_pins__close_maps(enf->map_fd);
	was_live = enf->live_lock_fd >= 0;
	if (was_live)
		close(enf->live_lock_fd);
	/* Our shared holds first: the last observed supervisor detaches
	 * the observe programs (and none waits on load.lock holding it). */
	for (enum rf_obs_group g = 0; g < RF_OBS_GROUP_MAX; g++)
		if (enf->obs_lock_fd[g] >= 0) {
			close(enf->obs_lock_fd[g]);
			enf->obs_lock_fd[g] = -1;
			held_obs = true;
		}
	while (enf->n_obs_prog)
		close(enf->obs_prog_fd[--enf->n_obs_prog]);
	if (held_obs)
		enforcer__observe_idle();
	/* The last supervisor of a set a newer build's has replaced unloads
	 * it (its live lock dropped above: retire takes it exclusive). */
	if (was_live)
		enforcer__retire_idle();
	free(enf);
}

int enforcer__observe_skipped(const struct rf_enforcer *enf, uint64_t *ret_n)
{
	unsigned int i;

	*ret_n = 0;
	if (!enf || !enf->n_obs_prog)
		return -ENOENT;
	for (i = 0; i < enf->n_obs_prog; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(enf->obs_prog_fd[i], &info, &len))
			return -errno;
		*ret_n += info.recursion_misses;
	}
	return 0;
}

bool enforcer__unix_bytes(const struct rf_enforcer *enf)
{
	return enf && (enf->features & RF_FEAT_UNIX_BYTES) &&
	       enf->obs_lock_fd[RF_OBS_UNIX_BYTES] >= 0;
}

bool enforcer__unix_key_late(const struct rf_enforcer *enf)
{
	return enforcer__unix_bytes(enf) && unix_bytes__key_late();
}

/* Write meta of the pinned set (it exists). */
static int write_meta(const struct rf_meta *meta, struct rf_error *e)
{
	__u32 zero = 0;
	int fd, err = 0;

	fd = rf_pins__open_map(RF_PIN_META);
	if (fd < 0)
		err = fd;
	else if (bpf_map_update_elem(fd, &zero, meta, BPF_ANY))
		err = -errno;
	if (fd >= 0)
		close(fd);
	return err ? rf_error_set(e, err, NULL, "write meta: %s", strerror(-err)) : 0;
}

/* Add an object to this build's pinned set (loaded without it): its
 * programs reuse the pinned maps, then meta says it is there. Live
 * sandboxes keep running: their entries have no flags of its feature. */
static int obj_add(const struct extra_obj *o, int parent_fd, const uint8_t id[32],
		   struct rf_error *e)
{
	int fds[RF_PIN_MAP_MAX];
	struct rf_meta meta;
	int err;

	err = rf_pins__read_meta(&meta);
	if (!err)
		err = rf_pins__open_maps(0, fds);  /* features 0: the network maps */
	if (err)
		return rf_error_set(e, err, NULL, "open pinned maps in %s: %s", rf_pins__dir(),
				    strerror(-err));
	unpin_obj(rf_pins__dir(), o);
	err = obj_install(o, fds, true, parent_fd, e);
	if (err) {
		unpin_obj(rf_pins__dir(), o);
		goto cleanup;
	}
	meta.features |= o->feature | (o->features ? o->features() : 0);
	memcpy(meta.build_id, id, 32);
	err = write_meta(&meta, e);
cleanup:
	rf_pins__close_maps(fds);
	return err;
}

/* Add o to the reused set when wanted and missing; meta read again. */
static int add_missing(const struct extra_obj *o, bool want, int parent_fd, const uint8_t id[32],
		       struct rf_meta *meta, struct rf_error *e)
{
	int err;

	if (!want || (meta->features & o->feature))
		return 0;
	err = obj_add(o, parent_fd, id, e);
	if (err)
		return err;
	err = rf_pins__read_meta(meta);
	return err ? rf_error_set(e, err, NULL, "read pinned meta: %s", strerror(-err)) : 0;
}

int enforcer__open_pinned(struct rf_enforcer **ret_enf)
{
	return enforcer__open_pinned_set(rf_pins__selected(), ret_enf);
}

int enforcer__open_pinned_set(const char *set, struct rf_enforcer **ret_enf)
{
	struct rf_enforcer *enf = enforcer_new();
	struct rf_meta meta;
	int err;

	if (!enf)
		return -ENOMEM;
	err = rf_pins__read_meta_in(set, &meta);
	if (err)
		goto cleanup;
	enf->features = meta.features;
	err = rf_pins__open_maps_in(set, enf->features, enf->map_fd);
	if (err)
		goto cleanup;
	*ret_enf = enf;
	return 0;
cleanup:
	enforcer__close(enf);
	return err;
}

/* Pin the network object's maps (all but meta) and attach its programs
 * to parent_fd by pinned links; ret_features: what was attached. */
static int net_pin(struct net_bpf *skel, int parent_fd, bool want_unix, uint32_t *ret_features,
		   struct rf_error *e)
{
	char path[256];
	size_t i;
	int err, fd;

	err = pin_maps(skel->obj, 0, e);
	if (err)
		return err;
	for (i = 0; i < RF_PIN_LINK_MAX; i++) {
		struct bpf_program *prog = link_prog(skel, (enum rf_pin_link)i);

		if (rf_pin_links[i].feature == RF_FEAT_UNIX && !want_unix)
			continue;
		fd = bpf_link_create(bpf_program__fd(prog), parent_fd, rf_pin_links[i].attach_type,
				     NULL);
		if (fd < 0) {
			err = -errno;
			return rf_error_set(e, err, NULL, "attach %s: %s", bpf_program__name(prog),
					    strerror(-err));
		}
		rf_pins__path(rf_pin_links[i].pin, path, sizeof(path));
		err = bpf_obj_pin(fd, path) ? -errno : 0;
		close(fd);
		if (err)
			return rf_error_set(e, err, NULL, "pin %s: %s", path, strerror(-err));
		*ret_features |= rf_pin_links[i].feature;
	}
	/* The DNS gate's records for the monitor: a program it runs. */
	rf_pins__path(RF_PIN_DNS_NOTE, path, sizeof(path));
	if (bpf_obj_pin(bpf_program__fd(skel->progs.rf_dns_note), path))
		return rf_error_set(e, -errno, NULL, "pin %s: %s", path, strerror(errno));
	return 0;
}

/* Load, attach to the ringfence parent cgroup, pin; meta last, so a
 * half-pinned set is never taken for a complete one. */
static int load_and_pin(int parent_fd, bool want_unix, bool want_lsm, bool want_observe,
			const uint8_t id[32], struct rf_error *e)
{
	/* in this order: observe, then LSM */
	static const struct extra_obj *const extras[] = { &obs_obj, &lsm_obj };
	uint32_t want = (want_lsm ? RF_FEAT_LSM : 0) | (want_observe ? RF_FEAT_OBSERVE : 0);
	struct net_bpf *skel = NULL;
	int shared[RF_PIN_MAP_MAX];
	struct rf_meta meta = { .abi_version = RF_ABI_VERSION };
	struct bpf_map *meta_map;
	char path[256];
	__u32 zero = 0;
	size_t i;
	int err;

	err = skel_load(want_unix, &skel);
	if (err)
		return rf_error_set(e, err, NULL, "loading the network programs failed: %s",
				    strerror(-err));
	if ((mkdir(RF_PIN_DIR, 0700) && errno != EEXIST) ||
	    (mkdir(rf_pins__dir(), 0700) && errno != EEXIST)) {
		err = -errno;
		rf_error_set(e, err, NULL, "mkdir %s: %s", rf_pins__dir(), strerror(-err));
		goto cleanup;
	}
	err = net_pin(skel, parent_fd, want_unix, &meta.features, e);
	if (err)
		goto cleanup;
	/* want_unix is the probe's answer: false, the kernel has no hooks */
	if (!want_unix)
		meta.features |= RF_FEAT_NO_UNIX;
	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		shared[i] = (rf_pin_maps[i].flags & (RF_PINF_SHARED | RF_PINF_OBS_SHARED)) ?
			    bpf_map__fd(obj_map(skel->obj, (enum rf_pin_map)i)) : -1;
	if (want_observe)
		unpin_obj(rf_pins__dir(), &obs_obj);  /* left behind by a build that did not know them */
	for (i = 0; i < sizeof(extras) / sizeof(extras[0]); i++) {
		if (!(want & extras[i]->feature))
			continue;
		err = obj_install(extras[i], shared, true, parent_fd, e);
		if (err)
			goto cleanup;
		meta.features |= extras[i]->feature |
				 (extras[i]->features ? extras[i]->features() : 0);
	}
	memcpy(meta.build_id, id, 32);
	meta_map = obj_map(skel->obj, RF_PIN_META);
	if (bpf_map_update_elem(bpf_map__fd(meta_map), &zero, &meta, BPF_ANY)) {
		err = -errno;
		rf_error_set(e, err, NULL, "write meta: %s", strerror(-err));
		goto cleanup;
	}
	err = bpf_map__pin(meta_map, rf_pins__path(rf_pin_maps[RF_PIN_META].pin, path, sizeof(path)));
	if (err)
		rf_error_set(e, err, NULL, "pin meta: %s", strerror(-err));
cleanup:
	if (err)
		unpin_set(rf_pins__selected());
	net_bpf__destroy(skel);
	return err;
}

/* This build's pinned set, attached to parent_fd, with what is wanted. */
static bool reusable(int err, const struct rf_meta *meta, const uint8_t id[32], int parent_fd,
		     bool want_unix)
{
	struct pin_list pl;
	bool ok;

	if (err || memcmp(meta->build_id, id, 32) ||
	    (want_unix && !(meta->features & RF_FEAT_UNIX)) ||
	    !links_attached(meta->features, fd_ino(parent_fd)) || pin_list_read(&pl))
		return false;
	ok = (!(meta->features & RF_FEAT_LSM) || obj_links_pinned(&pl, &lsm_obj)) &&
	     (!(meta->features & RF_FEAT_OBSERVE) || obj_progs_pinned(&pl, &obs_obj));
	pin_list_free(&pl);
	return ok;
}

/* Attach the observe groups wanted (pinned links) and hold their locks
 * shared. Under load.lock. */
static int obs_links_up(struct rf_enforcer *enf, unsigned int want, struct rf_error *e)
{
	struct link_up_ctx c = { want, e, enf };
	enum rf_obs_group g;
	int err = obj_each_prog(&obs_obj, link_up, &c);

	for (g = 0; !err && g < RF_OBS_GROUP_MAX; g++) {
		char lock[64];

		if (!(want & RF_OBS_WANT(g)))
			continue;
		enf->obs_lock_fd[g] = take_obs(rf_pins__selected(), g, LOCK_SH);
		err = enf->obs_lock_fd[g] < 0 ? enf->obs_lock_fd[g] : 0;
		if (err) {
			snprintf(lock, sizeof(lock), obs_groups[g].lock_fmt, rf_pins__selected());
			rf_error_set(e, err, NULL, "lock %s/%s: %s", RF_RUN_DIR, lock,
				     strerror(-err));
		}
	}
	return err;
}

int enforcer__open(int parent_fd, bool want_unix, bool want_lsm, bool want_observe,
		   unsigned int attach_observe, struct rf_enforcer **ret_enf, struct rf_error *e)
{
	struct rf_enforcer *enf = NULL;
	struct rf_meta meta;
	uint8_t id[32];
	char lock[64];
	int load_fd = -1, live_fd, err;
	uint32_t had = 0;
	bool reuse;

	if (e)
		memset(e, 0, sizeof(*e));
	err = ensure_bpffs();
	if (err)
		return rf_error_set(e, err, NULL, "mount bpffs at /sys/fs/bpf: %s", strerror(-err));
	enf = enforcer_new();
	if (!enf)
		return rf_error_set(e, -ENOMEM, NULL, "%s", strerror(ENOMEM));
	/* Serialise first runs: exactly one of them loads and pins. */
	load_fd = runlock__take("load.lock", LOCK_EX);
	if (load_fd < 0) {
		err = rf_error_set(e, load_fd, NULL, "lock %s/load.lock: %s", RF_RUN_DIR,
				   strerror(-load_fd));
		goto cleanup;
	}
	build_id(id);
	err = rf_pins__read_meta(&meta);  /* -ESTALE: another ABI, replaced below */
	reuse = reusable(err, &meta, id, parent_fd, want_unix);
	if (reuse) {
		had = meta.features;
		/* This build's set without an object now wanted: add it. */
		err = add_missing(&lsm_obj, want_lsm, parent_fd, id, &meta, e);
		if (!err)
			err = add_missing(&obs_obj, want_observe, parent_fd, id, &meta, e);
		if (err)
			goto cleanup;
	}
	if (!reuse) {
		/* This build's set, incomplete (a loader died) or attached to
		 * another cgroup: replaced, but only when no supervisor of this
		 * build uses it. Other builds' sets are in directories of their
		 * own and stay. */
		live_fd = take_live(rf_pins__selected(), LOCK_EX | LOCK_NB);
		if (live_fd < 0) {
			err = rf_error_set(e, -ESTALE, NULL,
					   "this build's pinned enforcement programs in %s are "
					   "attached to another cgroup than this run's, or "
					   "incomplete, and sandboxes are live", rf_pins__dir());
			rf_error_hint(e, "retry when they end, or run `ringfence unload --force`");
			goto cleanup;
		}
		unpin_set(rf_pins__selected());
		close(live_fd);
		err = load_and_pin(parent_fd, want_unix, want_lsm, want_observe, id, e);
		if (err)
			goto cleanup;
		enf->loaded_now = true;
		/* The newest set now: older ones without sandboxes go. */
		retire_locked();
		err = rf_pins__read_meta(&meta);
		if (err) {
			rf_error_set(e, err, NULL, "read pinned meta: %s", strerror(-err));
			goto cleanup;
		}
	}
	enf->features = meta.features;
	/* Attached while a sandbox that wants them is live: a syscall
	 * tracepoint slows every task on the host. */
	if (want_observe && attach_observe && (meta.features & RF_FEAT_OBSERVE)) {
		err = obs_links_up(enf, attach_observe, e);
		if (err)
			goto cleanup;
	}
	err = rf_pins__open_maps(enf->features, enf->map_fd);
	if (err) {
		rf_error_set(e, err, NULL, "open pinned maps in %s: %s", rf_pins__dir(), strerror(-err));
		goto cleanup;
	}
	/* The pool of per-sandbox maps, made (or given the maps of an object
	 * just added) here, under load.lock: later runs only take slots. */
	if (enf->loaded_now || had != enf->features) {
		err = sbmaps__pool_fill(enf, RF_SB_POOL_MIN);
		if (err) {
			rf_error_set(e, err, NULL, "filling the pool of per-sandbox maps: %s",
				     strerror(-err));
			goto cleanup;
		}
	}
	enf->live_lock_fd = take_live(rf_pins__selected(), LOCK_SH);
	if (enf->live_lock_fd < 0) {
		err = rf_error_set(e, enf->live_lock_fd, NULL, "lock %s/%s: %s", RF_RUN_DIR,
				   rf_pins__live_lock(rf_pins__selected(), lock, sizeof(lock)),
				   strerror(-enf->live_lock_fd));
		goto cleanup;
	}
	*ret_enf = enf;
	enf = NULL;
cleanup:
	if (load_fd >= 0)
		close(load_fd);  /* before enforcer__close, which may take it */
	if (err && load_fd >= 0)
		enforcer__observe_idle();  /* links this call attached, if no one is live */
	enforcer__close(enf);
	return err;
}

int enforcer__stat(const struct rf_enforcer *enf, uint32_t idx, uint64_t *ret_val)
{
	return bpfutil__percpu_sum(enf->map_fd[RF_PIN_STATS], idx, ret_val);
}

struct unload {
	bool force;
	int err;
};

/* One set: -EBUSY (stops the walk) while a supervisor holds its live
 * lock, unless force. */
static int unload_set(const char *name, void *ctx)
{
	struct unload *u = ctx;
	int live_fd, err;

	live_fd = take_live(name, LOCK_EX | (u->force ? 0 : LOCK_NB));
	if (live_fd < 0) {
		u->err = live_fd == -EWOULDBLOCK ? -EBUSY : live_fd;
		return 1;
	}
	err = unpin_set(name);
	if (err && !u->err)
		u->err = err;
	if (!err)
		drop_live(name);
	close(live_fd);
	return 0;
}

int enforcer__unload(bool force)
{
	struct unload u = { .force = force };
	int load_fd;

	load_fd = runlock__take("load.lock", LOCK_EX);
	if (load_fd < 0)
		return load_fd;
	/* Every build's set, the legacy one too. */
	rf_pins__each_set(unload_set, &u);
	if (!u.err && rmdir(RF_PIN_DIR) && errno != ENOENT)
		u.err = -errno;
	close(load_fd);
	return u.err;
}

/* The program behind a pinned cgroup link. */
static int link_prog_fd(const char *pin)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd, pfd;

	fd = rf_pins__get(pin);
	if (fd < 0)
		return fd;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		pfd = -errno;
	} else {
		pfd = bpf_prog_get_fd_by_id(info.prog_id);
		if (pfd < 0)
			pfd = -errno;
	}
	close(fd);
	return pfd;
}

int enforcer__attach_cgroup(const struct rf_enforcer *enf, int cgroup_fd, struct rf_error *e)
{
	size_t i;

	for (i = 0; i < RF_PIN_LINK_MAX; i++) {
		int pfd, err = 0;

		if (!(enf->features & rf_pin_links[i].feature))
			continue;
		pfd = link_prog_fd(rf_pin_links[i].pin);
		if (pfd < 0)
			return rf_error_set(e, pfd, NULL, "the program of %s/%s: %s", rf_pins__dir(),
					    rf_pin_links[i].pin, strerror(-pfd));
		/* No link: the attachment lives exactly as long as the cgroup,
		 * also when this process dies. */
		if (bpf_prog_attach(pfd, cgroup_fd, rf_pin_links[i].attach_type,
				    BPF_F_ALLOW_MULTI))
			err = -errno;
		close(pfd);
		if (err)
			return rf_error_set(e, err, NULL, "attaching the program of %s/%s to the "
					    "sandbox cgroup: %s", rf_pins__dir(), rf_pin_links[i].pin,
					    strerror(-err));
	}
	return 0;
}
