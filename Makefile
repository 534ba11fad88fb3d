# linkperf — GNU make. Targets: all (default), check, check-quick|guest|fabric|slow|gpu (one tier),
# check-asan, check-headers, check-format, check-fnlen, format,
# asan, fuzz, fuzz-seeds, demo, bench, clean, man, completions, schemas, install, uninstall (PREFIX, default /usr/local, and DESTDIR), version.
# Detects rdma-core, CUDA and Open MPI; what is missing is skipped with a message.

BUILD   ?= build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation -Werror
CPPFLAGS_ALL := -I. -D_GNU_SOURCE
DEPFLAGS = -MMD -MP
LDLIBS_ALL := -lm -lpthread

# ---- detection ---------------------------------------------------------------
probe = $(shell $(CC) -E $(foreach h,$(1),-include $(h)) -x c /dev/null >/dev/null 2>&1 && echo 1)
HAVE_VERBS  ?= $(call probe,infiniband/verbs.h rdma/rdma_cma.h)
HAVE_CMOCKA ?= $(call probe,stdarg.h stddef.h setjmp.h stdint.h cmocka.h)
HAVE_JANSSON ?= $(call probe,jansson.h)
CUDA_HOME   ?= /usr/local/cuda
NVCC        ?= $(CUDA_HOME)/bin/nvcc
ifndef NO_CUDA
HAVE_CUDA   ?= $(shell test -x $(NVCC) && test -f $(CUDA_HOME)/include/cuda_runtime.h && echo 1)
endif
MPICC       ?= mpicc
HAVE_MPI    ?= $(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1)

