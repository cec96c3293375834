# Coinflip — the two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test venv dev-venv migrate bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Runtime dependencies (stamp file so a requirements change reinstalls).
$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

venv: $(VENV)/.runtime
dev-venv: $(VENV)/.dev

migrate: venv
	$(BIN)/python manage.py migrate --noinput

## run: set up, create the demo surveys, and start web, Celery worker and beat on the embedded default
##      (SQLite + filesystem broker).
run: migrate
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	$(BIN)/python manage.py demo
	@echo "Coinflip on http://127.0.0.1:$${COINFLIP_PORT:-8000}/  (API docs: /api/docs/, admin: /admin/)"
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/honcho start -f Procfile

## test: install the dev requirements and run every test.
test: dev-venv
	$(BIN)/python -m pytest

## bench: the frequency-oracle benchmark against pure-ldp and multi-freq-ldpy (own venv: bench/.venv).
BENCH_VENV := bench/.venv
$(BENCH_VENV)/.installed: requirements-bench.txt requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet -r requirements-bench.txt
	touch $@

bench: $(BENCH_VENV)/.installed
	$(BENCH_VENV)/bin/python -m bench.oracles

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .hypothesis

## vendor: refresh the front-end libraries in static/vendor/ from the npm registry (exact versions in package.json and
##         package-lock.json; the pages load only these committed copies, never a CDN). Commit what changes.
.PHONY: vendor
VENDOR_CHARTJS := static/vendor/chart.js
vendor:
	npm ci --ignore-scripts --no-audit --no-fund
	mkdir -p $(VENDOR_CHARTJS)
	cp node_modules/chart.js/dist/chart.umd.min.js node_modules/chart.js/dist/chart.umd.min.js.map \
	   node_modules/chart.js/LICENSE.md $(VENDOR_CHARTJS)/

## bench-load: the load benchmark — 60 s of report POSTs of every mechanism against gunicorn + PostgreSQL + Redis,
##             exactly-once checks, and the same stream on a plain-Django floor (bench/load/README.md).
.PHONY: bench-load
bench-load: venv
	$(BIN)/python -m bench.load
