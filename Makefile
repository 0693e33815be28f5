# ringfence — build, test, demo. As root on Debian 12: `make demo`, `make test`.
# `make` only builds; `make deps` installs the Debian packages (demo, test,
# vmtest and bench call it first).
BUILD     ?= build
# One spelling per object: a BUILD given as an absolute path inside this
# checkout (tests/run_all.sh exports one) becomes relative, or the
# dependency files written under one spelling would miss a header edited
# before a build under the other, and an object would go stale.
ifeq ($(words $(CURDIR)),1)
override BUILD := $(patsubst $(CURDIR)/%,%,$(BUILD))
endif
CC        ?= gcc
CLANG     ?= clang
BPFTOOL   ?= bpftool
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# Debian 12 packages the build, the tests and the demo need.
DEPS := make gcc libbpf-dev libelf-dev zlib1g-dev clang llvm bpftool \
        libcmocka-dev libjansson-dev libssl-dev nettle-dev libcap-dev libseccomp-dev libsystemd-dev pkg-config \
        iproute2 procps python3 python3-jsonschema qemu-system-x86 busybox-static cpio \
        libclang-rt-14-dev prometheus libldns-dev libpsl-dev dnsmasq-base \
        scdoc debhelper dpkg-dev fakeroot lintian bash-completion zsh fish bubblewrap bc \
        firejail git libcurl4-openssl-dev rsyslog podman crun conmon linux-perf

WARN      := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
CFLAGS    += $(WARN) -Wno-format-truncation -std=gnu11 -D_GNU_SOURCE -MMD -MP \
             -I$(BUILD) -Ibpf -Ilib
SUP_INC   := -Isupervisor
MON_INC   := -Imonitor
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-function -Wno-unused-parameter \
              -MMD -MP -I$(BUILD) -Ibpf
# What each binary links: librf.a needs libbpf, jansson and openssl only;
# libseccomp and libcap are the supervisor's.
LIB_LDLIBS := -lbpf -lelf -lz -ljansson -lnettle
# libldns, libsystemd and libpsl are loaded when used (supervisor/util/lazylib.h).
SUP_LDLIBS := $(LIB_LDLIBS) -lcap -lseccomp -lpthread
# Linked into the ringfence binary statically (as libbpf's upstream
# advises): the dynamic loader's work for them is paid by every run's
# start (tests/bench/startup.sh). Empty links them dynamically, as a
# distribution's package does so that their security updates reach it.
SUP_STATIC_LIBS ?= -lbpf -lelf -lz -ljansson -lnettle -lcap -lseccomp
LD_STATIC := -Wl,-Bstatic
LD_DYNAMIC := -Wl,-Bdynamic
SUP_LINK = $(if $(strip $(SUP_STATIC_LIBS)),$(LD_STATIC) $(SUP_STATIC_LIBS) $(LD_DYNAMIC)) \
           $(filter-out $(SUP_STATIC_LIBS),$(SUP_LDLIBS))
# The monitor links libsystemd (sd_notify, the app-specific machine id,
# the journal sink) and libcurl (the OTLP and webhook sinks, each sink a
# thread): a daemon started once, unlike every run's supervisor.
MON_SD_LIBS := -lsystemd -lcurl -lpthread
MON_LDLIBS := $(LIB_LDLIBS) -lm $(MON_SD_LIBS)

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

