// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "ledger.h"
#include "cleanup.h"
#include "fileio.h"
#include "gc.h"
#include "runlock.h"
#include "log.h"
#include "plan/probe.h"
#include "registry.h"
#include "backends/sbmaps.h"

#define TMP_SUFFIX ".json.tmp"
#define RF_PARENTS_DIR RF_RUN_DIR "/parents"

static int lock_start(int op)
{
	return runlock__take("start.lock", op);
}

int gc__start_lock(void)
{
	return lock_start(LOCK_SH);
}

/* Cgroup ids, sorted once filled (bsearch while the maps are walked). */
struct idset {
	uint64_t *v;
	size_t n, cap;
};

static int idset_add(struct idset *s, uint64_t id)
{
	if (s->n == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 16;
		void *p = realloc(s->v, c * sizeof(*s->v));

		if (!p)
			return -ENOMEM;
		s->v = p;
		s->cap = c;
	}
	s->v[s->n++] = id;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool idset_has(const struct idset *s, uint64_t id)
{
	return s->n && bsearch(&id, s->v, s->n, sizeof(*s->v), cmp_u64);
}

struct gc {
	unsigned flags;
	void (*say)(const char *line);
	struct rf_registry_entry *v;
	size_t n;
	bool *seen;                 /* v[i]'s cgroup was met in the walk */
	struct idset live, dead;
	struct rf_gc_stats st;
	char **names;               /* RF_GC_SAMPLE: every registry file's sandbox, sorted */
	size_t n_names;
	bool sorted;                /* names sorted (for named()) */
	bool partial;               /* names lacks some (out of memory): named() cannot be trusted */
	bool no_temp;               /* RF_GC_SAMPLE: the listing met no temp file */
};

static void say(const struct gc *g, const char *fmt, ...)
{
	char line[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rf_debug("gc: %s", line);
	if (g->say)
		g->say(line);
}

/* Owned: its supervisor runs, or it was told to outlive it and has not
 * ended yet. */
static bool entry_live(const struct rf_registry_entry *e)
{
	return registry__supervisor_alive(e) ||
	       (e->keep_running && !cgroup__is_empty(e->cgroup_path));
}

static struct rf_registry_entry *find_entry(struct gc *g, const char *name, size_t *ret_i)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].sandbox, name)) {
			*ret_i = i;
			return &g->v[i];
		}
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Has a registry file not parsed this time (RF_GC_SAMPLE). */
static bool named(struct gc *g, const char *name)
{
	if (!g->sorted && g->n_names)
		qsort(g->names, g->n_names, sizeof(*g->names), cmp_str);
	g->sorted = true;
	return g->n_names && bsearch(&name, g->names, g->n_names, sizeof(*g->names), cmp_str);
}

static void free_names(struct gc *g)
{
	size_t i;

	for (i = 0; i < g->n_names; i++)
		free(g->names[i]);
	free(g->names);
}

/* The registry's sandbox names (readdir only), and RF_GC_SAMPLES of them
 * parsed into g->v. */
static int list_sampled(struct gc *g)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t cap = 0, k, l;
	uint32_t r;
	DIR *d = opendir(RF_REGISTRY_DIR);

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	g->no_temp = true;
	while ((de = readdir(d))) {
		l = strlen(de->d_name);
		if (l > strlen(TMP_SUFFIX) && !strcmp(de->d_name + l - strlen(TMP_SUFFIX), TMP_SUFFIX))
			g->no_temp = false;
		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		if (g->n_names == cap) {
			void *p = realloc(g->names, (cap = cap ? cap * 2 : 64) * sizeof(*g->names));

			if (!p) {
				g->partial = true;
				break;
			}
			g->names = p;
		}
		g->names[g->n_names] = strndup(de->d_name, l - 5);
		if (g->names[g->n_names])
			g->n_names++;
		else
			g->partial = true;
	}
	closedir(d);
	g->v = calloc(RF_GC_SAMPLES, sizeof(*g->v));
	if (!g->v)
		return -ENOMEM;
	for (k = 0; k < RF_GC_SAMPLES && k < g->n_names; k++) {
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)getpid() + (uint32_t)k;
		snprintf(path, sizeof(path), "%s/%s.json", RF_REGISTRY_DIR,
			 g->names[g->n_names <= RF_GC_SAMPLES ? k : r % g->n_names]);
		if (!registry__read_file(path, &g->v[g->n]))
			g->n++;
	}
	return 0;
}

/* Kill what is in the cgroup and remove it: false when processes
 * survived (its policy then stays in force). */
