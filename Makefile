# ringfence — build, test, demo. Run as root on Debian 12: `make demo`, `make test`.
BUILD     ?= build
CC        ?= gcc
CLANG     ?= clang
BPFTOOL   ?= bpftool
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# Debian 12 packages the build, the tests and the demo need.
DEPS := make gcc libbpf-dev libelf-dev zlib1g-dev clang llvm bpftool \
        libcmocka-dev libjansson-dev libssl-dev libcap-dev libseccomp-dev pkg-config \
        iproute2 procps python3 python3-jsonschema qemu-system-x86 busybox-static cpio

WARN      := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
CFLAGS    += $(WARN) -Wno-format-truncation -std=gnu11 -D_GNU_SOURCE -I$(BUILD) -Ibpf -Isupervisor
LDLIBS    := -lbpf -lelf -lz -ljansson -lcrypto -lcap -lseccomp
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-function -Wno-unused-parameter \
              -I$(BUILD) -Ibpf

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPF_SRCS))

SUP_SRCS  := $(wildcard supervisor/*.c)
SUP_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(SUP_SRCS))
MON_SRCS  := $(wildcard monitor/*.c)
MON_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(MON_SRCS))
# Everything but the two main()s: what the tests link against.
LIB_OBJS  := $(filter-out $(BUILD)/supervisor/main.o,$(SUP_OBJS)) \
             $(filter-out $(BUILD)/monitor/main.o,$(MON_OBJS))
SAN_OBJS  := $(patsubst $(BUILD)/%,$(BUILD)/san/%,$(LIB_OBJS))

UNIT_SRCS := $(wildcard tests/test_*.c)
UNIT_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
SAN_BINS  := $(patsubst tests/%.c,$(BUILD)/san/tests/%,$(UNIT_SRCS))
HOST_SRCS := $(wildcard tests/host/test_*.c)
HOST_BINS := $(patsubst tests/host/%.c,$(BUILD)/tests/host/%,$(HOST_SRCS))
VM_TOOL_BINS := $(patsubst tests/vm/tools/%.c,$(BUILD)/tests/vm/%,$(wildcard tests/vm/tools/*.c))
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOL_SRCS))

.SECONDARY:
.PHONY: all build deps test unit unit-san hosttest vmtest demo bench clean
.DEFAULT_GOAL := all

all: deps
	@$(MAKE) --no-print-directory build

build: $(BUILD)/ringfence $(if $(MON_SRCS),$(BUILD)/ringfence-monitor)

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

$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/rf_abi.h $(wildcard bpf/*.h) $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp.o
	$(BPFTOOL) gen object $@ $@.tmp.o && rm -f $@.tmp.o

$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/supervisor/%.o: supervisor/%.c $(wildcard supervisor/*.h) bpf/rf_abi.h $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/monitor/%.o: monitor/%.c $(wildcard monitor/*.h) $(wildcard supervisor/*.h) bpf/rf_abi.h $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Imonitor -c $< -o $@

$(BUILD)/san/monitor/%.o: monitor/%.c $(wildcard monitor/*.h) $(wildcard supervisor/*.h) bpf/rf_abi.h $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -Imonitor -c $< -o $@

$(BUILD)/san/supervisor/%.o: supervisor/%.c $(wildcard supervisor/*.h) bpf/rf_abi.h $(SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/ringfence: $(SUP_OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# The monitor links the supervisor's modules it shares (trace, registry, ...).
$(BUILD)/ringfence-monitor: $(MON_OBJS) $(filter-out $(BUILD)/supervisor/main.o,$(SUP_OBJS))
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS) -lm

# Pure unit tests (cmocka): no privileges, no kernel features.
$(BUILD)/tests/%: tests/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Imonitor $^ -o $@ $(LDLIBS) -lm -lcmocka

$(BUILD)/san/tests/%: tests/%.c $(SAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -Imonitor $^ -o $@ $(LDLIBS) -lm -lcmocka

# Privileged host tests (cmocka) drive build/ringfence against the real kernel.
$(BUILD)/tests/host/%: tests/host/%.c tests/host/harness.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/host -Imonitor $< $(LIB_OBJS) -o $@ $(LDLIBS) -lm -lcmocka

# Programs for the VM suites (they link the project's modules).
$(BUILD)/tests/vm/%: tests/vm/tools/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS) -lm

# Small programs run inside sandboxes by the tests and the demo.
$(BUILD)/tests/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

unit-san: $(SAN_BINS)
	@set -e; for t in $(SAN_BINS); do echo "== $$t (ASan+UBSan)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

hosttest: $(BUILD)/ringfence $(BUILD)/ringfence-monitor $(HOST_BINS) $(TOOL_BINS)
	@set -e; for t in $(HOST_BINS); do echo "== $$t"; \
		RINGFENCE=$(abspath $(BUILD))/ringfence TOOLS=$(abspath $(BUILD))/tests/tools \
		EXAMPLES=$(CURDIR)/schemas/examples $$t; done
	@echo "== tests/host/test_trace_schema.sh"; tests/host/test_trace_schema.sh $(BUILD)

# Guest suites tests/vm/guest/*.sh in a qemu (TCG) VM running Debian's cloud
# kernel, which has BPF-LSM (this host refuses it). VM_SUITES picks suites.
VM_SUITES ?=
vmtest: deps
	@$(MAKE) --no-print-directory build $(TOOL_BINS) $(VM_TOOL_BINS)
	@tests/vm/run.sh $(BUILD) $(VM_SUITES)

test: deps
	@$(MAKE) --no-print-directory build $(UNIT_BINS) $(SAN_BINS) $(HOST_BINS) $(TOOL_BINS) \
		$(VM_TOOL_BINS)
	@tests/run_all.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory build $(TOOL_BINS)
	@tests/demo.sh $(BUILD)

$(BUILD)/tests/bench/%: tests/bench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@

bench: deps
	@$(MAKE) --no-print-directory build $(BUILD)/tests/bench/rf-bench $(TOOL_BINS) $(VM_TOOL_BINS)
	@tests/bench/run.sh $(BUILD)
	@tests/bench/monitor.sh $(BUILD)
	@tests/bench/vm-lsm.sh $(BUILD)

clean:
	rm -rf $(BUILD)
