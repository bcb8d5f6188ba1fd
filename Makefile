# Two entry points for a fresh machine: `make run` (the main job) and `make test`.
# Each creates the local virtual environment .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
CHECK_PYTHON := $(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python >= 3.11 is required")'

.PHONY: run demo test test-slow install lint bench screenshots clean pi-check

$(STAMP): pyproject.toml
	@$(CHECK_PYTHON)
	@# A venv without ensurepip's old pip, given a current one by this Python's own pip
	@# (1.6 s against 7 s); where that pip is missing or older than --python, the usual way.
	$(PYTHON) -m venv --without-pip $(VENV) && \
	  $(PYTHON) -m pip --python $(BIN)/python install --quiet --no-compile pip 2>/dev/null || \
	  { $(PYTHON) -m venv $(VENV) && $(BIN)/python -m pip install --quiet --upgrade pip; }
	@# --no-compile: Python compiles a module's bytecode when first imported; compiling
	@# all 290 MB of the tools up front took 6 s, mostly for modules nothing imports.
	@# make test's compiled engine (see test) needs only mypyc and setuptools: installed first,
	@# its build starts here, on the core pip's unpacking of the rest leaves idle.
	$(if $(filter test,$(MAKECMDGOALS)),$(BIN)/python -m pip install --quiet --no-compile \
	  'mypy>=1.10' 'setuptools>=68' && \
	  { $(BIN)/python tools/compiled_engine.py --for-tests > $(VENV)/compiled-engine.log 2>&1 & })
	@# The editable install's one warning (folders named like the packages, which is how a
	@# checkout is) is said in ten lines of stars: left out.
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet \
	  --no-compile -e '.[dev]'
	@touch $(STAMP)

# For running, not developing (a club's Pi): the referee and its firmware tools into .venv,
# without the test and lint tools, and not editable, so the engine is compiled where this
# machine can (setup.py; pure Python where it cannot). Run it again after `git pull` to update:
# journals live in the state folder, never in the checkout. (-P: ask the installed engine, not
# the checkout's sources in the working directory.)
install:
	@$(CHECK_PYTHON)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet '.[firmware]'
	@rm -f $(STAMP)
	@$(BIN)/python -P -c 'import engine.game as g; print("installed; the engine is", "compiled" if g.__file__.endswith(".so") else "pure Python", end="")'; \
	  why=$$($(BIN)/python -P -c 'import engine.game as g; g.__file__.endswith(".so") or print("pure")'); \
	  if [ -n "$$why" ]; then why=$$($(BIN)/python setup.py --why-pure 2>/dev/null); fi; \
	  if [ -n "$$why" ]; then echo ": $$why"; else echo; fi

# make run EMULATE=chip plays on the board's UF2 on an emulated RP2040 (EMULATE=firmware: the
# firmware in MicroPython's Unix port); the default is the fast Python board. ARGS="..." passes
# options to board-referee run: make run ARGS="--game vanguard --kiosk 127.0.0.1:8090".
EMULATE ?= python
ARGS ?=
run: $(STAMP)
	@if [ "$(EMULATE)" = chip ]; then tools/ensure-chip.sh; fi
	$(BIN)/board-referee run --emulate $(EMULATE) $(ARGS)

demo: $(STAMP)
	$(BIN)/board-referee demo

# The suite starts some 300 Python processes (referees, emulators, commands): with
# PYTHONDONTWRITEBYTECODE set, as on some machines, each compiled every module it imports
# again. make test lets Python keep its bytecode (__pycache__, ignored by git).
TEST_WORKERS ?= 4
test: export PYTHONDONTWRITEBYTECODE :=
test: $(STAMP)
	@# The compiled engine's build for its tests (a minute of one core) starts first, beside
	@# the installs and lint below; the suite's fixture waits for it (tools/compiled_engine.py).
	@# When this run made the venv, the build is under way already: this one waits on its lock.
	@$(BIN)/python tools/compiled_engine.py --for-tests >> $(VENV)/compiled-engine.log 2>&1 &
	tools/ensure-chromium.sh
	tools/ensure-chip.sh
	$(BIN)/python tools/compile_firmware.py
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@# mypy (a single core's 12 s, cold) beside the tests, its verdict said after theirs.
	@# Four workers on two cores: the end-to-end tests spend much of their time waiting on
	@# settle windows and hands (six were no quicker, and the club's timing less sure).
	@$(BIN)/mypy > $(VENV)/mypy.log 2>&1 & checking=$$!; \
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist worksteal --durations=10; tests=$$?; \
	wait $$checking; typed=$$?; cat $(VENV)/mypy.log; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# What make test leaves out for its six minutes: the soak runs, and the emulated chip's tests
# whose firmware code make test runs on the Unix port (every game's board on the chip, the
# board check, the table, a wrong LED count, hostile bytes), and the misbehaving table's
# hands on the firmware in MicroPython (its games, noise and faults are in make test).
# Before a firmware change lands.
test-slow: export PYTHONDONTWRITEBYTECODE :=
test-slow: $(STAMP)
	tools/ensure-chromium.sh
	tools/ensure-chip.sh
	$(BIN)/python tools/compile_firmware.py
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist worksteal -m slow

# The product as a club gets it (docs/raspberry-pi.md, "How this page is checked"): a Debian
# root booted with systemd, the recipe followed as written, a club evening, the kiosk screen
# on a Wayland compositor, and the install on arm64 under qemu-user. As root (it mounts and
# boots a system); its images are cached in ~/.cache/board-referee/pi-check.
# PI_CHECK="--part evening --no-arm64" runs a part.
PI_CHECK ?=
pi-check: $(STAMP)
	tools/ensure-pi-tools.sh
	tools/ensure-chromium.sh
	$(if $(filter 0,$(shell id -u)),,sudo) $(BIN)/python tools/pi_check.py $(PI_CHECK)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python tools/bench_engine.py

screenshots: $(STAMP)
	tools/ensure-chromium.sh
	$(BIN)/python tools/screenshots.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
