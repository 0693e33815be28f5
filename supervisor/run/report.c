// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The trace's events built from the plan, the kernel's samples and the
 * sandbox's state; and the one-line summary on stderr. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "log.h"
#include "monaction.h"
#include "paths.h"
#include "backends/enforcer.h"
#include "observe/observe.h"
#include "rules/netrules.h"
#include "backends/sbmaps.h"
#include "observe/trace.h"
#include "report.h"
#include "sandbox.h"

/* What the process class would look like in the plan JSON, plus header. */
json_t *report__plan(const struct rf_policy *p, const struct rf_plan *plan,
			     const struct rf_caps *caps)
{
	json_t *o = plan__to_json(plan);

	if (!o)
		return NULL;
	json_object_set_new(o, "policy", json_pack("{s:s, s:s, s:s}", "id", p->id,
						   "sha256", p->digest,
						   "mode", p->mode == RF_MODE_AUDIT ? "audit" : "enforce"));
	json_object_set_new(o, "kernel", json_string(caps->kernel_release));
	return o;
}

/* Entries the policy let Landlock approximate, for the plan document. */
json_t *report__approximations(const struct rf_landlock *ll)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < ll->n_approx; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "entry", ll->approx[i].where,
						   "approximation", ll->approx[i].what));
	return a;
}

/* How the policy's names are handled: "gate", "once", or "none" (no
 * names, or network.connect not confined). */
const char *report__dns_mode(const struct rf_policy *p)
{
	size_t i;

	for (i = 0; p->net_connect == RF_CONFINE_ALLOWLIST && i < p->n_connect; i++)
		if (p->connect[i].kind == RF_HOST_NAME)
			return p->dns.mode == RF_DNS_ONCE ? "once" : "gate";
	return "none";
}

json_t *report__decision(const struct rf_policy *p, const struct rf_resolved *res,
			     size_t n_res)
{
	json_t *o = json_object(), *entries = json_array(), *unx = json_array();
	size_t i, j = 0;

	for (i = 0; i < p->n_connect; i++) {
		const struct rf_endpoint *ep = &p->connect[i];
		json_t *e = json_object(), *addrs = json_array(), *excl = json_array();
		char a[INET6_ADDRSTRLEN + 8];

		json_object_set_new(e, "entry", json_string(ep->text));
		json_object_set_new(e, "kind", json_string(ep->kind == RF_HOST_NAME ? "name" :
							    ep->cidr ? "cidr" : "address"));
		if (ep->kind == RF_HOST_ADDR) {
			inet_ntop(ep->family, ep->addr, a, INET6_ADDRSTRLEN);
			if (ep->cidr)
				snprintf(a + strlen(a), 8, "/%u", ep->prefix_len);
			json_array_append_new(addrs, json_string(a));
		}
		/* res is in source order (netrules__resolve): one pass in all */
		for (; j < n_res && res[j].source < i; j++)
			;
		for (; j < n_res && res[j].source == i; j++) {
			inet_ntop(res[j].family, res[j].addr, a, INET6_ADDRSTRLEN);
			json_array_append_new(res[j].excluded ? excl : addrs, json_string(a));
		}
		json_object_set_new(e, "enforced_addresses", addrs);
		if (json_array_size(excl)) {
			json_object_set_new(e, "excluded_addresses", excl);
			json_object_set_new(e, "excluded_reason",
					    json_string("link-local or cloud-metadata address reached "
							"through a DNS name: only a literal entry allows it"));
		} else {
			json_decref(excl);
		}
		json_object_set_new(e, "port_lo", json_integer(ep->port_lo));
		json_object_set_new(e, "port_hi", json_integer(ep->port_hi));
		json_array_append_new(entries, e);
	}
	for (i = 0; i < p->n_unix; i++)
		json_array_append_new(unx, json_string(p->unix_rules[i].text));
	json_object_set_new(o, "connect", json_string(names__request(
		p->net_connect == RF_CONFINE_ALLOWLIST ? RF_REQ_ALLOWLIST :
		p->net_connect == RF_CONFINE_UNRESTRICTED ? RF_REQ_UNRESTRICTED : RF_REQ_DENY_ALL)));
	json_object_set_new(o, "destinations", entries);
	json_object_set_new(o, "dns", json_string(report__dns_mode(p)));
	json_object_set_new(o, "unix_mode", json_string(names__request(
		p->net_unix == RF_CONFINE_ALLOWLIST ? RF_REQ_ALLOWLIST :
		p->net_unix == RF_CONFINE_UNRESTRICTED ? RF_REQ_UNRESTRICTED : RF_REQ_DENY_ALL)));
	json_object_set_new(o, "unix", unx);
	return o;
}

