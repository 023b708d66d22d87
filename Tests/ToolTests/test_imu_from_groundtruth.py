"""Tools/imu_from_groundtruth.py against the simulator's own IMU: on a simulated room without noise the IMU it
synthesises from the ground truth must be the one `worldtrack simulate` wrote (same formulas, frames and gravity);
with noise, the residual it adds back must give the recorded IMU again, split into low and high parts."""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "Tools", "imu_from_groundtruth.py")
WORLDTRACK = os.environ.get("WORLDTRACK_BIN", os.path.join(ROOT, ".build", "release", "worldtrack"))


def imu_rows(dataset):
    return np.loadtxt(os.path.join(dataset, "mav0", "imu0", "data.csv"), delimiter=",", comments="#")


def matched(a, b):
    """Rows of b at a's timestamps (a's are a subset of b's)."""
    index = {int(t): i for i, t in enumerate(b[:, 0])}
    return b[[index[int(t)] for t in a[:, 0]]]


class ImuFromGroundTruthTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="wt-imu-gt-")
        cls.clean = os.path.join(cls.tmp.name, "clean")
        cls.noisy = os.path.join(cls.tmp.name, "noisy")
        for out, extra in [(cls.clean, ["--no-noise"]), (cls.noisy, [])]:
            subprocess.run([WORLDTRACK, "simulate", "--scene", "room", "--trajectory", "handheld", "--seconds", "4",
                            "--seed", "3", "--out", out] + extra, check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def tool(self, *args):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)

    def test_a_perfect_imu_is_the_simulators(self):
        out = os.path.join(self.tmp.name, "perfect")
        r = self.tool(self.clean, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        synthetic, recorded = imu_rows(out), imu_rows(self.clean)
        self.assertGreater(len(synthetic), 0.99 * len(recorded))
        d = synthetic[:, 1:] - matched(synthetic, recorded)[:, 1:]
        rms = np.sqrt((d ** 2).mean(0))
        # Spline interpolation of the 200 Hz ground truth: about 3e-5 rad/s and 3e-4 m/s² here; a wrong frame,
        # sign or gravity is off by 0.1–20.
        self.assertLess(rms[:3].max(), 2e-4, rms)
        self.assertLess(rms[3:].max(), 2e-3, rms)
        # Everything else is the source's, linked, not copied.
        self.assertTrue(os.path.islink(os.path.join(out, "mav0", "cam0")))
        self.assertTrue(os.path.islink(os.path.join(out, "mav0", "imu0", "sensor.yaml")))
        self.assertFalse(os.path.islink(os.path.join(out, "mav0", "imu0", "data.csv")))

    def test_the_residual_split_adds_up_to_the_recorded_imu(self):
        parts = {}
        for part in ["all", "low", "high", "none", "mean"]:
            out = os.path.join(self.tmp.name, "noisy-" + part)
            r = self.tool(self.noisy, out, "--residual", part, "--split-hz", "5")
            self.assertEqual(r.returncode, 0, r.stderr)
            parts[part] = imu_rows(out)
        recorded = matched(parts["all"], imu_rows(self.noisy))
        np.testing.assert_allclose(parts["all"][:, 1:], recorded[:, 1:], rtol=0, atol=1e-12)
        low = parts["low"][:, 1:] - parts["none"][:, 1:]
        high = parts["high"][:, 1:] - parts["none"][:, 1:]
        np.testing.assert_allclose(parts["none"][:, 1:] + low + high, recorded[:, 1:], rtol=0, atol=1e-9)
        # The simulator's noise is white and its biases constant: the high part carries most of the noise, the
        # low part the biases.
        self.assertGreater(np.abs(high[:, 3:]).std(), np.abs(low[:, 3:] - low[:, 3:].mean(0)).std())
        # `mean` adds the residual's mean alone: the same offset on every row, the recorded IMU's mean disagreement.
        mean = parts["mean"][:, 1:] - parts["none"][:, 1:]
        residual = recorded[:, 1:] - parts["none"][:, 1:]
        np.testing.assert_allclose(mean, np.broadcast_to(residual.mean(0), mean.shape), rtol=0, atol=1e-9)
        self.assertGreater(np.abs(residual.mean(0)[3:]).max(), 1e-3)   # the simulator's accelerometer biases

    def test_report_prints_the_bands(self):
        r = self.tool(self.clean, "--report")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("50.0–100.0 Hz", r.stdout)
        self.assertIn("mean (bias-like)", r.stdout)

    def motion_gain(self, dataset, with_groundtruth_bias=False):
        r = self.tool(dataset, "--report")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stdout.splitlines() if l.startswith("motion gain")]
        line = next(l for l in lines if ("the ground truth's accelerometer bias" in l) == with_groundtruth_bias)
        pairs = line.split("): ", 1)[1].split(", ")
        return [tuple(float(v) for v in p.split(" ")[1].split("–")) for p in pairs]

    def test_the_motion_gain_is_measured_and_can_be_given(self):
        # The simulator's clean IMU has gain 1 on its own ground truth; a copy made with --accel-gain 0.98 reads
        # 0.98 (per world axis, both regressions: no noise, so the two agree). The report takes the mean residual out
        # as a bias, and over these 4 s the motion's own mean in the body frame is not zero: a few thousandths.
        for lo, hi in self.motion_gain(self.clean):
            self.assertAlmostEqual(lo, 1.0, delta=0.002)
            self.assertAlmostEqual(hi, 1.0, delta=0.002)
        out = os.path.join(self.tmp.name, "gain")
        r = self.tool(self.clean, out, "--accel-gain", "0.98")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("motion gain 0.98", r.stderr)
        for lo, hi in self.motion_gain(out):
            self.assertAlmostEqual(lo, 0.98, delta=0.005)
            self.assertAlmostEqual(hi, 0.98, delta=0.005)
        # The gain leaves gravity's share alone: at every row the copy's specific force differs from the perfect
        # IMU's by 2 % of the motion part only, so its magnitude at rest-like rows stays near g.
        perfect = os.path.join(self.tmp.name, "gain-perfect")
        self.assertEqual(self.tool(self.clean, perfect).returncode, 0)
        a, b = imu_rows(out)[:, 4:], imu_rows(perfect)[:, 4:]
        self.assertLess(abs(np.linalg.norm(a, axis=1).mean() - np.linalg.norm(b, axis=1).mean()), 0.05)
        # The simulator's ground truth carries its IMU's biases: the gain is printed with them too, and on the noisy
        # IMU (white noise, slowly drifting biases) it is 1 within the noise of six 1 s windows.
        for lo, hi in self.motion_gain(self.noisy, with_groundtruth_bias=True):
            self.assertAlmostEqual(lo, 1.0, delta=0.02)
            self.assertAlmostEqual(hi, 1.0, delta=0.02)
        r = self.tool(self.clean, os.path.join(self.tmp.name, "gain-bad"), "--accel-gain", "3")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--accel-gain must lie between", r.stderr)
        r = self.tool(self.clean, "--report", "--accel-gain", "0.9")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--report measures the source as it is", r.stderr)

    def test_a_gain_applies_to_the_real_imu_with_its_residual(self):
        # `--residual all --accel-gain G` is the recorded IMU with its motion part scaled by G: the copy differs from
        # the recorded IMU exactly as the perfect IMU of gain G differs from the perfect IMU of gain 1 (the residual is
        # the recorded IMU's against the ungained perfect one; taken against the gained one it would undo the gain).
        gained = os.path.join(self.tmp.name, "real-gained")
        r = self.tool(self.noisy, gained, "--residual", "all", "--accel-gain", "0.98")
        self.assertEqual(r.returncode, 0, r.stderr)
        p1, pg = os.path.join(self.tmp.name, "real-p1"), os.path.join(self.tmp.name, "real-pg")
        self.assertEqual(self.tool(self.noisy, p1).returncode, 0)
        self.assertEqual(self.tool(self.noisy, pg, "--accel-gain", "0.98").returncode, 0)
        copy = imu_rows(gained)
        change = copy[:, 1:] - matched(copy, imu_rows(self.noisy))[:, 1:]
        expected = imu_rows(pg)[:, 1:] - imu_rows(p1)[:, 1:]
        self.assertGreater(np.abs(expected[:, 3:]).max(), 0.01)   # the handheld motion: tenths of a m/s², 2 % of it
        self.assertLess(np.abs(change - expected).max(), 1e-9)
        self.assertLess(np.abs(change[:, :3]).max(), 1e-12)       # the gyro is the recorded one

    def test_bad_input_is_a_clear_error(self):
        r = self.tool(self.clean, self.noisy)
        self.assertEqual(r.returncode, 2)
        self.assertIn("exists; choose a new folder", r.stderr)
        r = self.tool(self.tmp.name, os.path.join(self.tmp.name, "x"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("is not an ASL dataset", r.stderr)
        r = self.tool(self.clean)
        self.assertEqual(r.returncode, 2)
        self.assertIn("give DST", r.stderr)
        no_gt = os.path.join(self.tmp.name, "no-gt")
        os.makedirs(os.path.join(no_gt, "mav0", "imu0"))
        os.symlink(os.path.join(self.clean, "mav0", "imu0", "data.csv"), os.path.join(no_gt, "mav0", "imu0", "data.csv"))
        r = self.tool(no_gt, "--report")
        self.assertEqual(r.returncode, 2)
        self.assertIn("ground truth", r.stderr)
        self.assertIn("is missing", r.stderr)


if __name__ == "__main__":
    unittest.main()
