"""Tools/evo_crosscheck.py without evo: which worldtrack binary it uses, and the premise of its RPE check (the lattice
pair's travelled distances are exact). The comparison with evo itself needs evo (PyPI) and runs by hand:
`Tools/evo_crosscheck.py`."""
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "Tools", "evo_crosscheck.py")


def load(path):
    spec = importlib.util.spec_from_file_location("evo_crosscheck_copy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class EvoCrosscheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="wt-evo-")
        self.root = self.tmp.name
        os.makedirs(os.path.join(self.root, "Tools"))
        self.script = os.path.join(self.root, "Tools", "evo_crosscheck.py")
        shutil.copy(SCRIPT, self.script)

    def tearDown(self):
        self.tmp.cleanup()

    def fake_build(self, mode):
        path = os.path.join(self.root, ".build", mode, "worldtrack")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def test_no_build_is_a_clear_error(self):
        r = subprocess.run([sys.executable, self.script], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        release = os.path.join(self.root, ".build", "release", "worldtrack")
        debug = os.path.join(self.root, ".build", "debug", "worldtrack")
        self.assertIn(f"no worldtrack binary: looked for {release} and {debug}", r.stderr)
        self.assertIn("--worldtrack PATH", r.stderr)

    def test_release_build_first_then_debug(self):
        module = load(self.script)
        debug = self.fake_build("debug")
        self.assertEqual(module.find_worldtrack(None), debug)
        release = self.fake_build("release")
        self.assertEqual(module.find_worldtrack(None), release)
        self.assertEqual(module.find_worldtrack(debug), debug)

    def test_a_given_binary_must_be_executable(self):
        r = subprocess.run([sys.executable, self.script, "--worldtrack", os.path.join(self.root, "absent")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not an executable file", r.stderr)

    def test_lattice_pair_moves_in_exact_sixteenths(self):
        module = load(self.script)
        gt, est = module.write_lattice_pair(self.root)
        with open(gt) as f:
            rows = [list(map(float, line.split())) for line in f if not line.startswith("#")]
        with open(est) as f:
            est_rows = [line.split() for line in f if not line.startswith("#")]
        self.assertEqual(len(rows), 1201)
        self.assertEqual([r[0] for r in rows], [float(e[0]) for e in est_rows])   # same stamps
        travelled = 0.0
        for a, b in zip(rows, rows[1:]):
            step = [abs(b[i] - a[i]) for i in (1, 2, 3)]
            self.assertEqual(sorted(step), [0.0, 0.0, 1 / 16])   # exactly one axis, exactly 1/16 m
            travelled += 1 / 16
        self.assertEqual(travelled, 75.0)   # every partial sum is exact in binary


if __name__ == "__main__":
    unittest.main()
