# Two entry points, both self-installing: `make serve` and `make test` (see README.md).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test install browser gpu-job clean

$(STAMP): requirements.txt constraints.txt
	$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] >= (3, 11) else "Python 3.11+ is required")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip==26.3
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	touch $@

install: $(STAMP)

serve: install
	$(BIN)/mkdocs serve

# The browser tests drive Debian's Chromium headless shell (or, where it cannot be installed, the full browser):
# install the shell when it is missing and we can.
browser:
	@command -v chromium-headless-shell >/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell fonts-noto-cjk; \
	  elif ! command -v chromium >/dev/null; then \
	    echo "make test: Chromium is missing; install it (Debian: sudo apt-get install chromium-headless-shell fonts-noto-cjk)" >&2; exit 1; fi; }

test: install browser
	$(BIN)/python -m pytest

# On a machine with an NVIDIA GPU: the whole suite (CUDA blocks included), recording where it ran
# (docs/data/verification/, the pages' verification stamp), then the benchmark: every rung
# (resident-graph included) at every batch size, and where the plain DataLoader's time goes.
# The benchmark runs even when a test failed; the job still fails then.
gpu-job: install
	status=0; \
	$(BIN)/python -m pytest --verification-record || status=$$?; \
	$(BIN)/python snippets/mnist/bench.py --device cuda --batch-sizes 64 256 1024 --probe-loader || status=$$?; \
	exit $$status

clean:
	rm -rf $(VENV) site
