// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <time.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "activity.h"
#include "alert.h"
#include "cleanup.h"
#include "ledger.h"
#include "names.h"
#include "table.h"

/* OCSF dns_activity rcode_id captions (RFC 6895); 24 Unassigned, 25
 * Reserved, 99 Other. */
static const char *const rcodes[] = {
	"NoError", "FormError", "ServError", "NXDomain", "NotImp", "Refused", "YXDomain",
	"YXRRSet", "NXRRSet", "NotAuth", "NotZone", "DSOTYPENI", NULL, NULL, NULL, NULL,
	"BADSIG_VERS", "BADKEY", "BADTIME", "BADMODE", "BADNAME", "BADALG", "BADTRUNC",
	"BADCOOKIE", "Unassigned", "Reserved",
};

int activity__rcode_id(uint16_t rcode)
{
	if (rcode < 24 && rcodes[rcode])
		return rcode;
	if ((rcode >= 3841 && rcode <= 4095) || rcode == 65535)
		return 25;
	return 24;
}

const char *activity__rcode_caption(int id)
{
	return id >= 0 && id <= 25 && rcodes[id] ? rcodes[id] : "Other";
}

bool activity__hostname_ok(const char *name)
{
	size_t a = 0, n = strlen(name), b;

	if (!n)
		return false;
	while (a <= n) {
		b = a;
		while (b < n && name[b] != '.')
			b++;
		if (b == a || name[a] == '-' || name[b - 1] == '-')
			return false;
		for (size_t i = a; i < b; i++)
			if (!isalnum((unsigned char)name[i]) && name[i] != '-')
				return false;
		a = b + 1;
	}
	return true;
}

static const char *qtype_name(uint16_t t, char *buf, size_t len)
{
	static const struct { uint16_t t; const char *n; } known[] = {
		{ 1, "A" }, { 2, "NS" }, { 5, "CNAME" }, { 6, "SOA" }, { 12, "PTR" },
		{ 15, "MX" }, { 16, "TXT" }, { 28, "AAAA" }, { 33, "SRV" }, { 64, "SVCB" },
		{ 65, "HTTPS" }, { 255, "ANY" },
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].t == t)
			return known[i].n;
	snprintf(buf, len, "TYPE%u", t);
	return buf;
}

static const char *verdict_name(uint32_t v)
{
	static const char *const n[RF_DNS_VERDICT_MAX] = {
		[RF_DNS_ANSWERED] = "answered", [RF_DNS_REFUSED] = "refused",
		[RF_DNS_FAILED] = "failed", [RF_DNS_AUDITED] = "audited",
	};

	return v < RF_DNS_VERDICT_MAX && n[v] ? n[v] : "unknown";
}

/* security_control: the gate answered (Allowed), refused (Denied,
 * Blocked), forwarded in audit mode (Allowed, Logged) or failed. */
static void control_of(uint32_t verdict, int *action, int *disp)
{
	switch (verdict) {
	case RF_DNS_ANSWERED: *action = 1; *disp = 1; break;
	case RF_DNS_REFUSED: *action = 2; *disp = 2; break;
	case RF_DNS_AUDITED: *action = 1; *disp = 17; break;
	default: *action = 0; *disp = 27; break;
	}
}

static const char *const action_names[] = { "Unknown", "Allowed", "Denied" };

static const char *disp_name(int d)
{
	return d == 1 ? "Allowed" : d == 2 ? "Blocked" : d == 17 ? "Logged" : "Error";
}

/* The record's metadata; uid: its own identity. */
/* The class, category (4, Network Activity) and activity (6, Traffic) of
 * both record kinds: type_uid is class_uid * 100 + activity_id. */
static void traffic_class(json_t *o, int class_uid, const char *class_name)
{
	char type_name[64];

	snprintf(type_name, sizeof(type_name), "%s: Traffic", class_name);
	json_object_set_new(o, "class_uid", json_integer(class_uid));
	json_object_set_new(o, "class_name", json_string(class_name));
	json_object_set_new(o, "category_uid", json_integer(4));
	json_object_set_new(o, "category_name", json_string("Network Activity"));
	json_object_set_new(o, "activity_id", json_integer(6));
	json_object_set_new(o, "activity_name", json_string("Traffic"));
	json_object_set_new(o, "type_uid", json_integer((json_int_t)class_uid * 100 + 6));
	json_object_set_new(o, "type_name", json_string(type_name));
}

