#!/usr/bin/env python3
"""Convert a ROS bag (ROS 1 .bag, or ROS 2 with sqlite3 or MCAP storage) to the ASL/EuRoC dataset layout that
`worldtrack run` reads.

  bag_to_asl.py BAG --out DIR --image-topic T [--image-topic T2] --imu-topic T
                [--camchain camchain.yaml | --intrinsics fx,fy,cx,cy ...] [--gt-topic T] [--force]

BAG is a ROS 1 `.bag` file, a ROS 2 bag folder (with metadata.yaml; sqlite3 or MCAP storage), or a single
`.mcap` / `.db3` file. Writes

  DIR/mav0/camN/{data.csv, data/<t_ns>.png, sensor.yaml}   one camN per --image-topic, in the order given
  DIR/mav0/imu0/{data.csv, sensor.yaml}
  DIR/mav0/state_groundtruth_estimate0/{data.csv, sensor.yaml}   with --gt-topic (t_ns, p, q w x y z: 8 columns)

Messages: sensor_msgs/Image (mono8/8UC1; bgr8, rgb8, bgra8, rgba8 converted to gray with OpenCV's BT.601 luma,
or kept in colour with --color keep: WorldTrack converts colour PNGs to gray when it reads them; 16-bit
(mono16, 16UC1), float and Bayer/YUV encodings are refused), sensor_msgs/CompressedImage (PNG copied byte for byte when it is 8-bit gray,
or colour with --color keep; other PNGs and JPEG decoded and written as PNG), sensor_msgs/Imu (angular_velocity,
linear_acceleration; orientation ignored), and for ground truth geometry_msgs/PoseStamped,
PoseWithCovarianceStamped, TransformStamped or nav_msgs/Odometry (its pose). The ground truth must be the pose of
the body (IMU) frame in a world frame, as EuRoC's is. Timestamps are the messages' header stamps (integer ns);
--bag-time uses the bag's record times instead. Rows are sorted by time; a repeated stamp keeps the first
message (and says so).

Calibration (camN/sensor.yaml):
  --camchain FILE   a Kalibr camchain (camchain-imucam.yaml): camK ↔ the K-th --image-topic; T_BS is the inverse
                    of T_cam_imu (or T_imu_cam itself when the file has it, as OpenVINS' and asl_to_bag.py's
                    do); camera_model pinhole with distortion_model radtan, equidistant or none (what WorldTrack
                    supports; omni/ds/eucm and fov are refused). Without --image-topic the camchain's rostopic
                    entries are used. A non-zero timeshift_cam_imu is reported as the matching
                    `worldtrack run --time-offset-ms`; timestamps are not changed.
  --intrinsics fx,fy,cx,cy   (once per camera) with --distortion-model/--distortion; T_BS is then the identity
                    (the camera is taken to sit at the IMU, with a warning): fine for a first look, not for
                    accurate tracking.
The camera rate_hz is estimated from the image stamps (median period). imu0/sensor.yaml gets the IMU rate the same
way and the noise densities of --imu-yaml (a Kalibr imu.yaml) or of --gyro-noise etc., EuRoC's by default.

The output folder must be absent or empty; --force replaces DIR/mav0 (nothing else in DIR). The conversion is
written to a temporary folder inside DIR and renamed into place at the end, so a failed run leaves no half
dataset. Exit status: 0 done, 2 bad input or usage (missing topic, wrong message type, empty topic, unsupported
encoding or camera model, existing --out).

Needs the PyPI packages of Tools/requirements.txt (rosbags, Pillow); when they are not importable the script
creates ~/.cache/worldtrack-tools-venv (or $WORLDTRACK_TOOLS_VENV), installs them there and re-runs itself with it.

Examples:
  Tools/bag_to_asl.py V1_01_easy.bag --out /tmp/v101 --image-topic /cam0/image_raw \\
      --image-topic /cam1/image_raw --imu-topic /imu0 --camchain camchain-imucam.yaml \\
      --gt-topic /vicon/firefly_sbx/firefly_sbx
  worldtrack run /tmp/v101 --stereo --trajectory /tmp/v101.tum
  Tools/bag_to_asl.py my_ros2_bag/ --out /tmp/mine --image-topic /camera/image_raw/compressed \\
      --imu-topic /imu/data --intrinsics 458.6,457.3,367.2,248.4 --distortion=-0.28,0.07,0.0002,0.00002
"""
import argparse
import math
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asl_bag_common import (EUROC_ACCEL_NOISE, EUROC_ACCEL_WALK, EUROC_GYRO_NOISE, EUROC_GYRO_WALK,  # noqa: E402
                            GROUND_TRUTH_YAML, ToolError, camera_yaml, check_rigid, ensure_dependencies, fail,
                            imu_yaml, invert_rigid, load_yaml, matmul4, png_bytes, png_header)

