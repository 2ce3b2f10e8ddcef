#!/bin/sh
# `make run`: runs voicememod on the session bus and audio server you have. Where there is
# no session bus or no audio server (a fresh machine, a container, ssh), it starts private
# ones in a temporary runtime directory, with a 440 Hz tone as the microphone, and stops
# them again (each by its PID) when the daemon exits. SIGTERM or SIGINT stops the daemon,
# which finishes the open memo first. The integration test `MakeRunTests` runs this script.
set -eu
BIN=${BIN:?BIN must name the build directory}

private=""
daemon=""
# Stops a child of this script by the PID in file $1 and waits for it: a server still
# exiting writes into the runtime directory (PulseAudio its socket and state) and would
# race the removal below.
stop_started() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1")
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
}
cleanup() {
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true
    [ -n "$private" ] || return 0
    stop_started "$private/pulse.pid"
    stop_started "$private/bus.pid"
    rm -rf "$private"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

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
    # The microphone is fed as the test fixture feeds its own: a tone plays into a null sink
    # and a real (non-monitor) source is remapped from that sink's monitor, so audio comes
    # every 20 ms like a sound card's. (module-sine-source would hand it out in 2 s blocks.)
    cat > "$private/pulse.pa" <<PA
load-module module-native-protocol-unix auth-anonymous=1
load-module module-null-sink sink_name=speaker
load-module module-null-sink sink_name=tone_generator rate=48000 channels=1 channel_map=mono
load-module module-sine sink=tone_generator frequency=440
load-module module-remap-source source_name=microphone master=tone_generator.monitor channels=1 channel_map=mono
set-default-sink speaker
set-default-source microphone
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
    echo "make run: no audio server was running; started a private PulseAudio with a 440 Hz tone as the microphone"
fi

if [ -n "$private" ]; then
    echo "make run: to talk to it from another terminal, first run:"
    echo "    export DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS${PULSE_SERVER:+ PULSE_SERVER=$PULSE_SERVER}"
fi
echo "make run: try  $BIN/voicememo record --duration 3 && sleep 4 && $BIN/voicememo status"
"$BIN/voicememod" &
daemon=$!
status=0
wait "$daemon" || status=$?
daemon=""
exit "$status"