static json_t *metadata_of(const char *uid, const struct rf_sandbox_info *si, uint64_t seq)
{
	json_t *md;
	uint32_t i;

	/* the container profile: OCSF 1.3 puts no container at the top of a
	 * network class; the sandbox is the device's container */
	md = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:[s, s, s, s], s:I, s:s, s:s}",
		       "version", RF_OCSF_VERSION, "uid", uid,
		       "product", "name", "ringfence-monitor", "vendor_name", "ringfence",
		       "version", RF_MON_VERSION,
		       "profiles", "container", "datetime", "host", "security_control",
		       "sequence", (json_int_t)seq, "log_name", "activity",
		       "log_provider", "ringfence-monitor");
	if (md && si && si->n_labels) {
		json_t *labels = json_array();

		for (i = 0; i < si->n_labels; i++)
			json_array_append_new(labels, json_string(si->labels[i]));
		json_object_set_new(md, "labels", labels);
	}
	if (md && si && strlen(si->traceparent) >= 35)
		json_object_set_new(md, "correlation_uid", json_stringn(si->traceparent + 3, 32));
	return md;
}

static json_t *metadata(const struct rf_dns_record *r, const struct rf_sandbox_info *si,
			uint64_t seq)
{
	uint64_t h = rf_hash64(&r->cgroup_id, sizeof(r->cgroup_id), RF_HASH_SEED);
	char uid[40];

	h = rf_hash64(&r->seq, sizeof(r->seq), h);
	h = rf_hash64(&r->ts_boot_ns, sizeof(r->ts_boot_ns), h);
	snprintf(uid, sizeof(uid), "dns-%016" PRIx64, h);
	return metadata_of(uid, si, seq);
}

static json_t *answers(const struct rf_dns_record *r, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!r->n_granted || (r->family != AF_INET && r->family != AF_INET6))
		return NULL;
	inet_ntop(r->family, r->addr, a, sizeof(a));
	return json_pack("[{s:s, s:s, s:s, s:I}]", "rdata", a, "class", "IN", "type",
			 qtype_name(r->family == AF_INET ? 1 : 28, buf, len),
			 "ttl", (json_int_t)r->ttl);
}

static json_t *unmapped(const struct rf_dns_record *r, const char *sandbox,
			const struct rf_sandbox_info *si)
{
	json_t *um = json_pack("{s:s, s:I, s:s, s:I, s:I, s:I, s:I}", "sandbox", sandbox,
			       "cgroup_id", (json_int_t)r->cgroup_id,
			       "verdict", verdict_name(r->verdict), "seq", (json_int_t)r->seq,
			       "granted", (json_int_t)r->n_granted,
			       "dropped", (json_int_t)r->n_dropped,
			       "latency_us", (json_int_t)r->latency_us);

	if (si)
		json_object_set_new(um, "policy_id", json_string(si->policy_id));
	if (r->reason)
		json_object_set_new(um, "reason", json_string(names__reason(r->reason)));
	if (r->suffix_off < r->name_len)
		json_object_set_new(um, "suffix", json_string(r->name + r->suffix_off));
	if (!activity__hostname_ok(r->name))
		json_object_set_new(um, "name", json_string(r->name));
	return um;
}

static void message(const struct rf_dns_record *r, const char *sandbox, char *buf, size_t len)
{
	char t[16];

	snprintf(buf, len, "sandbox %s: %s %s %s (%s), %u address%s opened", sandbox,
		 qtype_name(r->qtype, t, sizeof(t)), r->name[0] ? r->name : "(none)",
		 verdict_name(r->verdict), activity__rcode_caption(activity__rcode_id(r->rcode)),
		 r->n_granted, r->n_granted == 1 ? "" : "es");
}

/* The monitor's host; its container is the sandbox. */
static json_t *device_of(const struct rf_alert_origin *og, const char *sb)
{
	json_t *dev = json_pack("{s:i, s:s}", "type_id", 0, "type", "Unknown");

	if (dev && og->hostname[0])
		json_object_set_new(dev, "hostname", json_string(og->hostname));
	if (dev && og->device_uid[0])
		json_object_set_new(dev, "uid", json_string(og->device_uid));
	if (dev)
		json_object_set_new(dev, "container", json_pack("{s:s, s:s}", "uid", sb, "name", sb));
	return dev;
}

