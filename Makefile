# voicememo — a voice-memo recorder daemon for the Linux desktop.
#   make run      install missing Debian packages, build, run the daemon on the session bus
#   make test     unit tests, then the integration suite against private servers
#   make install  PREFIX=/usr/local DESTDIR=…

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  := $(PREFIX)/bin
DATADIR := $(PREFIX)/share
SWIFT   ?= swift
CONFIG  ?= release

# What building needs, and what the tests and `make run` need on top.
BUILD_PACKAGES := libpulse-dev libdbus-1-dev libsndfile1-dev pkg-config
RUN_PACKAGES   := dbus-daemon pulseaudio pulseaudio-utils
TEST_PACKAGES  := $(RUN_PACKAGES) systemd sox pipewire pipewire-bin pipewire-pulse wireplumber flac opus-tools

# The audio servers the integration suite runs on, one after the other. Setting
# VOICEMEMO_TEST_SERVER (pulseaudio or pipewire) narrows it to that one.
TEST_SERVERS ?= $(or $(VOICEMEMO_TEST_SERVER),pulseaudio pipewire)

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
BIN_PATH = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path)

.PHONY: all build deps test-deps install-packages run test install uninstall clean

all: build

# Installs only what is missing, so a prepared machine never waits on apt.
deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BUILD_PACKAGES) $(RUN_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BUILD_PACKAGES) $(TEST_PACKAGES)"

install-packages:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing Debian packages:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)

run: build
	@CONFIG=$(CONFIG) BIN="$(BIN_PATH)" sh data/run-headless.sh

# Unit tests need no servers and run once; the integration suite starts its own bus and
# audio server and runs on each of TEST_SERVERS. Every run happens even after one has
# failed, and the summary names each that failed.
test: test-deps
	$(SWIFT) build --build-tests
	@failed=; \
	echo "== unit tests =="; \
	$(SWIFT) test --skip-build --skip '^IntegrationTests\.' \
		|| { echo "== unit tests FAILED =="; failed="$$failed, unit tests"; }; \
	for server in $(TEST_SERVERS); do \
		echo "== integration tests on $$server =="; \
		VOICEMEMO_TEST_SERVER=$$server $(SWIFT) test --skip-build --filter '^IntegrationTests\.' \
			|| { echo "== integration tests FAILED on $$server =="; failed="$$failed, integration tests on $$server"; }; \
	done; \
	if [ -n "$$failed" ]; then echo "== failed: $${failed#, } =="; exit 1; fi; \
	echo "== passed: unit tests, integration tests on $(TEST_SERVERS) =="

install: build
	install -Dm755 "$(BIN_PATH)/voicememod" "$(DESTDIR)$(BINDIR)/voicememod"
	install -Dm755 "$(BIN_PATH)/voicememo" "$(DESTDIR)$(BINDIR)/voicememo"
	install -Dm644 data/org.example.VoiceMemo.xml "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.example.VoiceMemo.xml"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/voicememod" "$(DESTDIR)$(BINDIR)/voicememo" \
		"$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.example.VoiceMemo.xml"

clean:
	rm -rf .build