TOOL = "bag_to_asl"

IMAGE = "sensor_msgs/msg/Image"
COMPRESSED = "sensor_msgs/msg/CompressedImage"
IMU = "sensor_msgs/msg/Imu"
GT_TYPES = ("geometry_msgs/msg/PoseStamped", "geometry_msgs/msg/PoseWithCovarianceStamped",
            "geometry_msgs/msg/TransformStamped", "nav_msgs/msg/Odometry")

DISTORTION_MODELS = {  # name → (sensor.yaml name, number of coefficients)
    "radtan": ("radial-tangential", 4), "radial-tangential": ("radial-tangential", 4), "plumb_bob": ("radial-tangential", 4),
    "equidistant": ("equidistant", 4), "equi": ("equidistant", 4), "fisheye": ("equidistant", 4),
    "none": ("none", 0),
}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="bag_to_asl.py", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 2)[2],  # the text after the summary and synopsis
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bag", metavar="BAG", help="ROS 1 .bag file, ROS 2 bag folder, or a .mcap / .db3 file")
    p.add_argument("--out", required=True, metavar="DIR", help="output dataset folder (absent or empty; see --force)")
    p.add_argument("--image-topic", action="append", default=[], metavar="T",
                   help="camera topic (Image or CompressedImage); repeat for cam1, … (default: the camchain's rostopics)")
    p.add_argument("--imu-topic", required=True, metavar="T", help="sensor_msgs/Imu topic")
    p.add_argument("--gt-topic", metavar="T", help="ground-truth body pose topic (PoseStamped, PoseWithCovarianceStamped, "
                   "TransformStamped or Odometry)")
    cal = p.add_argument_group("camera calibration (one of)")
    cal.add_argument("--camchain", metavar="FILE", help="Kalibr camchain-imucam.yaml")
    cal.add_argument("--intrinsics", action="append", default=[], metavar="fx,fy,cx,cy",
                     help="pinhole intrinsics in pixels, once per camera (T_BS identity, with a warning)")
    cal.add_argument("--distortion-model", action="append", default=[], choices=["radtan", "equidistant", "none"],
                     help="with --intrinsics: lens model, once per camera or once for all (default radtan when "
                     "--distortion is given, else none)")
    cal.add_argument("--distortion", action="append", default=[], metavar="k1,k2,p1,p2",
                     help="with --intrinsics: 4 coefficients (radtan k1,k2,p1,p2; equidistant k1..k4), once per camera; "
                     "write --distortion=-0.28,... when the first is negative")
    imu = p.add_argument_group("IMU noise (imu0/sensor.yaml; default EuRoC's ADIS16448)")
    imu.add_argument("--imu-yaml", metavar="FILE", help="Kalibr imu.yaml with the four noise parameters")
    imu.add_argument("--gyro-noise", type=float, metavar="X", help=f"gyroscope noise density, rad/s/√Hz (EuRoC {EUROC_GYRO_NOISE})")
    imu.add_argument("--gyro-walk", type=float, metavar="X", help=f"gyroscope random walk, rad/s²/√Hz (EuRoC {EUROC_GYRO_WALK})")
    imu.add_argument("--accel-noise", type=float, metavar="X", help=f"accelerometer noise density, m/s²/√Hz (EuRoC {EUROC_ACCEL_NOISE})")
    imu.add_argument("--accel-walk", type=float, metavar="X", help=f"accelerometer random walk, m/s³/√Hz (EuRoC {EUROC_ACCEL_WALK})")
    p.add_argument("--color", choices=["gray", "keep"], default="gray",
                   help="colour images: convert to 8-bit gray PNGs (default) or keep RGB PNGs")
    p.add_argument("--bag-time", action="store_true", help="stamp rows with the bag's record time instead of header.stamp")
    p.add_argument("--force", action="store_true", help="replace DIR/mav0 when DIR is not empty")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p.parse_args(argv)


def numbers(text, count, what):
    try:
        values = [float(v) for v in text.replace(" ", "").split(",") if v != ""]
    except ValueError:
        raise ToolError(f"{what} '{text}': expected {count} comma-separated numbers") from None
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise ToolError(f"{what} '{text}': expected {count} comma-separated finite numbers, got {len(values)}")
    return values