/* One class of the configure event: the plan, and what this run installed. */
static json_t *configure_class(const struct sandbox *sb, enum rf_class k, bool installed)
{
	const struct rf_class_plan *cp = &sb->plan.c[k];
	bool audit = sb->policy->mode == RF_MODE_AUDIT;
	/* Audit under Landlock: its rules are left out, accesses observed. */
	bool kernel_prog = cp->be == RF_BE_CGROUP_SOCK_ADDR || cp->be == RF_BE_BPF_LSM ||
			   cp->observed == RF_OBSV_AUDIT_INFERRED;
	bool child_side = cp->be == RF_BE_LANDLOCK || cp->be == RF_BE_SECCOMP;
	char backend[96], layers[160], note[RF_PLAN_NOTE_LEN];
	json_t *c;

	plan__backend_text(&sb->plan, k, backend, sizeof(backend));
	plan__layers_text(&sb->plan, k, layers, sizeof(layers));
	plan__note_text(&sb->plan, k, note, sizeof(note));
	c = json_pack("{s:s, s:o, s:b}", "requested", names__request(cp->request),
		      "backend", backend[0] ? json_string(backend) : json_null(),
		      "enforced", cp->enforced && !(audit && kernel_prog) &&
				  (!child_side || installed));
	if (!c)
		return NULL;
	if (cp->observed != RF_OBSV_NONE)
		json_object_set_new(c, "observed", json_string(plan__observed_text(cp->observed)));
	if (backend[0] && kernel_prog && cp->observed == RF_OBSV_AUDIT_INFERRED) {
		json_object_set_new(c, "audited", json_true());
	} else if (backend[0] && kernel_prog) {
		/* The evidence: this run's probe of the live kernel. */
		json_object_set_new(c, "attach", json_string(
			cp->be == RF_BE_BPF_LSM ? sb->caps.bpf_lsm_enforcer.detail :
			k == RF_CLASS_NET ? sb->caps.sock_addr.detail :
					    sb->caps.unix_sock_addr.detail));
		if (audit)
			json_object_set_new(c, "audited", json_true());
	}
	/* Landlock and seccomp are applied by the child itself, just
	 * before exec: installed is true only once exec happened. */
	if (child_side || layers[0])
		json_object_set_new(c, "installed", json_boolean(installed));
	if (layers[0])
		json_object_set_new(c, "layers", json_string(layers));
	if (note[0])
		json_object_set_new(c, "note", json_string(note));
	return c;
}

