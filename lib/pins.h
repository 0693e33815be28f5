/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pinned set under RF_PIN_DIR, declared once: every map and every
 * cgroup link ringfence pins, with what its users need to know. The enums
 * and the tables are generated from the same lists, so one line here is
 * the whole declaration; tests/unit/test_pins.c checks the lists against
 * the BPF objects. Both binaries open the set through the functions below.
 */
#ifndef RF_PINS_H
#define RF_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "rf_abi.h"
#include "paths.h"

/* struct rf_pin_map_def.flags */
#define RF_PINF_LSM    (1u << 0)  /* created and pinned by the LSM object (lsm.bpf.c):
				   * present only when meta.features has RF_FEAT_LSM */
#define RF_PINF_SHARED (1u << 1)  /* the network object's, reused by the LSM object
				   * (declared in rf_common.bpf.h) */
#define RF_PINF_META   (1u << 2)  /* rf_meta: pinned last, read with rf_pins__read_meta */
#define RF_PINF_OBSERVE (1u << 3) /* created and pinned by the observe object
				   * (observe.bpf.c): only with RF_FEAT_OBSERVE */
#define RF_PINF_PER_SB (1u << 4)  /* outer map of per-sandbox inner maps, by pool slot */
#define RF_PINF_OBS_SHARED (1u << 5) /* the network object's, reused by the observe
				   * object only (bpf/rf_ledger_unix.bpf.h) */

/*
 * X(ENUM, pin file, map name in the BPF source, RF_PINF_*, key size,
 *   offset of the sandbox's cgroup id in the key).
 * Key size 0: entries do not belong to one sandbox (nothing to purge).
 * Maps without RF_PINF_LSM are the network object's (net.bpf.c).
 * RF_PINF_PER_SB: an outer array of maps indexed by pool slot whose
 * values are inner maps a sandbox gets for its own (bpf/rf_sbmap.bpf.h,
 * handed out through sb_slots, bookkept in slots): keyed by no cgroup id.
 */
#define RF_PIN_MAPS(X)                                                                  \
	X(SANDBOXES, "sandboxes", "rf_sandboxes", RF_PINF_SHARED, sizeof(__u64), 0)     \
	X(SB_SLOTS, "sb_slots", "rf_sb_slots", RF_PINF_SHARED, sizeof(__u64), 0)        \
	X(SLOTS, "slots", "rf_slots", RF_PINF_SHARED, 0, 0)                             \
	X(SLOT_MAPS, "slot_maps", "rf_slot_maps", RF_PINF_SHARED, 0, 0)                 \
	X(NET4, "net4", "rf_net4", RF_PINF_PER_SB, 0, 0)                                \
	X(NET6, "net6", "rf_net6", RF_PINF_PER_SB, 0, 0)                                \
	X(HOST4, "host4", "rf_host4", RF_PINF_PER_SB, 0, 0)                             \
	X(HOST6, "host6", "rf_host6", RF_PINF_PER_SB, 0, 0)                             \
	X(UNIX, "unix", "rf_unix", RF_PINF_SHARED | RF_PINF_PER_SB, 0, 0)               \
	X(PATHS, "paths", "rf_paths", RF_PINF_LSM | RF_PINF_PER_SB, 0, 0)               \
	X(SAMPLES, "samples", "rf_samples", RF_PINF_SHARED | RF_PINF_PER_SB, 0, 0)      \
	X(EVENTS, "events", "rf_events", RF_PINF_SHARED, 0, 0)                          \
	X(STATS, "stats", "rf_stats", RF_PINF_SHARED, 0, 0)                             \
	X(OBSERVE, "observe", "rf_observe", RF_PINF_OBSERVE, sizeof(__u64), 0)          \
	X(OBS_ACCESS, "observe_access", "rf_obs_access", RF_PINF_OBSERVE,                 \
	  sizeof(struct rf_sample_key), offsetof(struct rf_sample_key, cgroup_id))      \
	X(DNS_GATES, "dns_gates", "rf_dns_gates", 0, sizeof(__u64), 0)                 \
	X(DNS_ORIG, "dns_orig", "rf_dns_orig", 0, 0, 0)                                 \
	X(LEDGER, "ledger", "rf_ledger", RF_PINF_OBS_SHARED, sizeof(__u64), 0)          \
	X(FLOWS, "flows", "rf_flows", 0, sizeof(struct rf_flow_key),                    \
	  offsetof(struct rf_flow_key, cgroup_id))                                      \
	X(FLOW_NAMES, "flow_names", "rf_flow_names", 0, sizeof(struct rf_flow_name_key), \
	  offsetof(struct rf_flow_name_key, cgroup_id))                                 \
	X(UNIX_FLOWS, "unix_flows", "rf_unix_flows", RF_PINF_OBS_SHARED,                \
	  sizeof(struct rf_unix_flow_key), offsetof(struct rf_unix_flow_key, cgroup_id)) \
	X(UNIX_SK, "unix_sk", "rf_unix_sk", RF_PINF_OBS_SHARED, 0, 0)                   \
	X(META, "meta", "rf_meta", RF_PINF_META, 0, 0)

