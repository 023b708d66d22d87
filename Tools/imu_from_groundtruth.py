#!/usr/bin/env python3
"""Copy an ASL dataset with its IMU synthesised from its ground truth, to split an estimator's error between the real
IMU and everything else (the flight, the images, the estimator).

    Tools/imu_from_groundtruth.py SRC DST [--residual none|mean|low|high|all] [--split-hz 5] [--gravity 9.81]
                                  [--accel-gain G]
    Tools/imu_from_groundtruth.py SRC --report [--split-hz 5]

The ground truth's poses (mav0/state_groundtruth_estimate0: the body, which EuRoC's ground truth and
`worldtrack simulate --from-recording` put in the IMU frame) are interpolated with C² splines: a cubic spline
through the positions and scipy's RotationSpline through the orientations. At every timestamp of SRC's
mav0/imu0/data.csv inside the ground truth's span the IMU reads what a perfect sensor on that motion would:

    gyro_B  = the body rate, log(R_W_B(t − h/2)ᵀ R_W_B(t + h/2)) / h with h = 1 ms   (rad/s)
    accel_B = R_W_Bᵀ (a_W − g_W), g_W = (0, 0, −gravity)                             (m/s²)

which is how `worldtrack simulate` synthesises its IMU (with the ground truth's world z as up). Rows outside the
ground truth's span are left out. --residual adds part of the real IMU's disagreement with that motion
(real − synthetic, per axis): `low` its part below --split-hz (zero-phase 4th-order Butterworth: biases, their
drift, anything slow), `high` the rest (vibration), `all` both (the real IMU again, up to the last digit: a check),
`mean` only its mean over the whole span (constant biases: what a start at rest cannot tell from a tilt, without
the drift that the low part also holds).

--accel-gain G multiplies the synthesised accelerometer's motion part (the specific force less gravity's share,
R_W_Bᵀ a_W) by G before any residual is added: a sensor whose gain on the motion is off, as the real IMU's may be.
The residual added is the real IMU's against the ungained synthetic one, so `--residual all --accel-gain G` is the
real IMU with its motion part scaled by G (what a gain calibration would do, with the ground truth's attitude).

DST gets symlinks to everything in SRC except mav0/imu0/data.csv (nothing in SRC is written); DST must not exist.
--report writes nothing and prints the real IMU's residual per frequency band and axis, its mean, and its gain on the
motion: per world axis, the velocity change the IMU integrates over 1 s windows (every 0.5 s; its mean residual
removed as a bias, rotated by the ground truth's attitude) regressed on the ground truth's, both ways round. Noise
in either side pulls its own regression's slope towards zero, so the true gain lies between the two figures. When
the ground truth carries an accelerometer bias (EuRoC's b_a columns) the gain is printed again with that bias.
"""
import argparse
import os
import sys

import numpy as np
from scipy.interpolate import CubicSpline
from scipy.signal import butter, sosfiltfilt, welch
from scipy.spatial.transform import Rotation, RotationSpline

BANDS_HZ = [(0.0, 0.1), (0.1, 1.0), (1.0, 5.0), (5.0, 20.0), (20.0, 50.0), (50.0, 100.0)]


