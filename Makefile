# quakes: two commands on a fresh machine.
#   make demo   build, load the bundled sample, and query it
#   make test   run the test suite
SWIFT ?= swift
STORE ?= $(CURDIR)/.build/demo.store
Q = .build/release/quakes

.PHONY: demo test deps pydeps tools build sample clean fuzz trials install
PREFIX ?= /usr/local

deps:
	@pkg-config --exists libzstd || { echo "installing libzstd-dev"; \
	  (apt-get update -qq && apt-get install -y -qq libzstd-dev pkg-config) >/dev/null || \
	  { echo "could not install libzstd-dev; install it with your package manager"; exit 1; }; }

build: deps
	$(SWIFT) build -c release --static-swift-stdlib --product quakes

# DuckDB and pyarrow from PyPI read the Parquet and Arrow output in the tests.
VENV = $(CURDIR)/.build-venv
pydeps:
	@test -x $(VENV)/bin/python && $(VENV)/bin/python -c 'import duckdb, pyarrow' 2>/dev/null || { \
	  python3 -m venv $(VENV) 2>/dev/null || { (apt-get update -qq && apt-get install -y -qq python3-venv) >/dev/null && \
	    python3 -m venv $(VENV); }; \
	  $(VENV)/bin/pip install -q --disable-pip-version-check duckdb pyarrow; }

# Tools the tests drive: tmux (the progress line in a real terminal), rsvg-convert (the SVG map).
tools:
	@command -v tmux >/dev/null && command -v rsvg-convert >/dev/null || { echo "installing tmux and librsvg2-bin"; \
	  (apt-get update -qq && apt-get install -y -qq tmux librsvg2-bin) >/dev/null || \
	  { echo "could not install tmux and librsvg2-bin; install them with your package manager"; exit 1; }; }

# Release mode: the tests compare kernels with naive references over real and generated data.
test: deps pydeps tools
	QUAKES_PYTHON=$(VENV)/bin/python $(SWIFT) test -c release -Xswiftc -enable-testing

demo: build
	@rm -rf $(STORE)
	$(Q) load --store $(STORE) data/csv
	$(Q) load --store $(STORE) data/geojson
	$(Q) info --store $(STORE)
	$(Q) verify --store $(STORE)
	$(Q) count --store $(STORE) --min-mag 4.5
	$(Q) query --store $(STORE) --day 2024-06-15 --sort mag:desc --limit 5 --fields time,mag,place
	$(Q) query --store $(STORE) --place-like 'pahala' --sort time:desc --limit 5 --fields time,mag,place
	$(Q) agg --store $(STORE) --from 2024-01-01 --to 2025-01-01 --by month --metrics 'count,avg(mag),max(mag)'
	$(Q) agg --store $(STORE) --by net --metrics 'count,avg(mag),max(depth)' --sort count:desc
	$(Q) history --store $(STORE)
	$(Q) history 2 --store $(STORE) --limit 5
	$(Q) count --store $(STORE) --changed-since 1
	$(Q) query --store $(STORE) --min-mag 2.5 --format svg --region fit --out .build/demo-map.svg
	@echo "map of the M2.5+ events: .build/demo-map.svg"

# libFuzzer harnesses, FUZZ_SECONDS each (default 1800); not part of CI. See Fuzz/README.md.
fuzz: deps
	bash Fuzz/run.sh

# Crash, corruption and concurrency trials against real feeds; not part of CI.
trials: build
	bash Benchmarks/trials/run.sh

# Regenerates the bundled sample (deterministic).
sample: build
	rm -rf data/csv data/geojson
	$(Q) generate --rows 6000 --file-rows 3000 --overlap 0.05 --years 2023-2025 --out data/csv --seed 7
	$(Q) generate --rows 6000 --file-rows 3000 --overlap 0.05 --years 2023-2025 --out data/geojson --format geojson --compress gz --seed 7

# Puts quakes on the PATH: make install PREFIX=$$HOME/.local
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(Q) $(DESTDIR)$(PREFIX)/bin/quakes

clean:
	rm -rf .build
