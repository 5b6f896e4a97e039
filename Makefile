# quakes: two commands on a fresh machine.
#   make demo   build, load the bundled sample, and query it
#   make test   run the test suite
SWIFT ?= swift
STORE ?= $(CURDIR)/.build/demo.store
Q = .build/release/quakes

.PHONY: demo test deps pydeps tools build order sample clean fuzz trials race install docs figures
PREFIX ?= /usr/local

deps:
	@pkg-config --exists libzstd && pkg-config --exists zlib || { echo "installing libzstd-dev and zlib1g-dev"; \
	  (apt-get update -qq && apt-get install -y -qq libzstd-dev zlib1g-dev pkg-config) >/dev/null || \
	  { echo "could not install libzstd-dev and zlib1g-dev; install them with your package manager"; exit 1; }; }
	@test -f /usr/share/cartopy/data/shapefiles/gshhs/c/GSHHS_c_L1.shp || { echo "installing python-cartopy-data (coastlines)"; \
	  (apt-get update -qq && apt-get install -y -qq python-cartopy-data) >/dev/null || \
	  echo "could not install python-cartopy-data: maps draw a graticule only"; }

# A static binary, so that a one-shot query loads no shared library. Concrete generic types reach
# their metadata through accessor calls, not by demangling their names at run time
# (-disable-concrete-type-metadata-mangled-name-accessors): a one-shot `quakes query` instantiates
# hundreds of such types once each, and demangling them was a sixth of its samples and a quarter
# of its CPU time (Benchmarks/RESULTS.md, "Start-up without demangling").
#
# Each function has a section of its own (-function-sections), and the linker (gold) puts the ones
# that one-shot commands run side by side, in the order of $(ORDER). That file is written on the
# first build by Tools/order/order.sh (valgrind's callgrind over `make demo`'s commands), and the
# binary is linked again with it. A one-shot day page faults in 272 pages instead of 368 and runs
# in 1.9 ms instead of 2.8 (Benchmarks/RESULTS.md, "An order file"). `make order` writes it anew.
ORDER = $(CURDIR)/.build/quakes.order
RELEASE = -c release --static-swift-stdlib -Xswiftc -static-executable \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
  -Xswiftc -Xfrontend -Xswiftc -function-sections -Xlinker --section-ordering-file=$(ORDER)
build: deps
	@mkdir -p .build && touch $(ORDER)
	$(SWIFT) build $(RELEASE) --product quakes
	@if [ ! -s $(ORDER) ]; then \
	  if bash Tools/order/order.sh $(Q) $(ORDER).new && mv $(ORDER).new $(ORDER); then \
	    rm -f $(Q) && $(SWIFT) build $(RELEASE) --product quakes; \
	  else rm -f $(ORDER).new; echo "no link order written (is valgrind installed?): the binary is linked unordered"; fi; \
	fi

order:
	rm -f $(ORDER)
	$(MAKE) build

# From PyPI for the tests: DuckDB and pyarrow read the Parquet and Arrow output; ObsPy's FDSN
# client and Selenium (driving Debian's chromium) talk to quakes serve.
VENV = $(CURDIR)/.build-venv
pydeps:
	@test -x $(VENV)/bin/python && $(VENV)/bin/python -c 'import duckdb, pyarrow, obspy, selenium' 2>/dev/null || { \
	  test -x $(VENV)/bin/python || python3 -m venv $(VENV) 2>/dev/null || \
	    { (apt-get update -qq && apt-get install -y -qq python3-venv) >/dev/null && python3 -m venv $(VENV); }; \
	  $(VENV)/bin/pip install -q --disable-pip-version-check duckdb pyarrow obspy selenium; }

# Tools the tests drive: tmux (the progress line in a real terminal), rsvg-convert (the SVG map),
# chromium and chromedriver (the page in a real browser).
tools:
	@command -v tmux >/dev/null && command -v rsvg-convert >/dev/null && command -v chromium >/dev/null && \
	  command -v chromedriver >/dev/null || { echo "installing tmux, librsvg2-bin, chromium and chromium-driver"; \
	  (apt-get update -qq && apt-get install -y -qq tmux librsvg2-bin chromium chromium-driver) >/dev/null || \
	  { echo "could not install tmux, librsvg2-bin, chromium and chromium-driver; install them with your package manager"; exit 1; }; }

# Release mode: the tests compare kernels with naive references over real and generated data.
# They build in .build-test, so the static, fast .build/release/quakes of `make demo` stays as it is
# (a test build is dynamically linked, with -enable-testing). `-assert-config Debug` keeps the
# bounds asserts of the byte handles (Bytes/) and the SAFETY blocks on in the optimised test build.
# Then an app's own package (Examples/AppPackage) builds against QuakeStore and runs its tests,
# after compiling every ```swift block of the README and the DocC articles (those that import
# QuakeSync against this test build's modules).
TESTBUILD = $(CURDIR)/.build-test
test: deps pydeps tools
	QUAKES_PYTHON=$(VENV)/bin/python $(SWIFT) test -c release -Xswiftc -enable-testing -Xswiftc -assert-config -Xswiftc Debug \
	  --scratch-path $(TESTBUILD)
	SWIFT=$(SWIFT) QUAKES_SYNC_BUILD=$(TESTBUILD)/release sh Examples/AppPackage/run.sh

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
	@echo "browse it and fetch it over FDSN:  $(Q) serve --store $(STORE)   (then open http://127.0.0.1:8080/)"

# QuakeStore's documentation (DocC, through swift-docc-plugin); any docc warning fails it.
# The archive lands in .build-docs/plugins/Swift-DocC/outputs/QuakeStore.doccarchive.
docs: deps
	.ci/docs

# libFuzzer harnesses, FUZZ_SECONDS each (default 1800); not part of CI. See Fuzz/README.md.
fuzz: deps
	bash Fuzz/run.sh

# The concurrent suites under ThreadSanitizer (debug build in .build-tsan); not part of CI. The CLI
# the end-to-end tests start is instrumented too, and exits 66 on a race.
RACE = BoundedChannelTests|BoundedChannelEndTests|PieceChannelTests|PartitionPrefetchTests|SplitParseTests|SplitParseGeoJSONTests|\
  DirectPartitionsTests|ResultsObserverTests|LibraryStoreTests|ReliabilityTests|LoadCommandTests|WatchTests|\
  FDSNServiceTests|PageServiceTests|ResponseCacheTests
race: deps
	$(SWIFT) build --sanitize=thread --build-tests --scratch-path $(CURDIR)/.build-tsan
	TSAN_OPTIONS=halt_on_error=0 $(SWIFT) test --skip-build --sanitize=thread --scratch-path $(CURDIR)/.build-tsan \
	  --filter '$(RACE)'

# Crash, corruption and concurrency trials against real feeds; not part of CI.
trials: build
	bash Benchmarks/trials/run.sh

# The documents' figure: the frequency-magnitude distribution of the bundled sample, drawn by
# `quakes fmd --format svg` into docs/images/fmd-sample.svg (README.md shows it).
FIGURES_STORE = $(CURDIR)/.build/figures.store
figures: build
	@rm -rf $(FIGURES_STORE)
	$(Q) load --store $(FIGURES_STORE) data/csv data/geojson
	@mkdir -p docs/images
	$(Q) fmd --store $(FIGURES_STORE) --format svg --out docs/images/fmd-sample.svg

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
	rm -rf .build .build-docs
