# PushAttach. `make test` and `make demo` set everything up on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
DEBS := libturbojpeg0-dev libpng-dev libwebp-dev libcurl4-openssl-dev pkg-config
CONFIG ?= debug

.PHONY: all deps build release test demo memory-check bench compare format clean

all: build

# Install the Debian packages that are missing: apt-get as root, sudo otherwise.
deps:
	@missing=""; for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "make: installing missing Debian packages:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "make: cannot install$$missing: not root and no password-less sudo."; \
	     echo "      Run: sudo apt-get install$$missing   then run make again."; exit 1; fi

build: deps
	$(SWIFT) build -c $(CONFIG)

release: deps
	$(SWIFT) build -c release

# Unit, conformance and end-to-end tests (debug), then the release build's smoke test.
# The network and pipeline suites run in their own process: their deadlines are wall-clock,
# and the CPU-bound codec and engine suites would otherwise starve the 2-core cooperative pool.
NET_TESTS := FetchTests|PipelineTests|CLITests
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(NET_TESTS)'
	$(SWIFT) test --skip-build --filter '$(NET_TESTS)'
	$(SWIFT) build -c release --product pushattach
	./Scripts/release-smoke.sh

# Serve TestImages/ on loopback and prepare demo/attachments.txt into .build/demo.
demo: deps
	$(SWIFT) build -c release --product pushattach
	./demo/run.sh

# Peak RSS of prepare on 10,000 small images and on an endless body (see Scripts/memory-check.sh).
memory-check: deps
	$(SWIFT) build -c release --product pushattach
	./Scripts/memory-check.sh

# Benchmarks: never part of `make test`. `bench` runs pushattach-bench on the corpus photos
# (../shared/corpus/photos, else TestImages/); `compare` runs it side by side with libvips,
# Pillow, ImageMagick and the TurboJPEG floor (sets up Benchmarks/.venv on first use).
BENCH_ARGS ?=
bench: deps
	$(SWIFT) build -c release --product pushattach-bench
	.build/release/pushattach-bench $(BENCH_ARGS)

compare: deps
	$(SWIFT) build -c release --product pushattach-bench
	Benchmarks/compare $(BENCH_ARGS)

format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format Sources Tests Benchmarks

clean:
	rm -rf .build