json_t *activity__dns(const struct rf_input *in, const struct rf_sandbox_info *si, uint64_t seq,
		      int64_t off, const struct rf_alert_origin *og)
{
	const struct rf_dns_record *r = &in->u.dns;
	int64_t t_ms = ((int64_t)in->t_ns + off) / 1000000;
	int action, disp, rc = activity__rcode_id(r->rcode);
	char sb[RF_SANDBOX_LEN], msg[512], t[16];
	json_t *o, *an;

	if (in->type != RF_IN_DNS)
		return NULL;
	snprintf(sb, sizeof(sb), "%s", si ? si->sandbox : "");
	if (!sb[0])
		snprintf(sb, sizeof(sb), "cgroup-%" PRIu64, in->cgroup_id);
	control_of(r->verdict, &action, &disp);
	message(r, sb, msg, sizeof(msg));
	o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "metadata", metadata(r, si, seq));
	/* one record for the question and its reply: Traffic */
	traffic_class(o, RF_OCSF_DNS_CLASS_UID, RF_OCSF_DNS_CLASS_NAME);
	alert__set_time(o, "time", t_ms);
	alert__set_time(o, "query_time", t_ms - (int64_t)r->latency_us / 1000);
	alert__set_time(o, "response_time", t_ms);
	json_object_set_new(o, "timezone_offset", json_integer(0));
	json_object_set_new(o, "severity_id", json_integer(1));
	json_object_set_new(o, "severity", json_string("Informational"));
	json_object_set_new(o, "action_id", json_integer(action));
	json_object_set_new(o, "action", json_string(action_names[action]));
	json_object_set_new(o, "disposition_id", json_integer(disp));
	json_object_set_new(o, "disposition", json_string(disp_name(disp)));
	json_object_set_new(o, "status_id", json_integer(r->verdict == RF_DNS_FAILED ? 2 : 1));
	json_object_set_new(o, "status", json_string(r->verdict == RF_DNS_FAILED ? "Failure" :
						   "Success"));
	json_object_set_new(o, "message", json_string(msg));
	if (activity__hostname_ok(r->name))
		json_object_set_new(o, "query", json_pack("{s:s, s:s, s:s, s:i, s:s}",
				    "hostname", r->name, "class", "IN",
				    "type", qtype_name(r->qtype, t, sizeof(t)),
				    "opcode_id", 0, "opcode", "Query"));
	an = answers(r, t, sizeof(t));
	if (an)
		json_object_set_new(o, "answers", an);
	json_object_set_new(o, "rcode_id", json_integer(rc));
	json_object_set_new(o, "rcode", json_string(activity__rcode_caption(rc)));
	/* the client asked the gate on loopback: IPv4 or IPv6 is not kept */
	json_object_set_new(o, "connection_info", json_pack("{s:s, s:i, s:i, s:s}",
			    "protocol_name", r->protocol == IPPROTO_TCP ? "tcp" : "udp",
			    "protocol_num", r->protocol == IPPROTO_TCP ? 6 : 17,
			    "direction_id", 2, "direction", "Outbound"));
	json_object_set_new(o, "device", device_of(og, sb));
	json_object_set_new(o, "unmapped", unmapped(r, sb, si));
	return o;
}

/* ---- Network Activity (class 4001): the ledger's flows ------------------ */

static void sandbox_name(const struct rf_sandbox_info *si, uint64_t cgid, char *buf, size_t len)
{
	snprintf(buf, len, "%s", si ? si->sandbox : "");
	if (!buf[0])
		snprintf(buf, len, "cgroup-%" PRIu64, cgid);
}

/* The peer: its address and port (outbound: the port it listens on); a
 * unix peer by its name (OCSF 1.3's endpoint has no path: name). */
static json_t *peer_endpoint(const struct rf_in_flow *f)
{
	char a[INET6_ADDRSTRLEN] = "";
	json_t *ep;

	if (f->key.family == AF_UNIX)
		return json_pack("{s:s}", "name", f->name[0] ? f->name : "?");
	inet_ntop(f->key.family == AF_INET ? AF_INET : AF_INET6, f->key.addr, a, sizeof(a));
	ep = json_pack("{s:s}", "ip", a);
	if (ep && !(f->key.flags & RF_FLOW_INBOUND))
		json_object_set_new(ep, "port", json_integer(f->key.port));
	if (ep && f->name[0] && activity__hostname_ok(f->name))
		json_object_set_new(ep, "hostname", json_string(f->name));
	return ep;
}

/* The sandbox's side: named by it, its container (inbound: the port it
 * serves). OCSF wants an ip, uid, name or hostname: the ledger keeps no
 * local address. */
static json_t *sandbox_endpoint(const struct rf_in_flow *f, const char *sb)
{
	json_t *ep = json_pack("{s:s, s:{s:s, s:s}}", "name", sb, "container", "uid", sb,
			       "name", sb);

	if (ep && (f->key.flags & RF_FLOW_INBOUND))
		json_object_set_new(ep, "port", json_integer(f->key.port));
	return ep;
}

