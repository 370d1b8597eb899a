# lbsim - thin wrapper over CMake. `make check` and `make demo` work on a fresh Debian machine.
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
PREFIX ?= /usr/local

.PHONY: all build bootstrap check test demo calibrate-demo gpu-check bench fuzz fuzz-long asan install clean seed002 seed003 \
        format format-check

all: build

bootstrap:
	@bash scripts/bootstrap.sh

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# Installs what is missing, builds, runs every test in a normal and a sanitizer build,
# and runs the fuzz targets briefly.
check: bootstrap
	@bash scripts/check.sh

# The normal build's tests only (no bootstrap, no sanitizer build, no fuzzing): the quick loop
# while working; make check is what CI runs. ARGS passes options to ctest, e.g. ARGS='-R sweep'.
test:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS=-Werror >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)
	@LBSIM_NO_PROGRESS=1 ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) $(ARGS)

# The main job end to end on generated data.
demo: bootstrap build
	@bash scripts/demo.sh

# Calibrates apps/wave's kernel on this machine's CPU and OpenCL device and replays a wave
# trace on a node made of those curves (examples/grids/calibrated-node.ini).
calibrate-demo: bootstrap build
	@bash scripts/calibrate_demo.sh

# The seed's repartitioning experiment (examples/seed002/run.sh).
seed002: bootstrap build
	@bash examples/seed002/run.sh

# Seed 003's MinEX vs METIS study (examples/seed003/run.sh; QUICK=1 for a short one).
seed003: bootstrap build
	@bash examples/seed003/run.sh

# calibrate's cuda target on this machine's NVIDIA GPU (scripts/gpu_check.sh; says so and exits 0
# where there is none).
gpu-check: bootstrap
	@bash scripts/gpu_check.sh

bench: build
	@$(BUILD)/bin/bench_trace_codec
	@OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec --allow-run-as-root --oversubscribe -n 1 \
	  $(BUILD)/bin/bench_trace_fidelity tests/data/heat_2ranks.lbt examples/grids/homogeneous16.ini
	@OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec --allow-run-as-root --oversubscribe -n 1 \
	  $(BUILD)/bin/bench_profiler_overhead
	@$(BUILD)/bin/bench_auth
	@bash bench/trace_pages.sh
	@bash bench/replay.sh
	@bash bench/fairnet.sh
	@bash bench/validate.sh
	@bash bench/calibrate.sh
	@bash bench/sweep.sh
	@bash bench/report.sh
	@bash bench/lua_policy.sh
	@bash bench/lua_latency.sh

fuzz: bootstrap
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

# Every fuzz target for SECONDS seconds on the corpus kept in tests/fuzz/corpus/<target>, which
# it then minimises in place (commit what it adds): make fuzz-long SECONDS=3600
fuzz-long: SECONDS ?= 600
fuzz-long: bootstrap
	@bash scripts/fuzz.sh --long $(SECONDS)

# clang-format (.clang-format) over the project's C sources and headers: the *.c and *.h git
# tracks (outside a git checkout, those found outside the build directories); generated files
# live in the build directories and the tree holds no third-party C. `make format` rewrites
# them in place; `make format-check` lists the files it would change and fails if there are
# any: make check runs it first.
CLANG_FORMAT ?= clang-format
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || \
                 find . \( -path './build*' -o -path './.git' \) -prune -o \( -name '*.c' -o -name '*.h' \) -print)

format:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "lbsim: format: $(CLANG_FORMAT) not found (apt-get install clang-format)" >&2; exit 1; }
	@$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	@command -v $(CLANG_FORMAT) >/dev/null || { echo "lbsim: format-check: $(CLANG_FORMAT) not found (apt-get install clang-format)" >&2; exit 1; }
	@# one clang-format for every file (one a file took 17 s, most of it starting processes)
	@out=$$($(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES) 2>&1) && exit 0; \
	bad=$$(printf '%s\n' "$$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u); \
	if [ -z "$$bad" ]; then printf '%s\n' "$$out" | head -20 >&2; echo "lbsim: format-check: $(CLANG_FORMAT) failed" >&2; exit 1; fi; \
	echo "$$bad"; \
	echo "lbsim: format-check: $$(printf '%s\n' "$$bad" | wc -l) files would change ('make format' rewrites them)" >&2; exit 1

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build build-asan build-fuzz
