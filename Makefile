# SPDX-License-Identifier: MIT
# Set-up and everyday commands. `make demo` and `make test` do everything on a fresh Debian
# machine: install the packages gip needs when missing, configure, build, then run.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
PYTHON ?= python3

DEB_PACKAGES = cmake make gcc g++ pkg-config libjpeg62-turbo-dev libpng-dev zlib1g-dev libfftw3-dev

.PHONY: all deps pydeps configure build demo test test-c bench format clean

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
	@$(PYTHON) -c "import numpy, cv2" 2>/dev/null || \
	  $(PYTHON) -m pip install -q "numpy>=1.24" opencv-python-headless

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	sh scripts/demo.sh $(BUILD)

test: build pydeps
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD) out
