#!/usr/bin/env bash
# Installs what SimBake needs on Debian 12 (only packages that are missing) and builds
# the library into build/ (which also copies libsimbake.so into addon/simbake/).
# Sourced by scripts/demo and scripts/test; safe to run again.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGES=(blender cmake gcc make pkg-config libcriterion-dev liblapacke-dev libqhull-dev python3 binutils
          xvfb xauth libgl1-mesa-dri  # the UI test runs Blender in a virtual display
          python3-numpy               # the add-on's rigid keyframes in bulk (Debian's blender does not pull it in)
          python3-matplotlib          # bench/report.py's plots (and their test)
          clang libclang-rt-14-dev    # the libFuzzer targets (scripts/fuzz)
          valgrind                    # the memcheck run of the C tests
          slurmctld slurmd slurm-client munge)  # the farm test's single-node Slurm (scripts/slurm-local)

missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "SimBake setup: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S "$REPO" -B "$REPO/build" -DCMAKE_BUILD_TYPE=Release -DSIMBAKE_WERROR=ON > /dev/null
cmake --build "$REPO/build" -j "$(nproc)"
