# posenc: the course book and its package.
#   make book       build the HTML book into _build/html from the notebooks' stored outputs
#   make book-zh    the Chinese edition (中文版) into _build/zh/html, strictly; make notebooks-zh: its notebooks
#   make i18n-update  extract the English text and merge it into locales/zh_CN (changed messages come back fuzzy)
#   make lab        open a scratch copy of the chapters in JupyterLab (_build/lab; the checkout stays clean)
#   make test       everything CI runs, in lanes side by side: ruff and mypy, unit tests (AVX2 kernels), notebooks under nbval (generic kernels), strict book build, browser tests
#   make browser-lab  the chapters' explorers live in JupyterLab (a scratch copy), in headless Chromium
#   make nbval      every notebook under nbval with this machine's own kernels (for authors; not a stage of make test)
#   make nbval-foreign   nbval under other CPU kernels, as on macOS/Windows (no /proc, no `resource`): make test's notebook stage
#   make colab-env  the Colab stage: ipywidgets 7.7, matplotlib 3.10, then posenc[widgets] from a git clone
#                   of this checkout as the Colab set-up cell installs it; no book tooling
#   make git-install  the set-up cell's install with the newest versions pip resolves (not in make test)
#   make lock       refresh requirements.lock (exact, hashed versions that `make setup` installs)
#   make notebooks  re-execute every notebook in place to refresh its stored outputs
#   make bench      run the benchmark scripts (print ratios, save the shipped posenc/results/bench_*.json)
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
STAMP := $(VENV)/.posenc-installed
VENDOR := _vendor/vendor/.stamp
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
export PYTHONHASHSEED := 0
# Python's bytecode cache on: an environment with PYTHONDONTWRITEBYTECODE set (this test machine's is)
# makes every process compile again each module it imports, torch's included, since the installs skip
# compiling (--no-compile, and uv's default). Empty here, Python writes each imported module's .pyc once
# (__pycache__ is ignored by git) and every later process reads it: `import posenc` 4.4 -> 2.1 CPU-s on
# the 2-core AMD machine, in each of make test's hundreds of Python processes.
export PYTHONDONTWRITEBYTECODE :=
# matplotlib's font cache per virtualenv: a cache shared with another checkout's venv (since deleted)
# points at font files that are gone, and every figure then logs findfont warnings
export MPLCONFIGDIR := $(abspath $(VENV))/mplconfig
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# glibc's malloc hands the top of its heap back to the system when a large block is freed and asks for
# it again at the next one, so code that allocates large tensors in a loop (the notebooks' sweeps and
# training, many tests) takes every page fault again each time. A 1 GiB pad keeps that memory for reuse
# (glibc only; other C libraries ignore it). Measured on the 2-core AMD machine, chapter 3 under nbval:
# 70 s wall, 50 + 20 CPU-s (user + system) without it; 43 s, 41 + 2 CPU-s with it.
export MALLOC_TOP_PAD_ := 1073741824

# Threads: the one place they are set. Each of WORKERS parallel processes (pytest workers, notebook
# kernels) gets cores / WORKERS threads for OpenMP, MKL and torch's intra-op pool (torch takes its
# default from OMP_NUM_THREADS); more would make the workers spin against each other.
CORES := $(shell nproc 2>/dev/null || echo 2)
WORKERS ?= 2
threads_for = $(shell n=$$(( $(CORES) / $(1) )); echo $$(( n > 0 ? n : 1 )))
with_threads = OMP_NUM_THREADS=$(call threads_for,$(1)) MKL_NUM_THREADS=$(call threads_for,$(1))

# Every notebook, the slowest first: with --dist loadfile a worker takes a whole notebook, so starting the
# long ones first keeps the two workers busy to the end. The order is the notebooks' nbval time under the
# generic kernels (2-core Intel Xeon, 2026-12-03, summed over cells): chapter 5 (its appendix sweeps head
# widths), 8 (a quick training run), 3, 11 (a training run), 7, 4, 10, 9; then the rest, each shorter.
NBVAL_SLOW := $(addprefix notebooks/,05_decay.ipynb 08_extrapolation.ipynb 03_relative.ipynb 11_learned_position.ipynb \
  07_beyond.ipynb 04_rope.ipynb 10_rope_today.ipynb 09_performance.ipynb)