json_t *report__configure(const struct sandbox *sb, bool installed)
{
	const struct rf_policy *p = sb->policy;
	bool audit = p->mode == RF_MODE_AUDIT;
	json_t *classes = json_object(), *o;
	int i;

	for (i = 0; i < RF_CLASS_MAX; i++) {
		enum rf_class k = names__class_order[i];

		if (sb->plan.c[k].request != RF_REQ_ABSENT)
			json_object_set_new(classes, names__class(k),
					    configure_class(sb, k, installed));
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:I}, s:{s:s, s:b, s:b}, s:o}",
		      "kernel", sb->caps.kernel_release,
		      "policy_id", p->id,
		      "policy_sha256", p->digest,
		      "mode", audit ? "audit" : "enforce",
		      "cgroup", "path", sb->cg.path, "id", (json_int_t)sb->cgid,
		      "programs", "pinned", rf_pins__dir(), "loaded_now", sb->enf->loaded_now,
		      "unix_hooks", (sb->enf->features & RF_FEAT_UNIX) != 0,
		      "classes", classes);
	if (o && sb->ll.ruleset_fd >= 0)
		json_object_set_new(o, "landlock", json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:o}",
			"abi", sb->ll.abi, "handled_fs", (json_int_t)sb->ll.handled_fs,
			"handled_net", (json_int_t)sb->ll.handled_net,
			"scoped", (json_int_t)sb->ll.scoped,
			"fs_rules", (json_int_t)sb->ll.n_fs_rules,
			"net_rules", (json_int_t)sb->ll.n_net_rules,
			"approximations", report__approximations(&sb->ll)));
	if (o && (sb->sc.boundary.len || sb->sc.allowlist.len))
		json_object_set_new(o, "seccomp", json_pack("{s:b, s:b, s:s}",
			"boundary", sb->sc.boundary_rules,
			"allowlist", sb->sc.allowlist.len > 0 || sb->sc.profile,
			"summary", sb->sc.summary));
	if (o && sb->tty.on)
		json_object_set_new(o, "terminal", tty_relay__json(&sb->tty));
	if (o && sb->plan.install.keep_caps)
		json_object_set_new(o, "keep_caps_note", json_string(
			"--keep-caps test mode: the command kept every capability; only the "
			"bpf-lsm programs confine its process boundary"));
	if (o && audit)
		json_object_set_new(o, "audit_note",
				    json_string("audit mode: the kernel programs (cgroup-sock-addr, "
						"bpf-lsm, its process boundary included) record every "
						"decision and deny nothing; Landlock's file and exec "
						"rules are not applied and every access is observed "
						"(inferred); the seccomp boundary and the other Landlock "
						"layers, which cannot record, still deny. Not for "
						"untrusted code"));
	return o;
}

static void trace_inferred(struct sandbox *sb, struct rf_event *ev, bool published);

/* One kernel record into the trace: exact ones as they are; inferred
 * ones (observe.bpf.c's candidates) only when the policy refuses what
 * they did, and only then are they decisions for the monitor too.
 * published: already on the monitor's ring buffer (an inferred record
 * from the samples is the seccomp listener's, put there by rf_obs_verdict). */
static void trace_record(struct sandbox *sb, struct rf_event *ev, bool published)
{
	uint64_t repeats = sb->obs.repeats;

	if (!(ev->flags & RF_EVF_INFERRED)) {
		trace__emit(sb->trace, "kernel.deny", trace__event_json(ev));
		report__deny_human(sb, ev);
		/* the syscalls profile's first calls are not among the
		 * kernel's per-class counts that traced is compared with */
		if (ev->class < RF_CLASS_KERNEL_MAX)
			sb->traced++;
		return;
	}
	if (!observe__judge(&sb->obs, ev)) {
		/* an audited access traced once already: still a decision */
		if (sb->obs.repeats != repeats && !published)
			observe__publish(&sb->obs, ev);
		return;
	}
	trace_inferred(sb, ev, published);
}

/* A judged inferred record: the monitor's decision, and a kernel.deny
 * line while the sandbox has had fewer than the sample limit of inferred
 * denials (as the kernel keeps its exact ones; audited lines, which
 * `learn` reads, are deduplicated instead). */