# gpu/doc.c (lp-gpu's document as records) and gpu/inventory.c (GPUs for the inventory: NVML at
# run time) have no CUDA: qual/ reads lp-gpu's documents and every tool lists GPUs anywhere
LIB_SRC := $(wildcard common/*.c) $(wildcard qual/*.c) gpu/doc.c gpu/inventory.c
ifeq ($(HAVE_VERBS),1)
LIB_SRC += $(wildcard rdma/*.c) $(wildcard sweep/*.c)
CPPFLAGS_ALL += -DLP_HAVE_VERBS=1
LDLIBS_ALL += -libverbs -lrdmacm
endif
# OpenSSL's libcrypto: HMAC-SHA256 for lp-rdma's shared key (--key)
HAVE_CRYPTO ?= $(call probe,openssl/hmac.h)
ifeq ($(HAVE_VERBS)$(HAVE_CRYPTO),11)
CPPFLAGS_ALL += -DLP_HAVE_CRYPTO=1
LDLIBS_ALL += -lcrypto
endif
# jansson reads recorded runs back (lp-sweep --diagnose)
ifeq ($(HAVE_JANSSON),1)
CPPFLAGS_ALL += -DLP_HAVE_JANSSON=1
LDLIBS_ALL += -ljansson
endif
LIB_CU :=
ifeq ($(HAVE_CUDA),1)
LIB_SRC += $(filter-out gpu/doc.c gpu/inventory.c,$(wildcard gpu/*.c))
LIB_CU  := $(wildcard gpu/*.cu)
CPPFLAGS_ALL += -DLP_HAVE_CUDA=1 -isystem $(CUDA_HOME)/include
# Static cudart and a dlopen'ed driver: the binaries run (and exit 77) where no driver is.
LDLIBS_ALL += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
NVCCFLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
	     -gencode arch=compute_90,code=compute_90 -Xcompiler -Wall,-Wextra,-Werror
endif

ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SAN)
CPPFLAGS_ALL += $(CPPFLAGS)
LDLIBS_ALL += $(LDFLAGS)

# The release in VERSION, plus `git describe` when this is a git checkout of its own (not a
# tarball unpacked inside another repository). Only common/meta.c is rebuilt when it changes.
GIT_DESC := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
	      git describe --always --dirty 2>/dev/null)
LP_VERSION_STR ?= $(shell cat VERSION)$(if $(GIT_DESC),+git.$(GIT_DESC))
# Quiet by default (one line per step); `make V=1` shows the commands.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-6s %s\n' $(1) $(2)
endif
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(LIB_CU:%.cu=$(BUILD)/obj/%.o)
LIB     := $(BUILD)/liblinkperf.a

# ---- tools -------------------------------------------------------------------
TOOLS :=
ifeq ($(HAVE_VERBS),1)
TOOLS += $(if $(wildcard bench/lp-rdma.c),$(BUILD)/lp-rdma)
endif
ifeq ($(HAVE_CUDA),1)
TOOLS += $(if $(wildcard bench/lp-gpu.c),$(BUILD)/lp-gpu)
endif
ifeq ($(HAVE_VERBS)$(HAVE_MPI),11)
TOOLS += $(if $(wildcard bench/lp-sweep.c),$(BUILD)/lp-sweep)
endif
TOOLS += $(if $(wildcard scripts/vm/lp-switch.c),$(BUILD)/lp-switch)
# the diagnosis simulator (scripts/bench-diag.sh) and the bisection's (scripts/bench-bisect.sh):
# plain C over the library's sweep/ code
ifeq ($(HAVE_VERBS),1)
TOOLS += $(BUILD)/diag-sim $(BUILD)/coll-sim
# qualification after the fact, and the documents' schemas (no MPI, no device)
TOOLS += $(BUILD)/lp-judge
# synthetic sweep documents of any size (tests/sweep/test-diagnose.sh, docs/SWEEP.md)
TOOLS += $(BUILD)/sweep-synth
endif

# ---- unit tests: tests/unit/test_*.c; test_rdma_* need verbs, test_gpu_* CUDA, test_sweep_* MPI
UNIT_SRC := $(wildcard tests/unit/test_*.c)
ifneq ($(HAVE_VERBS),1)
UNIT_SRC := $(filter-out tests/unit/test_rdma_% tests/unit/test_sweep_%,$(UNIT_SRC))
endif
ifneq ($(HAVE_CUDA),1)
UNIT_SRC := $(filter-out tests/unit/test_gpu_%,$(UNIT_SRC))
endif
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: ldlibs all check check-asan check-headers check-format check-fnlen format asan demo bench clean info man completions schemas \
	install uninstall version FORCE
all: info $(TOOLS) $(if $(filter 1,$(HAVE_CMOCKA)),$(UNIT_BIN))

info:
	@[ "$(HAVE_VERBS)" = 1 ] || echo "linkperf: rdma-core headers not found (libibverbs-dev, librdmacm-dev): lp-rdma and lp-sweep are skipped; run scripts/install-deps.sh"
	@[ "$(HAVE_CUDA)" = 1 ] || [ -n "$(NO_CUDA)" ] || echo "linkperf: CUDA not found at $(CUDA_HOME) (set CUDA_HOME): lp-gpu and GPU memory are skipped"
	@[ -z "$(NO_CUDA)" ] || echo "linkperf: CUDA left out (NO_CUDA=1): lp-gpu and GPU memory are not built"
	@[ "$(HAVE_MPI)" = 1 ] || echo "linkperf: mpicc not found (openmpi-bin, libopenmpi-dev): lp-sweep is skipped"
	@[ "$(HAVE_CMOCKA)" = 1 ] || echo "linkperf: cmocka not found (libcmocka-dev): unit tests are skipped"
	@[ "$(HAVE_JANSSON)" = 1 ] || echo "linkperf: jansson not found (libjansson-dev): lp-sweep --diagnose is left out"
	@[ "$(HAVE_VERBS)" != 1 ] || [ "$(HAVE_CRYPTO)" = 1 ] || echo "linkperf: OpenSSL headers not found (libssl-dev): lp-rdma --key is left out"

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(dir $@)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVCCFLAGS) -I. -MD -MP -MF $(@:.o=.d) -c -o $@ $<

# Objects of the MPI program, compiled by mpicc (its own tree: other flags than the library's).
$(BUILD)/mpi/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,MPICC,$<)
	$(Q)$(MPICC) $(CPPFLAGS_ALL) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

version:
	@echo $(LP_VERSION_STR)

# the libraries this build links (tests that link liblinkperf.a themselves use them)
ldlibs:
	@echo '$(LDLIBS_ALL)'

$(BUILD)/version: FORCE
	@mkdir -p $(dir $@)
	@echo '$(LP_VERSION_STR)' | cmp -s - $@ 2>/dev/null || echo '$(LP_VERSION_STR)' >$@
$(BUILD)/obj/common/meta.o: $(BUILD)/version
$(BUILD)/obj/common/meta.o: CPPFLAGS_ALL += -DLP_VERSION_STRING='"$(LP_VERSION_STR)"'

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(BUILD)/lp-rdma $(BUILD)/lp-gpu $(BUILD)/lp-judge: $(BUILD)/%: $(BUILD)/obj/bench/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

# lp-sweep is the one MPI program: compiled and linked by mpicc.
# sweep/*.c (schedules, diagnosis) are plain C in the library; sweep/mpi/*.c need mpi.h.
$(BUILD)/lp-sweep: $(patsubst %.c,$(BUILD)/mpi/%.o,bench/lp-sweep.c $(wildcard sweep/mpi/*.c)) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(MPICC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/diag-sim: $(BUILD)/obj/tests/sweep/diag-sim.o $(BUILD)/obj/tests/sweep/diag-bench.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/coll-sim $(BUILD)/sweep-synth: $(BUILD)/%: $(BUILD)/obj/tests/sweep/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

# Stand-alone (no project header), so its one source is its whole dependency list.
$(BUILD)/lp-switch: scripts/vm/lp-switch.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $<

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS_ALL)

# ---- man pages and bash completion, from the tools' own option tables ------------------
# Each tool prints its table as roff (LP_HELP_FORMAT=man) or completion words (=bash) when
# asked with --help; man/TOOL.1.in holds the hand-written sections around @OPTIONS@.
# lp-switch (the guest fabric), diag-sim and coll-sim (the simulators) and sweep-synth (synthetic
# documents) are test helpers, not installed.
PROGS      := $(filter-out lp-switch diag-sim coll-sim sweep-synth,$(notdir $(TOOLS))) lp-plot lp-report \
	      lp-qualify
prog_path   = $(if $(filter lp-plot lp-report,$(1)),plots/$(1),$(if $(filter lp-qualify,$(1)),scripts/$(1),$(BUILD)/$(1)))
MAN_DATE   := $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || date +%s)} +%F)
MANS       := $(PROGS:%=$(BUILD)/man/%.1)
COMPLETIONS := $(PROGS:%=$(BUILD)/completions/%)

man: $(MANS)
completions: $(COMPLETIONS)

.SECONDEXPANSION:
$(BUILD)/man/%.1: man/%.1.in $$(call prog_path,%) $(BUILD)/version
	@mkdir -p $(dir $@)
	$(call say,MAN,$@)
	$(Q)LP_HELP_FORMAT=man $(call prog_path,$*) --help | sed '/^\.\\" end of options$$/q' >$@.options
	$(Q)grep -q '^\.SH OPTIONS' $@.options || { echo "$*: no option table from LP_HELP_FORMAT=man --help" >&2; exit 1; }
	$(Q)sed -e '/^@OPTIONS@$$/{r $@.options' -e 'd;}' -e 's/@VERSION@/$(LP_VERSION_STR)/g' \
		-e 's/@DATE@/$(MAN_DATE)/g' $< >$@.tmp && mv $@.tmp $@ && rm -f $@.options

$(BUILD)/completions/%: completions/template.bash $$(call prog_path,%)
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)LP_HELP_FORMAT=bash $(call prog_path,$*) --help >$@.words
	$(Q)sed -e 's/@PROG@/$*/g' -e 's/@FUNC@/_$(subst -,_,$*)/g' \
		-e "s/@WORDS@/$$(sed -n 's/^words: //p' $@.words)/" \
		-e "s/@TAKES@/$$(sed -n 's/^takes: //p' $@.words)/" $< >$@.tmp && mv $@.tmp $@ && rm -f $@.words

# ---- the JSON Schemas of the documents, from their records --------------------------------
# docs/schema/ is committed; the unit tests (rdma, gpu) and test-diagnose (sweep) fail when it
# differs from what the tools give now.
SCHEMAS := $(if $(filter 1,$(HAVE_VERBS)),docs/schema/linkperf.rdma-2.json \
	   docs/schema/linkperf.sweep-2.json) \
	   $(if $(filter 1,$(HAVE_CUDA)),docs/schema/linkperf.gpu-2.json)
schemas: $(SCHEMAS)
docs/schema/linkperf.sweep-2.json: $(BUILD)/lp-judge
	$(call say,GEN,$@)
	$(Q)$< --schema sweep >$@.tmp && mv $@.tmp $@
docs/schema/linkperf.rdma-2.json: $(BUILD)/lp-rdma
	$(call say,GEN,$@)
	$(Q)$< --json-schema >$@.tmp && mv $@.tmp $@
docs/schema/linkperf.gpu-2.json: $(BUILD)/lp-gpu
	$(call say,GEN,$@)
	$(Q)$< --json-schema >$@.tmp && mv $@.tmp $@

# ---- install, uninstall -------------------------------------------------------------
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/linkperf
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/linkperf
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCS    := README.md $(wildcard docs/*.md) $(wildcard docs/schema/*.json)
# expected values for --expect auto, found from the tools' path (qual/profile.c)
PROFILES := $(wildcard profiles/*.json)
# the Python tools' modules (the one document reader, the pictures), found from the tools' path
PYMODS  := $(wildcard plots/*.py)
INSTALLED := $(PROGS:%=$(BINDIR)/%) $(PROGS:%=$(MANDIR)/man1/%.1) $(PROGS:%=$(BASHCOMPDIR)/%) \
	     $(DATADIR)/version $(DOCS:%=$(DOCDIR)/%) $(PROFILES:%=$(DATADIR)/%) \
	     $(PYMODS:plots/%=$(DATADIR)/python/%)

# Python tools take their data (the version) from $(DATADIR), found from their own path.
install: all man completions
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DOCDIR)/docs/schema $(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(foreach p,$(PROGS),$(call prog_path,$(p))) $(DESTDIR)$(BINDIR)/
	install -m 644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(COMPLETIONS) $(DESTDIR)$(BASHCOMPDIR)/
	install -m 644 $(BUILD)/version $(DESTDIR)$(DATADIR)/version
	install -d $(DESTDIR)$(DATADIR)/profiles
	install -m 644 $(PROFILES) $(DESTDIR)$(DATADIR)/profiles/
	install -d $(DESTDIR)$(DATADIR)/python
	install -m 644 $(PYMODS) $(DESTDIR)$(DATADIR)/python/
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 $(wildcard docs/*.md) $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 $(wildcard docs/schema/*.json) $(DESTDIR)$(DOCDIR)/docs/schema/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/python $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)/docs/schema \
		$(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null

# ---- test, demo, bench ------------------------------------------------------
# The whole suite (every tier), then the unit and Soft-RoCE tests again under ASan+UBSan, then
# the suite's time per tier and slowest tests again (last: the tail a CI log shows).
# One tier alone: check-quick (lint, unit, CLI, diagnose, plots, report: minutes, no guest),
# check-guest (Soft-RoCE guests), check-fabric (the 4-guest fabric, Slurm), check-slow (fuzzing,
# packages, soak), check-gpu. Each test names its tier in a "# tier:" line (tests/run-all.sh).
TEST_TIERS := quick guest fabric slow gpu
.PHONY: $(TEST_TIERS:%=check-%)
check: all
	LP_BUILD=$(BUILD) tests/run-all.sh
	$(MAKE) check-asan
	@tests/run-all.sh --times $(BUILD)/test-logs/times.tsv

$(TEST_TIERS:%=check-%): check-%: all
	LP_BUILD=$(BUILD) LP_TIERS=$* tests/run-all.sh

asan:
	$(MAKE) BUILD=build/asan NO_CUDA=1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" all

check-asan: asan
	LP_BUILD=build/asan LP_SAN=1 LP_TESTS="unit vm" LP_TEST_FILTER='^(unit/|vm/test-lp-rdma$$)' tests/run-all.sh

# ---- habits: every header compiles alone and keeps out of module internals; the tree is formatted;
# no function is over 120 lines
check-headers:
	$(Q)CC="$(CC)" MPICC="$(MPICC)" LP_CPPFLAGS="$(CPPFLAGS_ALL)" LP_CFLAGS="-std=gnu11 $(WARN)" \
		LP_HAVE_VERBS=$(HAVE_VERBS) LP_HAVE_CUDA=$(HAVE_CUDA) LP_HAVE_MPI=$(HAVE_MPI) scripts/check-headers.sh

check-format:
	$(Q)scripts/check-format.sh

check-fnlen:
	$(Q)scripts/check-fnlen.sh

format:
	$(Q)scripts/check-format.sh --fix

# ---- fuzzing: libFuzzer harnesses (tests/fuzz/fuzz_*.c) over an ASan+UBSan library in build/fuzz
FUZZ_CC      ?= clang
FUZZ_DIR     ?= build/fuzz
FUZZ_SECONDS ?= 300
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BIN     := $(patsubst tests/fuzz/%.c,$(FUZZ_DIR)/%,$(wildcard tests/fuzz/fuzz_*.c))
.PHONY: fuzz fuzz-build fuzz-bins fuzz-seeds

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_DIR) CC=$(FUZZ_CC) NO_CUDA=1 HAVE_MPI= \
		WARN="-Wall -Wextra -Wshadow -Wformat=2 -Wno-format-nonliteral -Werror" \
		SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-bins

fuzz-bins: $(FUZZ_BIN)

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_%.o $(LIB)
	$(call say,FUZZ,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS_ALL)

# Each harness for FUZZ_SECONDS (CI runs them shorter through tests/run-all.sh).
fuzz: fuzz-build
	LP_FUZZ_DIR=$(FUZZ_DIR) LP_FUZZ_SECONDS=$(FUZZ_SECONDS) LP_FUZZ_BUILT=1 tests/fuzz/run-fuzz.sh

# Seed corpora from the real encoders (committed: tests/fuzz/<harness>/seed-*).
fuzz-seeds: $(BUILD)/tests/fuzz-seeds
	$(BUILD)/tests/fuzz-seeds tests/fuzz

$(BUILD)/tests/fuzz-seeds: $(BUILD)/obj/tests/fuzz/seeds.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

demo: all
	scripts/demo.sh

bench: all
	scripts/bench-perftest.sh

clean:
	rm -rf $(BUILD)

# Objects of tests and fuzz harnesses are kept (not removed as intermediates), so their .d files count.
.SECONDARY:

# Header dependencies of every object (library, tools, MPI program, tests, fuzz harnesses, CUDA).
-include $(shell find $(BUILD)/obj $(BUILD)/mpi -name '*.d' 2>/dev/null)
