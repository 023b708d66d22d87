#!/usr/bin/env bash
# Everything CI checks (README's test command; .ci/run calls exactly this):
#   1. Tools/setup.sh: system packages and Swift packages
#   2. Tools/check_package_graph.py: Package.swift's edges are exactly the imports, no unsafeFlags,
#      docs/ARCHITECTURE.md's module table is current
#   3. the release build the tests use, and a check that `worldtrack` links no OpenCV module beyond the six
#      COpenCV names (pkg-config's full list makes start-up slow)
#   4. Examples/Downstream: a package that depends on WorldTrack by path, built (debug) and run on 3 s of
#      a simulated room
#   5. Tools/tool_tests.sh: Python tests of Tools/ and of WorldTrack's files against reference readers
#   6. swift test (release, -enable-testing), last, so its summary closes the output
# The first step that fails stops the script with its exit status.
#   Tools/test.sh [ARGS...]      ARGS go to swift test (e.g. --filter WorldTests)
set -euo pipefail
cd "$(dirname "$0")/.."

step() { echo "test.sh: $*" >&2; }

step "setup"
Tools/setup.sh

step "package graph"
Tools/check_package_graph.py

step "release build (the flags swift test uses, so it reuses the build)"
swift build -c release -Xswiftc -enable-testing
Tools/check_package_graph.py --check-links .build/release/worldtrack

step "downstream package (Examples/Downstream)"
# The built executable is run directly: `swift run` once hung here after "Build complete!" (SwiftPM 6.3.1, asleep
# in sigsuspend with no child, fifty-second session), and it would only rebuild what `swift build` just built.
(cd Examples/Downstream && swift build && "$(swift build --show-bin-path)/TrackSimulatedRoom" 3)

step "tool tests (Python, reference readers)"
Tools/tool_tests.sh

step "swift test"
swift test -c release -Xswiftc -enable-testing "$@"
