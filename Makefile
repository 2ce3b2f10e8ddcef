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
TEST_PACKAGES  := $(RUN_PACKAGES) systemd sox

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

# Unit tests need no servers; the integration suite starts its own bus and audio server.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

install: build
	install -Dm755 "$(BIN_PATH)/voicememod" "$(DESTDIR)$(BINDIR)/voicememod"
	install -Dm755 "$(BIN_PATH)/voicememo" "$(DESTDIR)$(BINDIR)/voicememo"
	install -Dm644 data/org.example.VoiceMemo.xml "$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.example.VoiceMemo.xml"

uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/voicememod" "$(DESTDIR)$(BINDIR)/voicememo" \
		"$(DESTDIR)$(DATADIR)/dbus-1/interfaces/org.example.VoiceMemo.xml"

clean:
	rm -rf .build
