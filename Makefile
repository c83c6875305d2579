# Lectern. Two commands matter: `make run` and `make test` (see README.md).
SWIFT      ?= swift
RUN_DIR    ?= .run
DISPLAY_KIND ?= auto

.PHONY: deps build run test bench clean

# Installs the Debian packages in board/debian-packages.txt that are missing (root or sudo).
deps:
	@board/install-deps

build: deps
	$(SWIFT) build

# Starts lecternd in the foreground on the embedded default: the virtual display when there
# is no usable /dev/dri/card*, the demo deck preloaded, a development data dir under .run/.
run: build
	@mkdir -p $(RUN_DIR)/data
	.build/debug/lecternd --display $(DISPLAY_KIND) --data-dir $(RUN_DIR)/data \
	  --room "Lectern demo room" --preload board/demo/demo-deck.pdf

# Every test: unit, pixel, service over real sockets.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Benchmarks, each against its reference tool in the same run (release build).
bench: deps
	$(SWIFT) build -c release --product lectern-bench
	.build/release/lectern-bench

clean:
	rm -rf .build $(RUN_DIR)
