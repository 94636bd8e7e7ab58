# PushAttach. `make test` and `make demo` set everything up on a fresh Debian machine.
SHELL := /bin/bash
SWIFT ?= swift
DEBS := libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libwebp-dev libcurl4-openssl-dev pkg-config \
	libheif-dev libgif-dev libimagequant-dev liblcms2-dev libmicrohttpd-dev libisal-dev libdeflate-dev libssl-dev
# Only for the tests: the HTML report is checked in a real (headless) browser.
TEST_DEBS := chromium
CONFIG ?= debug

# The version, from the one place it is written (ReleaseVersion.current, the library's
# PushAttachVersion.current): the package's and the
# image's names, and what `pushattach --version` must say.
VERSION := $(shell sed -n 's/^ *package static let current = "\(.*\)"$$/\1/p' Sources/MediaTypes/Release/ReleaseVersion.swift)

.PHONY: all deps build release check test conformance demo memory-check bench compare serve-bench serve-cdn-check format clean fuzz census test-asan test-tsan docs scale-demo stress deb deb-check image

all: build

# Install the Debian packages that are missing: apt-get as root, sudo otherwise.
deps:
	@missing=""; for p in $(DEBS) $(EXTRA_DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
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

# The JPEG suites, run a second time by `make test` with the own JPEG decoding off
# (PUSHATTACH_JPEG_DECODER=libjpeg: libjpeg-turbo decodes alone), then Scripts/jpeg-fence-check:
# the build stops with a message against a libjpeg-turbo other than 2.1.x.
JPEG_TESTS := JPEG|ValidationByDC|PlanarTranscode|CMYK
# The build's output is kept (.build/build-tests.log) and no warning of Sources/ may be in it
# (Scripts/warnings-check). Every suite (debug) in one process, the JPEG suites again with the own JPEG decoding off, the
# JPEG fence, the proof that only the planner makes a refusal or an UNErrorCode and nothing reads
# a reason back (Scripts/decision-sites), the proof that every suite of the modules left to
# `make test` is tagged `.slow` and skipped in the fast tier (Scripts/test-tier-check), the count
# of undocumented public symbols (zero, from the symbol graphs) and the DocC archives with zero docc warnings (Scripts/docs), every Swift sample of the docs found verbatim in Examples/Sources/DocSnippets
# (which the Examples build compiles), the proof
# that the command line uses the public library only, the proofs that PushAttachExtension imports
# no C module and that its UserNotifications glue type-checks against Apple's documented
# signatures, the serve unit's lint, then the release build's smoke test and the Examples/
# programs. Reads nothing outside the repository: the corpus-driven suites run over
# TestImages/conformance (PUSHATTACH_CORPUS unset).
test:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(TEST_DEBS)"
	mkdir -p .build; set -o pipefail; $(SWIFT) build --build-tests 2>&1 | tee .build/build-tests.log
	./Scripts/warnings-check .build/build-tests.log
	env -u PUSHATTACH_CORPUS PUSHATTACH_REQUIRE_CHROMIUM=1 $(SWIFT) test --skip-build
	env -u PUSHATTACH_CORPUS PUSHATTACH_JPEG_DECODER=libjpeg $(SWIFT) test --skip-build --filter '$(JPEG_TESTS)'
	./Scripts/jpeg-fence-check
	./Scripts/decision-sites --check >/dev/null
	./Scripts/test-tier-check
	./Scripts/docs
	./Scripts/doc-snippets-check >/dev/null || ./Scripts/doc-snippets-check
	./Scripts/public-api-check
	SWIFT=$(SWIFT) ./Scripts/extension-imports-check
	./Scripts/extension-glue-check
	./Scripts/check-unit
	$(SWIFT) build -c release --product pushattach
	./Scripts/release-smoke.sh
	SWIFT=$(SWIFT) ./Examples/run-examples.sh

# Install without Swift (docs/INSTALL.md). `deb`: .build/deb/pushattach_VERSION_ARCH.deb, the Swift
# runtime linked in, Depends: from dpkg-shlibdeps, linted by lintian (Scripts/make-deb, the recipe
# in packaging/debian/). `deb-check`: that package installed with apt into a fresh minimal Debian
# 12 root (mmdebstrap, cached in .build/deb-check) and run there (Scripts/deb-check; root, and
# Debian's mirror). `image`: an OCI archive of the same root with the package, serve as the entry
# point (Scripts/make-image), then its check: run by podman where podman can, else by chroot into
# its root filesystem (Scripts/image-check). Neither check is part of `make test`.
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_FILE = .build/deb/pushattach_$(VERSION)_$(DEB_ARCH).deb
IMAGE_FILE = .build/image/pushattach_$(VERSION)_$(DEB_ARCH).oci.tar
DEB_DEBS := dpkg-dev lintian
DEB_CHECK_DEBS := mmdebstrap curl python3
IMAGE_DEBS := mmdebstrap curl python3 podman runc
deb:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(DEB_DEBS)"
	SWIFT=$(SWIFT) ./Scripts/make-deb $(VERSION)

deb-check:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(DEB_CHECK_DEBS)"
	@test -f $(DEB_FILE) || { echo "make deb-check: no $(DEB_FILE): run make deb first."; exit 1; }
	./Scripts/deb-check $(DEB_FILE)

image:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(IMAGE_DEBS)"
	@test -f $(DEB_FILE) || { echo "make image: no $(DEB_FILE): run make deb first."; exit 1; }
	./Scripts/make-image $(DEB_FILE)
	./Scripts/image-check $(IMAGE_FILE)

# The fast tier, for the edit-build-test loop: every suite not tagged `.slow` (Tests/TestSupport/
# TestTier.swift), about 95 s on two cores once built. A `.slow` suite also carries
# `.notInFastTier`, which skips it when PUSHATTACH_TEST_TIER=fast (Swift Testing 6.3's
# `swift test` filters by name, not by tag); Scripts/test-tier-check, run by `make test`, finds a
# suite missing either. Left to `make test`: the command line (CLITests, the binaries and
# Chromium), the pipeline (PipelineTests), the server and the extension's suites, the
# streaming-decode comparisons, the engine's animation and streaming-process suites (big GIFs,
# every corpus photo twice), its full-size camera photos and the resampler's large-reduction sweep.
check:
	$(SWIFT) build --build-tests
	env -u PUSHATTACH_CORPUS PUSHATTACH_TEST_TIER=fast $(SWIFT) test --skip-build

# The corpus-driven suites over a full external corpus: PUSHATTACH_CORPUS, default ../shared/corpus.
CORPUS ?= $(or $(PUSHATTACH_CORPUS),../shared/corpus)
CONFORMANCE_TESTS := MediaTypesTests|ImageCodecsTests|ImageEngineTests|VerificationTests|PayloadInputTests|EngineMemoryTests
conformance: deps
	@test -f "$(CORPUS)/SOURCES.md" || { echo "make conformance: no corpus at $(CORPUS) (no SOURCES.md there)."; \
	    echo "      Set PUSHATTACH_CORPUS=DIR (a folder laid out like TestImages/conformance)."; exit 1; }
	$(SWIFT) build --build-tests
	PUSHATTACH_CORPUS="$(abspath $(CORPUS))" $(SWIFT) test --skip-build --filter '$(CONFORMANCE_TESTS)'

# Serve TestImages/ on loopback and prepare demo/attachments.txt into .build/demo.
demo: deps
	$(SWIFT) build -c release --product pushattach
	./demo/run.sh

# Peak RSS of prepare for every row of issue 11 next to its target, then a summary table (see
# Scripts/memory-check.sh; MEMCHECK_ONLY=png7000,mp4 for a subset). cjpeg writes its 20 MP JPEG.
MEMCHECK_DEBS := libjpeg-turbo-progs nginx-light
memory-check:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(MEMCHECK_DEBS)"
	$(SWIFT) build -c release --product pushattach
	$(SWIFT) build -c release --product pushattach-bench
	$(SWIFT) build -c release --package-path Examples --scratch-path .build/examples --product concurrent-requests
	./Scripts/memory-check.sh

# pushattach serve side by side in one run (Benchmarks/serve/serve_bench.py): cold requests over the
# corpus photos against thumbor (PyPI, fit 2048, JPEG q85), warm hits against nginx serving the same
# bytes, a 1,000-request herd for one uncached 12 MP photo, and serve's memory under 1,000 open
# connections. All on 127.0.0.1; every process is stopped by PID. Figures: Benchmarks/RESULTS.md.
SERVE_BENCH_DEBS := nginx-light wrk curl
serve-bench:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(SERVE_BENCH_DEBS)"
	@command -v thumbor >/dev/null || python3 -m pip install --quiet thumbor
	$(SWIFT) build -c release --product pushattach
	@test -d "$(CORPUS)/photos" || { echo "make serve-bench: no photos at $(CORPUS)/photos (set PUSHATTACH_CORPUS)"; exit 1; }
	ulimit -n 20000 && python3 Benchmarks/serve/serve_bench.py --pushattach .build/release/pushattach \
	    --photos "$(CORPUS)/photos" --json .build/serve-bench.json $(SERVE_BENCH_ARGS)
	python3 Benchmarks/serve/chart.py .build/serve-bench.json .build/serve-bench.svg
	@echo "serve-bench: figures in .build/serve-bench.json, chart in .build/serve-bench.svg"

# The Varnish recipe of docs/SERVE.md, run (Benchmarks/serve/cdn_check.py): Varnish with
# docs/serve/varnish.vcl in front of two pushattach serve replicas sharing one cache folder, against a
# slow origin: a 200-request herd through it is one origin download, hits carry Age, the origin's 404
# is kept from its first answer, a 504 is not kept and its retry joins the preparation. All on
# 127.0.0.1; every process is stopped by PID. Not part of `make test`.
SERVE_CDN_DEBS := varnish
serve-cdn-check:
	@$(MAKE) --no-print-directory deps EXTRA_DEBS="$(SERVE_CDN_DEBS)"
	$(SWIFT) build -c release --product pushattach
	python3 Benchmarks/serve/cdn_check.py --pushattach .build/release/pushattach --vcl docs/serve/varnish.vcl \
	    --json .build/serve-cdn-check.json

# A sharded run under a one-node Slurm cluster (slurm-wlm, munge) started in a scratch folder:
# sbatch --array of `prepare --shard auto`, merge, checked against one process (docs/SCALE.md).
# Needs root for the daemons; skips with a message otherwise. Not part of `make test`.
SCALE_DEBS := slurm-wlm munge
scale-demo:
	@if [ "$$(id -u)" = 0 ]; then $(MAKE) --no-print-directory deps EXTRA_DEBS="$(SCALE_DEBS)"; fi
	$(SWIFT) build -c release --product pushattach
	./Scripts/scale-demo.sh

# Benchmarks: never part of `make test`. `bench` runs pushattach-bench on the corpus photos
# (BENCH_ARGS='--folder DIR', else ../shared/corpus/photos, else TestImages/conformance/photos); `compare` runs it side by side with libvips,
# Pillow, ImageMagick and the TurboJPEG floor (sets up Benchmarks/.venv on first use).
BENCH_ARGS ?=
bench: deps
	$(SWIFT) build -c release --product pushattach-bench
	.build/release/pushattach-bench $(BENCH_ARGS)

compare: deps
	$(SWIFT) build -c release --product pushattach-bench
	Benchmarks/compare $(BENCH_ARGS)

# Robustness (docs/ROBUSTNESS.md). libFuzzer harnesses and the generative `engine` harness (section 10):
# FUZZ_SECONDS each, FUZZ_TARGETS=sniffer,png to choose, FUZZ_PARALLEL harnesses at a time,
# FUZZ_ENGINE_SEED=N to start the engine harness's seeds at N.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_PARALLEL ?= 1
FUZZ_ENGINE_SEED ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" FUZZ_PARALLEL=$(FUZZ_PARALLEL) \
	    FUZZ_ENGINE_SEED="$(FUZZ_ENGINE_SEED)" SWIFT=$(SWIFT) Scripts/fuzz

# verify (and prepare, once it exists) over broken, truncated, bit-flipped and bomb inputs.
census: build
	Scripts/census

# Rare crashes and races (docs/ROBUSTNESS.md): `prepare` of the conformance set in a loop under CPU
# load, STRESS_MINUTES per build (release, then ASan, then TSan), each finding's whole stderr (every
# thread's backtrace, or the sanitizer's report) kept in .build/stress/findings/. STRESS_SEED to repeat.
STRESS_MINUTES ?= 20
stress: deps
	$(SWIFT) build -c release --product pushattach
	$(SWIFT) build --product pushattach --scratch-path .build/asan -Xswiftc -sanitize=address
	$(SWIFT) build --product pushattach --scratch-path .build/tsan -Xswiftc -sanitize=thread
	@status=0; \
	STRESS_LABEL=release STRESS_MINUTES=$(STRESS_MINUTES) Scripts/stress || status=1; \
	STRESS_LABEL=asan STRESS_BIN=.build/asan/debug/pushattach STRESS_MINUTES=$(STRESS_MINUTES) Scripts/stress || status=1; \
	STRESS_LABEL=tsan STRESS_BIN=.build/tsan/debug/pushattach STRESS_MINUTES=$(STRESS_MINUTES) Scripts/stress || status=1; \
	exit $$status

# The whole suite under AddressSanitizer with LeakSanitizer (the toolchain's ASan runtime has it), in
# its own scratch folder. Scripts/lsan.supp lists toolchain-library leaks only. The HTTP tests run in
# their own pass: their deadlines (3-10 s) are not met while ASan-slowed decode tests fill both cores.
ASAN_ENV = ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/Scripts/lsan.supp PUSHATTACH_SANITIZER=address
test-asan: deps
	$(SWIFT) build --build-tests --scratch-path .build/asan -Xswiftc -sanitize=address
	$(ASAN_ENV) $(SWIFT) test --skip-build --scratch-path .build/asan --disable-xctest --skip FetchTests
	$(ASAN_ENV) $(SWIFT) test --skip-build --scratch-path .build/asan --disable-xctest --filter FetchTests

# Fetch and PipelineTests (the per-item path and the batch runner) under ThreadSanitizer, in two passes for the same reason as above.
test-tsan: deps
	$(SWIFT) build --build-tests --scratch-path .build/tsan -Xswiftc -sanitize=thread
	$(SWIFT) test --skip-build --scratch-path .build/tsan --disable-xctest --filter PipelineTests
	$(SWIFT) test --skip-build --scratch-path .build/tsan --disable-xctest --filter FetchTests

# The libraries' documentation (DocC catalogs Sources/PushAttach/PushAttach.docc and
# Sources/PushAttachBatch/PushAttachBatch.docc) as static sites in .build/docs/PushAttach.doccarchive
# and .build/docs/PushAttachBatch.doccarchive, with the toolchain's own docc (no plugin: no package
# dependencies), from the debug build's modules; the aliases of types underneath get pages of
# their own (Scripts/docs). A docc warning fails it.
docs: deps
	$(SWIFT) build
	./Scripts/docs
	@echo "make docs: open .build/docs/PushAttach.doccarchive/index.html and .build/docs/PushAttachBatch.doccarchive/index.html"

format:
	$(SWIFT) format --in-place --recursive --configuration .swift-format Sources Tests Benchmarks

clean:
	rm -rf .build