#define RF_PIN_MAP_ENUM_(e, ...) RF_PIN_##e,
enum rf_pin_map {
	RF_PIN_MAPS(RF_PIN_MAP_ENUM_)
	RF_PIN_MAP_MAX
};

/* Attach types this libbpf's headers cannot name (Linux 6.7). */
#define RF_ATTACH_CGROUP_UNIX_CONNECT 49
#define RF_ATTACH_CGROUP_UNIX_SENDMSG 50

/*
 * The network object's programs, each attached to the ringfence cgroup by
 * a pinned link. X(ENUM, pin file, program in net.bpf.c, attach type,
 * RF_FEAT_* it belongs to).
 */
#define RF_PIN_LINKS(X)                                                                    \
	X(CONNECT4, "link_connect4", "rf_connect4", BPF_CGROUP_INET4_CONNECT, RF_FEAT_INET)   \
	X(CONNECT6, "link_connect6", "rf_connect6", BPF_CGROUP_INET6_CONNECT, RF_FEAT_INET)   \
	X(SENDMSG4, "link_sendmsg4", "rf_sendmsg4", BPF_CGROUP_UDP4_SENDMSG, RF_FEAT_INET)    \
	X(SENDMSG6, "link_sendmsg6", "rf_sendmsg6", BPF_CGROUP_UDP6_SENDMSG, RF_FEAT_INET)    \
	X(SOCK_CREATE, "link_sock_create", "rf_sock_create", BPF_CGROUP_INET_SOCK_CREATE,     \
	  RF_FEAT_INET)                                                                       \
	X(EGRESS, "link_egress", "rf_egress", BPF_CGROUP_INET_EGRESS, RF_FEAT_INET)          \
	X(INGRESS, "link_ingress", "rf_ingress", BPF_CGROUP_INET_INGRESS, RF_FEAT_INET)       \
	X(CONNECT_UNIX, "link_connect_unix", "rf_connect_unix", RF_ATTACH_CGROUP_UNIX_CONNECT, \
	  RF_FEAT_UNIX)                                                                       \
	X(SENDMSG_UNIX, "link_sendmsg_unix", "rf_sendmsg_unix", RF_ATTACH_CGROUP_UNIX_SENDMSG, \
	  RF_FEAT_UNIX)                                                                       \
	X(RECVMSG4, "link_recvmsg4", "rf_recvmsg4", BPF_CGROUP_UDP4_RECVMSG, RF_FEAT_INET)    \
	X(RECVMSG6, "link_recvmsg6", "rf_recvmsg6", BPF_CGROUP_UDP6_RECVMSG, RF_FEAT_INET)

#define RF_PIN_LINK_ENUM_(e, ...) RF_LINK_##e,
enum rf_pin_link {
	RF_PIN_LINKS(RF_PIN_LINK_ENUM_)
	RF_PIN_LINK_MAX
};

/* The LSM object's links: this prefix + the program name (one per
 * program this kernel loads; the set differs across kernels). */
#define RF_PIN_LSM_LINK_PREFIX "lsm_"
/* The observe object's links: this prefix + the program name. They are
 * pinned only while a supervisor is live (the syscall tracepoints they
 * attach slow every task on the host); its programs stay pinned under
 * RF_PIN_OBS_PROG_PREFIX + the program name, ready to attach. */
#define RF_PIN_OBS_LINK_PREFIX "obs_"
#define RF_PIN_OBS_PROG_PREFIX "obsprog_"
/* Its verdict publisher (a syscall program, run on demand, never attached). */
#define RF_PIN_OBS_VERDICT RF_PIN_OBS_PROG_PREFIX "rf_obs_verdict"
/* The network object's rf_dns_note (the DNS gate's records for the
 * monitor), pinned as a program: run, never attached. */
#define RF_PIN_DNS_NOTE "prog_dns_note"