def warn(message):
    print(f"{TOOL}: warning: {message}", file=sys.stderr)


# --- calibration -----------------------------------------------------------------------------------------

class CameraCal:
    def __init__(self, intrinsics, distortion_model, distortion, T_BS, resolution=None, topic=None, source=""):
        self.intrinsics = intrinsics
        self.distortion_model = distortion_model
        self.distortion = distortion
        self.T_BS = T_BS
        self.resolution = resolution
        self.topic = topic
        self.source = source


def camchain_cameras(path):
    doc = load_yaml(path, "camchain")
    if not isinstance(doc, dict):
        raise ToolError(f"camchain {path}: expected a mapping with cam0, cam1, … (Kalibr camchain-imucam.yaml)")
    names = sorted((k for k in doc if isinstance(k, str) and k.startswith("cam") and k[3:].isdigit()), key=lambda k: int(k[3:]))
    if not names:
        raise ToolError(f"camchain {path}: no cam0 entry (expected a Kalibr camchain-imucam.yaml)")
    if names != [f"cam{i}" for i in range(len(names))]:
        raise ToolError(f"camchain {path}: cameras must be cam0, cam1, … without gaps, got {', '.join(names)}")
    cams = []
    for name in names:
        c = doc[name]
        where = f"camchain {path}: {name}"
        if not isinstance(c, dict):
            raise ToolError(f"{where}: expected a mapping")
        model = str(c.get("camera_model", "pinhole")).lower()
        if model != "pinhole":
            raise ToolError(f"{where}: camera_model '{model}' is not supported (WorldTrack reads pinhole cameras with "
                            "radtan, equidistant or no distortion; recalibrate with Kalibr's pinhole-radtan or pinhole-equi)")
        dmodel = str(c.get("distortion_model", "none")).lower()
        if dmodel not in DISTORTION_MODELS:
            raise ToolError(f"{where}: distortion_model '{dmodel}' is not supported (WorldTrack: radtan, equidistant, none)")
        yaml_name, n = DISTORTION_MODELS[dmodel]
        coeffs = c.get("distortion_coeffs", [])
        try:
            coeffs = [float(v) for v in (coeffs or [])]
            intrinsics = [float(v) for v in c.get("intrinsics", [])]
            resolution = [int(v) for v in c.get("resolution", [])]
        except (TypeError, ValueError):
            raise ToolError(f"{where}: intrinsics, distortion_coeffs and resolution must be lists of numbers") from None
        if yaml_name == "radial-tangential" and len(coeffs) == 5 and coeffs[4] == 0:
            coeffs = coeffs[:4]
        if len(coeffs) != n:
            raise ToolError(f"{where}: distortion_model {dmodel} needs {n} distortion_coeffs, got {len(coeffs)}")
        if len(intrinsics) != 4 or intrinsics[0] <= 0 or intrinsics[1] <= 0:
            raise ToolError(f"{where}: intrinsics must be [fx, fy, cx, cy] with fx, fy > 0 (pinhole)")
        if len(resolution) != 2 or min(resolution) <= 0:
            raise ToolError(f"{where}: resolution must be [width, height]")
        if "T_cam_imu" not in c and "T_imu_cam" not in c:
            raise ToolError(f"{where}: no T_cam_imu (a camera-only calibration?); WorldTrack needs the camera–IMU "
                            "extrinsics of kalibr_calibrate_imu_camera's camchain-imucam.yaml")
        if "T_imu_cam" in c:
            # OpenVINS' form of the file (also written by asl_to_bag.py): the camera pose in the IMU frame, i.e.
            # T_BS itself, taken as given so that a round trip keeps every bit.
            T_BS = check_rigid(c["T_imu_cam"], f"{where}: T_imu_cam")
            if "T_cam_imu" in c:
                T_cam_imu = check_rigid(c["T_cam_imu"], f"{where}: T_cam_imu")
                product = matmul4(T_BS, T_cam_imu)
                err = max(abs(product[i][j] - (1.0 if i == j else 0.0)) for i in range(4) for j in range(4))
                if err > 1e-6:
                    raise ToolError(f"{where}: T_imu_cam and T_cam_imu are not inverses of each other "
                                    f"(|T_imu_cam · T_cam_imu − I| = {err:.3g})")
        else:
            T_BS = invert_rigid(check_rigid(c["T_cam_imu"], f"{where}: T_cam_imu"))
        shift = c.get("timeshift_cam_imu", 0.0) or 0.0
        if float(shift) != 0.0:
            warn(f"{name}: Kalibr's timeshift_cam_imu is {float(shift)} s (t_imu = t_cam + shift); the timestamps are "
                 f"kept as recorded: run with `worldtrack run --time-offset-ms {float(shift) * 1e3:g} --fixed-time-offset` "
                 "to use it")
        cams.append(CameraCal(intrinsics, yaml_name, coeffs, T_BS, resolution=resolution,
                              topic=c.get("rostopic"), source=f"Kalibr camchain {os.path.basename(path)} {name}"))
    return cams


