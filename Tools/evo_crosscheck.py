#!/usr/bin/env python3
"""Cross-check `worldtrack eval` against evo (PyPI `evo`), the community's trajectory evaluator.

ATE: runs `evo_ape tum GT EST -a` (SE(3) alignment) and `-as` (Sim(3)) and compares their APE RMSE (translation
part; also mean, median, max, and the rotation RMSE from `-r angle_deg`) with `worldtrack eval --align se3|sim3
--association nearest --max-dt 0.01 --json` on the same TUM files. evo pairs each pose of the shorter trajectory
with the nearest pose of the longer one within max_diff = 0.01 s and takes the RMSE over those pairs;
`--association nearest` does the same when the estimate is the shorter one (the usual case).

RPE: for each of worldtrack's sub-trajectory lengths L, always on a synthetic lattice pair and also on the given
pair, runs `evo_rpe tum GT EST -a|-as --delta L --delta_unit m
--all_pairs --pairs_from_reference` and compares the translation (RMSE, mean, median, max) and rotation (RMSE)
errors with worldtrack's for L. Both take, for each start pose, the end pose whose travelled ground-truth distance is
nearest L; worldtrack also needs the path to go on for at least L, which evo does not, so evo can count a few more
pairs near the end of the path. The RPE is checked where the pair counts agree (where they do not, the difference is
printed and not counted as a disagreement). The synthetic RPE pair is built so that they always agree: its ground
truth moves in axis-aligned steps of 1/16 m (exact binary distances), L is a multiple of them and evo's tolerance
is 1e-9 L, so both take exactly the pairs L apart.

Exits 1 when any figure differs by more than the tolerance (default 1e-6 relative), 2 on a usage or setup problem.

Usage:
  Tools/evo_crosscheck.py                                # synthetic GT + transformed noisy estimates
  Tools/evo_crosscheck.py --gt gt.tum --est est.tum      # your own TUM pair
  Tools/evo_crosscheck.py --worldtrack .build/debug/worldtrack --tolerance 1e-8

The worldtrack binary is .build/release/worldtrack, else .build/debug/worldtrack (--worldtrack to choose).

evo is looked up on PATH, then in a virtual environment (--venv, default ~/.cache/worldtrack-evo-venv),
and installed there with pip when missing (`pip index versions evo` is printed first).
"""
import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fail(message, code=2):
    print(f"evo_crosscheck: error: {message}", file=sys.stderr)
    sys.exit(code)


# --- synthetic test pair ---------------------------------------------------------------------------------

def quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def quat_exp(phi):
    theta = math.sqrt(sum(v * v for v in phi))
    if theta < 1e-12:
        return (1.0, 0.5 * phi[0], 0.5 * phi[1], 0.5 * phi[2])
    s = math.sin(theta / 2) / theta
    return (math.cos(theta / 2), s * phi[0], s * phi[1], s * phi[2])


def quat_rotate(q, v):
    w, x, y, z = q
    u = (x, y, z)
    t = (2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]), 2 * (u[0] * v[1] - u[1] * v[0]))
    c = (u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0])
    return tuple(v[i] + w * t[i] + c[i] for i in range(3))


def tum_line(t_ns, p, q):
    w, x, y, z = q
    return f"{t_ns // 10**9}.{t_ns % 10**9:09d} {p[0]!r} {p[1]!r} {p[2]!r} {x!r} {y!r} {z!r} {w!r}\n"


def write_synthetic_pair(folder, seed=3, jitter_ms=0.0):
    """GT: a smooth 3-D curve with rotation about all axes, 200 Hz for 60 s (EuRoC-like time stamps).
    Estimate: every 10th GT stamp (20 Hz), mapped by a similarity transform (scale 1.3), with 3 cm noise
    and a slow sinusoidal drift, so neither SE(3) nor Sim(3) alignment is exact. With jitter_ms > 0 the
    estimate's stamps move by up to that much (uniform), so association must pick the nearest GT pose."""
    rng = random.Random(seed)
    t0 = 1_403_715_273_262_142_976
    q_align = quat_exp((0.3, -0.2, 1.1))
    t_align = (2.0, -1.0, 0.5)
    scale = 1.3
    gt_path = os.path.join(folder, "gt.tum")
    est_path = os.path.join(folder, "est.tum")
    with open(gt_path, "w") as gt, open(est_path, "w") as est:
        gt.write("# synthetic ground truth: timestamp tx ty tz qx qy qz qw\n")
        est.write("# synthetic estimate\n")
        for k in range(0, 12001):
            t_ns = t0 + k * 5_000_000
            s = k * 0.005
            p = (3 * math.cos(0.3 * s), 2 * math.sin(0.5 * s), 1 + 0.5 * math.sin(0.7 * s))
            q = quat_exp((0.4 * math.sin(0.2 * s), 0.3 * math.cos(0.3 * s), 0.15 * s))
            gt.write(tum_line(t_ns, p, q))
            if k % 10 == 0:
                drift = (0.05 * math.sin(0.05 * s), 0.03 * math.cos(0.07 * s), 0.02 * math.sin(0.11 * s))
                noisy = tuple(p[i] + drift[i] + rng.gauss(0, 0.03) for i in range(3))
                pe = quat_rotate(q_align, noisy)
                pe = tuple(scale * pe[i] + t_align[i] for i in range(3))
                qe = quat_mul(q_align, quat_mul(q, quat_exp(tuple(rng.gauss(0, 0.01) for _ in range(3)))))
                jitter_ns = int(round(rng.uniform(-jitter_ms, jitter_ms) * 1e6))
                est.write(tum_line(t_ns + jitter_ns, pe, qe))
    return gt_path, est_path