NBVAL_FILES := $(NBVAL_SLOW) $(filter-out $(NBVAL_SLOW),$(sort $(wildcard notebooks/*.ipynb)))
NBVAL := -m pytest --nbval $(NBVAL_FILES) --nbval-current-env --nbval-sanitize-with notebooks/nbval_sanitize.cfg \
  -n $(WORKERS) --dist loadfile -q -p no:cacheprovider
# Other CPU kernels, so that summation orders change: torch's generic (non-AVX) kernels and MKL's
# conservative code path. An assert that holds only for one machine's rounding fails here.
OTHER_KERNELS := ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE
# The unit stage runs under a third kernel set: torch's and MKL's AVX2 code paths, as on an AMD or older
# Intel CPU without AVX-512. With nbval-foreign under the generic ones and the remaining stages (the
# Colab-like tests, the book builds, the browser tests, JupyterLab running the chapters) under the
# machine's own kernels (AVX-512 where it has them), the stages together cover all three. The notebooks
# run once in make test, under the generic kernels, the set where an exact float comparison breaks first.
UNIT_KERNELS := ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2

.PHONY: setup system-npm system-chromium vendor book book-strict book-zh notebooks-zh i18n-update lab lab-checkout test lint unit nbval nbval-kernels \
        nbval-foreign colab-env git-install lock browser browser-lab notebooks bench print-test-stages clean

# uv, from the package registry, for the installs of make setup and the Colab stage's preinstalled
# packages (scripts/uv_install.sh: pip's indexes; 4x less CPU than pip for the lock). Where it cannot be
# had, those installs are pip's, as before; the Colab set-up cell's own install is always pip's.
UV := _build/uv-venv/bin/uv
UV_IF_ANY = $$(test -x $(UV) && echo $(abspath $(UV)))
$(UV):
	@rm -rf _build/uv-venv; set -o pipefail; python3 -m venv _build/uv-venv && _build/uv-venv/bin/python -m pip install --quiet --disable-pip-version-check \
	  --no-compile "uv>=0.5" 2>&1 | { grep -v "is ignored: it is neither" || true; } \
	  || { rm -rf _build/uv-venv; echo "uv could not be installed: pip installs everything" >&2; }

# `make setup` installs the exact, hashed versions of requirements.lock (LOCK=0: the ranges of
# requirements.txt instead, resolved afresh).
LOCK ?= 1
setup: $(STAMP)
$(STAMP): requirements.txt $(wildcard requirements.lock) pyproject.toml scripts/setup_venv.sh | $(UV)
	UV=$(UV_IF_ANY) LOCK=$(LOCK) bash scripts/setup_venv.sh $(VENV)
	touch $@

# Refresh requirements.lock from requirements-lock.in (requirements.txt with torch pinned to the CPU
# build), hashes included; pip-tools runs from a venv of its own under _build/. `make lock FROM_VENV=.venv`
# locks the versions installed in .venv (those that made the stored outputs) instead of the newest.
LOCK_TOOLS := _build/lock-tools
lock:
	test -x $(LOCK_TOOLS)/bin/pip-compile || { python3 -m venv $(LOCK_TOOLS) && $(LOCK_TOOLS)/bin/pip install -q "pip-tools>=7.4"; }
	FROM_VENV=$(FROM_VENV) bash scripts/lock.sh $(LOCK_TOOLS)/bin/pip-compile

system-npm:
	@bash scripts/system_deps.sh npm
system-chromium:
	@bash scripts/system_deps.sh chromium

vendor: $(VENDOR)
$(VENDOR): package.json package-lock.json scripts/vendor_js.sh
	@bash scripts/system_deps.sh npm
	bash scripts/vendor_js.sh

# The readers' build: renders the outputs stored in the notebooks (nbval keeps them current),
# executes nothing, and fails rather than publish a page whose stored output is an error.
book: setup vendor
	$(PY) scripts/check_outputs.py $(NOTEBOOKS)
	$(BIN)/jupyter-book build . -W -n --keep-going
	@echo "Open $(CURDIR)/_build/html/index.html"

# CI's build: from a clean _build, of the stored outputs that nbval has just re-run and compared
# (make test runs nbval-foreign first), with every explorer's frames rendered afresh; warnings are errors.
# It does not execute the notebooks a second time: what readers get is the stored outputs, and nbval
# has checked that a fresh kernel reproduces them.
book-strict: setup vendor
	rm -rf _build/html _build/.doctrees _build/jupyter_execute _build/.posenc_explorers && mkdir -p _build
	$(PY) scripts/check_outputs.py $(NOTEBOOKS)
	$(call with_threads,1) $(BIN)/jupyter-book build . -W -n --keep-going

# The Chinese edition (book/_ext/posenc_i18n.py, scripts/i18n.py): the same sources, translated through
# the gettext catalogs in locales/zh_CN. Its build is strict like the English one, and a message with no
# translation (new, changed in English, or fuzzy) is a warning, so it fails until both languages agree.
# It shares the English build's explorer frames (_build/.posenc_explorers).
ZH_OUT := _build/zh
book-zh: setup vendor
	$(PY) scripts/i18n.py config
	$(PY) scripts/i18n.py check
	$(call with_threads,1) $(BIN)/jupyter-book build . -W -n --keep-going --config $(ZH_OUT)/_config.yml --path-output $(ZH_OUT)
	rm -rf $(ZH_OUT)/html && mv $(ZH_OUT)/_build/html $(ZH_OUT)/html
	@echo "Open $(CURDIR)/$(ZH_OUT)/html/index.html"

notebooks-zh: setup
	$(PY) scripts/i18n.py notebooks

# After changing English text: extract every message (one catalog per document), then merge it into
# the translated documents' catalogs. To begin translating a document: `$(PY) scripts/i18n.py start DOC`.
i18n-update: setup
	$(BIN)/jupyter-book build . --builder custom --custom-builder gettext --path-output _build/i18n
	$(PY) scripts/i18n.py update

# Readers run the chapters in a scratch copy (_build/lab/, git-ignored), so the checkout stays clean
# and `git pull` never conflicts; copies already there (with the reader's changes) are kept.
# (`cp -n` would do this, but GNU coreutils 9.2 to 9.4 make it fail when a copy is already there.)
# Authors editing the tracked notebooks use `make lab-checkout`, then `make notebooks`.
LAB_DIR := _build/lab
lab: setup
	mkdir -p $(LAB_DIR)
	for nb in $(NOTEBOOKS); do [ -e "$(LAB_DIR)/$$(basename $$nb)" ] || cp "$$nb" $(LAB_DIR)/; done
	$(BIN)/jupyter lab $(LAB_DIR) --config=lab/jupyter_server_config.py $(if $(filter 0,$(shell id -u)),--allow-root)

lab-checkout: setup
	$(BIN)/jupyter lab notebooks/ --config=lab/jupyter_server_config.py $(if $(filter 0,$(shell id -u)),--allow-root)

# ruff (lint and format check; notebooks linted, not formatted) and mypy, configured in pyproject.toml
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

unit: setup
	$(UNIT_KERNELS) $(call with_threads,$(WORKERS)) $(PY) -m pytest tests -m "not browser" -n $(WORKERS) --dist worksteal -q -p no:nbval

nbval: setup
	$(call with_threads,$(WORKERS)) $(PY) $(NBVAL)

# make test's notebook pass: other CPU kernels, and a "foreign platform" as on macOS and Windows
# (scripts/foreign_platform/sitecustomize.py, on PYTHONPATH of pytest, every kernel and every
# subprocess: `import resource` fails, reading /proc fails). First a check that it is in force.
FOREIGN := PYTHONPATH=$(CURDIR)/scripts/foreign_platform
nbval-foreign: setup
	$(FOREIGN) $(PY) scripts/foreign_platform/check.py
	$(FOREIGN) $(OTHER_KERNELS) $(call with_threads,$(WORKERS)) $(PY) $(NBVAL)
nbval-kernels: nbval-foreign

# The Colab stage (_build/colab-venv): Colab's versions (the lowest the `widgets` extra allows), then the
# set-up cell's install from a git clone of this checkout (scripts/colab_env.sh).
colab-env: | $(UV)
	UV=$(UV_IF_ANY) WORKERS=$(WORKERS) $(call with_threads,$(WORKERS)) bash scripts/colab_env.sh _build/colab-venv

# The set-up cell's install with the newest versions pip resolves, from a git clone of this checkout
# (_build/git-install). Not a stage of make test: colab-env checks the same install path with Colab's versions.
git-install:
	$(call with_threads,1) bash scripts/check_git_install.sh _build/git-install

# One Chromium: two side by side (pytest-xdist) took longer on the 2 cores, 342 s against about 320 s,
# and a page's network took over 30 s to settle
browser: setup system-chromium
	$(PY) -m pytest tests -m "browser and not jupyterlab" -q -p no:cacheprovider

# JupyterLab on a scratch copy of the chapters (the checkout is not touched); its kernels get one thread.
browser-lab: setup system-chromium
	$(PY) -m pytest tests -m jupyterlab -q -p no:cacheprovider

# make test runs its stages in three lanes side by side (make -j), each lane's stages in order, so that
# the stages that wait (pip installing a venv, single-threaded book builds, Chromium waiting on pages,
# JupyterLab's kernels) fill the cores that the two-worker stages leave idle:
#   cpu:  unit                                   (after setup)
#   book: browser-lab, lint, book-strict,        (after setup; JupyterLab's timed redraws come first,
#         book-zh, browser                       beside the niced unit tests and the Colab venv's
#                                                installs; browser reads both builds, and book-zh
#                                                reuses book-strict's explorer frames)
#   env:  colab-env                              (its own venv: it starts while setup runs),
#         then nbval-foreign                     (after setup; beside the unit tests, instead of after them)
# Each lane then takes about the unit stage's time or less, instead of one lane of three long stages.
# Every stage is the same target as when it runs alone. A lane stops at its first failing stage and
# make test fails. Each lane's output comes as one block when it ends (--output-sync), with a line per
# stage giving its wall and CPU time. The stages that keep both cores busy for minutes (TEST_NICE) run
# at a lower priority, so that the ones that wait on something, above all a JupyterLab kernel that must
# redraw an explorer within test_jupyterlab.py's timeout, get the CPU when they want it.
# The lanes side by side already keep both cores busy, so every process gets one thread (CORES=1): a
# two-thread book build beside two test workers would make its threads wait on each other.
# TEST_JOBS=1 runs the lanes one after another, each stage with its usual threads.
TEST_LANE_cpu := unit
TEST_LANE_book := browser-lab lint book-strict book-zh browser
TEST_LANE_env-venvs := colab-env
TEST_LANE_env := nbval-foreign
TEST_LANES := cpu book env-venvs env
TEST_STAGES := $(foreach lane,$(TEST_LANES),$(TEST_LANE_$(lane)))
TEST_JOBS ?= 3
TEST_NICE := unit nbval-foreign colab-env
.PHONY: test-lanes $(addprefix test-lane-,$(TEST_LANES))
test: system-npm system-chromium
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-lanes $(if $(filter 1,$(TEST_JOBS)),,CORES=1)
	@echo "make test: all stages passed"
test-lanes: test-lane-cpu test-lane-book test-lane-env
test-lane-cpu: setup
test-lane-book: setup vendor
test-lane-env: test-lane-env-venvs setup
test-lane-env-venvs: $(UV)
$(addprefix test-lane-,$(TEST_LANES)): test-lane-%:
	@for stage in $(TEST_LANE_$*); do \
	  TIMEFORMAT="ci: stage $$stage took %0R s (CPU %0U s user, %0S s sys; lane $*)"; \
	  case " $(TEST_NICE) " in *" $$stage "*) nice="nice -n 10";; *) nice="";; esac; \
	  time $$nice $(MAKE) --no-print-directory $$stage || exit 1; \
	done

# Then normalise them (kernelspec, no timestamps or widget ids: scripts/clean_notebooks.py), so a
# re-run changes only outputs that really changed.
notebooks: setup
	for nb in $(NOTEBOOKS); do echo "executing $$nb"; \
	  $(call with_threads,1) $(BIN)/jupyter execute --inplace --timeout=600 "$$nb" || exit 1; done
	$(PY) scripts/clean_notebooks.py $(NOTEBOOKS)

bench: setup
	$(PY) benchmarks/bench_rope.py --out posenc/results
	$(PY) benchmarks/bench_shaw.py --out posenc/results
	$(PY) benchmarks/bench_linear.py --out posenc/results
	$(PY) benchmarks/bench_explorers.py --out posenc/results
	$(PY) benchmarks/bench_attention.py --out posenc/results
	$(PY) benchmarks/bench_decode.py --out posenc/results

# the stages of `make test`, lane by lane (make test times each)
print-test-stages:
	@echo $(TEST_STAGES)

clean:
	rm -rf _build _vendor
