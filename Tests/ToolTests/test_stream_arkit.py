"""`run --convention arkit` against the default stream of the same run, record by record, as docs/STREAM.md
(Conventions) documents it: world points p_A = (x, z, −y); camera poses R_A_W · T · diag(1, −1, −1) (ARKit's camera
looks down −z, y up); anchor and raycast-hit poses R_A_W · T · R_S_Sa (y along the surface normal); body poses
R_A_W · T (the body frame itself unchanged); intrinsics, pixels, extents, lengths, σ, biases and times unchanged.
"""
import json
import math
import os
import unittest

from stream_run import runs

TOLERANCE = 1e-9  # m and unit-vector components: the two runs differ only by the final rotation (rounding)

R_A_W = [[1, 0, 0], [0, 0, 1], [0, -1, 0]]
D_C = [[1, 0, 0], [0, -1, 0], [0, 0, -1]]        # ARKit camera axes in the OpenCV camera frame
R_S_SA = [[1, 0, 0], [0, 0, -1], [0, 1, 0]]      # columns: x, z, −y of the surface frame (y along the normal)


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def homogeneous(r):
    return [r[0] + [0], r[1] + [0], r[2] + [0], [0, 0, 0, 1]]


def matrix(flat):
    return [flat[0:4], flat[4:8], flat[8:12], flat[12:16]]


def point(p):
    return [p[0], p[2], -p[1]]


def rotation_of_quaternion(q):
    w, x, y, z = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def camera_pose(flat):
    return matmul(matmul(homogeneous(R_A_W), matrix(flat)), homogeneous(D_C))


def surface_pose(flat):
    return matmul(matmul(homogeneous(R_A_W), matrix(flat)), homogeneous(R_S_SA))


class ARKitConventionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ours = runs()["worldtrack"]
        cls.arkit = runs()["arkit"]

    def close(self, a, b, what):
        a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
        flat_a, flat_b = flatten(a), flatten(b)
        self.assertEqual(len(flat_a), len(flat_b), what)
        worst = max((abs(x - y) for x, y in zip(flat_a, flat_b)), default=0.0)
        self.assertLessEqual(worst, TOLERANCE, f"{what}: {a} vs {b}")

    def pose(self, flat_arkit, expected4x4, position, orientation, what):
        self.close(matrix(flat_arkit), expected4x4, what + " transform")
        self.close(position, [row[3] for row in expected4x4[:3]], what + " position")
        if orientation is not None:
            self.close(rotation_of_quaternion(orientation), [row[:3] for row in expected4x4[:3]], what + " orientation")

    def same(self, a, b, keys, what):
        for k in keys:
            self.assertEqual(a.get(k), b.get(k), f"{what}: {k}")

    def test_every_record_is_converted_as_documented(self):
        ours, theirs = self.ours.records, self.arkit.records
        self.assertEqual([r["type"] for r in ours], [r["type"] for r in theirs])
        counts = {}
        for w, a in zip(ours, theirs):
            t = w["type"]
            counts[t] = counts.get(t, 0) + 1
            what = f"{t} at {w['t_ns']}"
            self.assertEqual(w["t_ns"], a["t_ns"])
            if t == "frame":
                self.check_frame(w, a, what)
            elif t.startswith("anchor."):
                self.check_anchor_event(w, a, what)
            elif t == "cursor":
                self.same(w, a, ("state", "target", "distance", "plane_id"), what)
                if "transform" in w:
                    self.pose(a["transform"], surface_pose(w["transform"]), a["position"], None, what)
                    self.close(a["normal"], point(w["normal"]), what + " normal")
                    # y along the surface normal.
                    self.close([row[1] for row in matrix(a["transform"])[:3]], a["normal"], what + " y axis")
            elif t == "measurement":
                self.same(w, a, ("tap_t_ns", "label", "status", "segments", "segment_std", "total", "total_std"), what)
                self.assertEqual(len(w["points"]), len(a["points"]))
                for pw, pa in zip(w["points"], a["points"]):
                    self.same(pw, pa, ("pixel", "target", "plane_id", "distance"), what)
                    self.close(pa["position"], point(pw["position"]), what + " point")
            elif t == "burst.captured":
                self.check_sidecar(w, a, what)
        # The comparison covered every kind of record and pose the run has.
        for t in ("frame", "anchor.added", "anchor.updated", "cursor", "measurement", "burst.captured"):
            self.assertGreater(counts.get(t, 0), 0, t)
        self.assertTrue(any("transform" in r for r in theirs if r["type"] == "cursor"))
        self.assertTrue(any(r.get("points") for r in theirs if r["type"] == "frame"))
        self.assertTrue(any(r["anchors"] for r in theirs if r["type"] == "frame"))

    def check_frame(self, w, a, what):
        self.same(w, a, ("tracking_state", "intrinsics", "features", "position_std", "orientation_std", "gyro_bias",
                         "accel_bias"), what)
        self.pose(a["T_world_camera"], camera_pose(w["T_world_camera"]), a["position"], a["orientation"], what + " camera")
        body = matmul(homogeneous(R_A_W), homogeneous(rotation_of_quaternion(w["body_orientation"])))
        self.close(rotation_of_quaternion(a["body_orientation"]), [row[:3] for row in body[:3]], what + " body orientation")
        self.close(a["body_position"], point(w["body_position"]), what + " body position")
        self.assertEqual("velocity" in w, "velocity" in a)
        if "velocity" in w:
            self.close(a["velocity"], point(w["velocity"]), what + " velocity")
        self.assertEqual([p["id"] for p in w.get("points", [])], [p["id"] for p in a.get("points", [])])
        for pw, pa in zip(w.get("points", []), a.get("points", [])):
            self.close(pa["position"], point(pw["position"]), what + " point")
        self.assertEqual(len(w["anchors"]), len(a["anchors"]))
        for aw, aa in zip(w["anchors"], a["anchors"]):
            self.same(aw, aa, ("id", "kind", "pixel", "classification"), what)
            self.pose(aa["transform"], surface_pose(aw["transform"]), aa["position"], None, what + " anchor")

    def check_anchor_event(self, w, a, what):
        self.same(w, a, ("id", "kind", "plane_id", "name", "merged_into"), what)
        self.pose(a["transform"], surface_pose(w["transform"]), a["position"], a["orientation"], what)
        if "plane" in w:
            pw, pa = w["plane"], a["plane"]
            self.same(pw, pa, ("alignment", "classification", "extent", "offset", "offset_std", "points"), what)
            self.close(pa["center"], point(pw["center"]), what + " centre")
            self.close(pa["normal"], point(pw["normal"]), what + " normal")
            self.close(pa["boundary"], [point(p) for p in pw["boundary"]], what + " boundary")
            # The anchor's y axis is the plane normal.
            self.close([row[1] for row in matrix(a["transform"])[:3]], pa["normal"], what + " y axis")

    def check_sidecar(self, w, a, what):
        self.same(w, a, ("burst", "index"), what)
        with open(w["sidecar"]) as f:
            sw = json.load(f)
        with open(a["sidecar"]) as f:
            sa = json.load(f)
        self.same(sw, sa, ("t_ns", "intrinsics", "distortion", "tracking_state", "image"), what)
        self.pose(sa["T_world_camera"], camera_pose(sw["T_world_camera"]), sa["position"], sa["orientation"], what + " sidecar")


def flatten(v):
    if isinstance(v, list):
        return [x for item in v for x in flatten(item)]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return [float(v)]
    raise TypeError(f"not a number or list: {v!r}")


if __name__ == "__main__":
    unittest.main()
