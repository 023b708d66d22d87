"""Round trips ASL → ROS bag → ASL through Tools/asl_to_bag.py and Tools/bag_to_asl.py (ROS 2 sqlite3, ROS 2 MCAP,
ROS 1), checked against the original dataset: image pixels (decoded with Pillow), IMU rows, calibration, ground
truth, and `worldtrack run` giving the byte-identical trajectory. bag_to_asl.py is also checked on bags written
directly with rosbags' writer (CompressedImage PNG/JPEG, raw rgb8/bgr8, mono16), and on its errors.

Run with Tools/tool_tests.sh (WORLDTRACK_BIN names the CLI; default .build/release/worldtrack).
"""
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
from PIL import Image
from rosbags.rosbag1 import Writer as Writer1
from rosbags.rosbag2 import StoragePlugin
from rosbags.rosbag2 import Writer as Writer2
from rosbags.typesys import Stores, get_typestore
from ruamel.yaml import YAML

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAG_TO_ASL = os.path.join(ROOT, "Tools", "bag_to_asl.py")
ASL_TO_BAG = os.path.join(ROOT, "Tools", "asl_to_bag.py")
WORLDTRACK = os.environ.get("WORLDTRACK_BIN") or os.path.join(ROOT, ".build", "release", "worldtrack")


def tool(script, *args):
    """Runs a Tools/ script with this Python; returns (exit status, stderr)."""
    p = subprocess.run([sys.executable, script, *map(str, args), "--quiet"], capture_output=True, text=True)
    return p.returncode, p.stderr


def read_yaml(path):
    with open(path) as f:
        text = f.read()
    if text.startswith("%YAML:"):
        text = "#" + text
    return YAML(typ="safe", pure=True).load(text)


def csv_rows(path):
    with open(path) as f:
        return [line.strip().split(",") for line in f if line.strip() and not line.startswith("#")]


def pixels(path):
    with Image.open(path) as im:
        return np.asarray(im)


def t_bs(doc):
    return np.array([float(v) for v in doc["T_BS"]["data"]]).reshape(4, 4)