def write_lattice_pair(folder, seed=5):
    """RPE pair: GT at 20 Hz for 60 s moving in axis-aligned steps of exactly 1/16 m (direction changes every 1.5 s),
    so every travelled distance is exact in binary; the estimate has the same stamps, mapped by a similarity
    transform (scale 1.3) with 2 cm noise and a slow drift. Sub-trajectory lengths that are multiples of 1/16 m
    then have pose pairs exactly that far apart, which evo and worldtrack both take."""
    rng = random.Random(seed)
    t0 = 1_403_715_273_262_142_976
    q_align = quat_exp((0.3, -0.2, 1.1))
    t_align = (2.0, -1.0, 0.5)
    scale = 1.3
    gt_path = os.path.join(folder, "lattice_gt.tum")
    est_path = os.path.join(folder, "lattice_est.tum")
    directions = [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, 0, 1), (0, -1, 0), (1, 0, 0), (0, 0, -1), (0, 1, 0)]
    p = [0.0, 0.0, 0.0]
    with open(gt_path, "w") as gt, open(est_path, "w") as est:
        gt.write("# lattice ground truth: timestamp tx ty tz qx qy qz qw\n")
        est.write("# lattice estimate\n")
        for k in range(0, 1201):
            t_ns = t0 + k * 50_000_000
            s = k * 0.05
            if k > 0:
                d = directions[(k // 30) % len(directions)]
                p = [p[i] + d[i] / 16 for i in range(3)]
            q = quat_exp((0.4 * math.sin(0.2 * s), 0.3 * math.cos(0.3 * s), 0.15 * s))
            gt.write(tum_line(t_ns, p, q))
            drift = (0.05 * math.sin(0.05 * s), 0.03 * math.cos(0.07 * s), 0.02 * math.sin(0.11 * s))
            noisy = tuple(p[i] + drift[i] + rng.gauss(0, 0.02) for i in range(3))
            pe = quat_rotate(q_align, noisy)
            pe = tuple(scale * pe[i] + t_align[i] for i in range(3))
            qe = quat_mul(q_align, quat_mul(q, quat_exp(tuple(rng.gauss(0, 0.01) for _ in range(3)))))
            est.write(tum_line(t_ns, pe, qe))
    return gt_path, est_path


# --- evo -------------------------------------------------------------------------------------------------

def find_evo(venv):
    on_path = shutil.which("evo_ape")
    if on_path:
        return on_path
    candidate = os.path.join(venv, "bin", "evo_ape")
    if os.path.exists(candidate):
        return candidate
    print("evo_ape not found; installing evo from PyPI into", venv, file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "index", "versions", "evo"], check=False)
    if subprocess.run([sys.executable, "-m", "venv", venv]).returncode != 0:
        fail(f"cannot create a virtual environment at {venv}")
    if subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "evo"]).returncode != 0:
        fail("pip install evo failed")
    if not os.path.exists(candidate):
        fail(f"evo installed but {candidate} is missing")
    return candidate