def given_cameras(args, count):
    if len(args.intrinsics) != count:
        raise ToolError(f"--intrinsics given {len(args.intrinsics)} times for {count} image topic(s): give it once per camera")
    models = args.distortion_model
    if len(models) == 1:
        models = models * count
    if models and len(models) != count:
        raise ToolError(f"--distortion-model given {len(models)} times for {count} cameras: give it once, or once per camera")
    if args.distortion and len(args.distortion) != count:
        raise ToolError(f"--distortion given {len(args.distortion)} times for {count} cameras: give it once per camera")
    cams = []
    for i in range(count):
        k = numbers(args.intrinsics[i], 4, "--intrinsics")
        if k[0] <= 0 or k[1] <= 0:
            raise ToolError(f"--intrinsics '{args.intrinsics[i]}': fx and fy must be positive")
        model = models[i] if models else ("radtan" if args.distortion else "none")
        yaml_name, n = DISTORTION_MODELS[model]
        if n == 0:
            if args.distortion:
                raise ToolError("--distortion given with --distortion-model none")
            coeffs = []
        else:
            if not args.distortion:
                raise ToolError(f"--distortion-model {model} needs --distortion with {n} coefficients")
            coeffs = numbers(args.distortion[i], n, "--distortion")
        identity = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
        cams.append(CameraCal(k, yaml_name, coeffs, identity, source="--intrinsics (T_BS identity)"))
    warn("no camchain: the cameras' T_BS (camera pose in the IMU frame) is set to the identity; the camera–IMU "
         "rotation matters for tracking: give a Kalibr --camchain for real use")
    return cams


def imu_noise(args):
    values = {"gyroscope_noise_density": EUROC_GYRO_NOISE, "gyroscope_random_walk": EUROC_GYRO_WALK,
              "accelerometer_noise_density": EUROC_ACCEL_NOISE, "accelerometer_random_walk": EUROC_ACCEL_WALK}
    source = "EuRoC's defaults"
    if args.imu_yaml:
        doc = load_yaml(args.imu_yaml, "IMU yaml")
        if isinstance(doc, dict) and isinstance(doc.get("imu0"), dict):
            doc = doc["imu0"]
        if not isinstance(doc, dict):
            raise ToolError(f"IMU yaml {args.imu_yaml}: expected a mapping (Kalibr imu.yaml)")
        for key in values:
            if key not in doc:
                raise ToolError(f"IMU yaml {args.imu_yaml}: missing {key}")
            try:
                values[key] = float(doc[key])
            except (TypeError, ValueError):
                raise ToolError(f"IMU yaml {args.imu_yaml}: {key} must be a number") from None
        source = args.imu_yaml
    for key, opt in (("gyroscope_noise_density", args.gyro_noise), ("gyroscope_random_walk", args.gyro_walk),
                     ("accelerometer_noise_density", args.accel_noise), ("accelerometer_random_walk", args.accel_walk)):
        if opt is not None:
            values[key] = opt
            source = "the options" if source == "EuRoC's defaults" else source + " and the options"
    for key, v in values.items():
        if not (math.isfinite(v) and v >= 0):
            raise ToolError(f"IMU noise {key} must be a finite number ≥ 0, got {v}")
    return values, source


# --- output folder ---------------------------------------------------------------------------------------

