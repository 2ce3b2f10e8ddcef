#!/bin/sh
# `make run`: runs voicememod on the session bus and audio server you have. Where there is
# no session bus or no audio server (a fresh machine, a container, ssh), it starts private
# ones in a temporary runtime directory, with a 440 Hz test tone as the microphone, and
# stops them again when the daemon exits.
set -eu
BIN=${BIN:?BIN must name the build directory}

private=""
cleanup() {
    [ -n "$private" ] || return 0
    [ -f "$private/pulse.pid" ] && kill "$(cat "$private/pulse.pid")" 2>/dev/null || true
    [ -f "$private/bus.pid" ] && kill "$(cat "$private/bus.pid")" 2>/dev/null || true
    rm -rf "$private"
}
trap cleanup EXIT INT TERM

make_private() {
    [ -n "$private" ] && return 0
    private=$(mktemp -d /tmp/voicememo-run.XXXXXX)
    chmod 700 "$private"
}

bus_reachable() {
    [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && return 0
    [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -S "$XDG_RUNTIME_DIR/bus" ]
}

if ! bus_reachable; then
    make_private
    dbus-daemon --session --nofork --nopidfile --address="unix:path=$private/bus" 2>"$private/bus.log" &
    echo $! > "$private/bus.pid"
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$private/bus"
    tries=0
    until [ -S "$private/bus" ]; do
        tries=$((tries + 1))
        [ $tries -lt 100 ] || { echo "make run: dbus-daemon did not start" >&2; exit 1; }
        sleep 0.05
    done
    echo "make run: no session bus was running; started a private one"
elif [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
    export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
fi

if ! pactl info >/dev/null 2>&1; then
    make_private
    echo "autospawn = no" > "$private/client.conf"
    export PULSE_CLIENTCONFIG="$private/client.conf" PULSE_SERVER="unix:$private/pulse/native"
    cat > "$private/pulse.pa" <<PA
load-module module-native-protocol-unix auth-anonymous=1
load-module module-null-sink sink_name=speaker
set-default-sink speaker
load-module module-sine-source source_name=test_tone frequency=440
set-default-source test_tone
PA
    XDG_RUNTIME_DIR="$private" HOME="$private" pulseaudio -n -F "$private/pulse.pa" --daemonize=no --exit-idle-time=-1 --log-target=stderr \
        2>"$private/pulse.log" &
    echo $! > "$private/pulse.pid"
    tries=0
    until pactl info >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -lt 100 ] || { cat "$private/pulse.log"; echo "make run: PulseAudio did not start" >&2; exit 1; }
        sleep 0.05
    done
    echo "make run: no audio server was running; started a private PulseAudio with a 440 Hz test tone as input"
fi

if [ -n "$private" ]; then
    echo "make run: to talk to it from another terminal, first run:"
    echo "    export DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS${PULSE_SERVER:+ PULSE_SERVER=$PULSE_SERVER}"
fi
echo "make run: try  $BIN/voicememo record --duration 3 && sleep 4 && $BIN/voicememo status"
"$BIN/voicememod"