class BagRoundTrip(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(WORLDTRACK, os.X_OK):
            raise RuntimeError(f"no worldtrack CLI at {WORLDTRACK}: build it (swift build -c release) or set WORLDTRACK_BIN")
        cls.tmp = tempfile.mkdtemp(prefix="wt-bag-")
        cls.sim = os.path.join(cls.tmp, "sim")
        # Moving from the start so that the trajectory compared below is not a still one.
        subprocess.run([WORLDTRACK, "simulate", "--seconds", "3", "--stereo", "--start-moving", "--size", "376x240",
                        "--out", cls.sim], check=True, capture_output=True)
        cls.sim_trajectory = cls.run_worldtrack(cls.sim)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def run_worldtrack(cls, dataset):
        out = os.path.join(cls.tmp, os.path.basename(dataset) + ".tum")
        subprocess.run([WORLDTRACK, "run", dataset, "--stereo", "--trajectory", out, "--no-stream", "--quiet"],
                       check=True, capture_output=True)
        with open(out, "rb") as f:
            return f.read()

    def path(self, name):
        return os.path.join(self.tmp, name)

    # --- the round trip ----------------------------------------------------------------------------------

    def round_trip(self, name, writer_args, gt_type, read_path=None):
        bag = self.path(name)
        camchain, imu_yaml = self.path(name + "-camchain.yaml"), self.path(name + "-imu.yaml")
        code, err = tool(ASL_TO_BAG, self.sim, "--out", bag, *writer_args, "--gt-type", gt_type,
                         "--camchain-out", camchain, "--imu-yaml-out", imu_yaml)
        self.assertEqual(code, 0, err)
        out = self.path(name + "-asl")
        code, err = tool(BAG_TO_ASL, read_path(bag) if read_path else bag, "--out", out,
                         "--image-topic", "/cam0/image_raw", "--image-topic", "/cam1/image_raw", "--imu-topic", "/imu0",
                         "--gt-topic", "/groundtruth/pose", "--camchain", camchain, "--imu-yaml", imu_yaml)
        self.assertEqual(code, 0, err)
        self.assertNotIn("Traceback", err)
        self.assert_same_dataset(self.sim, out)
        self.assertEqual(self.run_worldtrack(out), self.sim_trajectory,
                         "worldtrack run gives another trajectory on the converted dataset")

    def assert_same_dataset(self, a, b):
        ma, mb = os.path.join(a, "mav0"), os.path.join(b, "mav0")
        for cam in ("cam0", "cam1"):
            rows_a, rows_b = csv_rows(os.path.join(ma, cam, "data.csv")), csv_rows(os.path.join(mb, cam, "data.csv"))
            self.assertEqual([r[0] for r in rows_a], [r[0] for r in rows_b], f"{cam} timestamps")
            self.assertEqual(len(rows_a), 61)
            for (_, fa), (_, fb) in zip(rows_a, rows_b):
                pa, pb = pixels(os.path.join(ma, cam, "data", fa)), pixels(os.path.join(mb, cam, "data", fb))
                self.assertEqual(pb.dtype, np.uint8)
                self.assertTrue(np.array_equal(pa, pb), f"{cam} {fa}: pixels differ")
            ya, yb = read_yaml(os.path.join(ma, cam, "sensor.yaml")), read_yaml(os.path.join(mb, cam, "sensor.yaml"))
            np.testing.assert_allclose(t_bs(yb), t_bs(ya), rtol=0, atol=1e-12, err_msg=f"{cam} T_BS")
            np.testing.assert_allclose(yb["intrinsics"], ya["intrinsics"], rtol=0, atol=1e-12)
            np.testing.assert_allclose(yb["distortion_coefficients"], ya["distortion_coefficients"], rtol=0, atol=1e-12)
            self.assertEqual(len(yb["distortion_coefficients"]), 4)
            for key in ("resolution", "camera_model", "distortion_model", "rate_hz"):
                self.assertEqual(yb[key], ya[key], f"{cam} {key}")
        imu_a, imu_b = csv_rows(os.path.join(ma, "imu0", "data.csv")), csv_rows(os.path.join(mb, "imu0", "data.csv"))
        self.assertEqual(len(imu_a), 601)
        self.assertEqual([int(r[0]) for r in imu_a], [int(r[0]) for r in imu_b])
        self.assertEqual([[float(v) for v in r[1:]] for r in imu_a], [[float(v) for v in r[1:]] for r in imu_b])
        ya, yb = read_yaml(os.path.join(ma, "imu0", "sensor.yaml")), read_yaml(os.path.join(mb, "imu0", "sensor.yaml"))
        for key in ("rate_hz", "gyroscope_noise_density", "gyroscope_random_walk", "accelerometer_noise_density",
                    "accelerometer_random_walk"):
            self.assertEqual(float(yb[key]), float(ya[key]), key)
        gt_a = csv_rows(os.path.join(ma, "state_groundtruth_estimate0", "data.csv"))
        gt_b = csv_rows(os.path.join(mb, "state_groundtruth_estimate0", "data.csv"))
        self.assertEqual(len(gt_b), len(gt_a))
        self.assertEqual([[int(r[0])] + [float(v) for v in r[1:8]] for r in gt_a],
                         [[int(r[0])] + [float(v) for v in r[1:8]] for r in gt_b], "ground truth (t, p, q)")

    def test_round_trip_ros2_sqlite3(self):
        self.round_trip("ros2-sqlite3", ["--ros2", "--storage", "sqlite3"], "pose")

    def test_round_trip_ros2_mcap_single_file(self):
        # Read back through the .mcap file alone (no metadata.yaml), with TransformStamped ground truth.
        self.round_trip("ros2-mcap", ["--ros2", "--storage", "mcap"], "transform",
                        read_path=lambda bag: os.path.join(bag, "ros2-mcap.mcap"))

    def test_round_trip_ros1(self):
        self.round_trip("ros1.bag", ["--ros1"], "odometry")

    def test_round_trip_compressed_images(self):
        # CompressedImage PNG: bag_to_asl.py keeps the 8-bit gray PNG file as it is.
        bag, out = self.path("compressed"), self.path("compressed-asl")
        camchain = self.path("compressed-camchain.yaml")
        code, err = tool(ASL_TO_BAG, self.sim, "--out", bag, "--compressed", "--camchain-out", camchain)
        self.assertEqual(code, 0, err)
        code, err = tool(BAG_TO_ASL, bag, "--out", out, "--imu-topic", "/imu0", "--camchain", camchain)
        self.assertEqual(code, 0, err)  # image topics from the camchain's rostopic entries
        for cam in ("cam0", "cam1"):
            names = [r[1] for r in csv_rows(os.path.join(self.sim, "mav0", cam, "data.csv"))]
            self.assertEqual(names, [r[1] for r in csv_rows(os.path.join(out, "mav0", cam, "data.csv"))])
            for n in names:
                with open(os.path.join(self.sim, "mav0", cam, "data", n), "rb") as fa, \
                        open(os.path.join(out, "mav0", cam, "data", n), "rb") as fb:
                    self.assertEqual(fa.read(), fb.read(), f"{cam} {n}")

    # --- bags written with rosbags directly --------------------------------------------------------------

    @staticmethod
    def pattern(w, h, seed):
        rng = np.random.default_rng(seed)
        return rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)

    def write_direct_bag(self, path, images, imu_count=40, ros1=False, storage=StoragePlugin.MCAP, extra_empty=False):
        """A bag written with rosbags' own writer: `images` = [(msgtype, make(header) -> msg)] on /camera at
        20 Hz from t0, /imu at 200 Hz."""
        ts = get_typestore(Stores.ROS1_NOETIC if ros1 else Stores.ROS2_HUMBLE)
        T = ts.types
        t0 = 1_700_000_000_123_456_789

        def header(t):
            stamp = T["builtin_interfaces/msg/Time"](sec=t // 10**9, nanosec=t % 10**9)
            if ros1:
                return T["std_msgs/msg/Header"](seq=0, stamp=stamp, frame_id="cam")
            return T["std_msgs/msg/Header"](stamp=stamp, frame_id="cam")

        writer = Writer1(path) if ros1 else Writer2(path, version=9, storage_plugin=storage)
        serialize = ts.serialize_ros1 if ros1 else ts.serialize_cdr
        imu_rows = []
        with writer:
            cam = writer.add_connection("/camera", images[0][0], typestore=ts)
            imu = writer.add_connection("/imu", "sensor_msgs/msg/Imu", typestore=ts)
            if extra_empty:
                writer.add_connection("/empty_imu", "sensor_msgs/msg/Imu", typestore=ts)
            for k, (msgtype, make) in enumerate(images):
                t = t0 + k * 50_000_000
                writer.write(cam, t + 777, serialize(make(header(t)), msgtype))  # record time ≠ header stamp
            V3 = T["geometry_msgs/msg/Vector3"]
            for k in range(imu_count):
                t = t0 - 10_000_000 + k * 5_000_000
                values = [0.01 * k, -0.02, 1e-17 * k, 9.81 + 1e-9 * k, -0.1 / 3, 0.2]
                imu_rows.append([t] + values)
                msg = T["sensor_msgs/msg/Imu"](
                    header=header(t), orientation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
                    orientation_covariance=np.zeros(9), angular_velocity=V3(x=values[0], y=values[1], z=values[2]),
                    angular_velocity_covariance=np.zeros(9),
                    linear_acceleration=V3(x=values[3], y=values[4], z=values[5]),
                    linear_acceleration_covariance=np.zeros(9))
                writer.write(imu, t, serialize(msg, "sensor_msgs/msg/Imu"))
        return t0, imu_rows, ts

    @staticmethod
    def encode(array, fmt, **kw):
        buf = io.BytesIO()
        Image.fromarray(array).save(buf, format=fmt, **kw)
        return buf.getvalue()

    def compressed(self, ts, data, fmt):
        return ("sensor_msgs/msg/CompressedImage",
                lambda h: ts.types["sensor_msgs/msg/CompressedImage"](header=h, format=fmt,
                                                                      data=np.frombuffer(data, dtype=np.uint8)))

    def convert_direct(self, bag, out, *extra):
        return tool(BAG_TO_ASL, bag, "--out", out, "--image-topic", "/camera", "--imu-topic", "/imu",
                    "--intrinsics", "50,51,31.5,23.5", *extra)

    def test_compressed_png_from_rosbags_writer(self):
        ts = get_typestore(Stores.ROS2_HUMBLE)
        rgb = [self.pattern(64, 48, k) for k in range(5)]
        gray_pngs = [self.encode(np.asarray(Image.fromarray(a).convert("L")), "PNG", optimize=True) for a in rgb]
        colour_pngs = [self.encode(a, "PNG") for a in rgb]
        bag = self.path("direct-png")
        # Gray PNG frames, then colour PNG frames (converted to gray by bag_to_asl.py).
        images = [self.compressed(ts, d, "mono8; png compressed") for d in gray_pngs]
        images += [self.compressed(ts, d, "rgb8; png compressed bgr8") for d in colour_pngs]
        t0, imu_rows, _ = self.write_direct_bag(bag, images)
        out = self.path("direct-png-asl")
        code, err = self.convert_direct(bag, out)
        self.assertEqual(code, 0, err)
        self.assertIn("T_BS", err)  # the identity-extrinsics warning
        mav = os.path.join(out, "mav0")
        rows = csv_rows(os.path.join(mav, "cam0", "data.csv"))
        self.assertEqual([int(r[0]) for r in rows], [t0 + k * 50_000_000 for k in range(10)])  # header stamps
        for k, (_, name) in enumerate(rows):
            got = pixels(os.path.join(mav, "cam0", "data", name))
            self.assertEqual(got.shape, (48, 64))
            if k < 5:
                self.assertTrue(np.array_equal(got, pixels(io.BytesIO(gray_pngs[k]))), f"frame {k}")
            else:  # BT.601 luma: Pillow's own rounding may differ by one level
                ref = np.asarray(Image.fromarray(rgb[k - 5]).convert("L"), dtype=np.int16)
                self.assertLessEqual(int(np.abs(got.astype(np.int16) - ref).max()), 1, f"frame {k}")
        imu = csv_rows(os.path.join(mav, "imu0", "data.csv"))
        self.assertEqual([[int(r[0])] + [float(v) for v in r[1:]] for r in imu], imu_rows)
        cam_yaml = read_yaml(os.path.join(mav, "cam0", "sensor.yaml"))
        self.assertEqual(cam_yaml["resolution"], [64, 48])
        self.assertEqual(cam_yaml["intrinsics"], [50.0, 51.0, 31.5, 23.5])
        self.assertEqual(cam_yaml["rate_hz"], 20)
        self.assertEqual(read_yaml(os.path.join(mav, "imu0", "sensor.yaml"))["rate_hz"], 200)
        # WorldTrack itself reads the result.
        info = subprocess.run([WORLDTRACK, "info", out, "--json"], capture_output=True, text=True)
        self.assertEqual(info.returncode, 0, info.stderr)

        # --color keep: the colour PNG files are kept byte for byte.
        out_keep = self.path("direct-png-keep")
        code, err = self.convert_direct(bag, out_keep, "--color", "keep")
        self.assertEqual(code, 0, err)
        with open(os.path.join(out_keep, "mav0", "cam0", "data", rows[7][1]), "rb") as f:
            self.assertEqual(f.read(), colour_pngs[2])

        # --bag-time: the record times (header stamp + 777 ns) instead.
        out_bag_time = self.path("direct-png-bagtime")
        code, err = self.convert_direct(bag, out_bag_time, "--bag-time")
        self.assertEqual(code, 0, err)
        rows = csv_rows(os.path.join(out_bag_time, "mav0", "cam0", "data.csv"))
        self.assertEqual(int(rows[0][0]), t0 + 777)

    def test_raw_colour_jpeg_and_16_bit_images_from_rosbags_writer(self):
        ts = get_typestore(Stores.ROS1_NOETIC)
        T = ts.types
        a = self.pattern(32, 24, 7)

        def raw(encoding, array, step_pad=0):
            h, w = array.shape[:2]
            c = 1 if array.ndim == 2 else array.shape[2]
            rows = np.zeros((h, w * c + step_pad), dtype=np.uint8)
            rows[:, :w * c] = array.reshape(h, w * c)
            return ("sensor_msgs/msg/Image",
                    lambda hd: T["sensor_msgs/msg/Image"](header=hd, height=h, width=w, encoding=encoding,
                                                          is_bigendian=0, step=w * c + step_pad, data=rows.reshape(-1)))

        bag = self.path("direct-raw.bag")
        # rgb8, the same image as bgr8 (with row padding) and mono8: the two colour frames give the same gray.
        images = [raw("rgb8", a), raw("bgr8", a[:, :, ::-1].copy(), step_pad=5), raw("mono8", a[:, :, 1].copy())]
        self.write_direct_bag(bag, images, ros1=True)
        out = self.path("direct-raw-asl")
        code, err = self.convert_direct(bag, out)
        self.assertEqual(code, 0, err)
        mav = os.path.join(out, "mav0", "cam0")
        frames = [pixels(os.path.join(mav, "data", r[1])) for r in csv_rows(os.path.join(mav, "data.csv"))]
        self.assertTrue(np.array_equal(frames[0], frames[1]), "rgb8 and bgr8 of one image differ")
        ref = np.asarray(Image.fromarray(a).convert("L"), dtype=np.int16)
        self.assertLessEqual(int(np.abs(frames[0].astype(np.int16) - ref).max()), 1)
        self.assertTrue(np.array_equal(frames[2], a[:, :, 1]))

        # JPEG CompressedImage: decoded to the pixels Pillow decodes from the same bytes.
        jpeg = self.encode(a, "JPEG", quality=90)
        bag = self.path("direct-jpeg")
        self.write_direct_bag(bag, [self.compressed(get_typestore(Stores.ROS2_HUMBLE), jpeg, "jpeg")] * 3,
                              storage=StoragePlugin.SQLITE3)
        out = self.path("direct-jpeg-asl")
        code, err = self.convert_direct(bag, out, "--color", "keep")
        self.assertEqual(code, 0, err)
        mav = os.path.join(out, "mav0", "cam0")
        got = pixels(os.path.join(mav, "data", csv_rows(os.path.join(mav, "data.csv"))[0][1]))
        self.assertTrue(np.array_equal(got, pixels(io.BytesIO(jpeg))))

        # mono16 is refused clearly, and no partial dataset is left.
        bag = self.path("direct-mono16.bag")
        deep = np.arange(24 * 32 * 2, dtype=np.uint8).reshape(24, 64)
        mono16 = ("sensor_msgs/msg/Image",
                  lambda hd: T["sensor_msgs/msg/Image"](header=hd, height=24, width=32, encoding="mono16", is_bigendian=0,
                                                        step=64, data=deep.reshape(-1)))
        self.write_direct_bag(bag, [mono16, mono16], ros1=True)
        out = self.path("direct-mono16-asl")
        code, err = self.convert_direct(bag, out)
        self.assertEqual(code, 2, err)
        self.assertIn("mono16", err)
        self.assertIn("8-bit", err)
        self.assertNotIn("Traceback", err)
        self.assertFalse(os.path.exists(out), "a failed conversion left its output folder")

    # --- errors ------------------------------------------------------------------------------------------

    def small_bag(self):
        bag = self.path("small-errors")
        if not os.path.exists(bag):
            ts = get_typestore(Stores.ROS2_HUMBLE)
            png = self.encode(self.pattern(16, 12, 1)[:, :, 0].copy(), "PNG")
            self.write_direct_bag(bag, [self.compressed(ts, png, "png")] * 3, storage=StoragePlugin.SQLITE3,
                                  extra_empty=True)
        return bag

    def assert_usage_error(self, code, err, *fragments):
        self.assertEqual(code, 2, err)
        self.assertNotIn("Traceback", err)
        self.assertIn("bag_to_asl: error:", err)
        for fragment in fragments:
            self.assertIn(fragment, err)

    def test_missing_topic_lists_the_bags_topics(self):
        out = self.path("missing-topic")
        code, err = tool(BAG_TO_ASL, self.small_bag(), "--out", out, "--image-topic", "/camera", "--imu-topic",
                         "/imu/data", "--intrinsics", "10,10,8,6")
        self.assert_usage_error(code, err, "/imu/data", "/camera (sensor_msgs/msg/CompressedImage", "/imu (sensor_msgs/msg/Imu")
        self.assertFalse(os.path.exists(out))

    def test_wrong_message_type_and_empty_topic(self):
        code, err = tool(BAG_TO_ASL, self.small_bag(), "--out", self.path("wrong-type"), "--image-topic", "/imu",
                         "--imu-topic", "/imu", "--intrinsics", "10,10,8,6")
        self.assert_usage_error(code, err, "/imu has type sensor_msgs/msg/Imu", "sensor_msgs/msg/Image")
        code, err = tool(BAG_TO_ASL, self.small_bag(), "--out", self.path("empty-topic"), "--image-topic", "/camera",
                         "--imu-topic", "/empty_imu", "--intrinsics", "10,10,8,6")
        self.assert_usage_error(code, err, "/empty_imu has no messages")

    def test_existing_out_is_refused_without_force(self):
        out = self.path("existing")
        os.makedirs(out, exist_ok=True)
        mine = os.path.join(out, "notes.txt")
        with open(mine, "w") as f:
            f.write("keep me")
        args = [self.small_bag(), "--out", out, "--image-topic", "/camera", "--imu-topic", "/imu", "--intrinsics", "10,10,8,6"]
        code, err = tool(BAG_TO_ASL, *args)
        self.assert_usage_error(code, err, "not empty", "--force")
        self.assertEqual(sorted(os.listdir(out)), ["notes.txt"])
        code, err = tool(BAG_TO_ASL, *args, "--force")
        self.assertEqual(code, 0, err)
        self.assertEqual(sorted(os.listdir(out)), ["mav0", "notes.txt"])
        with open(mine) as f:
            self.assertEqual(f.read(), "keep me")
        # asl_to_bag.py refuses an existing bag too.
        code, err = tool(ASL_TO_BAG, out, "--out", self.small_bag())
        self.assertEqual(code, 2, err)
        self.assertIn("exists", err)

    def test_help_documents_options_and_examples(self):
        for script, needles in ((BAG_TO_ASL, ["--camchain", "--intrinsics", "--imu-yaml", "EuRoC 0.00016968", "Examples:",
                                              "mono16", "--force"]),
                                (ASL_TO_BAG, ["--camchain-out", "--storage", "/imu0", "Examples:", "--force"])):
            p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            for needle in needles:
                self.assertIn(needle, p.stdout, f"{os.path.basename(script)} --help")
        p = subprocess.run([sys.executable, BAG_TO_ASL, "x.bag", "--imu-topic", "/imu"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--out", p.stderr)

    def test_16_bit_compressed_png_is_refused(self):
        ts = get_typestore(Stores.ROS2_HUMBLE)
        deep = self.encode(np.arange(12 * 16, dtype=np.uint16).reshape(12, 16) * 300, "PNG")
        self.assertEqual(deep[24], 16)  # Pillow wrote a 16-bit PNG
        bag = self.path("direct-png16")
        self.write_direct_bag(bag, [self.compressed(ts, deep, "mono16; png compressed")] * 2, storage=StoragePlugin.SQLITE3)
        out = self.path("direct-png16-asl")
        code, err = self.convert_direct(bag, out)
        self.assert_usage_error(code, err, "16-bit PNG")
        self.assertFalse(os.path.exists(out))

    def test_camchain_checks(self):
        bag = self.small_bag()
        camchain = self.path("kalibr-omni.yaml")
        with open(camchain, "w") as f:
            f.write("cam0:\n  camera_model: omni\n  intrinsics: [0.8, 10, 10, 8, 6]\n  distortion_model: radtan\n"
                    "  distortion_coeffs: [0, 0, 0, 0]\n  resolution: [16, 12]\n  rostopic: /camera\n")
        code, err = tool(BAG_TO_ASL, bag, "--out", self.path("omni"), "--imu-topic", "/imu", "--camchain", camchain)
        self.assert_usage_error(code, err, "camera_model 'omni' is not supported")

        # A Kalibr camchain with T_cam_imu only: T_BS is its inverse; a wrong resolution is refused.
        R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
        t = np.array([0.05, -0.02, 0.01])
        T_cam_imu = np.eye(4)
        T_cam_imu[:3, :3], T_cam_imu[:3, 3] = R, t
        rows = "".join(f"  - [{', '.join(repr(float(v)) for v in row)}]\n" for row in T_cam_imu)
        for resolution, expect in (("[16, 12]", 0), ("[640, 480]", 2)):
            with open(camchain, "w") as f:
                f.write(f"cam0:\n  T_cam_imu:\n{rows}  camera_model: pinhole\n  intrinsics: [10, 10, 8, 6]\n"
                        f"  distortion_model: equidistant\n  distortion_coeffs: [0.1, 0.01, -0.001, 0.0001]\n"
                        f"  resolution: {resolution}\n  rostopic: /camera\n  timeshift_cam_imu: 0.002\n")
            out = self.path("kalibr-" + str(expect))
            code, err = tool(BAG_TO_ASL, bag, "--out", out, "--imu-topic", "/imu", "--camchain", camchain)
            if expect:
                self.assert_usage_error(code, err, "16x12", "640x480")
                continue
            self.assertEqual(code, 0, err)
            self.assertIn("--time-offset-ms 2", err)
            doc = read_yaml(os.path.join(out, "mav0", "cam0", "sensor.yaml"))
            np.testing.assert_allclose(t_bs(doc), np.linalg.inv(T_cam_imu), rtol=0, atol=1e-12)
            self.assertEqual(doc["distortion_model"], "equidistant")
            self.assertEqual(doc["distortion_coefficients"], [0.1, 0.01, -0.001, 0.0001])


if __name__ == "__main__":
    unittest.main()
