# posenc: the course book and its package.
#   make book       build the HTML book into _build/html (sets everything up first)
#   make test       everything CI runs: unit tests, notebooks under nbval, strict book build, browser test
#   make notebooks  re-execute every notebook in place to refresh its stored outputs
#   make bench      run the benchmark scripts (prints ratios)
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.posenc-installed
VENDOR := _vendor/vendor/.stamp
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
export PYTHONHASHSEED := 0
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: setup vendor book book-strict test unit nbval browser notebooks bench clean

setup: $(STAMP)
$(STAMP): requirements.txt pyproject.toml scripts/setup_venv.sh
	bash scripts/setup_venv.sh $(VENV)
	touch $@

vendor: $(VENDOR)
$(VENDOR): package.json package-lock.json scripts/vendor_js.sh
	bash scripts/vendor_js.sh

book: setup vendor
	$(BIN)/jupyter-book build . --keep-going
	@echo "Open $(CURDIR)/_build/html/index.html"

# A clean, strict build: every notebook re-executed (execute_notebooks: force), warnings are errors.
book-strict: setup vendor
	rm -rf _build/html _build/.doctrees _build/jupyter_execute
	$(BIN)/jupyter-book build . -W -n --keep-going

unit: setup
	$(PY) -m pytest tests -m "not browser" -n 2 -q

nbval: setup
	$(PY) -m pytest --nbval notebooks/ --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg \
	  -n 2 --dist loadfile -q -p no:cacheprovider

browser: setup
	$(PY) -m pytest tests -m browser -q -p no:cacheprovider

test: unit nbval book-strict browser
	@echo "make test: all stages passed"

notebooks: setup
	for nb in $(NOTEBOOKS); do echo "executing $$nb"; \
	  $(BIN)/jupyter execute --inplace --timeout=600 "$$nb" || exit 1; done

bench: setup
	$(PY) benchmarks/bench_rope.py
	$(PY) benchmarks/bench_shaw.py
	$(PY) benchmarks/bench_explorers.py
	$(PY) benchmarks/bench_attention.py

clean:
	rm -rf _build _vendor