def fail(message):
    print(f"imu_from_groundtruth: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path, what):
    """Header line and rows (timestamp as int, the rest as floats) of an ASL CSV file."""
    if not os.path.isfile(path):
        fail(f"{what}: {path} is missing")
    header, stamps, values = None, [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                header = header or line
                continue
            cells = line.split(",")
            try:
                stamps.append(int(cells[0]))
                values.append([float(c) for c in cells[1:]])
            except ValueError:
                fail(f"{what}: {path}:{n} is not a row of numbers")
    if not stamps:
        fail(f"{what}: {path} has no rows")
    return header, np.array(stamps, dtype=np.int64), np.array(values)


def synthesise(src, gravity):
    """The real IMU rows inside the ground truth's span and the perfect IMU on the ground truth's motion there."""
    header, t_imu, imu = read_csv(os.path.join(src, "mav0", "imu0", "data.csv"), "IMU")
    _, t_gt, gt = read_csv(os.path.join(src, "mav0", "state_groundtruth_estimate0", "data.csv"), "ground truth")
    if imu.shape[1] < 6:
        fail("IMU rows need 7 columns (timestamp, gyro x y z, accel x y z)")
    if gt.shape[1] < 7:
        fail("ground-truth rows need a position and a quaternion (w x y z)")
    if len(t_gt) < 4 or np.any(np.diff(t_gt) <= 0):
        fail("the ground truth needs at least 4 rows with increasing timestamps")
    t0 = t_gt[0]
    s_gt = (t_gt - t0) * 1e-9
    positions = CubicSpline(s_gt, gt[:, 0:3])
    orientations = RotationSpline(s_gt, Rotation.from_quat(gt[:, [4, 5, 6, 3]]))  # scipy wants x y z w
    h = 1e-3
    s_imu = (t_imu - t0) * 1e-9
    inside = (s_imu >= s_gt[0] + h) & (s_imu <= s_gt[-1] - h)
    if inside.sum() < 100:
        fail("fewer than 100 IMU rows lie inside the ground truth's span")
    s = s_imu[inside]
    R_W_B = orientations(s)
    gyro = (orientations(s - h / 2).inv() * orientations(s + h / 2)).as_rotvec() / h
    accel = R_W_B.inv().apply(positions(s, 2) + np.array([0.0, 0.0, gravity]))
    # The ground truth's own accelerometer bias (EuRoC's columns 14–16), at the IMU rows, when it has one.
    bias = None
    if gt.shape[1] >= 16:
        bias = np.stack([np.interp(t_imu[inside], t_gt, gt[:, 13 + j]) for j in range(3)], axis=1)
    return header, t_imu[inside], imu[inside, 0:6], np.hstack([gyro, accel]), R_W_B, bias


def motion_gain(real, synthetic, R_W_B, rate_hz, window_s=1.0, bias=None):
    """Per world axis, (slope of the real IMU's velocity changes on the synthetic's, inverse of the reverse slope)
    over windows of `window_s` every half window; `bias` (per row, body frame) is taken out first, or else the real
    IMU's mean residual."""
    if bias is None:
        bias = (real[:, 3:] - synthetic[:, 3:]).mean(0)
    a_real = R_W_B.apply(real[:, 3:] - bias) / rate_hz
    a_true = R_W_B.apply(synthetic[:, 3:]) / rate_hz
    n, step = int(round(window_s * rate_hz)), int(round(window_s * rate_hz / 2))
    starts = range(0, len(real) - n + 1, step)
    dv_real = np.array([a_real[i:i + n].sum(0) for i in starts])
    dv_true = np.array([a_true[i:i + n].sum(0) for i in starts])
    dv_real -= dv_real.mean(0)  # gravity's and the bias's constant share
    dv_true -= dv_true.mean(0)
    forward = (dv_real * dv_true).sum(0) / (dv_true ** 2).sum(0)
    reverse = (dv_real ** 2).sum(0) / (dv_real * dv_true).sum(0)
    return forward, reverse, len(dv_true)


def split(residual, split_hz, rate_hz):
    """The residual's part below `split_hz` (zero-phase) and the rest."""
    if not 0 < split_hz < rate_hz / 2:
        fail(f"--split-hz must lie between 0 and half the IMU rate ({rate_hz / 2:.0f} Hz)")
    sos = butter(4, split_hz / (rate_hz / 2), output="sos")
    low = sosfiltfilt(sos, residual, axis=0)
    return low, residual - low


def report(real, synthetic, R_W_B, rate_hz, gt_bias=None):
    residual = real - synthetic
    print(f"real IMU − IMU synthesised from the ground truth, {len(real)} rows at {rate_hz:.0f} Hz")
    print("mean (bias-like): gyro " + " ".join(f"{v:+.4f}" for v in residual[:, :3].mean(0)) + " rad/s, accel "
          + " ".join(f"{v:+.4f}" for v in residual[:, 3:].mean(0)) + " m/s²")
    centred = residual - residual.mean(0)
    f, p = welch(centred, fs=rate_hz, nperseg=min(len(centred), 2048), axis=0)
    df = f[1] - f[0]
    print("band            gyro rms x y z (rad/s)        accel rms x y z (m/s²)")
    for lo, hi in BANDS_HZ:
        sel = (f >= lo) & (f < hi)
        rms = np.sqrt(p[sel].sum(0) * df)
        print(f"{lo:5.1f}–{hi:5.1f} Hz   " + " ".join(f"{v:8.4f}" for v in rms[:3]) + "    "
              + " ".join(f"{v:8.4f}" for v in rms[3:]))
    for label, bias in [("", None), (", the ground truth's accelerometer bias", gt_bias)]:
        if label and bias is None:
            continue
        forward, reverse, windows = motion_gain(real, synthetic, R_W_B, rate_hz, bias=bias)
        print(f"motion gain (velocity change over 1 s, real against the ground truth, both regressions; {windows} "
              f"windows{label}): " + ", ".join(f"{axis} {lo:.4f}–{hi:.4f}" for axis, lo, hi in
                                               zip("xyz", np.minimum(forward, reverse), np.maximum(forward, reverse))))


def write_copy(src, dst, header, stamps, rows):
    """DST: symlinks to everything in SRC but mav0/imu0/data.csv, which is written from `rows`."""
    keep_out = {"": "mav0", "mav0": "imu0", os.path.join("mav0", "imu0"): "data.csv"}
    for rel, skip in keep_out.items():
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for name in sorted(os.listdir(os.path.join(src, rel))):
            if name != skip:
                os.symlink(os.path.abspath(os.path.join(src, rel, name)), os.path.join(dst, rel, name))
    with open(os.path.join(dst, "mav0", "imu0", "data.csv"), "w") as f:
        f.write((header or "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],"
                 "a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]") + "\n")
        for t, r in zip(stamps, rows):
            f.write(f"{t}," + ",".join(repr(float(v)) for v in r) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("src", help="ASL dataset with mav0/imu0 and mav0/state_groundtruth_estimate0")
    ap.add_argument("dst", nargs="?", help="new folder for the copy (not with --report)")
    ap.add_argument("--residual", choices=["none", "mean", "low", "high", "all"], default="none",
                    help="part of the real IMU's residual to add (default none: a perfect IMU)")
    ap.add_argument("--split-hz", type=float, default=5.0, help="frequency that splits low from high (default 5)")
    ap.add_argument("--gravity", type=float, default=9.81, help="gravity, m/s² (default 9.81, as the estimator)")
    ap.add_argument("--accel-gain", type=float, default=1.0,
                    help="gain on the synthesised accelerometer's motion part (default 1: none)")
    ap.add_argument("--report", action="store_true", help="print the residual per band instead of writing")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.src, "mav0")):
        fail(f"{a.src} is not an ASL dataset (no mav0/)")
    if a.report == (a.dst is not None):
        fail("give DST to write a copy, or --report alone")
    if a.dst is not None and os.path.lexists(a.dst):
        fail(f"{a.dst} exists; choose a new folder")
    if not (np.isfinite(a.accel_gain) and 0.5 <= a.accel_gain <= 1.5):
        fail(f"--accel-gain must lie between 0.5 and 1.5 (got {a.accel_gain:g})")
    if a.report and a.accel_gain != 1.0:
        fail("--accel-gain shapes a copy; --report measures the source as it is")
    header, stamps, real, synthetic, R_W_B, gt_bias = synthesise(a.src, a.gravity)
    rate_hz = 1e9 / np.median(np.diff(stamps))
    if a.report:
        report(real, synthetic, R_W_B, rate_hz, gt_bias)
        return
    # The real IMU's residual is taken against the perfect IMU of gain 1, so that a gain applies to the copy whatever
    # part of the residual is added back (`--residual all --accel-gain G`: the real IMU with its motion part × G).
    residual = real - synthetic
    if a.accel_gain != 1.0:
        gravity_B = R_W_B.inv().apply(np.array([0.0, 0.0, a.gravity]))
        synthetic = synthetic.copy()
        synthetic[:, 3:] = a.accel_gain * (synthetic[:, 3:] - gravity_B) + gravity_B
    rows = synthetic
    if a.residual == "mean":
        rows = synthetic + residual.mean(0)
    elif a.residual != "none":
        low, high = split(residual, a.split_hz, rate_hz)
        rows = synthetic + {"low": low, "high": high, "all": residual}[a.residual]
    write_copy(a.src, a.dst, header, stamps, rows)
    print(f"imu_from_groundtruth: {a.dst}: {len(stamps)} IMU rows synthesised"
          + ("" if a.accel_gain == 1.0 else f", motion gain {a.accel_gain:g}")
          + {"none": "", "mean": " + the real residual's mean (constant biases)"}.get(
              a.residual, f" + the real residual ({a.residual}, split at {a.split_hz:g} Hz)"),
          file=sys.stderr)


if __name__ == "__main__":
    main()
