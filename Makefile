# Two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed-$(shell cksum < pyproject.toml | cut -d' ' -f1)
SERVICES_SCRIPT ?= ../shared/services/ensure-services.sh

.PHONY: install demo test lint typecheck pytest services bench clean

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

install: $(STAMP)

## Run the main job on the embedded default: no servers, no API keys.
demo: $(STAMP)
	$(VENV)/bin/harness diagnose "Why does checkout-api return HTTP 500 since 14:05?"

## Lint, type check, then the whole suite (starts Redis/MariaDB when they are down).
test: $(STAMP) services lint typecheck pytest

services:
	@if [ -f "$(SERVICES_SCRIPT)" ]; then bash "$(SERVICES_SCRIPT)" redis mariadb; \
	elif [ "$$CI" = "true" ]; then echo "missing $(SERVICES_SCRIPT)"; exit 1; \
	else echo "no $(SERVICES_SCRIPT): tests that need Redis/MariaDB skip unless they answer"; fi

lint: $(STAMP)
	$(VENV)/bin/ruff check harness actors serve tests benchmarks
	$(VENV)/bin/ruff format --check harness actors serve tests benchmarks

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) benchmarks/bench_tool_plane.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