/* A unix peer whose payload bytes are counted (IP flows' always are). */
static bool unix_bytes(const struct rf_in_flow *f)
{
	return (f->key.flags & RF_FLOW_UNIX_BYTES) != 0;
}

static json_t *flow_unmapped(const struct rf_in_flow *f, const char *sb,
			     const struct rf_sandbox_info *si)
{
	json_t *um = json_pack("{s:s, s:I, s:b, s:b, s:b, s:I, s:I, s:I, s:I}",
			       "sandbox", sb, "cgroup_id", (json_int_t)f->key.cgroup_id,
			       "final", f->final,
			       "inbound", (f->key.flags & RF_FLOW_INBOUND) != 0,
			       "loopback", (f->key.flags & RF_FLOW_LOOPBACK) != 0,
			       "connections", (json_int_t)f->connections,
			       "connections_total", (json_int_t)f->total.connections,
			       "bytes_sent_total", (json_int_t)f->total.bytes_sent,
			       "bytes_received_total", (json_int_t)f->total.bytes_received);

	if (um && si)
		json_object_set_new(um, "policy_id", json_string(si->policy_id));
	if (um && f->key.family == AF_UNIX) {
		/* connections counted; bytes where the socket length
		 * tracepoints were attached for the sandbox (Linux 6.3+) */
		json_object_set_new(um, "unix", json_pack("{s:s, s:b, s:s}", "socket_type",
							  ledger__unix_type(&f->key), "abstract",
							  f->name[0] == '@', "origin",
							  ledger__unix_origin(&f->key)));
		json_object_set_new(um, "bytes_counted", json_boolean(unix_bytes(f)));
		if (!unix_bytes(f)) {
			json_object_del(um, "bytes_sent_total");
			json_object_del(um, "bytes_received_total");
		}
	} else if (um && f->name[0]) {
		json_object_set_new(um, "name", json_string(f->name));
	}
	return um;
}

/* How it went: IP (version, IANA number) or a unix socket (no number; a
 * local one: boundary Localhost). */
static json_t *connection_info(const struct rf_in_flow *f)
{
	bool inbound = (f->key.flags & RF_FLOW_INBOUND) != 0, v4 = f->key.family == AF_INET;

	if (f->key.family == AF_UNIX)
		/* 99 Other: protocol_ver holds the source's own word */
		return json_pack("{s:s, s:i, s:s, s:i, s:s, s:i, s:s}",
				 "protocol_name", "unix", "protocol_ver_id", 99,
				 "protocol_ver", "Unix domain socket", "boundary_id", 1,
				 "boundary", "Localhost", "direction_id", 2, "direction", "Outbound");
	return json_pack("{s:s, s:i, s:i, s:s, s:i, s:s}",
			 "protocol_name", ledger__proto(&f->key), "protocol_num", f->key.proto,
			 "protocol_ver_id", v4 ? 4 : 6, "protocol_ver",
			 v4 ? "Internet Protocol version 4 (IPv4)" :
			      "Internet Protocol version 6 (IPv6)",
			 "direction_id", inbound ? 1 : 2,
			 "direction", inbound ? "Inbound" : "Outbound");
}

