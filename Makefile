# The two commands of the README. Both create .venv when it is missing and (re)install the
# project into it whenever pyproject.toml changes.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --editable '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/arena ladder run ladders/demo.toml

test: $(STAMP)
	$(PY) -m pytest -q -n auto

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	$(PY) bench/engines.py
	$(PY) bench/transport.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache replays
