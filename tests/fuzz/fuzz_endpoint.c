// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Names in a policy: network.connect entries (endpoint__parse: IPv4, IPv6,
 * CIDR, DNS names, ports and ranges), and the same text as a path entry
 * (policy__check_path) and as a network.unix socket name and a connect
 * entry inside a whole policy (the unix name parser is internal to the
 * policy loader). Invariants on an endpoint that parses: ports in range,
 * prefix within the family, a DNS name lower-case, short, without a
 * trailing dot; the policy loader agrees with endpoint__parse.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <jansson.h>

#include "policy/policy.h"
#include "fuzz.h"

static void check_endpoint(const struct rf_endpoint *ep, const char *text)
{
	size_t n;

	FUZZ_ASSERT(ep->text && !strcmp(ep->text, text));
	FUZZ_ASSERT(ep->port_lo >= 1 && ep->port_lo <= ep->port_hi);
	if (ep->kind == RF_HOST_ADDR) {
		FUZZ_ASSERT(ep->family == AF_INET || ep->family == AF_INET6);
		FUZZ_ASSERT(ep->prefix_len <= (ep->family == AF_INET ? 32 : 128));
		(void)endpoint__is_sensitive(ep->family, ep->addr);
		return;
	}
	FUZZ_ASSERT(ep->kind == RF_HOST_NAME);
	n = strnlen(ep->name, RF_DNS_NAME_MAX + 1);
	FUZZ_ASSERT(n > 0 && n <= RF_DNS_NAME_MAX && ep->name[n - 1] != '.');
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT(ep->name[i] < 'A' || ep->name[i] > 'Z');
}

/* The text as the only entry of one list of a policy; 0 or the refusal. */
static int load_with_entry(const char *list, const char *text)
{
	struct rf_policy *p = NULL;
	struct rf_error err;
	json_t *doc;
	char *s;
	int r;

	doc = json_pack("{s:i, s:s, s:{s:[s]}}", "version", 1, "id", "fuzz",
			"network", list, text);
	if (!doc)
		return -EILSEQ; /* not UTF-8: no JSON document holds it */
	s = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	FUZZ_ASSERT(s);
	r = policy__load_string(s, &p, &err);
	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r == 0 && !strcmp(list, "unix")) {
		/* "${NAME}" is expanded and "$${" unescaped (policy_vars.c):
		 * only a text without "${" stays as written */
		FUZZ_ASSERT(p->n_unix == 1);
		FUZZ_ASSERT(strstr(text, "${") || !strcmp(p->unix_rules[0].text, text));
		FUZZ_ASSERT(p->unix_rules[0].name);
	}
	policy__free(p);
	free(s);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct rf_endpoint ep;
	struct rf_error err;
	int r, r_pol;

	r = endpoint__parse(text, &ep, &err);
	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r == 0)
		check_endpoint(&ep, text);
	else
		FUZZ_ASSERT(err.why[0] && !ep.text);
	r_pol = load_with_entry("connect", text);
	/* A name the loader takes is one endpoint__parse takes; the loader may
	 * refuse more (sensitive addresses written as a CIDR). A text holding
	 * "${" is expanded first (policy_vars.c: "${UID}" becomes digits), so
	 * the loader parses another text than the one endpoint__parse saw. */
	if (r_pol == 0 && !strstr(text, "${"))
		FUZZ_ASSERT(r == 0);
	endpoint__clear(&ep);

	r = policy__check_path(text, &err);
	FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r == 0)
		FUZZ_ASSERT(text[0] == '/');
	(void)load_with_entry("unix", text);
	free(text);
	return 0;
}
