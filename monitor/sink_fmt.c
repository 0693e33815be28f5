// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a record says to each transport (sink.h): pure, no I/O. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "input.h"
#include "rules.h"
#include "sink.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ---- addresses ---------------------------------------------------------- */

static int host_port(const char *opt, const char *spec, const char *hp,
		     struct sink_syslog_addr *a, char *why, size_t len)
{
	const char *colon;
	size_t hl;
	char *end;
	long port;

	if (hp[0] == '[') {
		const char *rb = strchr(hp, ']');

		if (!rb || rb[1] != ':')
			goto bad;
		hl = (size_t)(rb - hp - 1);
		colon = rb + 1;
		hp++;
	} else {
		colon = strrchr(hp, ':');
		if (!colon || memchr(hp, ':', (size_t)(colon - hp)))
			goto bad;
		hl = (size_t)(colon - hp);
	}
	if (!hl || hl >= sizeof(a->host))
		goto bad;
	memcpy(a->host, hp, hl);
	a->host[hl] = 0;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || !isdigit((unsigned char)colon[1]) || port < 1 || port > 65535)
		goto bad;
	snprintf(a->port, sizeof(a->port), "%ld", port);
	return 0;
bad:
	snprintf(why, len, "%s %s: expected udp://HOST:PORT, tcp://HOST:PORT or unix:PATH "
		 "(HOST a name, an IPv4 address or [IPv6], PORT 1..65535)", opt, spec);
	return -EINVAL;
}

int sink__parse_syslog(const char *spec, struct sink_syslog_addr *ret, char *why, size_t len)
{
	memset(ret, 0, sizeof(*ret));
	if (!strncmp(spec, "udp://", 6)) {
		ret->net = SINK_UDP;
		return host_port("--syslog", spec, spec + 6, ret, why, len);
	}
	if (!strncmp(spec, "tcp://", 6)) {
		ret->net = SINK_TCP;
		return host_port("--syslog", spec, spec + 6, ret, why, len);
	}
	if (!strncmp(spec, "unix:", 5)) {
		ret->net = SINK_UNIX;
		if (spec[5] != '/' || strlen(spec + 5) >= sizeof(ret->path)) {
			snprintf(why, len, "--syslog %s: unix:PATH takes an absolute path of at most "
				 "%zu bytes", spec, sizeof(ret->path) - 1);
			return -EINVAL;
		}
		strcpy(ret->path, spec + 5);
		return 0;
	}
	snprintf(why, len, "--syslog %s: unknown scheme: expected udp://HOST:PORT, "
		 "tcp://HOST:PORT or unix:PATH", spec);
	return -EINVAL;
}

int sink__parse_url(const char *opt, const char *url, char *why, size_t len)
{
	const char *rest = NULL, *end;
	size_t i;

	if (!strncmp(url, "http://", 7))
		rest = url + 7;
	else if (!strncmp(url, "https://", 8))
		rest = url + 8;
	if (!rest) {
		snprintf(why, len, "%s %s: unknown scheme: expected an http:// or https:// URL",
			 opt, url);
		return -EINVAL;
	}
	end = rest + strcspn(rest, "/?#");
	for (i = 0; url[i]; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f)
			break;
	if (end == rest || url[i] || memchr(rest, '@', (size_t)(end - rest))) {
		snprintf(why, len, "%s %s: expected a URL with a host (no spaces, no user@)",
			 opt, url);
		return -EINVAL;
	}
	return 0;
}

char *sink__otlp_url(const char *url)
{
	const char *host = strstr(url, "://") + 3;
	const char *path = host + strcspn(host, "/");
	char *s = NULL;

	if (!*path || !strcmp(path, "/")) {
		if (asprintf(&s, "%.*s/v1/logs", (int)(path - url), url) < 0)
			return NULL;
		return s;
	}
	return strdup(url);
}

