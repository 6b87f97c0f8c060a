# Two commands on a fresh machine with Python 3.10+ and make:
#   make demo   learn the PlayTennis tree from the data shipped in the package
#   make test   run the whole test suite (doctests included)
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test bench bench-codegen clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "puretree needs Python 3.10 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps record what has been installed into the environment, so re-runs are fast.
$(VENV)/.core: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.core

demo: $(VENV)/.core
	$(BIN)/python examples/quickstart.py

test: $(VENV)/.test
	$(BIN)/python -m pytest -q

bench: $(VENV)/.test
	$(BIN)/python bench/bench_fit.py
	$(BIN)/python bench/bench_regression.py

# Installs gcc-arm-none-eabi (Debian), emlearn and m2cgen (PyPI) first: benchmarks only.
bench-codegen: $(VENV)/.test
	PYTHON=$(BIN)/python bash bench/setup_codegen.sh
	$(BIN)/python bench/bench_codegen.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
