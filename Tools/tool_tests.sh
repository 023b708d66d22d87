#!/usr/bin/env bash
# Python tests of the Tools/ scripts and of WorldTrack's file outputs, checked with the field's reference
# readers from PyPI (rosbags, mcap, jsonschema), in a virtual environment of their own.
#   Tools/tool_tests.sh [UNITTEST ARGS...]     e.g. Tools/tool_tests.sh -k mcap
# Needs the release build (`swift build -c release -Xswiftc -enable-testing`): the tests run
# .build/release/worldtrack (override with WORLDTRACK_BIN). The venv lives in
# ${WORLDTRACK_TOOLS_VENV:-~/.cache/worldtrack-tools-venv}; Tools/requirements.txt lists what it holds.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${WORLDTRACK_TOOLS_VENV:-$HOME/.cache/worldtrack-tools-venv}"
if [ ! -x "$venv/bin/python" ]; then
    echo "tool_tests: creating the virtual environment $venv" >&2
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r Tools/requirements.txt >&2

shopt -s nullglob
tests=(Tests/ToolTests/test_*.py)
if ((${#tests[@]} == 0)); then
    echo "tool_tests: no tests in Tests/ToolTests" >&2
    exit 0
fi
export WORLDTRACK_BIN="${WORLDTRACK_BIN:-$PWD/.build/release/worldtrack}"
"$venv/bin/python" -m unittest discover -s Tests/ToolTests -p 'test_*.py' "$@"
