// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "activity.h"
#include "alert.h"
#include "cleanup.h"
#include "log.h"
#include "metrics.h"
#include "output.h"
#include "record.h"
#include "replay.h"

struct rctx {
	const struct rf_detect_opts *over;
	struct rf_detect *det;
	struct rf_output *out;
	struct rf_sinks *sinks;
	bool sink_activity;             /* --sink-activity */
	struct rf_output *act;          /* --activity, or NULL */
	uint64_t act_seq;
	int64_t off;
	struct rf_alert_origin origin;
	uint64_t seq;
	uint64_t last_t;
	struct rf_metrics m;
	int err;
};

static void on_alert(const struct rf_alert *a, void *ctx)
{
	struct rctx *r = ctx;
	_cleanup_free_ char *line = alert__line(a, ++r->seq, r->off, &r->origin);

	metrics__count_alert(&r->m, a);
	if (line) {
		output__push(r->out, line);
		output__flush(r->out, 5000);
		sinks__push(r->sinks, line);
	}
}

static uint64_t pick(uint64_t cli, uint64_t file)
{
	return cli ? cli : file;
}

static void on_header(const struct rf_record_header *h, void *ctx)
{
	struct rctx *r = ctx;
	struct rf_detect_opts o = h->defaults;

	o.burst_count = pick(r->over->burst_count, o.burst_count);
	o.burst_window_ms = pick(r->over->burst_window_ms, o.burst_window_ms);
	o.cpu_percent = pick(r->over->cpu_percent, o.cpu_percent);
	o.memory_mb = pick(r->over->memory_mb, o.memory_mb);
	o.pids = pick(r->over->pids, o.pids);
	o.update_ms = pick(r->over->update_ms, o.update_ms);
	o.linger_ms = pick(r->over->linger_ms, o.linger_ms);
	r->off = h->boot_to_real_ns;
	r->err = detect__new(&o, on_alert, r, &r->det);
}

static void on_input(const struct rf_input *in, void *ctx)
{
	struct rctx *r = ctx;

	if (!r->det)
		return;
	metrics__count_input(&r->m, in);
	if (in->t_ns > r->last_t)
		r->last_t = in->t_ns;
	detect__input(r->det, in);
	if ((in->type == RF_IN_DNS || in->type == RF_IN_FLOW) && (r->act || r->sink_activity)) {
		_cleanup_free_ char *line = activity__line(in, detect__info(r->det, in->cgroup_id),
							       ++r->act_seq, r->off, &r->origin);

		if (line && r->act) {
			output__push(r->act, line);
			output__flush(r->act, 5000);
		}
		if (line && r->sink_activity)
			sinks__push(r->sinks, line);
	}
}

/* The replay's metrics, as a live monitor would have shown them at its end. */
static int write_metrics(struct rctx *r, const char *path)
{
	_cleanup_free_ char *text = NULL;
	int err;

	if (r->det)
		detect__table_stats(r->det, &r->m.table);
	text = metrics__render(&r->m);
	err = text ? metrics__write_file(path, text) : -ENOMEM;
	if (err)
		rf_err("--metrics-file %s: %s", path, strerror(-err));
	return err;
}

int replay__run(const char *file, const char *output, const char *activity,
		const struct rf_detect_opts *over, const char *metrics_file)
{
	return replay__run_sinks(file, output, activity, over, metrics_file, NULL);
}

int replay__run_sinks(const char *file, const char *output, const char *activity,
		      const struct rf_detect_opts *over, const char *metrics_file,
		      const struct rf_sinks_opts *sinks)
{
	struct rctx r = { .over = over, .m.replay = true };
	struct rf_error e = { 0 };
	int err;

	alert__origin_local(&r.origin);
	r.m.start_time = (double)time(NULL);
	r.sink_activity = sinks && sinks->activity;

	err = output__open(output, 64u << 20, &r.out);
	if (err) {
		rf_err("--output %s: %s", output ? output : "-", strerror(-err));
		return 1;
	}
	if (sinks && sinks__open(sinks, r.origin.hostname, &r.sinks, &e)) {
		rf_error_print(&e, NULL);
		output__close(r.out);
		return 1;
	}
	if (activity && (err = output__open(activity, 64u << 20, &r.act))) {
		rf_err("--activity %s: %s", activity, strerror(-err));
		sinks__close(r.sinks, NULL);
		output__close(r.out);
		return 1;
	}
	/* Time goes on after the last record until every alert closed. */
	err = replay__file(file, 60000, on_header, on_input, &r, &e);
	if (!err && r.err)
		err = r.err;
	if (r.det)
		detect__finish(r.det, r.last_t);
	sinks__close(r.sinks, r.m.sinks);
	if (err && err == r.err)
		rf_error_set(&e, err, NULL, "%s", strerror(-err));
	if (err) {
		rf_error_wrap(&e, "--replay");
		rf_error_print(&e, NULL);
	} else if (metrics_file && write_metrics(&r, metrics_file))
		err = -EIO;     /* said by write_metrics */
	detect__free(r.det);
	output__close(r.out);
	if (r.act)
		output__close(r.act);
	return err ? 1 : 0;
}

struct pctx {
	const char *who;
	uint64_t cgids[256];
	size_t n_cgids;
	json_t *names;      /* object used as a set */
};

static void on_profile_input(const struct rf_input *in, void *ctx)
{
	struct pctx *p = ctx;
	size_t i;

	if (in->type == RF_IN_SANDBOX && p->n_cgids < 256 &&
	    (!strcmp(in->u.sb->sandbox, p->who) || !strcmp(in->u.sb->policy_id, p->who))) {
		p->cgids[p->n_cgids++] = in->cgroup_id;
		return;
	}
	if (in->type != RF_IN_SYSCALL || !in->u.proc.name[0])
		return;
	for (i = 0; i < p->n_cgids; i++)
		if (p->cgids[i] == in->cgroup_id)
			json_object_set_new(p->names, in->u.proc.name, json_true());
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int replay__profile(const char *file, const char *who)
{
	_cleanup_json_ json_t *names = json_object(), *val = NULL;
	struct pctx p = { .who = who, .names = names };
	_cleanup_free_ const char **v = NULL;
	_cleanup_free_ char *s = NULL;
	struct rf_error e = { 0 };
	json_t *allow, *one;
	const char *k;
	size_t n = 0, i;

	if (replay__file(file, 0, NULL, on_profile_input, &p, &e)) {
		rf_error_wrap(&e, "--replay");
		rf_error_print(&e, NULL);
		return 1;
	}
	if (!p.n_cgids) {
		rf_err("--profile %s: no sandbox or policy of that name in %s", who, file);
		return 1;
	}
	v = calloc(json_object_size(names) + 1, sizeof(*v));
	allow = json_array();
	/* "o" takes allow: released with val, also when the pack fails */
	val = json_pack("{s:o, s:s}", "allow", allow, "on_violation", "alert");
	if (!v || !val)
		return 1;
	json_object_foreach(names, k, one)
		v[n++] = k;
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = 0; i < n; i++)
		json_array_append_new(allow, json_string(v[i]));
	s = json_dumps(val, JSON_COMPACT | JSON_PRESERVE_ORDER);
	printf("%s\n", s ? s : "{}");
	return 0;
}
