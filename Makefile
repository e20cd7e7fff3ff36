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

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest

run: $(STAMP)
	$(PY) main.py

clean:
	rm -rf $(VENV) build *.egg-info
