#!/bin/sh
# `make function-order`: writes data/voicememod.order, the functions the daemon runs, in the
# order the static build lays them out (gold's --section-ordering-file).
#
# Why: the kernel maps a program's code 64 KiB around each page it first runs ("fault-around"),
# so the idle daemon's resident memory is mostly whole windows of code around the few
# functions start-up touched, scattered over a 29 MB binary. Laid out together, start-up's
# functions first and then those of recording, listing and toggling, they fill fewer windows
# (measured: 1.4 MiB less resident when idle). The list comes from running the daemon under
# callgrind on private servers (data/run-headless.sh) and driving it with the CLI; a stale
# list only lays out less well, it never changes what the program does.
#
# Usage: order-functions.sh STATIC_DAEMON CLI OUTPUT
set -eu
daemon=$(realpath "$1")
cli=$(realpath "$2")
output=$3
work=$(mktemp -d /tmp/voicememo-order.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Private everything: run-headless.sh starts its own bus and PulseAudio when it finds none.
export HOME="$work/home" XDG_DATA_HOME="$work/home/data" XDG_CONFIG_HOME="$work/home/config" \
    XDG_STATE_HOME="$work/home/state" XDG_CACHE_HOME="$work/home/cache" PULSE_SERVER="unix:$work/none"
unset DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR
mkdir -p "$work/bin" "$HOME"
cat > "$work/bin/voicememod" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --demangle=no --callgrind-out-file=$work/profile "$daemon"
EOF
chmod +x "$work/bin/voicememod"
BIN="$work/bin" sh "$(dirname "$0")/run-headless.sh" > "$work/run.log" 2>&1 &
runner=$!

address=""
tries=0
until grep -q "library: " "$work/run.log" 2>/dev/null; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || { cat "$work/run.log"; echo "order-functions: the daemon did not start" >&2; exit 1; }
    sleep 0.1
done
address=$(sed -n 's/.*export DBUS_SESSION_BUS_ADDRESS=\([^ ]*\).*/\1/p' "$work/run.log")
server=$(sed -n 's/.* PULSE_SERVER=\([^ ]*\).*/\1/p' "$work/run.log")
export DBUS_SESSION_BUS_ADDRESS="$address" PULSE_SERVER="$server"
valgrind=$(pgrep -f "callgrind-out-file=$work/profile" | head -n 1)

# Start-up as an idle daemon sees it, then what a day's use adds.
"$cli" status > /dev/null
sleep 2
callgrind_control --dump=start-up "$valgrind" > /dev/null 2>&1
for format in opus wav flac; do
    "$cli" record --format "$format" --duration 2 > /dev/null
    sleep 4
done
"$cli" toggle > /dev/null && sleep 2 && "$cli" toggle > /dev/null && sleep 3
"$cli" list > /dev/null
kill "$valgrind"
wait "$runner" || true

python3 - "$work"/profile.1 "$work"/profile "$output" <<'EOF'
import re, sys

def functions(path):
    """The daemon's own functions in a callgrind profile, in the order it names them."""
    objects, names, current, found = {}, {}, None, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        match = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line)
        if not match:
            continue
        kind, number, name = match.groups()
        table = objects if kind.endswith("ob") else names
        if name:
            table[number] = name
        if kind == "ob":
            current = objects.get(number, "")
        elif kind == "fn" and current.endswith("/voicememod"):
            function = re.sub(r"'\d+$", "", names.get(number, ""))
            if function and not function.startswith("0x"):
                found.append(function)
    return found

order, seen = [], set()
for path in sys.argv[1:3]:
    for function in functions(path):
        if function not in seen:
            seen.add(function)
            order.append(function)
with open(sys.argv[3], "w") as output:
    output.write("".join(f".text.{function}\n" for function in order))
print(f"order-functions: {len(order)} functions in {sys.argv[3]}")
EOF