static void trace_inferred(struct sandbox *sb, struct rf_event *ev, bool published)
{
	char backend[32];

	if (!published)
		observe__publish(&sb->obs, ev);
	if (ev->verdict == RF_VERDICT_DENIED && sb->obs.denial_lines >= RF_SAMPLE_LIMIT_DEFAULT) {
		sb->obs.untraced++;
		return;
	}
	if (ev->verdict == RF_VERDICT_DENIED)
		sb->obs.denial_lines++;
	trace__emit(sb->trace, "kernel.deny",
		    trace__deny_json(ev, observe__backend(&sb->obs, ev, backend, sizeof(backend))));
	report__deny_human(sb, ev);
}

/* A queue slot counted but not stored: the candidate is still being
 * written (wait a tick), or the queue was full and it never will be (give
 * up once it stays missing and the kernel's lost count explains it). */
static bool slot_lost(struct rf_observer *o, const struct rf_obs_sandbox *obs, bool final)
{
	if (final)
		return true;
	if (o->stall_seq != o->next_access) {
		o->stall_seq = o->next_access;
		o->stall_ticks = 0;
	}
	return ++o->stall_ticks > 2 && o->skipped < obs->access_lost;
}

/* The candidates observe.bpf.c queued (failed syscalls; audit: successful
 * ones): those the policy refuses become kernel.deny lines and decisions
 * on the monitor's stream. */
static void drain_access(struct sandbox *sb, bool final)
{
	struct rf_obs_sandbox obs;
	struct rf_event ev;

	if (sbmaps__read_observe(sb->enf, sb->cgid, &obs))
		return;
	sb->obs.scratch_lost = obs.scratch_lost;
	while (sb->obs.next_access < obs.access_seq) {
		int err = sbmaps__take_access(sb->enf, sb->cgid, sb->obs.next_access, &ev);

		if (err == -ENOENT && !slot_lost(&sb->obs, &obs, final))
			return;  /* counted, not yet stored: next tick */
		sb->obs.next_access++;
		if (err) {
			sb->obs.skipped++;
			continue;
		}
		sb->obs.accesses++;
		trace_record(sb, &ev, false);
	}
}

/* The kernel's kept samples. final: the sandbox is gone, so a missing
 * sample will never arrive (it was not kept). */
static void drain_kept(struct sandbox *sb, bool final)
{
	struct rf_sandbox st;
	struct rf_event ev;
	uint64_t end;
	int fd;

	if (sbmaps__read_sandbox(sb->enf, sb->cgid, &st))
		return;
	if (!st.sample_limit)
		st.sample_limit = RF_SAMPLE_LIMIT_DEFAULT;
	end = st.deny_seq < st.sample_limit ? st.deny_seq : st.sample_limit;
	fd = sb->next_seq < end ? sbmaps__samples_open(sb->enf, sb->cgid) : -ENOENT;
	while (sb->next_seq < end) {
		int err = sbmaps__read_sample(fd, sb->cgid, sb->next_seq, &ev);

		if (err == -ENOENT && !final)
			break;  /* counted, not yet stored: next tick */
		if (err)
			sb->missing++;
		else
			trace_record(sb, &ev, true);
		sb->next_seq++;
	}
	if (fd >= 0)
		close(fd);
}

/* Put what the kernel recorded into the trace: its samples, the observe
 * programs' candidates, Landlock's log. A sample still being written
 * does not hold up the candidates (the monitor waits for their verdicts). */
void report__drain_samples(struct sandbox *sb, bool final)
{
	drain_kept(sb, final);
	drain_access(sb, final);
	report__drain_landlock_audit(sb, final);
}

/* One ACCESS record of the sandbox's Landlock domain: a kernel.deny line
 * in the kernel's word. The policy gives the reason (the record does not). */
