#!/bin/bash
# The GNOME Shell extension's checks that need no shell, run by `make test`:
#   run-tests.sh BUILD   (BUILD holds 43/ and 45/, each with voicememo@example.org/)
# - the shared logic's unit tests under gjs, against both built forms;
# - the GNOME 45+ form loads under `gjs -m` up to its first resource:///org/gnome/shell
#   import (which only a running shell has; prefs.js: the Extensions app's), each of its
#   files parses and its gi:// imports resolve; presentation.js and preferences.js, which
#   import only gi:// modules, load whole.
# Closes with the plain line `N passed, N failed`.
set -u
build=$1
here=$(dirname "$0")
uuid=voicememo@example.org
passed=0 failed=0
# The shell's own typelibs (St, Shell; Meta and Clutter from mutter), where Debian puts them.
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)
export GI_TYPELIB_PATH="/usr/lib/gnome-shell:$(ls -d /usr/lib/"$arch"/mutter-* 2>/dev/null | tr '\n' ':')${GI_TYPELIB_PATH:-}"
export LD_LIBRARY_PATH="/usr/lib/gnome-shell:$(ls -d /usr/lib/"$arch"/mutter-* 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}"

if out=$(gjs -m "$here/presentation-test.js" "$build/43/$uuid" "$build/45/$uuid" 2>&1); then
	echo "$out" | tail -1
	passed=$((passed + 1))
else
	echo "$out"
	echo "FAIL the shared logic's gjs unit tests"
	failed=$((failed + 1))
fi

# prefs.js runs in the Extensions app, whose modules are under resource:///org/gnome/Shell/Extensions.
for file in extension.js indicator.js prefs.js; do
	out=$(cd "$build/45/$uuid" && gjs -m "$file" 2>&1)
	if echo "$out" | grep -qE "Unable to load file from: resource:///org/gnome/(shell|Shell/Extensions)/" \
		&& ! echo "$out" | grep -qE "SyntaxError|ReferenceError|TypeError|Typelib file for namespace"; then
		passed=$((passed + 1))
	else
		echo "$out"
		echo "FAIL the GNOME 45 form's $file does not load up to its first resource:///org/gnome/shell import"
		failed=$((failed + 1))
	fi
done
for file in presentation.js preferences.js; do
	if out=$(cd "$build/45/$uuid" && gjs -m "$file" 2>&1); then
		passed=$((passed + 1))
	else
		echo "$out"
		echo "FAIL the GNOME 45 form's $file does not load"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