static bool kill_cgroup(const char *path)
{
	cgroup__destroy_path(path);
	return cgroup__is_empty(path);
}

static void remove_entry(struct gc *g, const struct rf_registry_entry *e, const char *why)
{
	registry__remove(e->sandbox);
	g->st.registry++;
	say(g, "removed registry file %s/%s.json (%s)", RF_REGISTRY_DIR, e->sandbox, why);
}

/* One directory under MOUNT/ringfence. */
static void gc_cgroup(struct gc *g, const char *dir, const char *name)
{
	struct rf_registry_entry *e;
	char path[PATH_MAX];
	uint64_t id = 0;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!strcmp(name, RF_CGROUP_CONTAINERS))
		return;  /* a runtime's; each container's sandbox is the OCI hook's keeper's */
	if (probe__is_scratch(name)) {
		if (probe__scratch_live(name))
			return;
		if (kill_cgroup(path) && access(path, F_OK)) {
			g->st.probes++;
			say(g, "removed probe scratch cgroup %s", path);
		}
		return;
	}
	e = find_entry(g, name, &i);
	if (e)
		g->seen[i] = true;
	if (e && entry_live(e))
		return;
	if (!e && named(g, name))
		return;  /* not sampled this time: left to a later start or `gc` */
	if (cgroup__id_of(path, &id))
		return;  /* gone meanwhile */
	if (!kill_cgroup(path)) {
		rf_err("sandbox %s: processes survived the kill; its policy stays in force", name);
		g->st.survivors++;
		idset_add(&g->live, id);
		return;
	}
	idset_add(&g->dead, id);
	g->st.cgroups++;
	say(g, "removed sandbox cgroup %s (%s)", path,
	    e ? "its supervisor is gone" : "no registry file names it");
	if (e)
		remove_entry(g, e, "its supervisor is gone");
}

static void walk_parent(struct gc *g, const char *dir)
{
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			gc_cgroup(g, dir, de->d_name);
	closedir(d);
}

int gc__note_parent(const char *dir)
{
	static const struct fileio_atomic how = { .tmp = FILEIO_TMP_PID };
	_cleanup_free_ char *text = NULL;
	char file[PATH_MAX];
	uint64_t id;
	int err;

	err = cgroup__id_of(dir, &id);
	if (err)
		return err;
	if (mkdir(RF_PARENTS_DIR, 0755) < 0 && errno != EEXIST)
		return -errno;
	snprintf(file, sizeof(file), "%s/%llu", RF_PARENTS_DIR, (unsigned long long)id);
	if (asprintf(&text, "%s\n", dir) < 0)
		return -ENOMEM;
	/* never half written: a temp file and a rename */
	return fileio__write_atomic(file, text, strlen(text), &how);
}

/* The recorded parents: walked while their cgroup is the one recorded. */
static void walk_noted_parents(struct gc *g)
{
	char file[PATH_MAX], dir[PATH_MAX];
	unsigned long long want;
	struct dirent *de;
	uint64_t id;
	DIR *d = opendir(RF_PARENTS_DIR);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (sscanf(de->d_name, "%llu", &want) != 1)
			continue;
		snprintf(file, sizeof(file), "%s/%s", RF_PARENTS_DIR, de->d_name);
		if (fileio__read_small(AT_FDCWD, file, dir, sizeof(dir)) <= 0 ||
		    (dir[strcspn(dir, "\n")] = '\0', cgroup__id_of(dir, &id)) || id != want) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		walk_parent(g, dir);
	}
	closedir(d);
}

/* A start lists the cgroups in dir one start in this many at least. */
#define START_WALK_EVERY 16

/*
 * Does a start (RF_GC_SAMPLE) list dir's cgroups? Listing them is its
 * largest cost at hundreds of live sandboxes (~1 ms at 500 here), and only
 * a cgroup no registry file names can be found that way (the sampled dead
 * ones walk_registry removes by their path). So only when one may be
 * there: the kernel counts more cgroups below dir (cgroup.stat: sandboxes,
 * their own sub-cgroups, probes' scratch ones) than there are registry
 * files; and on one start in START_WALK_EVERY at random, for one that the
 * files of sandboxes placed elsewhere (cgplace.h) hide in that count.
 * `ringfence gc` always lists.
 */