json_t *activity__flow(const struct rf_input *in, const struct rf_sandbox_info *si,
		       uint64_t seq, int64_t off, const struct rf_alert_origin *og)
{
	const struct rf_in_flow *f = &in->u.flow;
	bool inbound = (f->key.flags & RF_FLOW_INBOUND) != 0;
	int64_t t_ms = ((int64_t)in->t_ns + off) / 1000000;
	int64_t start_ms = ((int64_t)f->since_ns + off) / 1000000;
	int64_t end_ms = ((int64_t)(f->total.last_ns > f->since_ns ? f->total.last_ns :
				    f->since_ns) + off) / 1000000;
	char sb[RF_SANDBOX_LEN], msg[768], dst[RF_UNIX_FLOW_TEXT + 64], uid[40];
	uint64_t h;
	json_t *o;

	if (in->type != RF_IN_FLOW)
		return NULL;
	sandbox_name(si, f->key.cgroup_id, sb, sizeof(sb));
	h = rf_hash64(&f->key, sizeof(f->key), RF_HASH_SEED);
	h = rf_hash64(&in->t_ns, sizeof(in->t_ns), h);
	snprintf(uid, sizeof(uid), "flow-%016" PRIx64, h);
	ledger__dst_text(&f->key, f->name, dst, sizeof(dst));
	if (f->key.family == AF_UNIX && unix_bytes(f))
		snprintf(msg, sizeof(msg), "sandbox %s: unix %s %s: %" PRIu64 " bytes sent, %"
			 PRIu64 " received, %" PRIu64 " connection%s%s", sb,
			 ledger__unix_type(&f->key), dst, f->bytes_sent, f->bytes_received,
			 f->connections, f->connections == 1 ? "" : "s",
			 f->final ? " (final)" : "");
	else if (f->key.family == AF_UNIX)
		snprintf(msg, sizeof(msg), "sandbox %s: unix %s %s: %" PRIu64 " connection%s%s",
			 sb, ledger__unix_type(&f->key), dst, f->connections,
			 f->connections == 1 ? "" : "s", f->final ? " (final)" : "");
	else
		snprintf(msg, sizeof(msg), "sandbox %s: %s %s%s%s%s: %" PRIu64 " bytes sent, %"
			 PRIu64 " received, %" PRIu64 " connection%s%s", sb,
			 ledger__proto(&f->key), dst, f->name[0] ? " (" : "", f->name,
			 f->name[0] ? ")" : "", f->bytes_sent, f->bytes_received, f->connections,
			 f->connections == 1 ? "" : "s", f->final ? " (final)" : "");
	o = json_object();
	if (!o)
		return NULL;
	json_object_set_new(o, "metadata", metadata_of(uid, si, seq));
	/* the traffic of one destination over an interval: Traffic */
	traffic_class(o, RF_OCSF_NET_CLASS_UID, RF_OCSF_NET_CLASS_NAME);
	alert__set_time(o, "time", t_ms);
	alert__set_time(o, "start_time", start_ms);
	alert__set_time(o, "end_time", end_ms);
	json_object_set_new(o, "timezone_offset", json_integer(0));
	json_object_set_new(o, "severity_id", json_integer(1));
	json_object_set_new(o, "severity", json_string("Informational"));
	/* the policy let it through: every flow the ledger holds was allowed */
	json_object_set_new(o, "action_id", json_integer(1));
	json_object_set_new(o, "action", json_string("Allowed"));
	json_object_set_new(o, "disposition_id", json_integer(1));
	json_object_set_new(o, "disposition", json_string("Allowed"));
	json_object_set_new(o, "status_id", json_integer(1));
	json_object_set_new(o, "status", json_string("Success"));
	json_object_set_new(o, "message", json_string(msg));
	json_object_set_new(o, "src_endpoint", inbound ? peer_endpoint(f) :
						     sandbox_endpoint(f, sb));
	json_object_set_new(o, "dst_endpoint", inbound ? sandbox_endpoint(f, sb) :
						     peer_endpoint(f));
	json_object_set_new(o, "connection_info", connection_info(f));
	/* what is new since this flow's previous record: the records of one
	 * flow add up to the kernel's totals (unmapped *_total); a unix
	 * peer's bytes not counted: no traffic, rather than zeros */
	if (f->key.family != AF_UNIX || unix_bytes(f))
		json_object_set_new(o, "traffic", json_pack("{s:I, s:I, s:I}",
				    "bytes_out", (json_int_t)f->bytes_sent,
				    "bytes_in", (json_int_t)f->bytes_received,
				    "bytes", (json_int_t)(f->bytes_sent + f->bytes_received)));
	json_object_set_new(o, "device", device_of(og, sb));
	json_object_set_new(o, "unmapped", flow_unmapped(f, sb, si));
	return o;
}

json_t *activity__ocsf(const struct rf_input *in, const struct rf_sandbox_info *si,
		       uint64_t seq, int64_t off, const struct rf_alert_origin *og)
{
	if (in->type == RF_IN_DNS)
		return activity__dns(in, si, seq, off, og);
	if (in->type == RF_IN_FLOW)
		return activity__flow(in, si, seq, off, og);
	return NULL;
}

char *activity__line(const struct rf_input *in, const struct rf_sandbox_info *si,
		     uint64_t seq, int64_t off, const struct rf_alert_origin *og)
{
	_cleanup_json_ json_t *o = activity__ocsf(in, si, seq, off, og);

	return alert__json_line(o);
}

/* ---- the fast writer ------------------------------------------------------
 * The same record as activity__line, byte for byte (jansson's compact,
 * order-preserving dump: tests/unit/test_activity compares the two), written
 * straight into a buffer: the activity thread renders hundreds of thousands
 * a second with it, where building and dumping a jansson tree takes ~30 µs. */