def evo_rmse(evo_ape, gt, est, sim3, workdir, relation="trans_part"):
    out = os.path.join(workdir, f"evo_{'sim3' if sim3 else 'se3'}_{relation}.zip")
    if os.path.exists(out):
        os.remove(out)
    cmd = [evo_ape, "tum", gt, est, "-as" if sim3 else "-a", "-r", relation, "--save_results", out, "--no_warnings"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
    with zipfile.ZipFile(out) as z:
        stats = json.loads(z.read("stats.json"))
    return stats


def evo_rpe_stats(evo_rpe, gt, est, sim3, length_m, rel_tol, workdir, relation="trans_part"):
    """evo's RPE statistics for sub-trajectory length `length_m` (pairs from the reference, all pairs), and the
    number of pairs."""
    out = os.path.join(workdir, f"evo_rpe_{'sim3' if sim3 else 'se3'}_{relation}.zip")
    if os.path.exists(out):
        os.remove(out)
    cmd = [evo_rpe, "tum", gt, est, "-as" if sim3 else "-a", "-r", relation, "--delta", repr(length_m),
           "--delta_unit", "m", "--delta_tol", repr(rel_tol), "--all_pairs", "--pairs_from_reference",
           "--save_results", out, "--no_warnings"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return None, f"{' '.join(cmd)} failed:\n{run.stdout}{run.stderr}"
    with zipfile.ZipFile(out) as z:
        stats = json.loads(z.read("stats.json"))
        with z.open("error_array.npy") as f:
            pairs = npy_length(f.read())
    return (stats, pairs), None


def npy_length(data):
    """The number of elements of a 1-D .npy array (its header's shape), without numpy."""
    header_len = int.from_bytes(data[8:10], "little") if data[6] == 1 else int.from_bytes(data[8:12], "little")
    header = data[10:10 + header_len] if data[6] == 1 else data[12:12 + header_len]
    shape = header.decode("latin1").split("'shape':")[1].split(")")[0].strip(" (,")
    return int(shape.split(",")[0]) if shape else 1


def worldtrack_summary(binary, gt, est, align, segments=None):
    cmd = [binary, "eval", "--estimate", est, "--groundtruth", gt, "--align", align,
           "--association", "nearest", "--max-dt", "0.01", "--json"]
    if segments:
        cmd += ["--segments", segments]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{' '.join(cmd)} exited {run.returncode}:\n{run.stderr}")
    return json.loads(run.stdout)


def asl_to_tum(path, workdir):
    """An ASL ground-truth CSV (or a dataset folder holding one) as a TUM file evo can read."""
    if os.path.isdir(path):
        path = os.path.join(path, "mav0", "state_groundtruth_estimate0", "data.csv")
    out = os.path.join(workdir, "groundtruth.tum")
    with open(path) as f, open(out, "w") as g:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = [v.strip() for v in line.split(",")]
            t_ns = int(c[0])
            # TUM: t x y z qx qy qz qw; ASL: t, p xyz, q wxyz
            g.write(f"{t_ns // 1_000_000_000}.{t_ns % 1_000_000_000:09d} {c[1]} {c[2]} {c[3]} {c[5]} {c[6]} {c[7]} {c[4]}\n")
    return out


def find_worldtrack(given):
    """The worldtrack binary: `given`, else the release build, else the debug build."""
    if given:
        if not os.access(given, os.X_OK):
            fail(f"--worldtrack {given}: not an executable file")
        return given
    candidates = [os.path.join(ROOT, ".build", mode, "worldtrack") for mode in ("release", "debug")]
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    fail("no worldtrack binary: looked for " + " and ".join(candidates)
         + " (build it with `swift build -c release`, or pass --worldtrack PATH)")


def compare(label, pairs, worst):
    """Prints each (name, evo, worldtrack) figure with its relative difference; returns the largest so far."""
    for name, e, w in pairs:
        rel = abs(w - e) / max(abs(e), 1e-300)
        worst = max(worst, rel)
        print(f"{label} {name:16s} evo {e:.12f}  worldtrack {w:.12f}  rel diff {rel:.2e}")
    return worst


def check_rpe(args, evo_rpe, gt, est, segments, rel_tol, workdir, worst):
    """RPE of worldtrack (at its lengths, or `segments`) against evo_rpe at the same lengths; returns the largest
    relative difference and the number of lengths compared."""
    compared = 0
    for align, sim3 in (("se3", False), ("sim3", True)):
        wt = worldtrack_summary(args.worldtrack, gt, est, align, segments)
        for seg in wt["rpe"]:
            length, label = seg["length_m"], f"{align:4s} RPE {seg['length_m']:.4g} m"
            if seg["pairs"] == 0:
                print(f"{label}: no worldtrack pairs (path too short); not compared")
                continue
            result, problem = evo_rpe_stats(evo_rpe, gt, est, sim3, length, rel_tol, workdir)
            if problem:
                print(f"{label}: evo could not compute it; not compared\n{problem}")
                continue
            stats, evo_pairs = result
            if evo_pairs != seg["pairs"]:
                print(f"{label}: evo has {evo_pairs} pairs, worldtrack {seg['pairs']} (evo also counts start poses "
                      f"less than {length:.4g} m of path before the end); not compared")
                continue
            rot, _ = evo_rpe_stats(evo_rpe, gt, est, sim3, length, rel_tol, workdir, relation="angle_deg")
            worst = compare(label, [("trans rmse m", stats["rmse"], seg["trans_rmse_m"]),
                                    ("trans mean m", stats["mean"], seg["trans_mean_m"]),
                                    ("trans median m", stats["median"], seg["trans_median_m"]),
                                    ("trans max m", stats["max"], seg["trans_max_m"]),
                                    ("rot rmse deg", rot[0]["rmse"], seg["rot_rmse_deg"])], worst)
            compared += 1
    return worst, compared


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gt", help="ground truth: a TUM file, an ASL data.csv or a dataset folder (converted to TUM for evo); default: a synthetic one")
    parser.add_argument("--est", help="estimated TUM file (default: a synthetic one)")
    parser.add_argument("--worldtrack",
                        help="the worldtrack binary (default: .build/release/worldtrack, else .build/debug/worldtrack)")
    parser.add_argument("--tolerance", type=float, default=1e-6, help="largest relative RMSE difference")
    parser.add_argument("--jitter-ms", type=float, default=0.0,
                        help="synthetic pair only: move estimate stamps by up to this many ms (nearest matching)")
    parser.add_argument("--venv", default=os.path.expanduser("~/.cache/worldtrack-evo-venv"),
                        help="virtual environment for evo when it is not on PATH")
    args = parser.parse_args()
    if (args.gt is None) != (args.est is None):
        fail("give both --gt and --est, or neither (synthetic pair)")
    args.worldtrack = find_worldtrack(args.worldtrack)

    workdir = tempfile.mkdtemp(prefix="evo-crosscheck-")
    gt, est = (args.gt, args.est) if args.gt else write_synthetic_pair(workdir, jitter_ms=args.jitter_ms)
    if args.gt and (os.path.isdir(gt) or gt.endswith(".csv")):
        gt = asl_to_tum(gt, workdir)
    evo_ape = find_evo(args.venv)

    worst = 0.0
    for align, sim3 in (("se3", False), ("sim3", True)):
        evo = evo_rmse(evo_ape, gt, est, sim3, workdir)
        wt = worldtrack_summary(args.worldtrack, gt, est, align)
        rel = abs(wt["ate_rmse_m"] - evo["rmse"]) / max(abs(evo["rmse"]), 1e-300)
        worst = max(worst, rel)
        print(f"{align:5s} evo rmse {evo['rmse']:.12f} m  worldtrack {wt['ate_rmse_m']:.12f} m  "
              f"rel diff {rel:.2e}  (evo mean {evo['mean']:.9f}, median {evo['median']:.9f}, max {evo['max']:.9f}; "
              f"worldtrack {wt['ate_mean_m']:.9f}, {wt['ate_median_m']:.9f}, {wt['ate_max_m']:.9f}; "
              f"pairs {wt['pairs']})")
        for key_evo, key_wt in (("mean", "ate_mean_m"), ("median", "ate_median_m"), ("max", "ate_max_m")):
            worst = max(worst, abs(wt[key_wt] - evo[key_evo]) / max(abs(evo[key_evo]), 1e-300))
        # Rotation: evo's angle_deg APE is the angle of R_gt^T R_aligned, as worldtrack's rot_rmse_deg.
        evo_rot = evo_rmse(evo_ape, gt, est, sim3, workdir, relation="angle_deg")
        rel_rot = abs(wt["rot_rmse_deg"] - evo_rot["rmse"]) / max(abs(evo_rot["rmse"]), 1e-300)
        worst = max(worst, rel_rot)
        print(f"{align:5s} evo rot rmse {evo_rot['rmse']:.12f} deg  worldtrack {wt['rot_rmse_deg']:.12f} deg  "
              f"rel diff {rel_rot:.2e}")
    # RPE: on the lattice pair (exact pair sets) by default, else on the given pair at worldtrack's lengths.
    evo_rpe = os.path.join(os.path.dirname(evo_ape), "evo_rpe")
    if not os.access(evo_rpe, os.X_OK):
        fail(f"{evo_rpe} is missing next to {evo_ape}")
    lattice_gt, lattice_est = write_lattice_pair(workdir)
    worst, compared = check_rpe(args, evo_rpe, lattice_gt, lattice_est, "2,4,8m", 1e-9, workdir, worst)
    if compared != 6:
        print(f"DISAGREE: the lattice pair's RPE was compared at {compared} of 6 lengths × alignments")
        sys.exit(1)
    if args.gt:
        # On a real pair the two count different pairs near the end of the path (see the module's doc): compared
        # where the counts agree.
        worst, given = check_rpe(args, evo_rpe, gt, est, None, 0.2, workdir, worst)
        print(f"RPE on the given pair: compared at {given} of {2 * 5} lengths × alignments; the lattice pair checks the rest")
    print(f"files: {gt} {est} (RPE: {lattice_gt} {lattice_est})")
    if worst > args.tolerance:
        print(f"DISAGREE: largest relative difference {worst:.2e} > {args.tolerance:g}")
        sys.exit(1)
    print(f"AGREE: largest relative difference {worst:.2e} <= {args.tolerance:g}")


if __name__ == "__main__":
    main()