static bool lower_hex(const char *s, size_t n)
{
	size_t i;
	bool nonzero = false;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
		nonzero |= s[i] != '0';
	}
	return nonzero;
}

int sink__traceparent(const char *s, struct sink_trace *ret)
{
	/* version "00" is 55 bytes exactly; later versions may append fields */
	if (strlen(s) < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' ||
	    !isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
	    !strncmp(s, "ff", 2) || (!strncmp(s, "00", 2) && s[55]) ||
	    (s[55] && s[55] != '-') || !lower_hex(s + 3, 32) || !lower_hex(s + 36, 16) ||
	    !isxdigit((unsigned char)s[53]) || !isxdigit((unsigned char)s[54]))
		return -EINVAL;
	memcpy(ret->trace_id, s + 3, 32);
	ret->trace_id[32] = 0;
	memcpy(ret->span_id, s + 36, 16);
	ret->span_id[16] = 0;
	ret->flags = (unsigned int)strtoul((char[]){ s[53], s[54], 0 }, NULL, 16);
	return 0;
}

/* ---- records -------------------------------------------------------------- */

static const char *str_at(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

int sink__rec_parse(const char *line, size_t len, struct sink_rec *ret)
{
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);

	memset(ret, 0, sizeof(*ret));
	if (!json_is_object(o)) {
		json_decref(o);
		return -EINVAL;
	}
	ret->o = o;
	ret->line = line;
	ret->len = len;
	ret->time_ms = json_integer_value(json_object_get(o, "time"));
	ret->severity_id = (int)json_integer_value(json_object_get(o, "severity_id"));
	ret->class_uid = (int)json_integer_value(json_object_get(o, "class_uid"));
	ret->class_name = str_at(o, "class_name", NULL);
	ret->activity = str_at(o, "activity_name", NULL);
	ret->message = str_at(o, "message", NULL);
	ret->rule = str_at(o, "unmapped", "rule");
	ret->sandbox = str_at(o, "unmapped", "sandbox");
	ret->traceparent = str_at(o, "unmapped", "traceparent");
	ret->uid = str_at(o, "metadata", "uid");
	ret->finding_uid = str_at(o, "finding_info", "uid");
	ret->hostname = str_at(o, "device", "hostname");
	return 0;
}

void sink__rec_free(struct sink_rec *r)
{
	json_decref(r->o);
	r->o = NULL;
}

/* OCSF severity_id -> syslog severity and OTLP severityNumber, one row each. */
static const struct sev_row {
	int ocsf, syslog, otlp;
	const char *otlp_text;
} sev_rows[] = {
	{ RF_SEV_UNKNOWN, 5, 0, "UNSPECIFIED" },    /* notice */
	{ RF_SEV_INFO, 6, 9, "INFO" },              /* informational */
	{ RF_SEV_LOW, 5, 10, "INFO2" },             /* notice */
	{ RF_SEV_MEDIUM, 4, 13, "WARN" },           /* warning */
	{ RF_SEV_HIGH, 3, 17, "ERROR" },            /* error */
	{ RF_SEV_CRITICAL, 2, 21, "FATAL" },        /* critical */
	{ RF_SEV_FATAL, 1, 24, "FATAL4" },          /* alert */
};
_Static_assert(N_OF(sev_rows) == RF_SEV_MAX, "sev_rows covers enum rf_severity");

static const struct sev_row *sev_row(int ocsf)
{
	return ocsf >= 0 && ocsf < RF_SEV_MAX ? &sev_rows[ocsf] : &sev_rows[0];  /* 99 Other */
}

int sink__syslog_severity(int ocsf)
{
	return sev_row(ocsf)->syslog;
}

int sink__otlp_severity(int ocsf, const char **ret_text)
{
	*ret_text = sev_row(ocsf)->otlp_text;
	return sev_row(ocsf)->otlp;
}

/* journald MESSAGE_IDs: one per finding rule, one per ledger class, one for
 * anything else. Fixed: `journalctl MESSAGE_ID=...` finds a kind for good. */
