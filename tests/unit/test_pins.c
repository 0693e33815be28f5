/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pin tables (lib/pins.h) against the BPF objects this build embeds,
 * opened but never loaded (no privileges, no kernel features): every map
 * of the network and LSM objects is in the table or named below as
 * private, in the object the table says, with the key the table says;
 * every network program has its link; every pin name is unique.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "pins.h"
#include "net.skel.h"
#include "lsm.skel.h"
#include "observe.skel.h"

/* Maps the objects keep to themselves: never pinned, never shared. */
static const char *const private_maps[] = {
	"rf_scratch_map",       /* net.bpf.c: per-CPU event scratch */
	"rf_sk_flows",          /* net.bpf.c: the ledger's socket storage */
	"rf_parent",            /* lsm.bpf.c: the ringfence cgroup, set at attach */
	"rf_lsm_scratch_map",   /* lsm.bpf.c: task-local scratch */
	"rf_fowners",           /* lsm.bpf.c: which sandbox set a file's owner */
	"rf_obs_syscalls",      /* observe.bpf.c: what to watch, filled at load */
	"rf_obs_parent",        /* observe.bpf.c: the ringfence cgroup, set at attach */
	"rf_obs_task_map",      /* observe.bpf.c: task-local scratch */
	"rf_obs_pub",           /* observe.bpf.c: rf_obs_verdict's record */
};
#define N_PRIVATE (sizeof(private_maps) / sizeof(private_maps[0]))

static int table_index(const char *bpf_name)
{
	int i, found = -1;

	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		if (!strcmp(rf_pin_maps[i].bpf_name, bpf_name)) {
			assert_int_equal(found, -1);   /* one entry per map */
			found = i;
		}
	return found;
}

static int private_index(const char *name)
{
	size_t i;

	for (i = 0; i < N_PRIVATE; i++)
		if (!strcmp(private_maps[i], name))
			return (int)i;
	return -1;
}

/* Mark the table entries of obj's maps in seen[]; a map outside the table
 * must be a private one (marked in seen_private[]). */
static void walk_maps(struct bpf_object *obj, bool seen[RF_PIN_MAP_MAX],
		      bool seen_private[N_PRIVATE])
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, obj) {
		const char *name = bpf_map__name(m);
		int i = table_index(name), p = private_index(name);

		if (bpf_map__is_internal(m))
			continue;   /* .rodata/.bss: libbpf's own, never pinned */
		if (i < 0) {
			if (p < 0)
				fail_msg("map %s of %s is neither in lib/pins.h nor private",
					 name, bpf_object__name(obj));
			seen_private[p] = true;
			continue;
		}
		assert_int_equal(p, -1);
		seen[i] = true;
		if (rf_pin_maps[i].key_size)
			assert_int_equal(bpf_map__key_size(m), rf_pin_maps[i].key_size);
		/* per-sandbox maps are outer arrays of maps indexed by pool slot */
		assert_int_equal(bpf_map__type(m) == BPF_MAP_TYPE_ARRAY_OF_MAPS,
				 (rf_pin_maps[i].flags & RF_PINF_PER_SB) != 0);
		if (rf_pin_maps[i].flags & RF_PINF_PER_SB) {
			assert_int_equal(rf_pin_maps[i].key_size, 0);
			assert_int_equal(bpf_map__key_size(m), sizeof(__u32));
			assert_int_equal(bpf_map__max_entries(m), RF_MAX_SANDBOXES);
			assert_non_null(bpf_map__inner_map(m));
		}
		if (i == RF_PIN_META)
			assert_int_equal(bpf_map__value_size(m), sizeof(struct rf_meta));
	}
}

static void test_map_table_matches_objects(void **state)
{
	struct net_bpf *net = net_bpf__open();
	struct lsm_bpf *lsm = lsm_bpf__open();
	struct observe_bpf *obs = observe_bpf__open();
	bool in_net[RF_PIN_MAP_MAX] = { 0 }, in_lsm[RF_PIN_MAP_MAX] = { 0 };
	bool in_obs[RF_PIN_MAP_MAX] = { 0 };
	bool priv[N_PRIVATE] = { 0 };
	size_t i;

	(void)state;
	assert_non_null(net);
	assert_non_null(lsm);
	assert_non_null(obs);
	walk_maps(net->obj, in_net, priv);
	walk_maps(lsm->obj, in_lsm, priv);
	walk_maps(obs->obj, in_obs, priv);
	for (i = 0; i < RF_PIN_MAP_MAX; i++) {
		unsigned int f = rf_pin_maps[i].flags;

		if (f & RF_PINF_LSM) {
			/* the LSM object's own: not in the network object */
			assert_true(in_lsm[i]);
			assert_false(in_net[i] || in_obs[i]);
			assert_false(f & RF_PINF_SHARED);
		} else if (f & RF_PINF_OBSERVE) {
			assert_true(in_obs[i]);
			assert_false(in_net[i] || in_lsm[i]);
			assert_false(f & RF_PINF_SHARED);
		} else {
			/* the network object's; in the LSM and observe objects
			 * exactly when shared, or they would use copies of their own */
			assert_true(in_net[i]);
			assert_int_equal(in_lsm[i], (f & RF_PINF_SHARED) != 0);
			assert_int_equal(in_obs[i],
					 (f & (RF_PINF_SHARED | RF_PINF_OBS_SHARED)) != 0);
		}
		if (rf_pin_maps[i].key_size)
			assert_true(rf_pin_maps[i].cgid_off + sizeof(__u64) <=
				    rf_pin_maps[i].key_size);
	}
	for (i = 0; i < N_PRIVATE; i++)
		assert_true(priv[i]);   /* the private list names real maps */
	assert_true(rf_pin_maps[RF_PIN_META].flags & RF_PINF_META);
	net_bpf__destroy(net);
	lsm_bpf__destroy(lsm);
	observe_bpf__destroy(obs);
}

