# Every target sets itself up: it creates .venv when absent and installs what it needs;
# later runs reuse it (re-install when pyproject.toml changes). Two stamps: `make demo`
# installs the package with its runtime dependencies only (`pip install -e .`); `make
# test` and the other developer targets add the dev extras (pytest, ruff, mypy and the
# optional integrations the tests cover).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev

.PHONY: demo test lint format validate bench clean

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUNTIME)

$(DEV): $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	# the ppi-aipw peer (extra "peers") without xgboost, which it imports only when asked
	# for (700 MB with CUDA's NCCL); numpy, scipy and scikit-learn are in already
	$(BIN)/python -m pip install --quiet --no-deps "ppi-aipw>=0.2.2,<0.3"
	touch $(DEV)

demo: $(RUNTIME)
	$(BIN)/bacon demo

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(DEV)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# two workers (the 2 cores we aim at); a test file stays on one worker, and the tests of
# the NUTS fits several files share run together (tests/conftest.py)
test: lint
	$(BIN)/python -m pytest -q -m "not slow" -n 2 --dist loadgroup

validate: $(DEV)
	$(BIN)/python -m pytest -q -m slow

bench: $(DEV)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