struct jw {
	char *p;
	size_t n, cap;
	bool full;
};

static void jw_raw(struct jw *w, const char *s, size_t n)
{
	if (w->full || n > w->cap - w->n) {
		w->full = true;
		return;
	}
	memcpy(w->p + w->n, s, n);
	w->n += n;
}

#define JW_LIT(w, s) jw_raw((w), (s), sizeof(s) - 1)

static void jw_int(struct jw *w, long long v)
{
	char b[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	do {
		b[sizeof(b) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		b[sizeof(b) - 1 - n++] = '-';
	jw_raw(w, b + sizeof(b) - n, (size_t)n);
}

/* Length of the UTF-8 sequence at s (valid, as jansson takes it), 0: invalid. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f))
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
			return 0;
		return 4;
	}
	return 0;
}

/* A JSON string as jansson dumps it: ", \ and control characters escaped,
 * UTF-8 as it is; n bytes of s (an invalid sequence: U+FFFD, where
 * jansson would leave the key out). */
static void jw_strn(struct jw *w, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, k;
	char e[8];

	JW_LIT(w, "\"");
	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			run++;
			continue;
		}
		jw_raw(w, str + i - run, run);
		run = 0;
		if (c >= 0x80) {
			/* s is NUL-terminated past n: utf8_len stops at the NUL */
			k = utf8_len(s + i);
			if (k && i + k <= n)
				jw_raw(w, str + i, k);
			else
				JW_LIT(w, "\xef\xbf\xbd");
			i += k && i + k <= n ? k : 1;
			continue;
		}
		switch (c) {
		case '"': JW_LIT(w, "\\\""); break;
		case '\\': JW_LIT(w, "\\\\"); break;
		case '\b': JW_LIT(w, "\\b"); break;
		case '\f': JW_LIT(w, "\\f"); break;
		case '\n': JW_LIT(w, "\\n"); break;
		case '\r': JW_LIT(w, "\\r"); break;
		case '\t': JW_LIT(w, "\\t"); break;
		default:
			snprintf(e, sizeof(e), "\\u%04X", c);
			jw_raw(w, e, 6);
		}
		i++;
	}
	jw_raw(w, str + i - run, run);
	JW_LIT(w, "\"");
}

static void jw_str(struct jw *w, const char *s)
{
	jw_strn(w, s, strlen(s));
}

/* "key":ms,"key_dt":"RFC 3339" as set_time; the second's text is kept
 * (gmtime and strftime once a second per thread). */
static void jw_time(struct jw *w, const char *key, size_t key_len, int64_t ms)
{
	static _Thread_local int64_t cached_sec = INT64_MIN;
	static _Thread_local char base[32];
	int64_t sec = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
	long frac = (long)(ms - sec * 1000);
	char f[8];

	if (sec != cached_sec) {
		time_t t = (time_t)sec;
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
		cached_sec = sec;
	}
	JW_LIT(w, ",\"");
	jw_raw(w, key, key_len);
	JW_LIT(w, "\":");
	jw_int(w, ms);
	JW_LIT(w, ",\"");
	jw_raw(w, key, key_len);
	JW_LIT(w, "_dt\":\"");
	jw_raw(w, base, strlen(base));
	f[0] = '.';
	f[1] = (char)('0' + frac / 100);
	f[2] = (char)('0' + frac / 10 % 10);
	f[3] = (char)('0' + frac % 10);
	f[4] = 'Z';
	f[5] = '"';
	jw_raw(w, f, 6);
}

#define JW_TIME(w, key, ms) jw_time((w), (key), sizeof(key) - 1, (ms))

/* The used bytes only (the drain copies one per record). */
static void copy_str(char *dst, const char *src, size_t cap)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

void activity__sb_copy(struct rf_act_sb *ret, const struct rf_sandbox_info *si)
{
	uint32_t i;

	ret->known = si != NULL;
	if (!si)
		return;
	copy_str(ret->sandbox, si->sandbox, sizeof(ret->sandbox));
	copy_str(ret->policy_id, si->policy_id, sizeof(ret->policy_id));
	copy_str(ret->traceparent, si->traceparent, sizeof(ret->traceparent));
	ret->n_labels = si->n_labels < RF_LABELS_MAX ? si->n_labels : RF_LABELS_MAX;
	for (i = 0; i < ret->n_labels; i++)
		copy_str(ret->labels[i], si->labels[i], sizeof(ret->labels[i]));
}

static void jw_metadata(struct jw *w, const struct rf_dns_record *r, const struct rf_act_sb *sb,
			uint64_t seq)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t h = rf_hash64(&r->cgroup_id, sizeof(r->cgroup_id), RF_HASH_SEED);
	char uid[21] = "dns-";
	uint32_t i;

	h = rf_hash64(&r->seq, sizeof(r->seq), h);
	h = rf_hash64(&r->ts_boot_ns, sizeof(r->ts_boot_ns), h);
	for (i = 0; i < 16; i++)
		uid[4 + i] = hex[(h >> (60 - 4 * i)) & 0xf];
	JW_LIT(w, "{\"metadata\":{\"version\":\"" RF_OCSF_VERSION "\",\"uid\":\"");
	jw_raw(w, uid, 20);
	JW_LIT(w, "\",\"product\":{\"name\":\"ringfence-monitor\",\"vendor_name\":\"ringfence\","
	       "\"version\":\"" RF_MON_VERSION "\"},\"profiles\":[\"container\",\"datetime\","
	       "\"host\",\"security_control\"],\"sequence\":");
	jw_int(w, (long long)seq);
	JW_LIT(w, ",\"log_name\":\"activity\",\"log_provider\":\"ringfence-monitor\"");
	if (sb->known && sb->n_labels) {
		JW_LIT(w, ",\"labels\":[");
		for (i = 0; i < sb->n_labels; i++) {
			if (i)
				JW_LIT(w, ",");
			jw_str(w, sb->labels[i]);
		}
		JW_LIT(w, "]");
	}
	if (sb->known && strlen(sb->traceparent) >= 35) {
		JW_LIT(w, ",\"correlation_uid\":");
		jw_strn(w, sb->traceparent + 3, 32);
	}
	JW_LIT(w, "}");
}