def prepare_out(out, force):
    """Checks --out; returns (temporary mav0 folder to write, created_out)."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise ToolError(f"--out {out} is a file, not a folder")
    created = False
    if os.path.isdir(out):
        if os.listdir(out) and not force:
            raise ToolError(f"--out {out} exists and is not empty; not overwriting it (--force replaces {out}/mav0)")
    else:
        try:
            os.makedirs(out)
        except OSError as e:
            raise ToolError(f"cannot create --out {out}: {e.strerror}") from None
        created = True
    tmp = os.path.join(out, f".mav0.partial-{os.getpid()}")
    os.makedirs(tmp)
    return tmp, created


# --- messages --------------------------------------------------------------------------------------------

def luma(r, g, b):
    """OpenCV's RGB → gray (BT.601, 14-bit fixed point with rounding), on uint8 numpy arrays."""
    import numpy as np
    y = (r.astype(np.uint32) * 4899 + g.astype(np.uint32) * 9617 + b.astype(np.uint32) * 1868 + 8192) >> 14
    return y.astype(np.uint8)


def pixels_from_array(arr, order, color):
    """(bytes, channels) for an (h, w, c) uint8 array in channel `order` ('gray', 'rgb', 'bgr'; alpha ignored)."""
    import numpy as np
    if order == "gray":
        return np.ascontiguousarray(arr[:, :, 0]).tobytes(), 1
    r, g, b = (arr[:, :, 0], arr[:, :, 1], arr[:, :, 2]) if order == "rgb" else (arr[:, :, 2], arr[:, :, 1], arr[:, :, 0])
    if color == "keep":
        return np.ascontiguousarray(np.stack([r, g, b], axis=2)).tobytes(), 3
    return luma(r, g, b).tobytes(), 1


RAW_ENCODINGS = {"mono8": (1, "gray"), "8uc1": (1, "gray"), "bgr8": (3, "bgr"), "rgb8": (3, "rgb"), "8uc3": (3, "bgr"),
                 "bgra8": (4, "bgr"), "rgba8": (4, "rgb"), "8uc4": (4, "bgr")}


def raw_image_png(msg, color, where):
    """(png bytes, width, height) of a sensor_msgs/Image."""
    import numpy as np
    enc = msg.encoding.strip().lower()
    if enc not in RAW_ENCODINGS:
        if "16" in enc or "32" in enc or "64" in enc:
            raise ToolError(f"{where}: encoding '{msg.encoding}' is not supported: WorldTrack tracks 8-bit images "
                            "(mono8, rgb8, bgr8, …); convert 16-bit/float images to 8 bits before recording")
        raise ToolError(f"{where}: encoding '{msg.encoding}' is not supported (supported: {', '.join(sorted(RAW_ENCODINGS))}; "
                        "Bayer and YUV images must be debayered/converted first)")
    channels, order = RAW_ENCODINGS[enc]
    w, h, step = int(msg.width), int(msg.height), int(msg.step)
    data = np.asarray(msg.data, dtype=np.uint8).reshape(-1)
    if w <= 0 or h <= 0:
        raise ToolError(f"{where}: image is {w}x{h}")
    if step < w * channels or data.size < step * h:
        raise ToolError(f"{where}: {data.size} data bytes with step {step} do not hold a {w}x{h} {msg.encoding} image")
    arr = data[:step * h].reshape(h, step)[:, :w * channels].reshape(h, w, channels)
    pixels, out_channels = pixels_from_array(arr, order, color)
    return png_bytes(pixels, w, h, out_channels), w, h


def compressed_image_png(msg, color, where):
    """(png bytes, width, height) of a sensor_msgs/CompressedImage (PNG or JPEG data)."""
    import io
    import numpy as np
    from PIL import Image
    data = bytes(msg.data)
    header = png_header(data)
    if header is not None:
        w, h, depth, colour, _ = header
        if depth == 16:
            raise ToolError(f"{where}: 16-bit PNG (format '{msg.format}') is not supported: WorldTrack tracks 8-bit images")
        if depth == 8 and (colour == 0 or (color == "keep" and colour in (2, 6))):
            return data, w, h
    elif data[:3] != b"\xff\xd8\xff":
        raise ToolError(f"{where}: compressed data is neither PNG nor JPEG (format '{msg.format}'); "
                        "only png and jpeg CompressedImage messages are supported")
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Exception as e:  # Pillow raises several types for corrupt data
        raise ToolError(f"{where}: cannot decode the {msg.format or 'compressed'} image: {e}") from None
    if image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        raise ToolError(f"{where}: {image.mode} image is not supported: WorldTrack tracks 8-bit images")
    if image.mode in ("1", "L", "LA"):
        arr = np.asarray(image.convert("L"), dtype=np.uint8)[:, :, None]
        order = "gray"
    else:
        arr = np.asarray(image.convert("RGB"), dtype=np.uint8)
        order = "rgb"
    # image_transport's compressed images keep the raw encoding's channel order in the file (OpenCV imencode
    # takes BGR): the channels of a correct file are RGB, which is what Pillow returns.
    pixels, channels = pixels_from_array(arr, order, color)
    return png_bytes(pixels, image.width, image.height, channels), image.width, image.height