static void on_landlock_record(void *ctx, const struct rf_ll_record *r)
{
	struct sandbox *sb = ctx;
	struct timespec real, boot;
	struct rf_event ev;
	char backend[32];
	int64_t age;

	if (!landlock_audit__to_event(r, &ev))
		return;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	age = (int64_t)((uint64_t)real.tv_sec * 1000000000ull + (uint64_t)real.tv_nsec -
			r->real_ns);
	ev.ts_boot_ns = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec -
			(uint64_t)(age > 0 ? age : 0);
	ev.cgroup_id = sb->cgid;
	ev.have = observe__have(&sb->obs, ev.path);
	ev.reason = ev.path[0] != '/' ? RF_REASON_BAD_PATH :
		    ev.have ? RF_REASON_ACCESS : RF_REASON_NO_RULE;
	snprintf(backend, sizeof(backend), "landlock-abi%d", sb->caps.landlock_abi);
	ev.kind = RF_EV_DECISION;
	observe__publish(&sb->obs, &ev);
	trace__emit(sb->trace, "kernel.deny", trace__deny_json(&ev, backend));
	report__deny_human(sb, &ev);
	sb->la.logged[ev.class]++;
}

void report__drain_landlock_audit(struct sandbox *sb, bool final)
{
	if (sb->la.fd < 0)
		return;
	if (!final) {
		landlock_audit__read(&sb->la, 0, on_landlock_record, sb);
		return;
	}
	/* Delivery is asynchronous (kauditd): a short wait for the last
	 * records and the domain's count. */
	landlock_audit__finish(&sb->la, 500, on_landlock_record, sb);
}

/* Which classes' denials are inferred from failed syscalls (their
 * backend, Landlock or seccomp, records nothing) rather than counted by
 * the deciding programs. */
/* The seccomp boundary's refusals are recorded: seen at sys_exit, or
 * answered by the supervisor's listener (notify.c). */
static bool boundary_observed(const struct sandbox *sb)
{
	return (sb->sandbox_flags & RF_SB_OBSERVE_BOUNDARY) ||
	       (sb->plan.install.seccomp_notify && !observe__test_disabled());
}

static bool class_inferred(const struct sandbox *sb, enum rf_class k)
{
	switch (k) {
	case RF_CLASS_FILE:
	case RF_CLASS_EXEC:
		return (sb->sandbox_flags & RF_SB_OBSERVE_PATHS) &&
		       sb->plan.c[k].be == RF_BE_LANDLOCK;
	case RF_CLASS_PROCESS:
		return boundary_observed(sb);
	default:
		return false;
	}
}

/* File and exec denials come from Landlock's own log (audit on), and
 * from nothing else: no syscall is observed for them then. */
static bool ll_logged(const struct sandbox *sb, enum rf_class k)
{
	return sb->la.fd >= 0 && (k == RF_CLASS_FILE || k == RF_CLASS_EXEC);
}

/* What Landlock's log gave: complete only when the kernel's own count
 * for the domain (its deallocated record) equals the records read. */
static json_t *landlock_audit_json(const struct sandbox *sb)
{
	const struct rf_ll_audit *a = &sb->la;
	char dom[24];

	snprintf(dom, sizeof(dom), "%llx", (unsigned long long)a->domain);
	return json_pack("{s:s?, s:{s:I, s:I}, s:I, s:o, s:b, s:I, s:o, s:I}",
			 "domain", a->domain ? dom : NULL,
			 "logged", "file", (json_int_t)a->logged[RF_CLASS_FILE],
			 "exec", (json_int_t)a->logged[RF_CLASS_EXEC],
			 "records", (json_int_t)a->records,
			 "kernel_denials", a->domain_freed ? json_integer((json_int_t)a->kernel_denials) :
			 json_null(),
			 "complete", landlock_audit__complete(a),
			 "missing", (json_int_t)landlock_audit__missing(a),
			 "audit_lost_during_run", a->lost_during >= 0 ?
			 json_integer(a->lost_during) : json_null(),
			 "socket_overruns", (json_int_t)a->overruns);
}

/* Every rf_stats counter by name: host-wide, since the programs were
 * loaded. */