static void jw_unmapped(struct jw *w, const struct rf_dns_record *r, const char *sandbox,
			const struct rf_act_sb *sb)
{
	JW_LIT(w, ",\"unmapped\":{\"sandbox\":");
	jw_str(w, sandbox);
	JW_LIT(w, ",\"cgroup_id\":");
	jw_int(w, (long long)r->cgroup_id);
	JW_LIT(w, ",\"verdict\":");
	jw_str(w, verdict_name(r->verdict));
	JW_LIT(w, ",\"seq\":");
	jw_int(w, (long long)r->seq);
	JW_LIT(w, ",\"granted\":");
	jw_int(w, r->n_granted);
	JW_LIT(w, ",\"dropped\":");
	jw_int(w, r->n_dropped);
	JW_LIT(w, ",\"latency_us\":");
	jw_int(w, r->latency_us);
	if (sb->known) {
		JW_LIT(w, ",\"policy_id\":");
		jw_str(w, sb->policy_id);
	}
	if (r->reason) {
		JW_LIT(w, ",\"reason\":");
		jw_str(w, names__reason(r->reason));
	}
	if (r->suffix_off < r->name_len) {
		JW_LIT(w, ",\"suffix\":");
		jw_str(w, r->name + r->suffix_off);
	}
	if (!activity__hostname_ok(r->name)) {
		JW_LIT(w, ",\"name\":");
		jw_str(w, r->name);
	}
	JW_LIT(w, "}");
}

