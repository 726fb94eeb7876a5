# One-line entry points; README's two commands are `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
export PREFECT_SERVER_ANALYTICS_ENABLED := false

.PHONY: setup demo test lint bench

setup:
	scripts/setup.sh

demo: setup
	@if [ -d ../shared/data/webpages ]; then $(VENV)/bin/panda research ingest ../shared/data/webpages; \
	else echo "../shared/data/webpages not found: research turns will find no pages"; fi
	$(VENV)/bin/panda run data/samples/turns.jsonl
	$(VENV)/bin/panda search "hamster" --user alice --limit 3
	$(VENV)/bin/panda check

# A bare clone has no .venv yet: `make test` (or lint, bench) sets it up first instead of failing.
$(PY):
	scripts/setup.sh

test: $(PY)
	$(PY) -m pytest -q

lint: $(PY)
	$(VENV)/bin/ruff check panda flows tests benchmarks
	$(VENV)/bin/mypy panda

bench: $(PY)
	$(PY) benchmarks/search_latency.py
	$(PY) benchmarks/pipeline_throughput.py
	$(PY) benchmarks/ingest_throughput.py
