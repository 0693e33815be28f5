/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * DNS tunnelling signs in one sandbox's queries, pure (time from the
 * records): many distinct names under one allowed suffix within a window
 * (a sliding window over each name's last sighting), and labels that are
 * long or look random (Shannon entropy). Bounded: RF_DNST_SUFFIXES
 * suffixes per sandbox (the least recently used makes room) and
 * RF_DNST_NAMES_MAX names per suffix (a threshold above it is held at it).
 */
#ifndef RF_MON_DNSTUNNEL_H
#define RF_MON_DNSTUNNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RF_DNST_SUFFIXES 16
#define RF_DNST_NAMES_MAX 16384
/* Defaults of monitor.dns_names and monitor.dns_label_len. */
#define RF_DNST_NAMES_DEFAULT 100
#define RF_DNST_WINDOW_MS_DEFAULT 60000
#define RF_DNST_LABEL_LEN_DEFAULT 52
/* A label this long or longer whose characters carry this many bits each
 * looks random (base32/base64/hex-encoded data); ordinary host labels of
 * that length are words and carry fewer. */
#define RF_DNST_ENTROPY_MIN_LEN 24
#define RF_DNST_ENTROPY_BITS 4.0

struct rf_dnst_suffix;

struct rf_dnst {
	struct rf_dnst_suffix *s[RF_DNST_SUFFIXES];
};

struct rf_dnst_limits {
	uint64_t names;             /* distinct names per suffix within window_ns */
	uint64_t window_ns;
	uint32_t label_len;         /* longest label not reported (63: off) */
};

/* What one name showed. */
struct rf_dnst_result {
	bool names_over;            /* a new name, and more than limits.names distinct
				     * names now (a name seen again is no new sign) */
	uint64_t distinct;          /* distinct names under the suffix in the window */
	bool label_odd;             /* a long or random-looking label */
	bool label_long;            /* ...longer than limits.label_len (else: entropy) */
	uint32_t label_len;
	double entropy;             /* bits per character of that label */
	char label[64];
};

/*
 * name (lower case, no trailing dot) at t_ns; its labels are judged when
 * it is new within the window; suffix_off: where the
 * allowed suffix starts in name (its labels are the policy's and not
 * judged), or past its end when no entry matched (every label judged,
 * counted under the name itself). 0 or -ENOMEM (nothing counted).
 */
int dnst__add(struct rf_dnst *st, const char *name, size_t suffix_off, uint64_t t_ns,
	      const struct rf_dnst_limits *lim, struct rf_dnst_result *ret);
void dnst__free(struct rf_dnst *st);
/* Shannon entropy of n bytes, bits per byte. */
double dnst__entropy(const char *s, size_t n);

#endif
