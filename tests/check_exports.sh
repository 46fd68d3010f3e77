#!/bin/sh
# Fails if the shared library exports any symbol not starting with sb_.
set -eu
lib="$1"
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}')
[ -n "$symbols" ] || { echo "no exported symbols in $lib"; exit 1; }
others=$(printf '%s\n' "$symbols" | grep -v '^sb_' || true)
if [ -n "$others" ]; then
    echo "symbols exported without the sb_ prefix:"; printf '%s\n' "$others"; exit 1
fi
echo "$(printf '%s\n' "$symbols" | wc -l) symbols exported, all sb_*"