int activity__dns_write(const struct rf_input *in, const struct rf_act_sb *sb, uint64_t seq,
			int64_t off, const struct rf_alert_origin *og, char *buf, size_t len)
{
	const struct rf_dns_record *r = &in->u.dns;
	int64_t t_ms = ((int64_t)in->t_ns + off) / 1000000;
	int action, disp, rc = activity__rcode_id(r->rcode);
	char sbn[RF_SANDBOX_LEN], msg[512], t[16], a[INET6_ADDRSTRLEN];
	struct jw w = { .p = buf, .cap = len };

	if (in->type != RF_IN_DNS)
		return -EINVAL;
	snprintf(sbn, sizeof(sbn), "%s", sb->known ? sb->sandbox : "");
	if (!sbn[0])
		snprintf(sbn, sizeof(sbn), "cgroup-%" PRIu64, in->cgroup_id);
	control_of(r->verdict, &action, &disp);
	message(r, sbn, msg, sizeof(msg));
	jw_metadata(&w, r, sb, seq);
	JW_LIT(&w, ",\"class_uid\":4003,\"class_name\":\"" RF_OCSF_DNS_CLASS_NAME "\","
	       "\"category_uid\":4,\"category_name\":\"Network Activity\",\"activity_id\":6,"
	       "\"activity_name\":\"Traffic\",\"type_uid\":400306,"
	       "\"type_name\":\"DNS Activity: Traffic\"");
	JW_TIME(&w, "time", t_ms);
	JW_TIME(&w, "query_time", t_ms - (int64_t)r->latency_us / 1000);
	JW_TIME(&w, "response_time", t_ms);
	JW_LIT(&w, ",\"timezone_offset\":0,\"severity_id\":1,\"severity\":\"Informational\","
	       "\"action_id\":");
	jw_int(&w, action);
	JW_LIT(&w, ",\"action\":");
	jw_str(&w, action_names[action]);
	JW_LIT(&w, ",\"disposition_id\":");
	jw_int(&w, disp);
	JW_LIT(&w, ",\"disposition\":");
	jw_str(&w, disp_name(disp));
	if (r->verdict == RF_DNS_FAILED)
		JW_LIT(&w, ",\"status_id\":2,\"status\":\"Failure\"");
	else
		JW_LIT(&w, ",\"status_id\":1,\"status\":\"Success\"");
	JW_LIT(&w, ",\"message\":");
	jw_str(&w, msg);
	if (activity__hostname_ok(r->name)) {
		JW_LIT(&w, ",\"query\":{\"hostname\":");
		jw_str(&w, r->name);
		JW_LIT(&w, ",\"class\":\"IN\",\"type\":");
		jw_str(&w, qtype_name(r->qtype, t, sizeof(t)));
		JW_LIT(&w, ",\"opcode_id\":0,\"opcode\":\"Query\"}");
	}
	if (r->n_granted && (r->family == AF_INET || r->family == AF_INET6)) {
		inet_ntop(r->family, r->addr, a, sizeof(a));
		JW_LIT(&w, ",\"answers\":[{\"rdata\":");
		jw_str(&w, a);
		JW_LIT(&w, ",\"class\":\"IN\",\"type\":");
		jw_str(&w, qtype_name(r->family == AF_INET ? 1 : 28, t, sizeof(t)));
		JW_LIT(&w, ",\"ttl\":");
		jw_int(&w, r->ttl);
		JW_LIT(&w, "}]");
	}
	JW_LIT(&w, ",\"rcode_id\":");
	jw_int(&w, rc);
	JW_LIT(&w, ",\"rcode\":");
	jw_str(&w, activity__rcode_caption(rc));
	if (r->protocol == IPPROTO_TCP)
		JW_LIT(&w, ",\"connection_info\":{\"protocol_name\":\"tcp\",\"protocol_num\":6,");
	else
		JW_LIT(&w, ",\"connection_info\":{\"protocol_name\":\"udp\",\"protocol_num\":17,");
	JW_LIT(&w, "\"direction_id\":2,\"direction\":\"Outbound\"},\"device\":{\"type_id\":0,"
	       "\"type\":\"Unknown\"");
	if (og->hostname[0]) {
		JW_LIT(&w, ",\"hostname\":");
		jw_str(&w, og->hostname);
	}
	if (og->device_uid[0]) {
		JW_LIT(&w, ",\"uid\":");
		jw_str(&w, og->device_uid);
	}
	JW_LIT(&w, ",\"container\":{\"uid\":");
	jw_str(&w, sbn);
	JW_LIT(&w, ",\"name\":");
	jw_str(&w, sbn);
	JW_LIT(&w, "}}");
	jw_unmapped(&w, r, sbn, sb);
	JW_LIT(&w, "}\n");
	return w.full ? -ENOSPC : (int)w.n;
}

int activity__json_write(const struct rf_input *in, const struct rf_act_sb *sb, uint64_t seq,
			 int64_t off, const struct rf_alert_origin *og, char *buf, size_t len)
{
	/* what the records read of a sandbox is what rf_act_sb keeps */
	static _Thread_local struct rf_sandbox_info si;
	_cleanup_free_ char *line = NULL;
	uint32_t i;
	size_t n;

	if (sb->known) {
		memcpy(si.sandbox, sb->sandbox, sizeof(si.sandbox));
		memcpy(si.policy_id, sb->policy_id, sizeof(si.policy_id));
		memcpy(si.traceparent, sb->traceparent, sizeof(si.traceparent));
		si.n_labels = sb->n_labels;
		for (i = 0; i < sb->n_labels; i++)
			memcpy(si.labels[i], sb->labels[i], sizeof(si.labels[i]));
	}
	line = activity__line(in, sb->known ? &si : NULL, seq, off, og);
	if (!line)
		return -ENOMEM;
	n = strlen(line);
	if (n > len)
		return -ENOSPC;
	memcpy(buf, line, n);
	return (int)n;
}
