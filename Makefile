# Two entry points, both self-installing: `make serve` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make serve`'s own environment: only what the site's build needs (requirements-site.txt, no torch)
SITE_VENV := .venv-site
SITE_STAMP := $(SITE_VENV)/.installed
# Material for MkDocs prints an end-of-life notice at every mkdocs start unless this is set (only an
# environment variable turns it off)
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test test-page install install-site browser cjk-font gpu-job gpu-job-rehearsal compat notebooks clean

$(STAMP): requirements.txt constraints.txt
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==26.3
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	touch $@

install: $(STAMP)

$(SITE_STAMP): requirements-site.txt constraints.txt
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "Python 3.11+ is required")'
	$(PYTHON) -m venv $(SITE_VENV)
	$(SITE_VENV)/bin/python -m pip install --quiet --upgrade pip==26.3
	$(SITE_VENV)/bin/python -m pip install --quiet -r requirements-site.txt -c constraints.txt
	touch $@

install-site: $(SITE_STAMP)

serve: install-site cjk-font
	$(SITE_VENV)/bin/mkdocs serve

# The browser tests drive Debian's Chromium headless shell (or, where it cannot be installed, the full browser):
# install the shell when it is missing and we can.
# The Chinese MNIST chart draws its labels with a CJK font (docs/hooks/benchmarks.py stops the build without one):
# install Debian's Noto CJK when fontconfig knows no Chinese font and we can.
cjk-font:
	@fc-list :lang=zh 2>/dev/null | grep -q . || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk; \
	  else \
	    echo "make: the Chinese pages need a CJK font; install it (Debian: sudo apt-get install fonts-noto-cjk)" >&2; exit 1; fi; }

browser:
	@command -v chromium-headless-shell >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell fonts-noto-cjk; \
	  elif ! command -v chromium >/dev/null; then \
	    echo "make test: Chromium is missing; install it (Debian: sudo apt-get install chromium-headless-shell fonts-noto-cjk)" >&2; exit 1; fi; }

# PYTEST_ARGS: more for pytest, e.g. --verification-record (a GPU run's record, which the pages' notes show)
PYTEST_ARGS ?=
# one pytest-xdist worker per core (at most 4: each holds torch and a browser); a work unit is what shares a
# process's cache, tests/run_share.py
XDIST ?= --numprocesses=auto --maxprocesses=4 --dist=loadscope
test: install browser cjk-font
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# One page, while writing it: its blocks in both languages, its tests, the checks that read every page and those
# parametrized for it (tests/page_selection.py); the end of its output names what only `make test` runs
test-page: install browser cjk-font
	@test -n "$(PAGE)" || { echo "make test-page: name the page, e.g. make test-page PAGE=tensors" >&2; exit 2; }
	$(BIN)/python -m pytest --page $(PAGE) $(PYTEST_ARGS)

# On a machine with an NVIDIA GPU, in under 10 minutes (tools/gpu_job.py, tools/README.md): the page blocks and
# tests a GPU can change, with their verification record and what each CUDA snippet printed, then the MNIST benchmark
# (every rung at batch 64, 256 and 1024), each stage under its own limit, into one folder, GPU_RUN, whose README says
# what ran, on which torch, and what was cut. GPU_PYTHON: any Python with torch (the project's: .venv/bin/python)
GPU_PYTHON ?= python3
GPU_RUN ?= gpu-run/$(shell date -u +%Y-%m-%d)
GPU_JOB_ARGS ?=
gpu-job:
	$(GPU_PYTHON) tools/gpu_job.py --out $(GPU_RUN) $(GPU_JOB_ARGS)

# The same plan rehearsed on this machine's CPU (minutes): the devices page's tests, CUDA blocks skipped with their
# reason; the benchmark on the CPU at batch 1024, one timed epoch per rung
gpu-job-rehearsal: install
	rm -rf gpu-run/rehearsal
	$(BIN)/python tools/gpu_job.py --dry-run --out gpu-run/rehearsal

# The compatibility run (not part of `make test`): every block of the English pages on the CPU with each minor release
# of PyTorch in RELEASES (default: all of docs/hooks/provenance.py's, 2.4 onwards), one release at a time, each
# installed from PyPI into a venv under .compat/ (5-6 GB) and removed after its run; one line per block and release in
# docs/data/compat/<release>.jsonl. COMPAT_ARGS: more for tools/compat_run.py, e.g. --blocks=devices.md:7 (only
# those blocks' lines are rewritten)
RELEASES ?=
COMPAT_ARGS ?=
compat: install
	$(BIN)/python tools/compat_run.py --python $(PYTHON) $(COMPAT_ARGS) $(RELEASES)

# Every page's notebook as the build makes it (docs/hooks/notebooks.py), in notebooks/<lang>/<page>.ipynb (ignored by
# git), to open in Jupyter without building the site; the build makes its own, so there is nothing to commit
notebooks: install
	$(BIN)/python docs/hooks/notebooks.py notebooks

clean:
	rm -rf $(VENV) $(SITE_VENV) site
