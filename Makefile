# liedyn — convenience wrapper around CMake. See README.md.
#   make run      build (Release), run the demo and a default attitude integration
#   make test     build and run all tests in Release, then again under ASan+UBSan
#   make bench    build and run the benchmarks (CSV on stdout, copies in build/bench/)
#   make repro    reproduce the cited papers' tables and plots (build/repro/)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
MAKEFLAGS += --no-print-directory
BENCH_PEERS ?= libgsl-dev libsundials-dev libmujoco-dev python3-siconos siconos

.PHONY: all deps build run test test-release test-sanitize bench repro format format-check install clean mutation fuzz

all: build

deps:
	@scripts/install-deps

build: deps
	@cmake -S . -B $(BUILD)/release -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS)

run: build
	$(BUILD)/release/liedyn demo
	$(BUILD)/release/liedyn attitude --case ex1 --method mpq --dt 0.033
	@mkdir -p $(BUILD)/run
	@scripts/install-deps gnuplot-nox || echo "liedyn: gnuplot could not be installed (see above): the run below writes no plot" >&2
	@plot=""; if command -v gnuplot >/dev/null 2>&1; then plot="--plot $(BUILD)/run/heavy-top.png"; fi; \
	cmd="$(BUILD)/release/liedyn run heavy-top --integrator genalpha --rho-inf 0.9 --dt 1e-3 --t-end 2 --out $(BUILD)/run/heavy-top.csv $$plot"; \
	echo "$$cmd"; $$cmd
	@cmd="$(BUILD)/release/liedyn run heavy-top --t-end 2 --quiet --html $(BUILD)/run/heavy-top.html"; \
	echo "$$cmd"; $$cmd >/dev/null && echo "  open $(BUILD)/run/heavy-top.html in a browser to watch the top" || \
	echo "liedyn: this build has no browser viewer (the reason is above); everything else works" >&2

test: test-release test-sanitize

test-release: build
	cd $(BUILD)/release && ctest --output-on-failure -j $(JOBS)

test-sanitize: deps
	@cmake -S . -B $(BUILD)/sanitize -DCMAKE_BUILD_TYPE=Debug -DLD_SANITIZE=ON -DLD_PEERS=OFF $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD)/sanitize -j $(JOBS)
	cd $(BUILD)/sanitize && ctest --output-on-failure -j $(JOBS)

# Peers (GSL, SUNDIALS, MuJoCo) are optional: each installed here when possible, used only by bench/
bench: build
	@for p in $(BENCH_PEERS); do scripts/install-deps $$p || echo "liedyn: benchmarking without $$p" >&2; done
	@cmake -S . -B $(BUILD)/release >/dev/null
	@cmake --build $(BUILD)/release -j $(JOBS)
	@mkdir -p $(BUILD)/bench
	$(BUILD)/release/bench/bench_lie | tee $(BUILD)/bench/lie.csv
	$(BUILD)/release/bench/lie_accuracy | tee $(BUILD)/bench/lie_accuracy.csv
	$(BUILD)/release/bench/bench_attitude | tee $(BUILD)/bench/attitude.csv
	$(BUILD)/release/bench/bench_linalg | tee $(BUILD)/bench/linalg.csv
	$(BUILD)/release/bench/bench_heavytop | tee $(BUILD)/bench/heavytop.csv
	$(BUILD)/release/bench/bench_tb3 | tee $(BUILD)/bench/tb3.csv
	$(BUILD)/release/bench/bench_crank | tee $(BUILD)/bench/crank.csv
	$(BUILD)/release/bench/bench_rod | tee $(BUILD)/bench/rod.csv
	$(BUILD)/release/bench/bench_beam | tee $(BUILD)/bench/beam.csv
	$(BUILD)/release/bench/bench_frames | tee $(BUILD)/bench/frames.csv
	$(BUILD)/release/bench/bench_conditioning | tee $(BUILD)/bench/conditioning.csv
	$(BUILD)/release/bench/bench_contact | tee $(BUILD)/bench/contact.csv
	$(BUILD)/release/bench/bench_modes | tee $(BUILD)/bench/modes.csv
	$(BUILD)/release/bench/bench_robots | tee $(BUILD)/bench/robots.csv
	bench/sweep_scaling.sh $(BUILD)/release/liedyn | tee $(BUILD)/bench/sweep_scaling.csv
	python3 bench/newton_reuse.py $(BUILD)/release/liedyn | tee $(BUILD)/bench/newton_reuse.csv
	python3 bench/la_choice.py $(BUILD)/release/liedyn | tee $(BUILD)/bench/la_choice.csv
	bench/peers/slider_crank_clearance.sh $(BUILD)/release/liedyn $(BUILD)/bench/slider-crank-clearance
	bench/peers/woodpecker.sh $(BUILD)/release/liedyn $(BUILD)/bench/woodpecker | tee $(BUILD)/bench/woodpecker.txt

