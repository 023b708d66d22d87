#!/usr/bin/env python3
"""Copy an ASL dataset with its cameras' mounting perturbed, to test `worldtrack run --refine-extrinsics`.

    Tools/perturb_mounting.py SRC DST [--degrees 1] [--metres 0.01]

DST gets symlinks to SRC's images and CSV files (nothing is copied or changed in SRC) and new camN/sensor.yaml
files whose `T_BS` is `ΔT · T_BS` for every camera (the stereo rig stays rigid): ΔT rotates by --degrees about
the axis (1, 2, −1)/√6 and translates by --metres along (1, −1, 1)/√3.
"""
import argparse, os, re, sys
import numpy as np

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src"); ap.add_argument("dst")
    ap.add_argument("--degrees", type=float, default=1.0)
    ap.add_argument("--metres", type=float, default=0.01)
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.src, "mav0")):
        sys.exit(f"perturb_mounting: {a.src} is not an ASL dataset (no mav0/)")
    if os.path.exists(a.dst):
        sys.exit(f"perturb_mounting: {a.dst} exists; choose a new folder")
    axis = np.array([1.0, 2.0, -1.0]) / np.sqrt(6)
    th = np.radians(a.degrees)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    dT = np.eye(4)
    dT[:3, :3] = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
    dT[:3, 3] = a.metres * np.array([1.0, -1.0, 1.0]) / np.sqrt(3)
    for root, dirs, files in os.walk(a.src):
        out = os.path.join(a.dst, os.path.relpath(root, a.src))
        os.makedirs(out, exist_ok=True)
        camera = os.path.basename(root).startswith("cam")
        for d in list(dirs):
            if camera and d == "data":
                os.symlink(os.path.abspath(os.path.join(root, d)), os.path.join(out, d))
                dirs.remove(d)
        for f in files:
            src = os.path.join(root, f)
            if camera and f == "sensor.yaml":
                text = open(src).read()
                m = re.search(r"T_BS:.*?data:\s*\[(.*?)\]", text, re.S)
                if not m:
                    sys.exit(f"perturb_mounting: {src}: no T_BS data")
                T = np.array([float(x) for x in m.group(1).replace("\n", " ").split(",")]).reshape(4, 4)
                rows = ",\n         ".join(", ".join(repr(float(v)) for v in row) for row in dT @ T)
                open(os.path.join(out, f), "w").write(text[:m.start(1)] + rows + text[m.end(1):])
            else:
                os.symlink(os.path.abspath(src), os.path.join(out, f))
    print(f"perturb_mounting: {a.dst}: mounting off by {a.degrees}° and {a.metres} m")

if __name__ == "__main__":
    main()
