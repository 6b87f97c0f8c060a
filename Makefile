# Two commands on a fresh machine with Python 3.10+ and make:
#   make demo   learn the PlayTennis tree from the data shipped in the package; then the
#               command line is .venv/bin/puretree (or `. .venv/bin/activate` and `puretree`)
#   make test   run the whole test suite (doctests included): derandomized, one verdict per commit
#   make fuzz   the same properties with random seeds and many more examples (finds bugs)
#   make docs   the documentation site (MkDocs, Material theme, API reference) into site/
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test system-deps fuzz docs pictures constraints bench bench-codegen bench-j48 bench-dask clean

$(BIN)/python:
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "puretree needs Python 3.10 or newer"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Stamps record what has been installed into the environment, so re-runs are fast. The editable
# install compiles the C growth kernel in place (setup.py), so a changed kernel source reinstalls.
KERNEL := setup.py $(wildcard puretree/growth/*.c)

$(VENV)/.core: pyproject.toml $(KERNEL) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[cli]'
	touch $@

# Test tools are pinned (constraints/test.txt): a new Hypothesis or pytest never changes a verdict.
$(VENV)/.test: pyproject.toml constraints/test.txt $(KERNEL) | $(BIN)/python system-deps
	$(BIN)/python -m pip install --quiet -c constraints/test.txt -e '.[test]'
	touch $@ $(VENV)/.core

demo: $(VENV)/.core
	$(BIN)/python examples/quickstart.py

# The suite also needs Debian packages (Chromium, Graphviz, gcc, clang and MinGW for the kernel, the Arm toolchain, QEMU): installed
# as root when missing, else make stops at once naming them (.ci/system-deps). Before the test
# environment is installed: its editable install compiles the kernel with that gcc.
test: system-deps $(VENV)/.test
	HYPOTHESIS_PROFILE=ci $(BIN)/python -m pytest -q

system-deps:
	bash .ci/system-deps

# Random search: seeds change every run and failures are kept in .hypothesis/. A failure
# found here is fixed and then pinned as an @example or a unit test, so make test keeps it.
fuzz: $(VENV)/.test
	HYPOTHESIS_PROFILE=fuzz $(BIN)/python -m pytest -q -x tests

# The documentation tools are pinned too (constraints/docs.txt), in the docs extra, not the test one.
$(VENV)/.docs: pyproject.toml constraints/docs.txt constraints/test.txt $(KERNEL) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -c constraints/test.txt -c constraints/docs.txt -e '.[docs,cli]'
	touch $@ $(VENV)/.core

# Strict: a broken link, a missing page in the nav or a docstring MkDocs cannot read fails the build.
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

# The pictures of docs/views.md (docs/img/), drawn by puretree itself; a test checks they are current.
pictures: $(VENV)/.test
	$(BIN)/python docs/make_pictures.py

# Re-pin the test environment after upgrading on purpose.
constraints: $(VENV)/.test
	{ sed -n 1,2p constraints/test.txt; $(BIN)/python -m pip freeze --exclude-editable | grep -v '^#' | sed 's/$$/ ; python_version >= "3.11"/'; } > constraints/test.txt.new
	mv constraints/test.txt.new constraints/test.txt

# bench_predict compares generated Python with m2cgen's (installed from PyPI first: benchmarks only).
bench: $(VENV)/.test
	$(BIN)/python bench/bench_fit.py
	$(BIN)/python bench/bench_regression.py
	$(BIN)/python bench/bench_deep_models.py
	$(BIN)/python -m pip install --quiet m2cgen
	$(BIN)/python bench/bench_predict.py

# c45 against Weka's J48 side by side: installs Debian's weka (and Java) first (liac-arff is a dependency).
bench-j48: $(VENV)/.test
	@command -v java >/dev/null && [ -f /usr/share/java/weka.jar ] || { [ "$$(id -u)" = 0 ] && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq weka; } || { echo "bench-j48 needs Debian's weka package: apt-get install weka" >&2; exit 1; }
	$(BIN)/python bench/bench_j48.py

# Installs gcc-arm-none-eabi (Debian), emlearn and m2cgen (PyPI) first: benchmarks only.
bench-codegen: $(VENV)/.test
	PYTHON=$(BIN)/python bash bench/setup_codegen.sh
	$(BIN)/python bench/bench_codegen.py

# puretree.dask on a LocalCluster against the in-memory fits and XGBoost's hist method
# (xgboost-cpu installed from PyPI first: benchmarks only; a 12 GB address-space limit).
bench-dask: $(VENV)/.test
	$(BIN)/python -m pip install --quiet xgboost-cpu
	ulimit -v 12000000 && $(BIN)/python bench/bench_dask.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .mypy_cache site build puretree.egg-info puretree/growth/_kernel_lib.*