# lib/: the code both binaries share, as one static library.
LIB_SRCS  := $(wildcard lib/*.c)
LIB_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS))
LIBRF     := $(BUILD)/librf.a
# supervisor/: one folder a room (cli, policy, plan, rules, backends, run,
# launch, cgroups, dnsgate, learn, observe, util); see ARCHITECTURE.md.
SUP_SRCS  := $(wildcard supervisor/*/*.c)
SUP_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(SUP_SRCS))
MON_SRCS  := $(wildcard monitor/*.c)
MON_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(MON_SRCS))
# Everything but the two main()s: what the tests link against.
ALL_OBJS  := $(LIB_OBJS) $(filter-out $(BUILD)/supervisor/cli/main.o,$(SUP_OBJS)) \
             $(filter-out $(BUILD)/monitor/main.o,$(MON_OBJS))
SAN_OBJS  := $(patsubst $(BUILD)/%,$(BUILD)/san/%,$(ALL_OBJS))
# The tests link the monitor's objects too: its libraries with them.
TEST_LDLIBS := $(SUP_LDLIBS) -lm -lcmocka -lcrypto $(MON_SD_LIBS)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))
SAN_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/san/tests/unit/%,$(UNIT_SRCS))
BPFT_SRCS := $(wildcard tests/bpf/test_*.c)
BPFT_BINS := $(patsubst tests/bpf/%.c,$(BUILD)/tests/bpf/%,$(BPFT_SRCS))
HOST_SRCS := $(wildcard tests/host/test_*.c)
HOST_BINS := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(HOST_SRCS))
VM_TOOL_BINS := $(patsubst tests/vm/tools/%.c,$(BUILD)/tests/vm/%,$(wildcard tests/vm/tools/*.c))
# Programs of the build checks (tests/build/): they link the project's objects.
BUILDCHECK_BINS := $(patsubst tests/build/%.c,$(BUILD)/tests/build/%,$(wildcard tests/build/*.c))
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOL_SRCS))
# libFuzzer harnesses (tests/fuzz/): the same sources built by clang with
# coverage, ASan and UBSan into their own folder, linked from an archive so
# each harness pulls in only the objects its parser needs. FUZZ_EXTRA adds
# flags (e.g. a -D for a one-off experiment in a separate BUILD).
FUZZ_CC   ?= $(CLANG)
FUZZ_DIR  := $(BUILD)/fuzz
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -O1 -g $(WARN) -Wno-unknown-warning-option -std=gnu11 -D_GNU_SOURCE -MMD -MP \
             -I$(BUILD) -Ibpf -Ilib $(FUZZ_SAN) $(FUZZ_EXTRA)
FUZZ_OBJS := $(patsubst $(BUILD)/%,$(FUZZ_DIR)/%,$(ALL_OBJS))
FUZZ_LIB  := $(FUZZ_DIR)/libfuzz.a
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60
# Man pages (scdoc sources in man/) and what `make install` puts where.
MAN_SRCS  := $(wildcard man/*.scd)
MANS      := $(patsubst man/%.scd,$(BUILD)/man/%,$(MAN_SRCS))
PREFIX    ?= /usr/local
DESTDIR   ?=
BINDIR    ?= $(PREFIX)/bin
SBINDIR   ?= $(PREFIX)/sbin
MANDIR    ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share/ringfence
# podman's and CRI-O's hooks directory (oci-hooks(5)): the OCI hook, for
# containers annotated run.ringfence.policy only
OCIHOOKSDIR ?= $(PREFIX)/share/containers/oci/hooks.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# zsh looks in site-functions under /usr/local, Debian's packages use
# vendor-completions; fish reads vendor_completions.d under both.
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# Debian keeps units in /lib/systemd/system; a /usr/local install under its prefix.
UNITDIR   ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
# logrotate reads /etc/logrotate.d; a /usr/local install keeps it under its prefix.
LOGROTATEDIR ?= $(if $(filter /usr,$(PREFIX)),/etc/logrotate.d,$(PREFIX)/etc/logrotate.d)
TEST_BINS := $(UNIT_BINS) $(SAN_BINS) $(BPFT_BINS) $(HOST_BINS) $(TOOL_BINS) $(VM_TOOL_BINS) \
             $(FUZZ_BINS) $(BUILDCHECK_BINS)

.SECONDARY:
.DELETE_ON_ERROR:
.PHONY: all build testbins install uninstall deps test unit unit-san fuzz bpftest hosttest vmtest demo bench clean
.DEFAULT_GOAL := all

all: build

build: $(BUILD)/ringfence $(BUILD)/ringfence-monitor $(MANS)

# Idempotent: installs only what is missing.
deps:
	@missing=$$(for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$(echo $$missing | sed 's/^/ /')"; \
		if [ "$$(id -u)" != 0 ]; then echo "deps: run as root to install packages" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# ---- BPF objects and skeletons ----
$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -MT $@ -c $< -o $@.tmp.o
	$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# ---- user space: lib/ (librf.a), supervisor/, monitor/ ----
$(BUILD)/gen/syscalls.h: tools/gen-syscalls.sh
	@mkdir -p $(@D)
	tools/gen-syscalls.sh $(CC) > $@

# The id of this build's BPF objects (pinned in rf_meta): hashed here, not
# at every run's start.
$(BUILD)/gen/build_id.h: $(BUILD)/bpf/net.bpf.o $(BUILD)/bpf/lsm.bpf.o $(BUILD)/bpf/observe.bpf.o
	@mkdir -p $(@D)
	cat $^ | sha256sum | cut -c1-64 | sed 's/../0x&, /g; s/^/#define RF_BUILD_ID { /; s/, $$/ }/' > $@.tmp && mv $@.tmp $@

GEN_HDRS := $(BUILD)/gen/syscalls.h $(BUILD)/gen/build_id.h

# Skeletons are order-only: the .d files record who really includes them.
$(BUILD)/lib/%.o: lib/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/supervisor/%.o: supervisor/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SUP_INC) -c $< -o $@

$(BUILD)/monitor/%.o: monitor/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(MON_INC) -c $< -o $@

$(BUILD)/san/lib/%.o: lib/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/san/supervisor/%.o: supervisor/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(SUP_INC) -c $< -o $@

$(BUILD)/san/monitor/%.o: monitor/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(MON_INC) -c $< -o $@

$(FUZZ_DIR)/lib/%.o: lib/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/supervisor/%.o: supervisor/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(SUP_INC) -c $< -o $@

$(FUZZ_DIR)/monitor/%.o: monitor/%.c | $(SKELS) $(GEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(MON_INC) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(LIBRF): $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/ringfence: $(SUP_OBJS) $(LIBRF)
	$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.c %.o %.a,$^) -o $@ $(SUP_LINK)

# The monitor is its own objects and librf.a: no launcher, planner or
# libseccomp (tests/build/check_monitor_link.sh checks).
$(BUILD)/ringfence-monitor: $(MON_OBJS) $(LIBRF)
	$(CC) $(CFLAGS) $(LDFLAGS) $(filter %.c %.o %.a,$^) -o $@ $(MON_LDLIBS)

$(BUILD)/man/%: man/%.scd
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp && mv $@.tmp $@

# ---- install: PREFIX (default /usr/local) and DESTDIR (a staging root) ----
# The BPF objects are compiled into the binaries (skeletons): nothing to
# install for them. Schemas and example policies go to DATADIR.
install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(LOGROTATEDIR) \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) \
		$(DESTDIR)$(DATADIR)/schemas $(DESTDIR)$(DATADIR)/examples $(DESTDIR)$(OCIHOOKSDIR) \
		$(addprefix $(DESTDIR)$(MANDIR)/man,1 5 8)
	install -m 0755 $(BUILD)/ringfence $(DESTDIR)$(BINDIR)/ringfence
	install -m 0755 $(BUILD)/ringfence-monitor $(DESTDIR)$(SBINDIR)/ringfence-monitor
	install -m 0644 $(BUILD)/man/ringfence.1 $(DESTDIR)$(MANDIR)/man1/ringfence.1
	install -m 0644 $(BUILD)/man/ringfence.policy.5 $(DESTDIR)$(MANDIR)/man5/ringfence.policy.5
	install -m 0644 $(BUILD)/man/ringfence-monitor.8 $(DESTDIR)$(MANDIR)/man8/ringfence-monitor.8
	install -m 0644 dist/bash-completion/ringfence dist/bash-completion/ringfence-monitor \
		$(DESTDIR)$(BASHCOMPDIR)/
	install -m 0644 dist/zsh-completion/_ringfence dist/zsh-completion/_ringfence-monitor \
		$(DESTDIR)$(ZSHCOMPDIR)/
	install -m 0644 dist/fish-completion/ringfence.fish dist/fish-completion/ringfence-monitor.fish \
		$(DESTDIR)$(FISHCOMPDIR)/
	sed 's|/usr/sbin/ringfence-monitor|$(SBINDIR)/ringfence-monitor|' \
		dist/systemd/ringfence-monitor.service > $(DESTDIR)$(UNITDIR)/ringfence-monitor.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ringfence-monitor.service
	install -m 0644 dist/logrotate/ringfence-monitor $(DESTDIR)$(LOGROTATEDIR)/ringfence-monitor
	sed 's|/usr/bin/ringfence|$(BINDIR)/ringfence|' dist/oci/ringfence.json \
		> $(DESTDIR)$(OCIHOOKSDIR)/ringfence.json
	chmod 0644 $(DESTDIR)$(OCIHOOKSDIR)/ringfence.json
	install -m 0644 schemas/*.schema.json $(DESTDIR)$(DATADIR)/schemas/
	install -m 0644 schemas/examples/*.json schemas/examples/README.md $(DESTDIR)$(DATADIR)/examples/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ringfence $(DESTDIR)$(SBINDIR)/ringfence-monitor \
		$(DESTDIR)$(MANDIR)/man1/ringfence.1 $(DESTDIR)$(MANDIR)/man5/ringfence.policy.5 \
		$(DESTDIR)$(MANDIR)/man8/ringfence-monitor.8 \
		$(DESTDIR)$(BASHCOMPDIR)/ringfence $(DESTDIR)$(BASHCOMPDIR)/ringfence-monitor \
		$(DESTDIR)$(ZSHCOMPDIR)/_ringfence $(DESTDIR)$(ZSHCOMPDIR)/_ringfence-monitor \
		$(DESTDIR)$(FISHCOMPDIR)/ringfence.fish $(DESTDIR)$(FISHCOMPDIR)/ringfence-monitor.fish \
		$(DESTDIR)$(UNITDIR)/ringfence-monitor.service $(DESTDIR)$(LOGROTATEDIR)/ringfence-monitor \
		$(DESTDIR)$(OCIHOOKSDIR)/ringfence.json
	rm -rf $(DESTDIR)$(DATADIR)

# ---- tests, by kind ----
# Unit tests (cmocka): no privileges, no kernel features.
$(BUILD)/tests/unit/%: tests/unit/%.c $(ALL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUP_INC) $(MON_INC) $(filter %.c %.o %.a,$^) -o $@ $(TEST_LDLIBS)

$(BUILD)/san/tests/unit/%: tests/unit/%.c $(SAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(SUP_INC) $(MON_INC) $(filter %.c %.o %.a,$^) -o $@ $(TEST_LDLIBS)

# BPF programs on their own (cmocka, root): load a skeleton, attach it to a
# scratch cgroup, act from a child, assert on the maps.
$(BUILD)/tests/bpf/%: tests/bpf/%.c $(ALL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUP_INC) -Itests/bpf $(filter %.c %.o %.a,$^) -o $@ $(TEST_LDLIBS)

# Host integration tests (cmocka, root) drive build/ringfence.
$(BUILD)/tests/host/%: tests/host/%.c $(ALL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUP_INC) $(MON_INC) -Itests/host $(filter %.c %.o %.a,$^) -o $@ $(TEST_LDLIBS)

# cli_dump prints the command-line tables for tests/build/check_cli_docs.py.
$(BUILD)/tests/build/%: tests/build/%.c $(ALL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUP_INC) $(MON_INC) $(filter %.c %.o %.a,$^) -o $@ $(TEST_LDLIBS)

# Programs for the VM suites (they link the project's modules).
$(BUILD)/tests/vm/%: tests/vm/tools/%.c $(ALL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUP_INC) $(filter %.c %.o %.a,$^) -o $@ $(SUP_LDLIBS) -lm $(MON_SD_LIBS)

# Small programs run inside sandboxes by the tests and the demo.
$(BUILD)/tests/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

# The DNS gate's test client builds and parses its messages with ldns.
$(BUILD)/tests/tools/rf-dns: tests/tools/rf-dns.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ -lldns

$(BUILD)/tests/bench/%: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(LIB_LDLIBS)

# rf-rules times the supervisor's own rule phases: it links its objects.
$(BUILD)/tests/bench/rf-rules: tests/bench/rf-rules.c $(ALL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUP_INC) $(filter %.c %.o %.a,$^) -o $@ $(SUP_LDLIBS) -lm $(MON_SD_LIBS)

# One libFuzzer program per parser of outside input (see docs/testing.md).
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(SUP_INC) $(MON_INC) $(filter %.c %.a,$^) \
		-o $@ $(TEST_LDLIBS)

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

unit-san: $(SAN_BINS)
	@set -e; for t in $(SAN_BINS); do echo "== $$t (ASan+UBSan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

# Each harness for FUZZ_SECONDS over its corpus; new inputs are kept in
# $(FUZZ_DIR)/corpus/, crashes in $(FUZZ_DIR)/artifacts/ (make test runs
# the same harnesses for a few seconds each).
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS)

# Absolute paths by the shell: make's abspath splits a path with spaces.
bpftest: $(BPFT_BINS)
	@set -e; b=$$(cd "$(BUILD)" && pwd); for t in $(BPFT_BINS); do echo "== $$t"; BUILD=$$b $$t; done

hosttest: build $(HOST_BINS) $(TOOL_BINS)
	@set -e; b=$$(cd "$(BUILD)" && pwd); for t in $(HOST_BINS); do echo "== $$t"; \
		RINGFENCE="$$b/ringfence" TOOLS="$$b/tests/tools" EXAMPLES="$$PWD/schemas/examples" $$t; done
	@echo "== tests/host/test_trace_schema.sh"; tests/host/test_trace_schema.sh $(BUILD)
	@echo "== tests/host/test_examples.sh"; tests/host/test_examples.sh $(BUILD)
	@echo "== tests/host/test_oci.sh"; tests/host/test_oci.sh $(BUILD)

# Guest suites tests/vm/guest/*.sh in a qemu (TCG) VM running Debian's cloud
# kernels: 6.1 (BPF-LSM), 7.3 without BPF-LSM (Landlock + seccomp on a full
# cgroup2 hierarchy) and 7.3 with it. VM_SUITES picks suites.
VM_SUITES ?=
vmtest: deps
	@$(MAKE) --no-print-directory build $(TOOL_BINS) $(VM_TOOL_BINS)
	@tests/vm/run.sh $(BUILD) $(VM_SUITES)
	@VM_KERNEL=7.3 VM_CACHE=$(BUILD)/vm73 tests/vm/run.sh $(BUILD) $(VM_SUITES)
	@VM_KERNEL=7.3 VM_CACHE=$(BUILD)/vm73 VM_APPEND=lsm=lockdown,capability,landlock,yama,bpf \
		tests/vm/run.sh $(BUILD) $(or $(VM_SUITES),attack)

# Every test program, built but not run.
testbins: build $(TEST_BINS)

# Says at once when it cannot pass (not root), before building. The build
# uses every CPU unless the caller gave -j (CI's budget: a serial build of
# every test program took over 3 of its 14 minutes).
JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
test:
	@tests/run_all.sh --can-run
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory $(JOBS) build $(TEST_BINS)
	@tests/run_all.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory build $(TOOL_BINS)
	@tests/demo.sh $(BUILD)

bench: deps
	@$(MAKE) --no-print-directory build $(BUILD)/tests/bench/rf-bench $(BUILD)/tests/bench/rf-rules \
		$(BUILD)/tests/bench/rf-tpfloor $(BUILD)/tests/bench/rf-flood $(TOOL_BINS) $(VM_TOOL_BINS)
	@tests/bench/run.sh $(BUILD)
	@tests/bench/rules.sh $(BUILD)
	@tests/bench/ledger.sh $(BUILD)
	@tests/bench/unix_bytes.sh $(BUILD)
	@tests/bench/startup.sh $(BUILD)
	@tests/bench/startup_waits.sh $(BUILD) both
	@tests/bench/workloads.sh $(BUILD) both
	@tests/bench/monitor.sh $(BUILD)
	@tests/bench/observe.sh $(BUILD)
	@tests/bench/dns.sh $(BUILD)
	@tests/bench/vm-lsm.sh $(BUILD)
	@tests/bench/vm-workloads.sh $(BUILD)
	@tests/bench/vm-unix.sh $(BUILD)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
