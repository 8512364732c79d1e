# tenferro developer entry points. See docs/building.md.
#
#   make demo           install deps, build release, run the quickstart example
#   make test           release + asan full CTest suites, tsan on concurrency|contract|runtime, format-check
#   make format         clang-format (14) in place;  make format-check: fail on any diff
#   make bench ARGS=..  build release with the benchmark (+ libtorch peer) and run it
#   make clean          remove the preset build trees (keeps the cached TSan oneTBB); distclean: all of build/
#
# Each preset is configured once (build/<preset>/build.ninja marks it); afterwards `cmake --build`
# is incremental and re-runs CMake by itself when a CMakeLists.txt or a globbed file list changes.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := demo

JOBS ?= $(shell nproc)
CTEST = ctest --output-on-failure -j$(JOBS) --timeout 900
TSAN_LABELS := concurrency|contract|runtime
# The tsan build compiles only what its labels run (the other suites run in release and asan).
TSAN_TARGETS := tests_concurrency tests_contract tests_runtime tsan_selfcheck
CLANG_FORMAT ?= $(shell command -v clang-format-14 || command -v clang-format || echo clang-format)
FORMAT_DIRS := include src tests examples bench python/src
FORMAT_FILES = $(shell find $(wildcard $(FORMAT_DIRS)) -type f \( -name '*.hpp' -o -name '*.cpp' \) | LC_ALL=C sort)
ARGS ?=

# $(call build,PRESET): configure if never configured, then build incrementally.
define build
	@echo "== build $(1)"
	$(if $(filter tsan,$(1)),scripts/build-tbb-tsan)
	[[ -f build/$(1)/build.ninja ]] || cmake --preset $(1)
	cmake --build --preset $(1) -j$(JOBS) $(if $(filter tsan,$(1)),--target $(TSAN_TARGETS))
endef

.PHONY: demo test test-release test-asan test-tsan deps format format-check bench clean distclean \
        build-release build-debug build-asan build-tsan

deps:
	@scripts/install-deps

demo: deps
	@echo "== build release (quickstart)"
	[[ -f build/release/build.ninja ]] || cmake --preset release
	cmake --build --preset release -j$(JOBS) --target quickstart
	@echo "== run build/release/quickstart"
	build/release/quickstart

build-release build-debug build-asan build-tsan: build-%: deps
	$(call build,$*)

test-release: build-release
	$(CTEST) --preset release
test-asan: build-asan
	$(CTEST) --preset asan
test-tsan: build-tsan
	$(CTEST) --preset tsan -L '$(TSAN_LABELS)'

# Sequential on purpose (2 cores; each step already uses -j$(JOBS)); stops at the first failure.
test: deps
	$(MAKE) --no-print-directory test-release
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-tsan
	$(MAKE) --no-print-directory format-check
	@echo "== make test: all passed"

format:
	$(if $(FORMAT_FILES),$(CLANG_FORMAT) -i $(FORMAT_FILES))

format-check:
	@echo "== format-check ($(words $(FORMAT_FILES)) files, $(notdir $(CLANG_FORMAT)))"
	$(if $(FORMAT_FILES),$(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES))

# Reconfigures on purpose: libtorch-dev may have just been installed for the optional peer.
bench:
	scripts/install-deps --bench
	cmake --preset release
	cmake --build --preset release -j$(JOBS)
	@if [[ ! -x build/release/bench/tenferro-bench ]]; then \
	  echo "make bench: build/release/bench/tenferro-bench does not exist (no bench/CMakeLists.txt yet?)" >&2; \
	  exit 1; \
	fi
	build/release/bench/tenferro-bench $(ARGS)

clean:
	rm -rf build/release build/debug build/asan build/tsan

distclean:
	rm -rf build
