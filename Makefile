# linkperf — GNU make. Targets: all (default), check, check-asan, asan, demo, bench, clean.
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

LIB_SRC := $(wildcard common/*.c)
ifeq ($(HAVE_VERBS),1)
LIB_SRC += $(wildcard rdma/*.c) $(wildcard sweep/*.c)
CPPFLAGS_ALL += -DLP_HAVE_VERBS=1
LDLIBS_ALL += -libverbs -lrdmacm
endif
# jansson reads recorded runs back (lp-sweep --diagnose)
ifeq ($(HAVE_JANSSON),1)
CPPFLAGS_ALL += -DLP_HAVE_JANSSON=1
LDLIBS_ALL += -ljansson
endif
LIB_CU :=
ifeq ($(HAVE_CUDA),1)
LIB_SRC += $(wildcard gpu/*.c)
LIB_CU  := $(wildcard gpu/*.cu)
CPPFLAGS_ALL += -DLP_HAVE_CUDA=1 -isystem $(CUDA_HOME)/include
# Static cudart and a dlopen'ed driver: the binaries run (and exit 77) where no driver is.
LDLIBS_ALL += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
NVCCFLAGS ?= -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
	     -gencode arch=compute_90,code=compute_90 -Xcompiler -Wall,-Wextra,-Werror
endif

ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) $(SAN)
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
# the diagnosis simulator (scripts/diag-sim): plain C over the library's sweep/ code
ifeq ($(HAVE_VERBS),1)
TOOLS += $(BUILD)/diag-sim
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

.PHONY: all check check-asan asan demo bench clean info
all: info $(TOOLS) $(if $(filter 1,$(HAVE_CMOCKA)),$(UNIT_BIN))

info:
	@[ "$(HAVE_VERBS)" = 1 ] || echo "linkperf: rdma-core headers not found (libibverbs-dev, librdmacm-dev): lp-rdma and lp-sweep are skipped; run scripts/install-deps.sh"
	@[ "$(HAVE_CUDA)" = 1 ] || [ -n "$(NO_CUDA)" ] || echo "linkperf: CUDA not found at $(CUDA_HOME) (set CUDA_HOME): lp-gpu and GPU memory are skipped"
	@[ -z "$(NO_CUDA)" ] || echo "linkperf: CUDA left out (NO_CUDA=1): lp-gpu and GPU memory are not built"
	@[ "$(HAVE_MPI)" = 1 ] || echo "linkperf: mpicc not found (openmpi-bin, libopenmpi-dev): lp-sweep is skipped"
	@[ "$(HAVE_CMOCKA)" = 1 ] || echo "linkperf: cmocka not found (libcmocka-dev): unit tests are skipped"
	@[ "$(HAVE_JANSSON)" = 1 ] || echo "linkperf: jansson not found (libjansson-dev): lp-sweep --diagnose is left out"

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(dir $@)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVCCFLAGS) -I. -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(BUILD)/lp-rdma $(BUILD)/lp-gpu: $(BUILD)/%: $(BUILD)/obj/bench/%.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

# lp-sweep is the one MPI program: compiled and linked by mpicc.
# sweep/*.c (schedules, diagnosis) are plain C in the library; sweep/mpi/*.c need mpi.h.
$(BUILD)/lp-sweep: bench/lp-sweep.c $(wildcard sweep/mpi/*.c) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,MPICC,$@)
	$(Q)$(MPICC) $(CPPFLAGS_ALL) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/diag-sim: $(BUILD)/obj/tests/sweep/diag-sim.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/lp-switch: scripts/vm/lp-switch.c
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(CPPFLAGS_ALL) $(ALL_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS_ALL)

# ---- test, demo, bench ------------------------------------------------------
# The whole suite, then the unit and Soft-RoCE tests again under ASan+UBSan.
check: all
	LP_BUILD=$(BUILD) tests/run-all.sh
	$(MAKE) check-asan

asan:
	$(MAKE) BUILD=build/asan NO_CUDA=1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" all

check-asan: asan
	LP_BUILD=build/asan LP_SAN=1 LP_TESTS="unit vm" LP_TEST_FILTER='^(unit/|vm/test-lp-rdma)' tests/run-all.sh

demo: all
	scripts/demo.sh

bench: all
	scripts/bench-perftest.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