static json_t *host_stats(const struct sandbox *sb)
{
	json_t *o = json_object();
	uint32_t i;

	for (i = 0; i < RF_STAT_MAX; i++) {
		uint64_t v = 0;

		if (!enforcer__stat(sb->enf, i, &v))
			json_object_set_new(o, names__stat(i), json_integer((json_int_t)v));
	}
	return o;
}

json_t *report__exit_counts(const struct sandbox *sb)
{
	json_t *o = json_object(), *att = json_object(), *inf = json_object();
	uint64_t total = 0, aud = 0;
	enum rf_class k;

	for (k = 0; k < RF_CLASS_KERNEL_MAX; k++) {
		bool inferred = class_inferred(sb, k);

		/* bpf-lsm's process boundary counts exactly; the seccomp layer
		 * under it refuses first, and that is inferred. */
		json_object_set_new(att, names__class(k), json_string(
			ll_logged(sb, k) ? "kernel-audit" :
			!inferred ? "exact" :
			sb->plan.c[k].be == RF_BE_BPF_LSM ? "exact+inferred" : "inferred"));
		if (inferred)
			json_object_set_new(inf, names__class(k),
					    json_integer((json_int_t)sb->obs.inferred[k]));
		total += sb->obs.inferred[k];
		aud += sb->obs.audited[k];
	}
	json_object_set_new(o, "host_stats", host_stats(sb));
	json_object_set_new(o, "denials_attribution", att);
	json_object_set_new(o, "denials_inferred", inf);
	json_object_set_new(o, "denials_inferred_total", json_integer((json_int_t)total));
	json_object_set_new(o, "inferred_not_policy", json_integer((json_int_t)sb->obs.not_policy));
	json_object_set_new(o, "inferred_file_modes", json_integer((json_int_t)sb->obs.file_modes));
	if (sb->sandbox_flags & RF_OBSERVE_FLAGS) {
		json_object_set_new(o, "inferred_not_in_trace",
				    json_integer((json_int_t)sb->obs.untraced));
		/* candidates the queue could not take, and failed calls no
		 * scratch memory could be had for */
		json_object_set_new(o, "observed_lost",
				    json_integer((json_int_t)(sb->obs.skipped + sb->obs.scratch_lost)));
		json_object_set_new(o, "verdicts_unpublished",
				    json_integer((json_int_t)sb->obs.unpublished));
	}
	if (sb->sandbox_flags & RF_SB_OBSERVE_ACCESS)
		json_object_set_new(o, "audited_inferred", json_integer((json_int_t)aud));
	if (sb->obs_skipped_known)
		json_object_set_new(o, "observe_skipped", json_integer((json_int_t)sb->obs_skipped));
	if (sb->la.fd >= 0)
		json_object_set_new(o, "landlock_audit", landlock_audit_json(sb));
	return o;
}

void report__inferred_text(const struct sandbox *sb, char *buf, size_t len)
{
	static const enum rf_class order[] = { RF_CLASS_FILE, RF_CLASS_EXEC, RF_CLASS_PROCESS };
	size_t off = 0, i;

	buf[0] = 0;
	/* Only classes with inferred denials: with none, the summary line is
	 * the kernel's exact counts alone, as on every other host. */
	for (i = 0; i < sizeof(order) / sizeof(order[0]) && off < len; i++) {
		uint64_t n = sb->obs.inferred[order[i]] + sb->obs.audited[order[i]];

		if (!(sb->sandbox_flags & RF_SB_OBSERVE_PATHS) && !boundary_observed(sb))
			break;
		if (!class_inferred(sb, order[i]) || !n)
			continue;
		off += snprintf(buf + off, len - off, "%s%s %llu", off ? ", " : "; inferred: ",
				names__class(order[i]), (unsigned long long)n);
	}
	if (sb->la.fd >= 0 && off < len && sb->la.records)
		snprintf(buf + off, len - off, "; landlock (kernel audit): file %llu, exec %llu",
			 (unsigned long long)sb->la.logged[RF_CLASS_FILE],
			 (unsigned long long)sb->la.logged[RF_CLASS_EXEC]);
}