def stamp_ns(msg, bag_time, t_bag):
    if bag_time:
        return int(t_bag)
    s = msg.header.stamp
    return int(s.sec) * 1_000_000_000 + int(s.nanosec)


def pose_of(msg, msgtype):
    if msgtype == "geometry_msgs/msg/TransformStamped":
        t, q = msg.transform.translation, msg.transform.rotation
    elif msgtype == "geometry_msgs/msg/PoseStamped":
        t, q = msg.pose.position, msg.pose.orientation
    else:  # PoseWithCovarianceStamped, Odometry: pose.pose
        t, q = msg.pose.pose.position, msg.pose.pose.orientation
    return (float(t.x), float(t.y), float(t.z)), (float(q.w), float(q.x), float(q.y), float(q.z))


def estimate_rate(stamps, what):
    diffs = sorted(b - a for a, b in zip(stamps, stamps[1:]) if b > a)
    if not diffs:
        raise ToolError(f"{what}: fewer than 2 distinct timestamps, cannot tell the rate")
    period = diffs[len(diffs) // 2]
    rate = 1e9 / period
    nearest = round(rate)
    if nearest > 0 and abs(rate - nearest) <= 0.01 * rate:
        return float(nearest)
    return round(rate, 3)


def dedupe(rows, what):
    """Rows sorted by time, keeping the first of equal stamps (with a warning)."""
    rows.sort(key=lambda r: r[0])
    out, dropped = [], 0
    for r in rows:
        if out and out[-1][0] == r[0]:
            dropped += 1
            continue
        out.append(r)
    if dropped:
        warn(f"{what}: {dropped} message(s) repeat an earlier timestamp and were dropped")
    return out


def convert(args):
    from pathlib import Path

    from rosbags.highlevel import AnyReader, AnyReaderError
    from rosbags.typesys import Stores, get_typestore

    bag = Path(args.bag)
    if not bag.exists():
        raise ToolError(f"{args.bag}: no such file or folder")
    if bag.is_dir() and not (bag / "metadata.yaml").exists():
        raise ToolError(f"{args.bag} is a folder without metadata.yaml: not a ROS 2 bag (give the bag folder, "
                        "or its .mcap / .db3 file)")
    if not args.camchain and not args.intrinsics:
        raise ToolError("no camera calibration: give --camchain camchain-imucam.yaml (Kalibr) or --intrinsics fx,fy,cx,cy")
    cams = camchain_cameras(args.camchain) if args.camchain else None
    image_topics = list(args.image_topic)
    if not image_topics:
        if not cams or not all(c.topic for c in cams):
            raise ToolError("give --image-topic (once per camera), or a --camchain whose cameras have rostopic entries")
        image_topics = [str(c.topic) for c in cams]
    if len(set(image_topics)) != len(image_topics):
        raise ToolError("--image-topic: each camera needs its own topic")
    if cams is not None:
        if len(cams) < len(image_topics):
            raise ToolError(f"camchain {args.camchain} has {len(cams)} camera(s) for {len(image_topics)} image topic(s)")
        if args.intrinsics:
            raise ToolError("give --camchain or --intrinsics, not both")
        cams = cams[:len(image_topics)]
        for i, (c, topic) in enumerate(zip(cams, image_topics)):
            if c.topic and str(c.topic) != topic and str(c.topic) + "/compressed" != topic:
                warn(f"cam{i}: camchain rostopic is {c.topic} but the image topic is {topic} (cam{i} ↔ --image-topic #{i + 1})")
    elif args.intrinsics:
        cams = given_cameras(args, len(image_topics))
    else:
        raise ToolError("no camera calibration: give --camchain camchain-imucam.yaml (Kalibr) or --intrinsics fx,fy,cx,cy")
    noise, noise_source = imu_noise(args)

    store = get_typestore(Stores.ROS1_NOETIC if bag.suffix == ".bag" else Stores.ROS2_HUMBLE)
    try:
        reader = AnyReader([bag], default_typestore=store)
        reader.open()
    except (AnyReaderError, OSError, ValueError, KeyError) as e:
        raise ToolError(f"{args.bag}: cannot read the bag: {e}") from None

    with reader_closing(reader):
        by_topic = {}
        for c in reader.connections:
            by_topic.setdefault(c.topic, []).append(c)

        def topic_list():
            return "; ".join(f"{t} ({', '.join(sorted({c.msgtype for c in cs}))}, {sum(c.msgcount for c in cs)} msgs)"
                             for t, cs in sorted(by_topic.items())) or "none"

        def connections_of(topic, allowed, role):
            if topic not in by_topic:
                raise ToolError(f"{role} topic {topic} is not in {args.bag}; its topics: {topic_list()}")
            conns = by_topic[topic]
            bad = sorted({c.msgtype for c in conns if c.msgtype not in allowed})
            if bad:
                raise ToolError(f"{role} topic {topic} has type {', '.join(bad)}; expected {' or '.join(allowed)}")
            if sum(c.msgcount for c in conns) == 0:
                raise ToolError(f"{role} topic {topic} has no messages in {args.bag}")
            return conns

        role_of = {}
        for i, topic in enumerate(image_topics):
            for c in connections_of(topic, (IMAGE, COMPRESSED), f"cam{i} image"):
                role_of[(id(c.owner), c.id)] = ("cam", i)
        for c in connections_of(args.imu_topic, (IMU,), "IMU"):
            role_of[(id(c.owner), c.id)] = ("imu", 0)
        if args.gt_topic:
            for c in connections_of(args.gt_topic, GT_TYPES, "ground-truth"):
                role_of[(id(c.owner), c.id)] = ("gt", 0)
        selected = [c for c in reader.connections if (id(c.owner), c.id) in role_of]
        total = sum(c.msgcount for c in selected)

        tmp, created = prepare_out(args.out, args.force)
        ok = False
        try:
            cam_rows = [[] for _ in image_topics]
            sizes = [None] * len(image_topics)
            seen_files = [set() for _ in image_topics]
            for i in range(len(image_topics)):
                os.makedirs(os.path.join(tmp, f"cam{i}", "data"))
            imu_rows, gt_rows = [], []
            skipped_imu = 0
            start = last_report = time.monotonic()
            for n, (conn, t_bag, raw) in enumerate(checked_messages(reader, selected, args.bag), 1):
                kind, i = role_of[(id(conn.owner), conn.id)]
                try:
                    msg = reader.deserialize(raw, conn.msgtype)
                except Exception as e:  # a corrupt message: name it instead of a traceback
                    raise ToolError(f"{conn.topic}: message {n} at bag time {t_bag} cannot be decoded: {e}") from None
                t = stamp_ns(msg, args.bag_time, t_bag)
                if t <= 0:
                    raise ToolError(f"{conn.topic}: a message has header stamp {t} ns (not set by the driver?); "
                                    "use --bag-time to stamp with the bag's record time")
                if kind == "cam":
                    where = f"{conn.topic} (stamp {t})"
                    if conn.msgtype == IMAGE:
                        png, w, h = raw_image_png(msg, args.color, where)
                    else:
                        png, w, h = compressed_image_png(msg, args.color, where)
                    if sizes[i] is None:
                        sizes[i] = (w, h)
                        want = cams[i].resolution
                        if want and tuple(want) != (w, h):
                            raise ToolError(f"{conn.topic}: images are {w}x{h} but the camchain's cam{i} resolution is "
                                            f"{want[0]}x{want[1]}")
                    elif sizes[i] != (w, h):
                        raise ToolError(f"{where}: image is {w}x{h}, earlier ones are {sizes[i][0]}x{sizes[i][1]}")
                    name = f"{t}.png"
                    if name in seen_files[i]:
                        cam_rows[i].append((t, None))
                        continue
                    seen_files[i].add(name)
                    with open(os.path.join(tmp, f"cam{i}", "data", name), "wb") as f:
                        f.write(png)
                    cam_rows[i].append((t, name))
                elif kind == "imu":
                    g, a = msg.angular_velocity, msg.linear_acceleration
                    values = (float(g.x), float(g.y), float(g.z), float(a.x), float(a.y), float(a.z))
                    if not all(math.isfinite(v) for v in values):
                        skipped_imu += 1
                        continue
                    imu_rows.append((t,) + values)
                else:
                    p, q = pose_of(msg, conn.msgtype)
                    gt_rows.append((t,) + p + q)
                now = time.monotonic()
                if not args.quiet and now - last_report >= 2.0:
                    last_report = now
                    print(f"{TOOL}: {n}/{total} messages ({100.0 * n / max(total, 1):.0f}%), {now - start:.0f} s",
                          file=sys.stderr, flush=True)

            if skipped_imu:
                warn(f"{args.imu_topic}: {skipped_imu} IMU message(s) with non-finite values skipped")
            for i, topic in enumerate(image_topics):
                rows = dedupe(cam_rows[i], topic)
                rows = [r for r in rows if r[1] is not None]
                rate = estimate_rate([r[0] for r in rows], topic)
                w, h = sizes[i]
                c = cams[i]
                with open(os.path.join(tmp, f"cam{i}", "data.csv"), "w") as f:
                    f.write("#timestamp [ns],filename\n")
                    f.writelines(f"{t},{name}\n" for t, name in rows)
                with open(os.path.join(tmp, f"cam{i}", "sensor.yaml"), "w") as f:
                    f.write(camera_yaml(f"cam{i} from {topic} ({c.source})", c.T_BS, rate, w, h, c.intrinsics,
                                        c.distortion_model, c.distortion))
            imu_rows = dedupe(imu_rows, args.imu_topic)
            if not imu_rows:
                raise ToolError(f"{args.imu_topic}: no IMU sample with finite values")
            os.makedirs(os.path.join(tmp, "imu0"))
            with open(os.path.join(tmp, "imu0", "data.csv"), "w") as f:
                f.write("#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],"
                        "a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n")
                f.writelines(f"{r[0]}," + ",".join(repr(v) for v in r[1:]) + "\n" for r in imu_rows)
            with open(os.path.join(tmp, "imu0", "sensor.yaml"), "w") as f:
                f.write(imu_yaml(f"IMU from {args.imu_topic} (noise: {noise_source})",
                                 estimate_rate([r[0] for r in imu_rows], args.imu_topic),
                                 noise["gyroscope_noise_density"], noise["gyroscope_random_walk"],
                                 noise["accelerometer_noise_density"], noise["accelerometer_random_walk"]))
            if args.gt_topic:
                gt_rows = dedupe(gt_rows, args.gt_topic)
                os.makedirs(os.path.join(tmp, "state_groundtruth_estimate0"))
                with open(os.path.join(tmp, "state_groundtruth_estimate0", "data.csv"), "w") as f:
                    f.write("#timestamp, p_RS_R_x [m], p_RS_R_y [m], p_RS_R_z [m], q_RS_w [], q_RS_x [], q_RS_y [], q_RS_z []\n")
                    f.writelines(f"{r[0]}," + ",".join(repr(v) for v in r[1:]) + "\n" for r in gt_rows)
                with open(os.path.join(tmp, "state_groundtruth_estimate0", "sensor.yaml"), "w") as f:
                    f.write(GROUND_TRUTH_YAML)

            final = os.path.join(args.out, "mav0")
            if os.path.lexists(final):
                if os.path.isdir(final) and not os.path.islink(final):
                    shutil.rmtree(final)
                else:
                    os.remove(final)
            os.rename(tmp, final)
            ok = True
        finally:
            if not ok:
                shutil.rmtree(tmp, ignore_errors=True)
                if created:
                    try:
                        os.rmdir(args.out)
                    except OSError:
                        pass

    parts = [f"cam{i} {len([r for r in cam_rows[i] if r[1] is not None])} frames {sizes[i][0]}x{sizes[i][1]}"
             for i in range(len(image_topics))]
    parts.append(f"imu0 {len(imu_rows)} samples")
    if args.gt_topic:
        parts.append(f"ground truth {len(gt_rows)} poses")
    print(f"{TOOL}: wrote {args.out}/mav0: {', '.join(parts)} ({time.monotonic() - start:.1f} s)", file=sys.stderr)


def checked_messages(reader, connections, bag):
    """reader.messages(connections), with a failure while reading (a damaged or truncated bag) as a ToolError."""
    iterator = reader.messages(connections=connections)
    n = 0
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except Exception as e:  # rosbags' reader errors, sqlite3 / struct / decompression errors
            raise ToolError(f"{bag}: reading failed after {n} messages ({type(e).__name__}: {e}); "
                            "is the bag damaged or truncated?") from None
        n += 1
        yield item


class reader_closing:
    def __init__(self, reader):
        self.reader = reader

    def __enter__(self):
        return self.reader

    def __exit__(self, *exc):
        try:
            self.reader.close()
        except Exception:
            pass
        return False


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    ensure_dependencies(TOOL)
    try:
        convert(args)
    except ToolError as e:
        fail(TOOL, str(e))
    except KeyboardInterrupt:
        print(f"{TOOL}: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