static void test_link_table_matches_program(void **state)
{
	struct net_bpf *net = net_bpf__open();
	struct bpf_program *prog;
	bool seen[RF_PIN_LINK_MAX] = { 0 };
	size_t i;

	(void)state;
	assert_non_null(net);
	bpf_object__for_each_program(prog, net->obj) {
		int found = -1;

		/* The DNS gate's program is run, never attached: pinned as
		 * RF_PIN_DNS_NOTE, not a link. */
		if (!strcmp(bpf_program__name(prog), "rf_dns_note")) {
			assert_int_equal(bpf_program__type(prog), BPF_PROG_TYPE_SYSCALL);
			continue;
		}
		for (i = 0; i < RF_PIN_LINK_MAX; i++)
			if (!strcmp(rf_pin_links[i].prog, bpf_program__name(prog))) {
				assert_int_equal(found, -1);
				found = (int)i;
			}
		if (found < 0)
			fail_msg("program %s has no link in lib/pins.h", bpf_program__name(prog));
		seen[found] = true;
		/* The inet programs' section names give their attach type;
		 * the unix ones get theirs from the table at load. */
		if (rf_pin_links[found].feature == RF_FEAT_INET)
			assert_int_equal(bpf_program__expected_attach_type(prog),
					 rf_pin_links[found].attach_type);
		else
			assert_int_equal(rf_pin_links[found].feature, RF_FEAT_UNIX);
	}
	for (i = 0; i < RF_PIN_LINK_MAX; i++)
		assert_true(seen[i]);
	assert_int_equal(rf_pin_links[RF_LINK_CONNECT_UNIX].attach_type,
			 RF_ATTACH_CGROUP_UNIX_CONNECT);
	assert_int_equal(rf_pin_links[RF_LINK_SENDMSG_UNIX].attach_type,
			 RF_ATTACH_CGROUP_UNIX_SENDMSG);
	net_bpf__destroy(net);
}

static void test_pin_names_unique(void **state)
{
	const char *names[RF_PIN_MAP_MAX + RF_PIN_LINK_MAX];
	size_t n = 0, i, j;

	(void)state;
	for (i = 0; i < RF_PIN_MAP_MAX; i++)
		names[n++] = rf_pin_maps[i].pin;
	for (i = 0; i < RF_PIN_LINK_MAX; i++)
		names[n++] = rf_pin_links[i].pin;
	for (i = 0; i < n; i++) {
		assert_non_null(names[i]);
		assert_true(names[i][0] != '\0');
		assert_null(strchr(names[i], '/'));
		/* LSM links are unpinned by this prefix: nothing else has it */
		assert_int_not_equal(strncmp(names[i], RF_PIN_LSM_LINK_PREFIX,
					     strlen(RF_PIN_LSM_LINK_PREFIX)), 0);
		assert_int_not_equal(strncmp(names[i], RF_PIN_OBS_LINK_PREFIX,
					     strlen(RF_PIN_OBS_LINK_PREFIX)), 0);
		for (j = i + 1; j < n; j++)
			if (!strcmp(names[i], names[j]))
				fail_msg("pin name %s twice", names[i]);
	}
}

static void test_pin_path(void **state)
{
	char buf[256];

	(void)state;
	/* nothing selected: the legacy set, flat in RF_PIN_DIR */
	assert_int_equal(rf_pins__select(""), 0);
	assert_string_equal(rf_pins__path(rf_pin_maps[RF_PIN_EVENTS].pin, buf, sizeof(buf)),
			    RF_PIN_DIR "/events");
	assert_string_equal(rf_pins__path(rf_pin_links[RF_LINK_CONNECT4].pin, buf, sizeof(buf)),
			    RF_PIN_DIR "/link_connect4");
	assert_int_equal(rf_pins__select("0123456789abcdef"), 0);
	assert_string_equal(rf_pins__selected(), "0123456789abcdef");
	assert_string_equal(rf_pins__dir(), RF_PIN_DIR "/0123456789abcdef");
	assert_string_equal(rf_pins__path(rf_pin_maps[RF_PIN_EVENTS].pin, buf, sizeof(buf)),
			    RF_PIN_DIR "/0123456789abcdef/events");
	assert_int_equal(rf_pins__select(""), 0);
}

/* A set's name: its build id's first 16 hex digits; nothing else is one
 * (a path out of RF_PIN_DIR above all). */
static void test_set_names(void **state)
{
	static const char *const bad[] = {
		"0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "../../../../tmp/x",
		"0123456789abcde/", "0123456789abcdeg",
	};
	uint8_t id[32];
	char name[RF_PIN_SET_LEN], lock[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(id); i++)
		id[i] = (uint8_t)(0xf0 + i);
	rf_pins__set_name(id, name);
	assert_string_equal(name, "f0f1f2f3f4f5f6f7");
	assert_true(rf_pins__set_valid(name));
	assert_true(rf_pins__set_valid(""));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(rf_pins__set_valid(bad[i]));
		assert_int_equal(rf_pins__select(bad[i]), -EINVAL);
	}
	assert_string_equal(rf_pins__live_lock(name, lock, sizeof(lock)),
			    "live-f0f1f2f3f4f5f6f7.lock");
	/* the name builds before sets held while live */
	assert_string_equal(rf_pins__live_lock("", lock, sizeof(lock)), "live.lock");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_table_matches_objects),
		cmocka_unit_test(test_link_table_matches_program),
		cmocka_unit_test(test_pin_names_unique),
		cmocka_unit_test(test_pin_path),
		cmocka_unit_test(test_set_names),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