static const struct {
	const char *rule;
	const char *id;
} rule_ids[] = {
	{ "deny-burst", "a12ec64d68e1437ca97cee65d07c3c13" },
	{ "failed-ops", "45c02926ed30424eb1fc0978e79cddde" },
	{ "unexpected-syscall", "e4ffe52ea73644e987da9c546dad3a86" },
	{ "resource-spike", "141626139e134ad288876ee8e127cf35" },
	{ "lost-events", "2b0c80adfb89421f85cb4abe7bb72220" },
	{ "table-shed", "df76cd379029413ea0dd46440614c15d" },
	{ "dns-tunnel", "2d4230c8c164461bb12a2a2a8102690f" },
	{ "unexpected-exec", "d427bc74e0f94bed94912e64026e34eb" },
	{ "egress-volume", "5b3839f131994930832386eac84f979e" },
	{ "unexpected-file", "5f0e6c2b9a7d4c1e8b3a2f61d4e09c75" },
};
_Static_assert(N_OF(rule_ids) == RF_RULE_MAX, "a MESSAGE_ID for every rule");

static const struct {
	int class_uid;
	const char *id;
} class_ids[] = {
	{ 4001, "3b8b240fed724fe2adce127186e8b068" },   /* Network Activity (ledger flows) */
	{ 4003, "3a973fc22ec84780a64dd3d5189a0e87" },   /* DNS Activity (ledger queries) */
};
#define OTHER_ID "7d229fe66c384d679fdb01e66ed8f7e5"

const char *sink__message_id(const struct sink_rec *r)
{
	size_t i;

	for (i = 0; r->rule && r->class_uid == RF_OCSF_CLASS_UID && i < N_OF(rule_ids); i++)
		if (!strcmp(rule_ids[i].rule, r->rule))
			return rule_ids[i].id;
	for (i = 0; i < N_OF(class_ids); i++)
		if (class_ids[i].class_uid == r->class_uid)
			return class_ids[i].id;
	return OTHER_ID;
}

/* ---- RFC 5424 --------------------------------------------------------------- */

static void rfc3339_ms(int64_t ms, char *buf, size_t len)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;

	if (ms <= 0 || !gmtime_r(&s, &tm)) {
		snprintf(buf, len, "-");        /* NILVALUE */
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), len - strlen(buf), ".%03dZ", (int)(ms % 1000));
}

/* PRINTUSASCII 33..126, at most max, NILVALUE when empty. */
static void header_field(const char *s, size_t max, char *buf)
{
	size_t n = 0;

	for (; s && *s && n < max; s++)
		if (*s > 32 && *s < 127)
			buf[n++] = *s;
	if (!n)
		buf[n++] = '-';
	buf[n] = 0;
}

/* PARAM-VALUE: '"', '\' and ']' escaped (RFC 5424 6.3.3). */
static void sd_param(FILE *f, const char *name, const char *v)
{
	if (!v)
		return;
	fprintf(f, " %s=\"", name);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\' || *v == ']')
			fputc('\\', f);
		fputc(*v, f);
	}
	fputc('"', f);
}