static bool start_lists(const struct gc *g, const char *dir)
{
	char path[PATH_MAX];
	uint64_t n;
	uint32_t r;

	if (!(g->flags & RF_GC_SAMPLE))
		return true;
	if (g->partial)
		return false;   /* named() could not be trusted: nothing is removed */
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r) || r % START_WALK_EVERY == 0)
		return true;
	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	return fileio__read_key(path, "nr_descendants", &n) || n > g->n_names;
}

static void walk_cgroups(struct gc *g, const char *mount)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/%s", mount, RF_CGROUP_PARENT);
	if (start_lists(g, dir))
		walk_parent(g, dir);
	if (!g->partial || !(g->flags & RF_GC_SAMPLE))
		walk_noted_parents(g);
}

/* Registry files whose cgroup the walk did not meet (gone already, or
 * elsewhere): live ones keep their map entries, dead ones go. */
static void walk_registry(struct gc *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		const struct rf_registry_entry *e = &g->v[i];

		if (entry_live(e)) {
			idset_add(&g->live, e->cgroup_id);
			continue;
		}
		if (g->seen[i])
			continue;
		if (!kill_cgroup(e->cgroup_path)) {
			g->st.survivors++;
			idset_add(&g->live, e->cgroup_id);
			continue;
		}
		idset_add(&g->dead, e->cgroup_id);
		remove_entry(g, e, "its supervisor is gone");
	}
}

/* A writer killed between its temp file and the rename. The first write
 * of a live run is under the start lock; later ones have a live entry. */
static void walk_temp_files(struct gc *g)
{
	struct dirent *de;
	DIR *d;

	/* a start's sampling listed the directory already: read it again
	 * only for a temp file it met (at 500 live sandboxes, 0.2 ms a run),
	 * and not when it could not keep every name (named() below) */
	if (g->no_temp || g->partial)
		return;
	d = opendir(RF_REGISTRY_DIR);
	if (!d)
		return;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name), sl = strlen(TMP_SUFFIX), i;
		char name[NAME_MAX + 1];

		if (l <= sl || strcmp(de->d_name + l - sl, TMP_SUFFIX))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(l - sl), de->d_name);
		if (find_entry(g, name, &i) ? entry_live(&g->v[i]) : named(g, name))
			continue;
		if (!unlinkat(dirfd(d), de->d_name, 0)) {
			g->st.registry++;
			say(g, "removed registry temp file %s/%s", RF_REGISTRY_DIR, de->d_name);
		}
	}
	closedir(d);
}

/* Map keys of a cgroup id counted once each, for the report. */
struct doom {
	struct gc *g;
	struct idset ids;
	unsigned long long *count;
};

static bool doomed(uint64_t cgid, void *ctx)
{
	struct doom *d = ctx;
	struct gc *g = d->g;
	size_t i;

	if (g->flags & RF_GC_FULL ? idset_has(&g->live, cgid) : !idset_has(&g->dead, cgid))
		return false;
	for (i = 0; i < d->ids.n && d->ids.v[i] != cgid; i++)
		;
	if (i == d->ids.n) {
		void *p = realloc(d->count, (i + 1) * sizeof(*d->count));

		if (!p || idset_add(&d->ids, cgid)) {
			d->count = p ? p : d->count;
			return true;
		}
		d->count = p;
		d->count[i] = 0;
	}
	d->count[i]++;
	return true;
}

struct maps_walk {
	struct doom *d;
	const struct rf_enforcer *own;
};

/* One pinned set's maps: this build's through the caller's enforcer,
 * another build's opened here (one of another ABI is not this build's to
 * read: its own gc purges it). */
static int walk_set(const char *set, void *ctx)
{
	struct maps_walk *w = ctx;
	struct rf_enforcer *enf = NULL;

	if (!strcmp(set, rf_pins__selected())) {
		if (w->own)
			sbmaps__purge_where(w->own, doomed, w->d, w->d->g->flags & RF_GC_FULL);
		return 0;
	}
	if (enforcer__open_pinned_set(set, &enf))
		return 0;
	sbmaps__purge_where(enf, doomed, w->d, w->d->g->flags & RF_GC_FULL);
	enforcer__close(enf);
	return 0;
}

/* Every set's maps: a sandbox's keys are in its build's set. */
static void walk_maps(struct gc *g, const struct rf_enforcer *enf)
{
	struct doom d = { .g = g };
	struct maps_walk w = { .d = &d, .own = enf };
	size_t i;

	if (!(g->flags & RF_GC_FULL) && !g->dead.n)
		return;
	qsort(g->live.v, g->live.n, sizeof(*g->live.v), cmp_u64);
	qsort(g->dead.v, g->dead.n, sizeof(*g->dead.v), cmp_u64);
	rf_pins__each_set(walk_set, &w);
	for (i = 0; i < d.ids.n; i++) {
		g->st.map_entries += d.count[i];
		say(g, "removed %llu map entr%s of cgroup id %llu", d.count[i],
		    d.count[i] == 1 ? "y" : "ies", (unsigned long long)d.ids.v[i]);
	}
	free(d.ids.v);
	free(d.count);
}