void report__deny_human(struct sandbox *sb, const struct rf_event *ev)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	deny_log__add(&sb->shown, ev, rf_verbosity >= 2,
		      (uint64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000);
}

void report__observe_skipped(struct sandbox *sb)
{
	uint64_t now = 0;

	sb->obs_skipped = sb->obs_skipped_known && !enforcer__observe_skipped(sb->enf, &now) &&
			  now >= sb->obs_skipped_base ? now - sb->obs_skipped_base : 0;
}

void report__skipped_human(const struct sandbox *sb)
{
	uint64_t n = sb->obs_skipped;

	/* The kernel does not run a tracing program again on a CPU where a
	 * task is still in it (preempted): those calls went unwatched. */
	if (n)
		rf_warn("sandbox %s: the kernel skipped %llu run%s of the observe programs "
		       "while it ran (a busy CPU): inferred denials and the attribution of "
		       "unix bytes may be incomplete (observe_skipped in sandbox.exit)",
		       sb->name, (unsigned long long)n, n == 1 ? "" : "s");
}

void report__denials_after_summary(const struct sandbox *sb, uint64_t unkept)
{
	deny_log__finish(&sb->shown, rf_verbosity >= 2, unkept);
}

void report__summary(const struct sandbox *sb)
{
	char line[1024] = "", backend[96];
	size_t off = 0;
	int i;

	for (i = 0; i < RF_CLASS_MAX; i++) {
		enum rf_class k = names__class_order[i];
		const struct rf_class_plan *cp = &sb->plan.c[k];

		if (cp->request == RF_REQ_ABSENT || k == RF_CLASS_PROCESS)
			continue;
		plan__backend_text(&sb->plan, k, backend, sizeof(backend));
		off += snprintf(line + off, sizeof(line) - off, "%s%s %s", off ? "; " : "",
				names__class(k),
				cp->request == RF_REQ_UNRESTRICTED ? "unrestricted (not confined)" :
				cp->enforced ? (sb->policy->mode == RF_MODE_AUDIT ? "audited by " :
						"enforced by ") : "NOT enforced");
		if (cp->enforced && cp->request != RF_REQ_UNRESTRICTED)
			off += snprintf(line + off, sizeof(line) - off, "%s", backend);
		if (off >= sizeof(line))
			break;
	}
	rf_info("sandbox %s: %s%s%s", sb->name, line,
		sb->tty.on ? "; terminal: a private pty, relayed to and from " : "",
		sb->tty.on ? sb->tty.caller_name : "");
}

json_t *report__monitor_action(const struct sandbox *sb)
{
	struct rf_mon_action a;

	if (monaction__read(RF_ACTIONS_DIR, sb->name, &a))
		return NULL;
	return monaction__to_json(&a);
}

void report__frozen(struct sandbox *sb)
{
	json_t *a = report__monitor_action(sb);
	char rule[32] = "", action[8] = "freeze";

	if (sb->frozen_reported) {
		json_decref(a);
		return;
	}
	sb->frozen_reported = true;
	if (a) {
		snprintf(rule, sizeof(rule), "%s", json_string_value(json_object_get(a, "rule")));
		snprintf(action, sizeof(action), "%s",
			 json_string_value(json_object_get(a, "action")));
	} else {
		a = json_pack("{s:s, s:s}", "action", "freeze", "result", "frozen by another party");
	}
	json_object_set_new(a, "frozen", json_true());
	trace__emit(sb->trace, "monitor.action", a);
	/* kill freezes first: the kill follows at once */
	if (strcmp(action, "kill"))
		rf_err("sandbox %s: frozen%s%s; left for inspection (its cgroup.freeze: 0 thaws "
		       "it, cgroup.kill ends it)", sb->name, rule[0] ? " by ringfence-monitor on " : "",
		       rule);
}