char *sink__rfc5424(const struct sink_rec *r, const char *hostname, int pid)
{
	char ts[40], host[256], msgid[33], sev[8];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	rfc3339_ms(r->time_ms, ts, sizeof(ts));
	header_field(r->hostname ? r->hostname : hostname, 255, host);
	header_field(r->rule ? r->rule : r->class_name, 32, msgid);
	snprintf(sev, sizeof(sev), "%d", r->severity_id);
	fprintf(f, "<%d>1 %s %s ringfence-monitor %d %s [" SINK_SD_ID,
		SINK_SYSLOG_FACILITY * 8 + sink__syslog_severity(r->severity_id), ts, host, pid,
		msgid);
	sd_param(f, "uid", r->uid);
	sd_param(f, "finding", r->finding_uid);
	sd_param(f, "rule", r->rule);
	sd_param(f, "sandbox", r->sandbox);
	sd_param(f, "severity_id", sev);
	sd_param(f, "activity", r->activity);
	/* MSG: the OCSF record itself, UTF-8 (JSON) */
	fprintf(f, "] %.*s", (int)r->len, r->line);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- OTLP/HTTP JSON ------------------------------------------------------------ */

static json_t *kv(const char *k, json_t *v)
{
	return json_pack("{s:s, s:o}", "key", k, "value", v);
}

static json_t *kv_str(const char *k, const char *v)
{
	return kv(k, json_pack("{s:s}", "stringValue", v));
}

/* int64 as a decimal string: the OTLP JSON mapping of 64-bit integers. */
static json_t *kv_int(const char *k, int64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "%lld", (long long)v);
	return kv(k, json_pack("{s:s}", "intValue", s));
}

static json_t *otlp_record(const struct sink_rec *r, const struct sink_trace *tp)
{
	struct sink_trace own;
	const char *sev_text;
	int sev = sink__otlp_severity(r->severity_id, &sev_text);
	char ns[32], now_ns[32];
	struct timespec now;
	json_t *lr, *attrs = json_array();

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(ns, sizeof(ns), "%lld", (long long)r->time_ms * 1000000LL);
	snprintf(now_ns, sizeof(now_ns), "%lld",
		 (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	json_array_append_new(attrs, kv_int("ocsf.class_uid", r->class_uid));
	json_array_append_new(attrs, kv_int("ocsf.severity_id", r->severity_id));
	if (r->uid)
		json_array_append_new(attrs, kv_str("ocsf.metadata.uid", r->uid));
	if (r->rule)
		json_array_append_new(attrs, kv_str("ringfence.rule", r->rule));
	if (r->sandbox)
		json_array_append_new(attrs, kv_str("ringfence.sandbox", r->sandbox));
	if (r->finding_uid)
		json_array_append_new(attrs, kv_str("ringfence.finding_uid", r->finding_uid));
	if (r->message)
		json_array_append_new(attrs, kv_str("ringfence.message", r->message));
	lr = json_pack("{s:s, s:s, s:i, s:s, s:{s:s%}, s:o}", "timeUnixNano", ns,
		       "observedTimeUnixNano", now_ns, "severityNumber", sev,
		       "severityText", sev_text, "body", "stringValue", r->line, r->len,
		       "attributes", attrs);
	/* the sandbox's own trace (the tool call that started it) before the
	 * monitor's TRACEPARENT */
	if (r->traceparent && !sink__traceparent(r->traceparent, &own))
		tp = &own;
	if (lr && tp) {
		json_object_set_new(lr, "traceId", json_string(tp->trace_id));
		json_object_set_new(lr, "spanId", json_string(tp->span_id));
		json_object_set_new(lr, "flags", json_integer(tp->flags));
	}
	return lr;
}

char *sink__otlp_json(struct sink_rec *const *r, size_t n, const char *hostname,
		      const struct sink_trace *tp)
{
	_cleanup_json_ json_t *req = NULL;
	json_t *recs = json_array(), *res_attrs = json_array();
	size_t i;

	json_array_append_new(res_attrs, kv_str("service.name", "ringfence-monitor"));
	json_array_append_new(res_attrs, kv_str("service.version", RF_MON_VERSION));
	json_array_append_new(res_attrs, kv_str("host.name", hostname));
	for (i = 0; i < n; i++)
		json_array_append_new(recs, otlp_record(r[i], tp));
	req = json_pack("{s:[{s:{s:o}, s:[{s:{s:s, s:s}, s:o}]}]}", "resourceLogs",
			"resource", "attributes", res_attrs,
			"scopeLogs", "scope", "name", "ringfence-monitor", "version", RF_MON_VERSION,
			"logRecords", recs);
	return req ? json_dumps(req, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
}
