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

## test: install the dev requirements, lint, and run every test.
test: lint
	$(BIN)/python -m pytest

## lint: ruff (pyflakes, isort, pycodestyle, bugbear) over the project, mypy over the engine (settings in
##       pyproject.toml), and `node --check` over every JavaScript module and JavaScript test.
JS_FILES = $(shell find static/js tests -name '*.mjs' -not -path '*/node_modules/*' | sort)
lint: dev-venv
	@status=0; \
	echo "ruff check ."; $(BIN)/ruff check . || status=1; \
	echo "mypy"; $(BIN)/mypy || status=1; \
	echo "node --check static/js tests"; \
	for f in $(JS_FILES); do node --check "$$f" || status=1; done; \
	echo "$(words $(JS_FILES)) JavaScript modules checked"; \
	exit $$status

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
# @cloudflare/blindrsa-ts (RFC 9474 blind signatures, credential.mjs): its published ES modules run unbundled in
# browsers (WebCrypto) and node; it ships its own ESM build of SJCL in lib/src/sjcl/, whose licence we copy from sjcl.
VENDOR_BLINDRSA := static/vendor/blindrsa-ts
BLINDRSA_SRC := node_modules/@cloudflare/blindrsa-ts
# @hpke/core + @hpke/common (RFC 9180 HPKE, WebCrypto) and bhttp-js (RFC 9292 binary HTTP): static/js/ohttp.mjs, the
# page's Oblivious HTTP client (RFC 9458). Their published ES modules (esm/, .js only) run unbundled; @hpke/core
# names @hpke/common by its package name, which the randomizer's module graph does not resolve
# (survey_app/integrity.py follows relative imports only), so that one specifier is rewritten to the relative path
# of the vendored copy. Nothing else in the files changes; TypeScript's empty type-only modules are left out.
VENDOR_HPKE_CORE := static/vendor/hpke-core
VENDOR_HPKE_COMMON := static/vendor/hpke-common
VENDOR_BHTTP := static/vendor/bhttp-js
# axe-core: the accessibility checker tests/browser/test_accessibility.py adds to the pages (no page loads it).
VENDOR_AXE := static/vendor/axe-core
vendor:
	npm ci --ignore-scripts --no-audit --no-fund
	mkdir -p $(VENDOR_CHARTJS)
	cp node_modules/chart.js/dist/chart.umd.min.js node_modules/chart.js/dist/chart.umd.min.js.map \
	   node_modules/chart.js/LICENSE.md $(VENDOR_CHARTJS)/
	rm -rf $(VENDOR_BLINDRSA)
	mkdir -p $(VENDOR_BLINDRSA)/sjcl
	cp $(BLINDRSA_SRC)/lib/src/*.js $(BLINDRSA_SRC)/LICENSE.txt $(VENDOR_BLINDRSA)/
	# The modules join the survey page's randomizer (survey_app/integrity.py): without their sourceMappingURL comment,
	# which collectstatic's manifest storage would rewrite, so the served files are byte for byte the ones hashed here.
	sed -i '/^\/\/# sourceMappingURL=/d' $(VENDOR_BLINDRSA)/*.js
	cp $(BLINDRSA_SRC)/lib/src/sjcl/index.js $(VENDOR_BLINDRSA)/sjcl/
	cp node_modules/sjcl/LICENSE.txt $(VENDOR_BLINDRSA)/sjcl/
	printf '{"type": "module"}\n' > $(VENDOR_BLINDRSA)/package.json  # node: these .js files are ES modules
	rm -rf $(VENDOR_HPKE_CORE) $(VENDOR_HPKE_COMMON) $(VENDOR_BHTTP)
	for pkg in @hpke/core:$(VENDOR_HPKE_CORE) @hpke/common:$(VENDOR_HPKE_COMMON) bhttp-js:$(VENDOR_BHTTP); do \
	  src=node_modules/$${pkg%%:*}; dst=$${pkg#*:}; \
	  mkdir -p $$dst; (cd $$src/esm && find . -name '*.js' -exec cp --parents {} $(CURDIR)/$$dst/ \;); \
	  cp $$src/LICENSE $$dst/; printf '{"type": "module"}\n' > $$dst/package.json; \
	done
	sed -i '/^\/\/# sourceMappingURL=/d' $$(find $(VENDOR_HPKE_CORE) $(VENDOR_HPKE_COMMON) $(VENDOR_BHTTP) -name '*.js')
	# TypeScript's type-only modules (`export {};`), which no module imports, are left out.
	for f in $$(find $(VENDOR_HPKE_CORE) $(VENDOR_HPKE_COMMON) $(VENDOR_BHTTP) -name '*.js'); do \
	  if [ "$$(cat "$$f")" = "export {};" ]; then rm "$$f"; fi; done
	for f in $$(grep -rl '"@hpke/common"' $(VENDOR_HPKE_CORE) --include='*.js'); do \
	  rel=$$(realpath --relative-to="$$(dirname "$$f")" $(VENDOR_HPKE_COMMON)/mod.js); \
	  sed -i "s#from \"@hpke/common\"#from \"$$rel\"#" "$$f"; done
	mkdir -p $(VENDOR_AXE)
	cp node_modules/axe-core/axe.min.js node_modules/axe-core/LICENSE node_modules/axe-core/LICENSE-3RD-PARTY.txt \
	   $(VENDOR_AXE)/

## bench-load: the load benchmark — 60 s of report POSTs of every mechanism against what compose ships (Caddy →
##             gunicorn 2 × 4 threads → PostgreSQL, Redis, a Celery worker folding), exactly-once checks, and the same
##             stream on a plain-Django floor through the same Caddy (bench/load/README.md; needs /usr/bin/caddy).
.PHONY: bench-load
bench-load: venv
	$(BIN)/python -m bench.load
