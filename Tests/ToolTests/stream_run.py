"""A simulated run with every optional part of the stream, shared by the stream tests of one test process.

A 5 s simulated room (376×240, seed 1) is tracked with --stream-points, --stream-world-input and the burst, measure
(taps), cursor (place times at 3 s and past the end of the data), divide and object consumers, once per frame
convention (`worldtrack`, `arkit`).
"""
import atexit
import functools
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("WORLDTRACK_BIN", os.path.join(ROOT, ".build", "release", "worldtrack"))

# Taps in seconds after the first frame; one at the absolute time 1 ns, far from every frame, is a failed
# measurement whatever the estimator does.
TAPS = [
    {"t_s": 4.5, "pixels": [[120, 180], [260, 180]], "label": "floor"},
    {"t_s": 3.0, "pixels": [[120, 150], [188, 200], [260, 150]], "label": "polyline"},
    {"t_ns": 1, "pixels": [[100, 100], [200, 100]], "label": "before-the-data"},
]
FRAMES = 101          # 5 s at 20 Hz
PLACE = "3,60"        # cursor place times, s: 60 s is past the end of the data
CONVENTIONS = ("worldtrack", "arkit")
DIVIDE_TAP = "188,200"          # the cake divider's tap (floor, below the image centre), at 3.5 s
OBJECT_BOX = "150,90,60,60"     # the object consumer's box, chosen at 2 s


class Run:
    """One run's stream (`records`, parsed), its stderr and its burst folder."""

    def __init__(self, records, stderr, burst):
        self.records, self.stderr, self.burst = records, stderr, burst


def worldtrack(args):
    return subprocess.run([BIN] + args, capture_output=True, text=True)


@functools.lru_cache(maxsize=None)
def runs():
    """{convention: Run}; raises unittest.SkipTest when the CLI is not built."""
    if not os.access(BIN, os.X_OK):
        raise unittest.SkipTest(f"{BIN} is not built (swift build -c release -Xswiftc -enable-testing)")
    tmp = tempfile.TemporaryDirectory(prefix="wt-stream-")
    atexit.register(tmp.cleanup)
    dataset = os.path.join(tmp.name, "room")
    sim = worldtrack(["simulate", "--scene", "room", "--trajectory", "handheld", "--seconds", "5", "--seed", "1",
                      "--size", "376x240", "--out", dataset])
    if sim.returncode != 0:
        raise RuntimeError(f"worldtrack simulate exited {sim.returncode}:\n{sim.stderr}")
    taps = os.path.join(tmp.name, "taps.json")
    with open(taps, "w") as f:
        json.dump(TAPS, f)
    out = {}
    for convention in CONVENTIONS:
        burst = os.path.join(tmp.name, f"burst-{convention}")
        args = ["run", dataset, "--quiet", "--stream-points", "--stream-world-input", "--convention", convention,
                "--consumer", f"burst:every=10,count=2,out={burst}",
                "--consumer", f"measure:taps={taps}",
                "--consumer", f"cursor:place={PLACE}",
                "--consumer", f"divide:tap={DIVIDE_TAP},at=3.5,pieces=6",
                "--consumer", f"object:box={OBJECT_BOX},at=2,name=patch"]
        r = worldtrack(args)
        if r.returncode != 0:
            raise RuntimeError(f"worldtrack {' '.join(args)} exited {r.returncode}:\n{r.stderr}")
        out[convention] = Run([json.loads(line) for line in r.stdout.splitlines()], r.stderr, burst)
    return out
