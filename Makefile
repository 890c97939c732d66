# The two commands of the README. Both create .venv when it is missing and (re)install the
# project into it whenever pyproject.toml changes.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean bots mutate

SYSTEM := $(VENV)/.system-deps

# Debian packages (bubblewrap, cppzmq, msgpack-cxx, jq): installed when root, else reported.
$(SYSTEM): scripts/install-system-deps
	scripts/install-system-deps
	mkdir -p $(VENV) && touch $(SYSTEM)

$(STAMP): pyproject.toml $(SYSTEM)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --editable '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/arena ladder run ladders/demo.toml
	$(VENV)/bin/arena ladder report ladders/demo.toml

# One test worker more than cores: most tests wait on bot processes and servers much of the time.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))

test: $(STAMP) bots
	$(PY) -m pytest -q -n $(TEST_WORKERS)

# The sample bots in other languages: Node packages from the lock file, the C++ and Java bots
# compiled (the Java one with the same command as its manifest's build).
bots: sample_bots/node/node_modules/.installed sample_bots/cpp/build/random_bot sample_bots/java/build/RandomBot.class

sample_bots/node/node_modules/.installed: sample_bots/node/package.json sample_bots/node/package-lock.json
	cd sample_bots/node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

sample_bots/cpp/build/random_bot: $(SYSTEM) $(wildcard sample_bots/cpp/*.cpp sample_bots/cpp/*.hpp sample_bots/cpp/Makefile)
	$(MAKE) -C sample_bots/cpp

sample_bots/java/build/RandomBot.class: $(SYSTEM) $(wildcard sample_bots/java/*.java)
	cd sample_bots/java && javac -d build Json.java RandomBot.java

# Ruff, then mypy over arena and protocol (strict on the boundary modules: pyproject.toml).
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Two tables of throughput figures, each beside its floor (bench/throughput.py and
# bench/decision_loop.py; a few minutes each); FASTCHESS=PATH measures fastchess beside the
# decision loop (bench/README.md). The other scripts in bench/ measure one part each.
FASTCHESS ?=
bench: $(STAMP) bots
	$(PY) bench/decision_loop.py $(if $(FASTCHESS),--fastchess $(FASTCHESS))
	$(PY) bench/throughput.py

# The mutation check of the game engines (bench/mutate.py, README "Change a rules engine"): MUTANTS
# per game sampled with a fixed seed, each run against that game's tests; tens of minutes, so not
# part of `make test`. Prints killed and survived per game and saves bench/results/mutate.json.
MUTANTS ?= 100
mutate: $(STAMP)
	$(PY) bench/mutate.py -n $(MUTANTS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .ruff_cache .mypy_cache replays sample_bots/node/node_modules sample_bots/cpp/build sample_bots/java/build
