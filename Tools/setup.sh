#!/usr/bin/env bash
# Installs what WorldTrack needs on Debian 12 (idempotent) and resolves the Swift packages.
#   Tools/setup.sh            # install apt packages if missing, resolve packages
# Needs: Swift 6 toolchain on PATH (https://swift.org/install), root or sudo for apt-get.
set -euo pipefail

packages=(libopencv-dev liblapacke-dev libisal-dev libpng-dev libjpeg-dev pkg-config python3 python3-venv)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
    echo "setup: system packages present (${packages[*]})" >&2
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: error: no 'swift' on PATH; install the Swift 6 toolchain for Debian 12 from swift.org" >&2
    exit 1
fi

cd "$(dirname "$0")/.."
swift package resolve >&2
echo "setup: ready" >&2
