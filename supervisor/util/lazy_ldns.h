/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* libldns, loaded on first use (lazylib.h): the DNS gate's packets. */
#ifndef RF_LAZY_LDNS_H
#define RF_LAZY_LDNS_H

#include <ldns/ldns.h>

#include "lazylib.h"

#define RF_LAZY_LDNS_SONAME "libldns.so.3"

/* Every function of it that ringfence calls: a call not listed here
 * fails the link (nothing links -lldns). */
#define RF_LAZY_LDNS_SYMBOLS(X) \
	X(ldns_dname_compare) \
	X(ldns_pkt2wire) \
	X(ldns_pkt_additional) \
	X(ldns_pkt_answer) \
	X(ldns_pkt_authority) \
	X(ldns_pkt_clone) \
	X(ldns_pkt_free) \
	X(ldns_pkt_get_rcode) \
	X(ldns_pkt_id) \
	X(ldns_pkt_qdcount) \
	X(ldns_pkt_qr) \
	X(ldns_pkt_question) \
	X(ldns_pkt_rcode2str) \
	X(ldns_pkt_set_aa) \
	X(ldns_pkt_set_additional) \
	X(ldns_pkt_set_ancount) \
	X(ldns_pkt_set_answer) \
	X(ldns_pkt_set_arcount) \
	X(ldns_pkt_set_authority) \
	X(ldns_pkt_set_id) \
	X(ldns_pkt_set_nscount) \
	X(ldns_pkt_set_qr) \
	X(ldns_pkt_set_ra) \
	X(ldns_pkt_set_rcode) \
	X(ldns_rdf2str) \
	X(ldns_rdf_data) \
	X(ldns_rdf_get_type) \
	X(ldns_rdf_size) \
	X(ldns_resolver_deep_free) \
	X(ldns_resolver_nameserver_count) \
	X(ldns_resolver_nameservers) \
	X(ldns_resolver_new_frm_file) \
	X(ldns_rr_clone) \
	X(ldns_rr_get_type) \
	X(ldns_rr_list_deep_free) \
	X(ldns_rr_list_new) \
	X(ldns_rr_list_push_rr) \
	X(ldns_rr_list_rr) \
	X(ldns_rr_list_rr_count) \
	X(ldns_rr_owner) \
	X(ldns_rr_rdf) \
	X(ldns_rr_ttl) \
	X(ldns_rr_type2str) \
	X(ldns_wire2pkt)

RF_LAZYLIB_DECLARE(RF_LAZY_LDNS_SYMBOLS)

/* Loads it once (0, or -ELIBACC with e set); call before any of them. */
int lazylib__ldns(struct rf_error *e);

#ifndef RF_LAZYLIB_NO_REDIRECT
#define ldns_dname_compare RF_LAZY(ldns_dname_compare)
#define ldns_pkt2wire RF_LAZY(ldns_pkt2wire)
#define ldns_pkt_additional RF_LAZY(ldns_pkt_additional)
#define ldns_pkt_answer RF_LAZY(ldns_pkt_answer)
#define ldns_pkt_authority RF_LAZY(ldns_pkt_authority)
#define ldns_pkt_clone RF_LAZY(ldns_pkt_clone)
#define ldns_pkt_free RF_LAZY(ldns_pkt_free)
#define ldns_pkt_get_rcode RF_LAZY(ldns_pkt_get_rcode)
#define ldns_pkt_id RF_LAZY(ldns_pkt_id)
#define ldns_pkt_qdcount RF_LAZY(ldns_pkt_qdcount)
#define ldns_pkt_qr RF_LAZY(ldns_pkt_qr)
#define ldns_pkt_question RF_LAZY(ldns_pkt_question)
#define ldns_pkt_rcode2str RF_LAZY(ldns_pkt_rcode2str)
#define ldns_pkt_set_aa RF_LAZY(ldns_pkt_set_aa)
#define ldns_pkt_set_additional RF_LAZY(ldns_pkt_set_additional)
#define ldns_pkt_set_ancount RF_LAZY(ldns_pkt_set_ancount)
#define ldns_pkt_set_answer RF_LAZY(ldns_pkt_set_answer)
#define ldns_pkt_set_arcount RF_LAZY(ldns_pkt_set_arcount)
#define ldns_pkt_set_authority RF_LAZY(ldns_pkt_set_authority)
#define ldns_pkt_set_id RF_LAZY(ldns_pkt_set_id)
#define ldns_pkt_set_nscount RF_LAZY(ldns_pkt_set_nscount)
#define ldns_pkt_set_qr RF_LAZY(ldns_pkt_set_qr)
#define ldns_pkt_set_ra RF_LAZY(ldns_pkt_set_ra)
#define ldns_pkt_set_rcode RF_LAZY(ldns_pkt_set_rcode)
#define ldns_rdf2str RF_LAZY(ldns_rdf2str)
#define ldns_rdf_data RF_LAZY(ldns_rdf_data)
#define ldns_rdf_get_type RF_LAZY(ldns_rdf_get_type)
#define ldns_rdf_size RF_LAZY(ldns_rdf_size)
#define ldns_resolver_deep_free RF_LAZY(ldns_resolver_deep_free)
#define ldns_resolver_nameserver_count RF_LAZY(ldns_resolver_nameserver_count)
#define ldns_resolver_nameservers RF_LAZY(ldns_resolver_nameservers)
#define ldns_resolver_new_frm_file RF_LAZY(ldns_resolver_new_frm_file)
#define ldns_rr_clone RF_LAZY(ldns_rr_clone)
#define ldns_rr_get_type RF_LAZY(ldns_rr_get_type)
#define ldns_rr_list_deep_free RF_LAZY(ldns_rr_list_deep_free)
#define ldns_rr_list_new RF_LAZY(ldns_rr_list_new)
#define ldns_rr_list_push_rr RF_LAZY(ldns_rr_list_push_rr)
#define ldns_rr_list_rr RF_LAZY(ldns_rr_list_rr)
#define ldns_rr_list_rr_count RF_LAZY(ldns_rr_list_rr_count)
#define ldns_rr_owner RF_LAZY(ldns_rr_owner)
#define ldns_rr_rdf RF_LAZY(ldns_rr_rdf)
#define ldns_rr_ttl RF_LAZY(ldns_rr_ttl)
#define ldns_rr_type2str RF_LAZY(ldns_rr_type2str)
#define ldns_wire2pkt RF_LAZY(ldns_wire2pkt)
#endif

#endif
