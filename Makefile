# Two commands on a fresh machine: `make demo` and `make test`.
# Both install the exact versions of a lock file (requirements/*.lock, written by `make lock` from
# pyproject.toml), then the project itself without dependencies. pip's own configuration picks
# the index, so the locks name none.
PYTHON ?= python3.11
VENV   ?= .venv
PY      = $(VENV)/bin/python
MAIN_LOCK  = requirements/main.lock
DEV_LOCK   = requirements/dev.lock
LIVE_LOCK  = requirements/live.lock
LOCK_TOOLS = requirements/lock-tools.txt
LOCK_VENV ?= .venv-lock
PIP_VERSION = $(shell sed -n 's/^pip==//p' $(LOCK_TOOLS))
# One stamp per lock. Its name carries a checksum of the lock and pyproject.toml, so a changed
# file (say, after a checkout) needs a new stamp whatever the file times say.
checksum   = $(shell cat $(1) pyproject.toml 2>/dev/null | cksum | cut -d' ' -f1)
MAIN_STAMP = $(VENV)/.installed-main-$(call checksum,$(MAIN_LOCK))
DEV_STAMP  = $(VENV)/.installed-dev-$(call checksum,$(DEV_LOCK))
LIVE_STAMP = $(VENV)/.installed-live-$(call checksum,$(LIVE_LOCK))
LOCK_STAMP = $(LOCK_VENV)/.installed-$(call checksum,$(LOCK_TOOLS))

.PHONY: install demo test test-live lint typecheck pytest services bench lock clean

# $(call install,LOCK): the venv, the pinned pip, every pin of LOCK, then the project (no deps).
define install
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q pip==$(PIP_VERSION)
	$(PY) -m pip install -q -r $(1)
	$(PY) -m pip install -q --no-deps -e .
	$(PY) -m pip check
	@rm -f $(VENV)/.installed-*
endef

$(MAIN_STAMP): $(MAIN_LOCK) pyproject.toml
	$(call install,$(MAIN_LOCK))
	@touch $@

# The dev lock pins every package of the main lock at the same version (`make lock` compiles the
# main lock under the dev lock), so a dev install serves `make demo` as well.
$(DEV_STAMP): $(DEV_LOCK) pyproject.toml
	$(call install,$(DEV_LOCK))
	@touch $@ $(MAIN_STAMP)

# The live lock holds the dev lock's pins plus the live extra (compiled under the dev lock).
# llama-cpp-python compiles by default for the CPU it is built on (GGML_NATIVE). On a VM whose
# CPU flags advertise AVX-512 variants the hypervisor traps, that build dies with SIGILL, and a
# wheel from pip's cache may come from another machine. So the live extra is built here, never
# taken from the cache, for the portable x86-64 baseline (AVX2/FMA/F16C, no AVX-512).
$(LIVE_STAMP): export PIP_NO_CACHE_DIR = 1
$(LIVE_STAMP): export CMAKE_ARGS = -DGGML_NATIVE=OFF
$(LIVE_STAMP): $(LIVE_LOCK) pyproject.toml
	$(call install,$(LIVE_LOCK))
	@touch $@ $(DEV_STAMP) $(MAIN_STAMP)

install: $(DEV_STAMP)

## Run the main job on the embedded default: no servers, no API keys (runtime lock only).
demo: $(MAIN_STAMP)
	$(VENV)/bin/harness diagnose "Why does checkout-api return HTTP 500 since 14:05?"

## Lint, type check, then the whole suite (starts Redis/MariaDB when they are down).
test: $(DEV_STAMP) services lint typecheck pytest

# Outside CI a service that cannot be started is not fatal: the tests that need it skip.
# chromium is no server: headless Chromium renders report.html to PNG in tests/eval.
services:
	@bash scripts/services.sh redis mariadb chromium || { \
	  if [ "$$CI" = "true" ]; then echo "services: not all up (fatal under CI=true)"; exit 1; fi; \
	  echo "services: not all up; tests that need them skip (they fail under CI=true)"; }

## The live end-to-end test against a real inference server (llama-cpp-python compiles once).
test-live: $(LIVE_STAMP) services
	$(PY) -m pytest -q -rs -m live tests/live

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check harness actors serve tests benchmarks
	$(VENV)/bin/ruff format --check harness actors serve tests benchmarks
	$(VENV)/bin/lint-imports
	@if command -v shellcheck >/dev/null 2>&1; then shellcheck scripts/services.sh .ci/run; \
	else echo "shellcheck not installed: shell scripts not checked"; fi

typecheck: $(DEV_STAMP)
	$(VENV)/bin/mypy

# The multi-node tests start a Ray cluster of their own, so they run in a pytest process of
# their own (the main one shares one local Ray per session and leaves them out).
pytest: $(DEV_STAMP)
	$(PY) -m pytest -q -rs
	$(PY) -m pytest -q -rs -m cluster tests/cluster

bench: $(DEV_STAMP)
	$(PY) benchmarks/bench_tool_plane.py

## Rewrite both lock files from pyproject.toml with the pinned pip-compile (in $(LOCK_VENV)).
## Pins already in a lock stay while they still fit; `make lock LOCK_FLAGS=--upgrade` moves
## everything to the newest versions allowed.
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile --quiet \
	--allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --newline lf \
	$(LOCK_FLAGS)

lock: $(LOCK_STAMP)
	$(PIP_COMPILE) --extra dev --output-file $(DEV_LOCK) pyproject.toml
	$(PIP_COMPILE) --constraint $(DEV_LOCK) --output-file $(MAIN_LOCK) pyproject.toml
	$(PIP_COMPILE) --extra dev --extra live --constraint $(DEV_LOCK) --output-file $(LIVE_LOCK) pyproject.toml

$(LOCK_STAMP): $(LOCK_TOOLS)
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
	@test -x $(LOCK_VENV)/bin/python || $(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install -q -r $(LOCK_TOOLS)
	@rm -f $(LOCK_VENV)/.installed-*
	@touch $@

clean:
	rm -rf $(VENV) $(LOCK_VENV) .pytest_cache .mypy_cache .ruff_cache