struct rf_pin_map_def {
	const char *pin;          /* file in a set's directory */
	const char *bpf_name;     /* the map's name in the BPF source and skeleton */
	unsigned int flags;       /* RF_PINF_* */
	size_t key_size;          /* per-sandbox keys: their size (0: not per sandbox) */
	size_t cgid_off;          /* and where the cgroup id is in them */
};

struct rf_pin_link_def {
	const char *pin;          /* file in a set's directory */
	const char *prog;         /* the program's name in net.bpf.c */
	int attach_type;          /* enum bpf_attach_type */
	uint32_t feature;         /* RF_FEAT_* */
};

extern const struct rf_pin_map_def rf_pin_maps[RF_PIN_MAP_MAX];
extern const struct rf_pin_link_def rf_pin_links[RF_PIN_LINK_MAX];

/*
 * Sets: each build's programs and maps live in a directory of their own,
 * RF_PIN_DIR/<set>, <set> the first RF_PIN_SET_HEX hex digits of its build
 * id, so a new build loads its set beside an old one whose sandboxes are
 * still live. Builds before sets pinned flat into RF_PIN_DIR: the legacy
 * set (name ""), found and unloaded, never loaded. The functions below act
 * on the selected set (rf_pins__select; the supervisor selects its own
 * build's before main, the monitor each set it follows in turn).
 */
#define RF_PIN_SET_HEX 16
#define RF_PIN_SET_LEN (RF_PIN_SET_HEX + 1)

/* The set name of a build id. */
void rf_pins__set_name(const uint8_t id[32], char ret_name[RF_PIN_SET_LEN]);
/* A set name: RF_PIN_SET_HEX lowercase hex digits ("" is the legacy set).
 * Inline: the registry checks names with it and links no libbpf. */
static inline bool rf_pins__set_valid(const char *name)
{
	int i;

	if (!name[0])
		return true;
	for (i = 0; i < RF_PIN_SET_HEX; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return name[i] == '\0';
}
/* Select the set the functions below act on: 0, or -EINVAL (name invalid). */
int rf_pins__select(const char *name);
/* The selected set's name and directory (RF_PIN_DIR for the legacy set). */
const char *rf_pins__selected(void);
const char *rf_pins__dir(void);
/* RF_PIN_DIR/name into buf; returns buf. */
const char *rf_pins__set_dir(const char *name, char *buf, size_t len);
/* Every set directory under RF_PIN_DIR, and the legacy set when a flat
 * pin is there: fn(name, ctx) until it returns non-zero (returned).
 * 0 when RF_PIN_DIR does not exist. */
int rf_pins__each_set(int (*fn)(const char *name, void *ctx), void *ctx);
/* The run-directory lock a supervisor holds shared while it uses a set:
 * "live-<set>.lock" ("live.lock" for the legacy set, as those builds
 * named it). */
const char *rf_pins__live_lock(const char *name, char *buf, size_t len);

/* The selected set's directory "/" pin into buf; returns buf. */
const char *rf_pins__path(const char *pin, char *buf, size_t len);

/* bpf_obj_get of the selected set's pin: an fd (O_CLOEXEC), or -errno
 * (-ENOENT: not pinned). */
int rf_pins__get(const char *pin);
/* The same in the set named set (not the selected one). */
int rf_pins__get_in(const char *set, const char *pin);
int rf_pins__open_map(enum rf_pin_map m);

/* The kernel's id of a map fd (0 on error); of a pinned map (0: none). */
uint32_t rf_pins__map_id(int fd);
uint32_t rf_pins__pinned_id(enum rf_pin_map m);

/* Read rf_meta of the selected set: 0; -ENOENT nothing pinned; -ESTALE
 * pinned by another ABI (ret_meta filled anyway); or -errno. The build id
 * is the supervisor's to compare: only it embeds the BPF objects. */
int rf_pins__read_meta(struct rf_meta *ret_meta);
int rf_pins__read_meta_in(const char *set, struct rf_meta *ret_meta);

/* Open the pinned maps of a set with these features into fds: all but
 * meta, the LSM object's only with RF_FEAT_LSM, the observe object's only
 * with RF_FEAT_OBSERVE; -1 where not opened.
 * 0, or -errno with every fd closed again. */
int rf_pins__open_maps(uint32_t features, int fds[RF_PIN_MAP_MAX]);
int rf_pins__open_maps_in(const char *set, uint32_t features, int fds[RF_PIN_MAP_MAX]);
/* Close what is open and set -1 (NULL is allowed). */
void rf_pins__close_maps(int fds[RF_PIN_MAP_MAX]);

#endif