int gc__run(const struct rf_enforcer *enf, const char *mount, unsigned flags,
	    void (*say_fn)(const char *line), struct rf_gc_stats *ret_stats)
{
	struct gc g = { .flags = flags, .say = say_fn };
	_cleanup_close_ int lock = -1;
	int err;

	if (ret_stats)
		memset(ret_stats, 0, sizeof(*ret_stats));
	/* Exclusive: no run is between its mkdir and its registry file. */
	lock = lock_start(LOCK_EX | (flags & RF_GC_NOWAIT ? LOCK_NB : 0));
	if (lock < 0)
		return lock == -EWOULDBLOCK ? 0 : lock;
	err = flags & RF_GC_SAMPLE ? list_sampled(&g) : registry__list(&g.v, &g.n);
	if (err) {
		free_names(&g);
		return err;
	}
	g.seen = calloc(g.n ? g.n : 1, sizeof(*g.seen));
	if (!g.seen) {
		registry__list_free(g.v, g.n);
		free_names(&g);
		return -ENOMEM;
	}
	if (mount && mount[0])
		walk_cgroups(&g, mount);
	walk_registry(&g);
	walk_temp_files(&g);
	walk_maps(&g, enf);
	/* The observe links, when the last live supervisor died without
	 * detaching them, and other builds' sets whose last sandbox this
	 * removed. Not from a run (it holds its set's live lock). */
	if (flags & RF_GC_FULL) {
		enforcer__observe_idle();
		enforcer__retire_idle();
	}
	if (ret_stats)
		*ret_stats = g.st;
	free(g.live.v);
	free(g.dead.v);
	free(g.seen);
	registry__list_free(g.v, g.n);
	free_names(&g);
	return 0;
}

/*
 * The supervisor died without its final flow records: the ledger's last
 * counts to the monitor here, the sandbox killed (its counts final) and
 * its rf_sandboxes entry still there (rf_dns_note takes records only of
 * a live sandbox), before the purge deletes them.
 */
static void note_flows(const struct rf_enforcer *enf, const char *set, uint64_t cgid)
{
	_cleanup_free_ struct rf_flow_row *rows = NULL;
	_cleanup_close_ int note = rf_pins__get_in(set, RF_PIN_DNS_NOTE);
	const int *fd = enf->map_fd;
	size_t n = 0;

	if (note < 0 || fd[RF_PIN_FLOWS] < 0 ||
	    ledger__flows(fd[RF_PIN_FLOWS], fd[RF_PIN_UNIX_FLOWS], cgid, &rows, &n))
		return;
	ledger__mark_unix_bytes(fd[RF_PIN_LEDGER], rows, n);
	ledger__note_final(note, rows, n, fd[RF_PIN_FLOW_NAMES], cgid);
}

int gc__sandbox(const char *name, const char *cgroup_path)
{
	struct rf_registry_entry e;
	struct rf_enforcer *enf = NULL;
	char path[PATH_MAX], set[RF_PIN_SET_LEN];
	uint64_t id = 0;

	/* the set that enforced it: the reaper's own build's, by default */
	snprintf(set, sizeof(set), "%s", rf_pins__selected());
	snprintf(path, sizeof(path), "%s/%s.json", RF_REGISTRY_DIR, name);
	if (!registry__read_file(path, &e)) {
		id = e.cgroup_id;
		if (e.pin_set[0])
			snprintf(set, sizeof(set), "%s", e.pin_set);
		registry__entry_clear(&e);
	}
	if (!id && cgroup__id_of(cgroup_path, &id))
		return 0;  /* no cgroup, no file: it cleaned up, or never got that far */
	if (!kill_cgroup(cgroup_path))
		return -EBUSY;
	if (!enforcer__open_pinned_set(set, &enf)) {
		note_flows(enf, set, id);
		sbmaps__purge(enf, id);
		enforcer__close(enf);
	}
	registry__remove(name);
	snprintf(path, sizeof(path), "%s/%s" TMP_SUFFIX, RF_REGISTRY_DIR, name);
	unlink(path);
	return 0;
}
