/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* network.connect and network.unix compiled into the kernel's map entries. */
#ifndef RF_NETRULES_H
#define RF_NETRULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rf_abi.h"
#include "policy/policy.h"

/* One address rule after DNS resolution: a prefix and a port range. */
struct rf_addr_rule {
	int family;              /* AF_INET or AF_INET6 */
	uint8_t addr[16];        /* network order, host bits zero */
	uint8_t prefix_len;
	uint16_t port_lo, port_hi;
	size_t source;           /* index of the policy entry it came from */
};

/* One LPM entry: prefix plus the full port answer for it. */
struct rf_net_entry {
	int family;
	uint8_t addr[16];
	uint8_t prefix_len;
	struct rf_ports ports;
};

/*
 * Group rules by prefix and give each prefix the union of the ports of
 * every prefix covering it, so the kernel's longest-prefix match alone
 * answers. A single host in 169.254.0.0/16, fe80::/10 or fd00:ec2::254
 * gets only its own ports: covering CIDRs never reach those addresses.
 * -E2BIG when one prefix needs more than RF_MAX_PORT_RANGES, -ENOMEM;
 * err filled either way (where "network.connect").
 */
int netrules__build(const struct rf_addr_rule *rules, size_t n,
		    struct rf_net_entry **ret_entries, size_t *ret_n,
		    struct rf_error *err);

/* Sort r[0..n) and merge overlapping or adjacent ranges in place: the
 * number of ranges left, disjoint and in order. The one normal form of a
 * set of ports (map entries, the Landlock port rules). */
size_t netrules__merge_ports(struct rf_port_range *r, size_t n);

/* r merged into out->r and out->n (flags untouched): -E2BIG when more than
 * RF_MAX_PORT_RANGES are left. r is scratch, reordered. */
int netrules__ports_of(struct rf_port_range *r, size_t n, struct rf_ports *out);

/* Fill key for one unix rule; cgroup_id set by the caller. */
void netrules__unix_key(const struct rf_unix_rule *rule, struct rf_unix_key *ret_key);
/* The next directory on the way to a pathname rule (RF_UNIX_ANCESTOR, an
 * exact key: "/a" then "/a/b" for "/a/b/s" or "/a/b/"), from *pos (0 at
 * first, advanced); false when there is none left. */
bool netrules__unix_way_key(const struct rf_unix_rule *rule, size_t *pos,
			    struct rf_unix_key *ret_key);

/* Addresses one DNS name resolved to. */
struct rf_resolved {
	size_t source;           /* policy connect[] index */
	int family;
	uint8_t addr[16];
	bool excluded;           /* link-local/metadata: never via a name */
};

/* Resolve every RF_HOST_NAME entry (getaddrinfo, outside the sandbox,
 * before it starts) and produce the address rules of all entries.
 * -EHOSTUNREACH with err naming the entry (where "network.connect[2]
 * \"name:443\"") when a name does not resolve to any usable address: the
 * run fails closed. -ENOMEM leaves err untouched. */
int netrules__resolve(const struct rf_policy *policy,
		      struct rf_addr_rule **ret_rules, size_t *ret_n_rules,
		      struct rf_resolved **ret_resolved, size_t *ret_n_resolved,
		      struct rf_error *err);

/* The exact host entry (family, addr) gets when rules and extra are built
 * together (netrules__build): *ret_found false when neither names that
 * host exactly. For the DNS gate, whose grants are extra host rules. */
int netrules__host_entry(const struct rf_addr_rule *rules, size_t n,
			 const struct rf_addr_rule *extra, size_t n_extra, int family,
			 const uint8_t *addr, struct rf_net_entry *ret_entry, bool *ret_found);

#endif