# Reproduce the studies of the papers in docs/references.md: Markdown report and PNG plots in
# build/repro/.
repro: build
	@scripts/install-deps gnuplot-nox || echo "liedyn: no gnuplot, plots skipped" >&2
	@mkdir -p $(BUILD)/repro
	$(BUILD)/release/repro/repro_attitude $(BUILD)/repro | tee $(BUILD)/repro/reproduction-001.md
	$(BUILD)/release/repro/repro_tb3 $(BUILD)/repro | tee $(BUILD)/repro/reproduction-000.md
	$(BUILD)/release/repro/repro_cantilever $(BUILD)/repro | tee $(BUILD)/repro/reproduction-000-cantilever.md
	$(BUILD)/release/repro/repro_hht $(BUILD)/repro | tee $(BUILD)/repro/reproduction-002.md
	$(BUILD)/release/repro/repro_hem $(BUILD)/repro | tee $(BUILD)/repro/reproduction-003.md
	$(BUILD)/release/repro/repro_iftomm $(BUILD)/repro | tee $(BUILD)/repro/iftomm.md
	@py=$$(for p in /usr/bin/python3 python3; do $$p -c 'import numpy' 2>/dev/null && echo $$p && break; done); if [ -n "$$py" ]; then $$py repro/tippe_top_reference.py --csv $(BUILD)/repro | tee $(BUILD)/repro/tippe-top.md; else echo "liedyn: no python3 with numpy, the tippe top's reference skipped" >&2; fi
	@if command -v gnuplot >/dev/null; then for g in $(BUILD)/repro/*.gp; do gnuplot $$g || exit 1; done; ls $(BUILD)/repro/*.png; fi

format:
	scripts/check-format clang-format --fix

format-check:
	scripts/check-format

install: build
	cmake --install $(BUILD)/release

clean:
	rm -rf $(BUILD)

# Each deliberate bug in the Lie core must make a unit test fail (slow: one rebuild each).
mutation: deps
	scripts/mutation-check.py

# Fuzz the readers (models, gyro data, URDF/MJCF, sweep files, CSV, checkpoints, beams and
# shapes) and the Python module's argument paths with libFuzzer (clang, ASan + UBSan;
# FUZZ_TARGETS="checkpoint beam" for some of them): each target for FUZZ_SECONDS from a working
# corpus in $(BUILD)/fuzz/corpus-<t>/ plus the seeds; findings of this run go to
# $(BUILD)/fuzz/crashes-<t>/ and fail the target (docs/fuzzing.md). fuzz_python (python3-dev and
# python3-numpy) has its own seeds and runs without leak detection; it is skipped when it could
# not be built.
FUZZ_SECONDS ?= 120
FUZZ_TIMEOUT ?= 10
# fuzz_beam reads models up to the readers' limits (10^6 rod segments or beam nodes: seconds
# under the sanitizers), so its inputs get longer before they count as hangs
FUZZ_TIMEOUT_BEAM ?= 30
FUZZ_RSS_MB ?= 2048
FUZZ_MAX_LEN ?= 65536
FUZZ_ARGS ?=
FUZZ_TARGETS ?= model gyro import sweep csv checkpoint beam python
FUZZ_SEEDS = models tests/data tests/fuzz/corpus
FUZZ_SEEDS_python = tests/fuzz/corpus/python
fuzz: deps
	@scripts/install-deps clang libclang-rt-14-dev
	@CC=clang cmake -S . -B $(BUILD)/fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DLD_FUZZ=ON -DLD_WERROR=OFF -DLD_PEERS=OFF $(CMAKE_FLAGS) >/dev/null
	@for t in $(FUZZ_TARGETS); do \
	    cmake --build $(BUILD)/fuzz -j $(JOBS) --target fuzz_$$t >/dev/null || [ $$t = python ] || exit 1; \
	done
	@mkdir -p $(BUILD)/fuzz && touch $(BUILD)/fuzz/.started
	@status=0; for t in $(FUZZ_TARGETS); do \
	    if [ ! -x $(BUILD)/fuzz/tests/fuzz/fuzz_$$t ]; then echo "liedyn: fuzz_$$t not built, skipped"; continue; fi; \
	    mkdir -p $(BUILD)/fuzz/corpus-$$t $(BUILD)/fuzz/crashes-$$t; \
	    to=$(FUZZ_TIMEOUT); [ $$t = beam ] && to=$(FUZZ_TIMEOUT_BEAM); \
	    echo "liedyn: fuzzing $$t for $(FUZZ_SECONDS) s"; \
	    seeds="$(FUZZ_SEEDS)"; [ $$t = python ] && seeds="$(FUZZ_SEEDS_python)"; \
	    $(BUILD)/fuzz/tests/fuzz/fuzz_$$t $(BUILD)/fuzz/corpus-$$t $$seeds \
	        -dict=tests/fuzz/$$t.dict -max_total_time=$(FUZZ_SECONDS) -timeout=$$to \
	        -rss_limit_mb=$(FUZZ_RSS_MB) -max_len=$(FUZZ_MAX_LEN) -print_final_stats=1 \
	        -artifact_prefix=$(BUILD)/fuzz/crashes-$$t/ $(FUZZ_ARGS) \
	        2>$(BUILD)/fuzz/fuzz-$$t.log || status=1; \
	    tail -n 25 $(BUILD)/fuzz/fuzz-$$t.log; \
	done; \
	found=$$(for t in $(FUZZ_TARGETS); do find $(BUILD)/fuzz/crashes-$$t -type f -newer $(BUILD)/fuzz/.started 2>/dev/null; done | sort); \
	if [ -n "$$found" ]; then echo "liedyn: fuzzing found:"; echo "$$found"; status=1; fi; \
	exit $$status
