# Grokking, Reproduced — the two commands:
#   make book [PROFILE=smoke|cpu|paper]   set up whatever is missing, build the whole book
#   make test                             set up whatever is missing, lint (ruff), run the test suite
#   make test-e2e                         the end-to-end checks (whole builds, the smoke book in a browser,
#                                         every paper config stepped): minutes; CI runs them after make test
# Setup uses only the project's own files: a virtualenv from pyproject.toml, MathJax from npm
# (so the book reads offline), Debian's chromium for the browser test.

PYTHON  ?= python3
VENV    ?= .venv
PROFILE ?= cpu
DEVICE  ?= auto
BIN      = $(VENV)/bin
STAMP    = $(VENV)/.installed
MATHJAX  = .vendor/node_modules/mathjax/es5/tex-chtml.js
MATHJAX_VERSION = 3.2.2
PLAYWRIGHT_VERSION = 1.65.1
PLAYWRIGHT = .vendor/node_modules/playwright-core/package.json

.PHONY: book test test-e2e setup vendor browser clean lab
.DEFAULT_GOAL := book

book: setup
	$(BIN)/companion build --profile $(PROFILE) --device $(DEVICE)

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest -m "not slow and not book"

# The checks that build things end to end (markers `slow` and `book` in pyproject.toml): the same suite,
# the wait moved out of the edit-test loop.
test-e2e: setup browser
	$(BIN)/pytest -m "slow or book"

setup: $(STAMP) vendor

# torch==2.13.0 resolves to the CPU build here; the pin in pyproject.toml keeps it that way.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[book,test]"
	touch $(STAMP)

# MathJax (rendered into the book so math reads offline) and playwright-core (drives Debian's
# chromium in the browser test; it never downloads a browser of its own), from npm.
vendor: $(MATHJAX) $(PLAYWRIGHT)
$(MATHJAX) $(PLAYWRIGHT):
	npm install --silent --no-audit --no-fund --no-save --prefix .vendor \
	  mathjax@$(MATHJAX_VERSION) playwright-core@$(PLAYWRIGHT_VERSION)

# Debian's chromium for the headless-browser test (never a browser download of a test tool's own).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser test"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

# Open the chapters in JupyterLab (pairs book/*.py with notebooks under _build/notebooks-lab).
lab: setup
	$(BIN)/pip install --quiet jupyterlab
	$(BIN)/jupytext-config set-default-viewer python
	$(BIN)/jupyter lab

clean:
	rm -rf _build
