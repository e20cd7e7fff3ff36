# The two commands of README: `make test` and `make run`. Both set everything up from nothing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test run setup clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,train]'
	touch $(STAMP)

setup: $(STAMP)

# Qt's own libraries come with PySide6; the system libraries its platform plugin links do not:
# scripts/qt_system_libs.py installs them (root or sudo, apt-get) or names the command to run.
# The linter first (ruff.toml says what it checks), then the tests.
test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) scripts/qt_system_libs.py offscreen
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

run: $(STAMP)
	$(PY) scripts/qt_system_libs.py xcb
	$(PY) main.py

clean:
	rm -rf $(VENV) build *.egg-info
