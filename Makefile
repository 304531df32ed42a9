# Every target sets itself up: it creates .venv when absent and installs the
# package with its dev extras; later runs reuse it (re-install when
# pyproject.toml changes).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint format validate bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	# the ppi-aipw peer (extra "peers") without xgboost, which it imports only when asked
	# for (700 MB with CUDA's NCCL); numpy, scipy and scikit-learn are in already
	$(BIN)/python -m pip install --quiet --no-deps "ppi-aipw>=0.2.2,<0.3"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/bacon demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

test: lint
	$(BIN)/python -m pytest -q -m "not slow"

validate: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache
