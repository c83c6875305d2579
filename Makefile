# Lectern. Two commands matter: `make run` and `make test` (see README.md).
SHELL      := /bin/bash
SWIFT      ?= swift
RUN_DIR    ?= .run
DISPLAY_KIND ?= auto

.PHONY: deps build run test test-web bench clean format format-check

# Installs the Debian packages in board/debian-packages.txt that are missing (root or sudo).
deps:
	@board/install-deps

build: deps
	$(SWIFT) build

# Starts lecternd in the foreground on the embedded default: the virtual display when there
# is no usable /dev/dri/card*, the demo deck preloaded, a development config (passcodes
# printed) and data dir under .run/.
run: build
	@RUN_DIR=$(RUN_DIR) DISPLAY_KIND=$(DISPLAY_KIND) board/dev-run

# The web client's core (Sources/LecternService/Web/core/: protocol, wire, link, crypto,
# uploads) under Node's own test runner, each module against a fake socket (Tests/web/):
# the fast layer, run first. Node from board/debian-packages.txt (nodejs), 20.11 or later:
# the modules are the browser's plain ES modules in .js files with no package.json beside
# them, which --experimental-default-type=module loads as ES modules, as the browser does.
NODE ?= node
test-web: deps
	@command -v $(NODE) >/dev/null || { echo "test-web: node is missing: board/install-deps installs it (board/debian-packages.txt: nodejs)" >&2; exit 1; }
	@$(NODE) -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 11)) { console.error("test-web: node " + process.versions.node + " is too old: 20.11 or later"); process.exit(1); }'
	$(NODE) --experimental-default-type=module --disable-warning=ExperimentalWarning --test Tests/web/*.test.mjs

# Every test: the web client's core under node (test-web), then unit, pixel, service over
# real sockets. The whole log is kept in .build/test-output/test.log; when something fails,
# the failures are repeated at the end (CI shows only the tail of the output).
test: deps format-check test-web
	$(SWIFT) build --build-tests
	@mkdir -p .build/test-output
	@set -o pipefail; $(SWIFT) test --skip-build 2>&1 | tee .build/test-output/test.log; rc=$$?; \
	  if [ $$rc -ne 0 ]; then \
	    echo "== what failed (whole log: .build/test-output/test.log) =="; \
	    grep -E ': error: |failed \(|Fatal error|Exited with (signal|unexpected)|Crash' .build/test-output/test.log | tail -40; \
	  fi; exit $$rc

# The web remote through Wi-Fi outages of 3, 12, 20 and 40 s (make test runs 3 and 12 s).
.PHONY: test-outages
test-outages: deps
	$(SWIFT) build --build-tests
	LECTERN_OUTAGES=3,12,20,40 $(SWIFT) test --skip-build --filter LecternWebTests.OutageTests

# The house layout (.swift-format: 4 spaces, lines up to 180, no lint rules): `make format`
# rewrites the tree, `make format-check` (part of `make test`) fails on any file it would change.
FORMATTED := Sources Tests Package.swift
format:
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

format-check:
	@out=$$($(SWIFT) format lint --strict --recursive $(FORMATTED) 2>&1); rc=$$?; \
	  if [ $$rc -ne 0 ] || [ -n "$$out" ]; then echo "$$out" | head -40; \
	    echo "format-check: these files are not in the house layout: run 'make format' (.swift-format)"; exit 1; fi; \
	  echo "format-check: the tree is formatted"

# Benchmarks, each against its reference tool in the same run (release build).
bench: deps
	$(SWIFT) build -c release --product lectern-bench
	$(SWIFT) build -c release --product lecternd
	.build/release/lectern-bench

clean:
	rm -rf .build $(RUN_DIR)

# The Debian package: release binaries with the Swift runtime linked in (-static-stdlib,
# so the board needs no toolchain), then board/deb/build-deb into out/.
# DEB_SCRATCH picks the build directory, DEB_FLAGS adds build-deb options (--version V).
DEB_SCRATCH ?= .build
DEB_FLAGS   ?=
.PHONY: deb
deb: deps
	$(SWIFT) build -c release --scratch-path $(DEB_SCRATCH) -Xswiftc -static-stdlib --product lecternd
	$(SWIFT) build -c release --scratch-path $(DEB_SCRATCH) -Xswiftc -static-stdlib --product lectern
	@deb=$$(board/deb/build-deb --bindir $(DEB_SCRATCH)/release --out out --strip $(DEB_FLAGS)) && \
	  dpkg-deb --info "$$deb" | sed -n '/Package:/,/Depends:/p' && echo "deb: $$deb"

# The appliance image (docs/image.md): the release package (as make deb, uncompressed:
# it is unpacked into the image at once), then board/image/build-image: Debian 12 from
# mmdebstrap with systemd, the kernel, Avahi and the package, an ext4 root file system
# image with its kernel and initramfs, in $(IMAGE_CACHE)/current/. Built again only when
# an input changed (the package's contents, board/image/, the site config).
# IMAGE_SITE_CONFIG=FILE bakes a lectern.toml fragment in (the room, its passcodes).
IMAGE_CACHE       ?= .build-image
IMAGE_SITE_CONFIG ?=
.PHONY: image
image: deps
	$(SWIFT) build -c release --scratch-path $(DEB_SCRATCH) -Xswiftc -static-stdlib --product lecternd
	$(SWIFT) build -c release --scratch-path $(DEB_SCRATCH) -Xswiftc -static-stdlib --product lectern
	@deb=$$(board/deb/build-deb --bindir $(DEB_SCRATCH)/release --out $(IMAGE_CACHE)/deb --strip --compress none) && \
	  board/image/build-image --deb "$$deb" --cache $(IMAGE_CACHE) $(if $(IMAGE_SITE_CONFIG),--site-config $(IMAGE_SITE_CONFIG))
