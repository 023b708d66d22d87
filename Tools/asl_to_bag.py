#!/usr/bin/env python3
"""Write an ASL/EuRoC dataset (what `worldtrack simulate` writes and `worldtrack run` reads) to a ROS bag, for
ROS tools (rviz, rqt_bag, Foxglove, Kalibr, other VIO systems).

  asl_to_bag.py DIR --out BAG [--ros1 | --ros2 [--storage sqlite3|mcap]] [--camchain-out FILE] [--imu-yaml-out FILE]

DIR is the dataset folder (holding mav0/) or the mav0 folder. Topics and messages (header.stamp = the row's
timestamp in ns, which is also the bag's record time):

  /camN/image_raw        sensor_msgs/Image, mono8 (rgb8 for colour PNGs), frame_id camN; one per camN folder
                         (with --compressed: /camN/image_raw/compressed, sensor_msgs/CompressedImage with the PNG
                         file's bytes unchanged, format "png")
  /imu0                  sensor_msgs/Imu, angular_velocity and linear_acceleration (float64, the CSV's values
                         exactly), frame_id imu0; orientation unknown (orientation_covariance[0] = -1)
  /groundtruth/pose      with state_groundtruth_estimate0/data.csv: the body pose in frame "world", as
                         geometry_msgs/PoseStamped (default), TransformStamped or nav_msgs/Odometry (--gt-type;
                         pose only: velocity and biases are not carried)

The bag format: --ros1 writes a ROS 1 .bag file (the default when BAG ends in .bag); --ros2 (the default otherwise)
writes a ROS 2 bag folder with --storage sqlite3 (default) or mcap. Message definitions are ROS 1 Noetic's or
ROS 2 Humble's (rosbags' typestores).

Calibration travels beside the bag, in Kalibr's formats (what Tools/bag_to_asl.py --camchain / --imu-yaml read):
  --camchain-out FILE   camchain-imucam.yaml: per camera T_cam_imu (the inverse of sensor.yaml's T_BS), T_imu_cam
                        (T_BS itself, as OpenVINS' camchain has it, so the round trip is exact), T_cn_cnm1,
                        camera_model pinhole, intrinsics, distortion_model (radtan / equidistant / none),
                        distortion_coeffs, resolution, rostopic, timeshift_cam_imu 0
  --imu-yaml-out FILE   imu.yaml: the four noise densities, update_rate, rostopic

Existing outputs are refused; --force replaces them (a bag file, a ROS 2 bag folder or an empty folder only).
Exit status: 0 done, 2 bad input or usage. Needs the PyPI packages of Tools/requirements.txt (rosbags, Pillow);
when they are not importable the script creates ~/.cache/worldtrack-tools-venv (or $WORLDTRACK_TOOLS_VENV),
installs them there and re-runs itself with it.

Examples:
  worldtrack simulate --seconds 10 --stereo --out /tmp/sim
  Tools/asl_to_bag.py /tmp/sim --out /tmp/sim_ros2 --storage mcap --camchain-out /tmp/sim_camchain.yaml
  Tools/asl_to_bag.py /tmp/sim --out /tmp/sim.bag --camchain-out /tmp/sim_camchain.yaml --imu-yaml-out /tmp/sim_imu.yaml
  Tools/bag_to_asl.py /tmp/sim.bag --out /tmp/back --image-topic /cam0/image_raw --image-topic /cam1/image_raw \\
      --imu-topic /imu0 --gt-topic /groundtruth/pose --camchain /tmp/sim_camchain.yaml --imu-yaml /tmp/sim_imu.yaml
"""
import argparse
import math
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asl_bag_common import (ToolError, ensure_dependencies, fail, fmt, invert_rigid, load_yaml, matmul4,  # noqa: E402
                            png_header, sensor_transform)

TOOL = "asl_to_bag"
KALIBR_DISTORTION = {"radial-tangential": "radtan", "radtan": "radtan", "plumb_bob": "radtan",
                     "radial_tangential": "radtan", "equidistant": "equidistant", "equi": "equidistant",
                     "fisheye": "equidistant", "kannala_brandt": "equidistant", "kannala-brandt": "equidistant",
                     "none": "none", "": "none"}
GT_TYPES = {"pose": "geometry_msgs/msg/PoseStamped", "transform": "geometry_msgs/msg/TransformStamped",
            "odometry": "nav_msgs/msg/Odometry"}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="asl_to_bag.py", description=__doc__.split("\n\n")[0],
                                epilog=__doc__.split("\n\n", 2)[2],  # the text after the summary and synopsis
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", metavar="DIR", help="ASL dataset folder (with mav0/)")
    p.add_argument("--out", required=True, metavar="BAG", help="bag to write (.bag file for ROS 1, a folder for ROS 2)")
    fmt_group = p.add_mutually_exclusive_group()
    fmt_group.add_argument("--ros1", action="store_true", help="write a ROS 1 .bag (default when BAG ends in .bag)")
    fmt_group.add_argument("--ros2", action="store_true", help="write a ROS 2 bag folder (default otherwise)")
    p.add_argument("--storage", choices=["sqlite3", "mcap"], help="ROS 2 storage plugin (default sqlite3)")
    p.add_argument("--compressed", action="store_true", help="images as CompressedImage (the PNG bytes) on /camN/image_raw/compressed")
    p.add_argument("--gt-type", choices=sorted(GT_TYPES), default="pose",
                   help="ground-truth message: PoseStamped (pose, default), TransformStamped, Odometry")
    p.add_argument("--camchain-out", metavar="FILE", help="also write the cameras' calibration as a Kalibr camchain")
    p.add_argument("--imu-yaml-out", metavar="FILE", help="also write the IMU noise as a Kalibr imu.yaml")
    p.add_argument("--force", action="store_true", help="replace existing outputs")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    if args.ros1 and args.storage:
        p.error("--storage is for ROS 2 bags (--ros2)")
    if not args.ros1 and not args.ros2:
        args.ros1 = args.out.endswith(".bag") and not args.storage
        args.ros2 = not args.ros1
    if args.ros1 and not args.out.endswith(".bag"):
        p.error("a ROS 1 bag must end in .bag (rosbags and ROS tools recognise it by the name)")
    if args.ros2 and args.out.endswith(".bag"):
        p.error("a ROS 2 bag folder must not end in .bag (readers take a .bag for ROS 1)")
    return args


# --- reading the dataset ---------------------------------------------------------------------------------

def csv_rows(path, columns, what):
    """Data rows of an ASL CSV as lists of strings ('#' lines skipped); ToolError on a wrong column count."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise ToolError(f"{path}: cannot read ({e.strerror})") from None
    rows = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [x.strip() for x in line.split(",")]
        if len(fields) not in columns:
            raise ToolError(f"{path}:{n}: {what}: expected {' or '.join(map(str, columns))} columns, got {len(fields)}")
        try:
            t = int(fields[0])
        except ValueError:
            raise ToolError(f"{path}:{n}: timestamp '{fields[0]}' is not an integer number of nanoseconds") from None
        if t < 0:
            raise ToolError(f"{path}:{n}: negative timestamp {t}")
        rows.append((n, t, fields[1:]))
    return rows


def floats(path, n, fields):
    try:
        values = [float(x) for x in fields]
    except ValueError:
        raise ToolError(f"{path}:{n}: not a number in {fields}") from None
    if not all(math.isfinite(v) for v in values):
        raise ToolError(f"{path}:{n}: non-finite value in {fields}")
    return values


class Camera:
    def __init__(self, name, folder):
        self.name = name
        self.folder = folder
        yaml_path = os.path.join(folder, "sensor.yaml")
        doc = load_yaml(yaml_path, f"{name} calibration")
        if not isinstance(doc, dict):
            raise ToolError(f"{yaml_path}: expected a mapping (EuRoC sensor.yaml)")
        self.T_BS = sensor_transform(doc, yaml_path)
        try:
            self.intrinsics = [float(v) for v in doc["intrinsics"]]
            res = doc["resolution"]
            self.resolution = [int(res["width"]), int(res["height"])] if isinstance(res, dict) else [int(v) for v in res]
            self.model = str(doc.get("camera_model", "pinhole")).lower()
            dist = str(doc.get("distortion_model", "none") or "none").lower()
            self.distortion = [float(v) for v in (doc.get("distortion_coefficients") or [])]
        except (KeyError, TypeError, ValueError) as e:
            raise ToolError(f"{yaml_path}: missing or malformed intrinsics/resolution/distortion ({e})") from None
        if dist not in KALIBR_DISTORTION:
            raise ToolError(f"{yaml_path}: unknown distortion_model '{dist}'")
        self.kalibr_distortion = KALIBR_DISTORTION[dist]
        self.frames = []
        missing = []
        for n, t, fields in csv_rows(os.path.join(folder, "data.csv"), (2,), "camera listing"):
            path = os.path.join(folder, "data", fields[0])
            if os.path.isfile(path):
                self.frames.append((t, path))
            else:
                missing.append(fields[0])
        if missing:  # as WorldTrack's loader does: listed images that are absent are skipped, with a warning
            shown = ", ".join(missing[:3]) + (", …" if len(missing) > 3 else "")
            print(f"{TOOL}: warning: {folder}/data.csv: {len(missing)} listed image(s) absent from data/, "
                  f"skipped: {shown}", file=sys.stderr)
        if not self.frames:
            raise ToolError(f"{folder}/data.csv lists no image that exists in {folder}/data")


def read_dataset(root):
    mav = os.path.join(root, "mav0")
    if not os.path.isdir(mav):
        if os.path.isdir(os.path.join(root, "cam0")):
            mav = root
        elif not os.path.isdir(root):
            raise ToolError(f"{root}: no such folder")
        else:
            raise ToolError(f"{root}: not an ASL dataset (expected mav0/cam0, mav0/imu0)")
    names = sorted((d for d in os.listdir(mav) if d.startswith("cam") and d[3:].isdigit()
                    and os.path.isdir(os.path.join(mav, d))), key=lambda d: int(d[3:]))
    if not names:
        raise ToolError(f"{mav}: no camera folder (cam0, cam1, …)")
    cameras = [Camera(n, os.path.join(mav, n)) for n in names]
    imu_folder = os.path.join(mav, "imu0")
    if not os.path.isdir(imu_folder):
        raise ToolError(f"{mav}: no imu0 folder")
    imu_rows = [(t, floats(os.path.join(imu_folder, "data.csv"), n, f))
                for n, t, f in csv_rows(os.path.join(imu_folder, "data.csv"), (7,), "IMU row")]
    if not imu_rows:
        raise ToolError(f"{imu_folder}/data.csv has no samples")
    imu_doc = load_yaml(os.path.join(imu_folder, "sensor.yaml"), "IMU calibration")
    if not isinstance(imu_doc, dict):
        raise ToolError(f"{imu_folder}/sensor.yaml: expected a mapping")
    gt_rows = []
    gt_csv = os.path.join(mav, "state_groundtruth_estimate0", "data.csv")
    if os.path.isfile(gt_csv):
        gt_rows = [(t, floats(gt_csv, n, f[:7])) for n, t, f in csv_rows(gt_csv, (8, 17), "ground-truth row")]
    return cameras, imu_rows, imu_doc, gt_rows


# --- calibration files -----------------------------------------------------------------------------------

def matrix_lines(T, indent):
    return "".join(f"{indent}- [{', '.join(fmt(v) for v in row)}]\n" for row in T)


def camchain_text(cameras, topics):
    out = ("# Kalibr camchain-imucam.yaml written by Tools/asl_to_bag.py. T_cam_imu: Kalibr's (the inverse of\n"
           "# sensor.yaml's T_BS); T_imu_cam: OpenVINS' key, T_BS exactly (bag_to_asl.py prefers it).\n")
    previous = None
    for i, cam in enumerate(cameras):
        T_cam_imu = invert_rigid(cam.T_BS)
        out += f"cam{i}:\n  T_cam_imu:\n" + matrix_lines(T_cam_imu, "  ") + "  T_imu_cam:\n" + matrix_lines(cam.T_BS, "  ")
        if previous is not None:
            out += "  T_cn_cnm1:\n" + matrix_lines(matmul4(T_cam_imu, invert_rigid(previous)), "  ")
        others = [j for j in range(len(cameras)) if j != i]
        out += (f"  cam_overlaps: [{', '.join(map(str, others))}]\n  camera_model: {cam.model}\n"
                f"  distortion_coeffs: [{', '.join(fmt(v) for v in cam.distortion)}]\n"
                f"  distortion_model: {cam.kalibr_distortion}\n"
                f"  intrinsics: [{', '.join(fmt(v) for v in cam.intrinsics)}]\n"
                f"  resolution: [{cam.resolution[0]}, {cam.resolution[1]}]\n"
                f"  rostopic: {topics[i]}\n  timeshift_cam_imu: 0.0\n")
        previous = T_cam_imu
    return out


def imu_yaml_text(doc, topic):
    keys = ["accelerometer_noise_density", "accelerometer_random_walk", "gyroscope_noise_density", "gyroscope_random_walk"]
    out = "# Kalibr imu.yaml written by Tools/asl_to_bag.py from imu0/sensor.yaml\n"
    for k in keys:
        if k not in doc:
            raise ToolError(f"imu0/sensor.yaml has no {k}")
        out += f"{k}: {fmt(doc[k])}\n"
    out += f"rostopic: {topic}\nupdate_rate: {fmt(doc.get('rate_hz', 200.0))}\n"
    return out


# --- writing ---------------------------------------------------------------------------------------------

def check_out(path, force, what):
    if not os.path.lexists(path):
        return
    if not force:
        raise ToolError(f"{what} {path} exists; not overwriting it (--force replaces it)")
    if os.path.isdir(path) and not os.path.islink(path):
        if os.listdir(path) and not os.path.exists(os.path.join(path, "metadata.yaml")):
            raise ToolError(f"{what} {path} is a folder that is not a ROS 2 bag; not deleting it, even with --force")


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


class MessageFactory:
    """Builds the messages of one typestore (ROS 1 Noetic or ROS 2 Humble)."""

    def __init__(self, typestore, ros1):
        self.ts = typestore
        self.T = typestore.types
        self.ros1 = ros1

    def header(self, t_ns, frame_id):
        Time = self.T["builtin_interfaces/msg/Time"]
        stamp = Time(sec=t_ns // 1_000_000_000, nanosec=t_ns % 1_000_000_000)
        if self.ros1:
            return self.T["std_msgs/msg/Header"](seq=0, stamp=stamp, frame_id=frame_id)
        return self.T["std_msgs/msg/Header"](stamp=stamp, frame_id=frame_id)

    def serialize(self, msg, msgtype):
        return self.ts.serialize_ros1(msg, msgtype) if self.ros1 else self.ts.serialize_cdr(msg, msgtype)

    def image(self, t_ns, frame_id, path, compressed):
        import numpy as np
        from PIL import Image
        with open(path, "rb") as f:
            data = f.read()
        if compressed:
            if png_header(data) is None:
                raise ToolError(f"{path}: not a PNG file")
            return self.T["sensor_msgs/msg/CompressedImage"](header=self.header(t_ns, frame_id), format="png",
                                                             data=np.frombuffer(data, dtype=np.uint8))
        try:
            import io
            image = Image.open(io.BytesIO(data))
            image.load()
        except Exception as e:
            raise ToolError(f"{path}: cannot decode the image: {e}") from None
        if image.mode in ("1", "L"):
            arr, encoding, channels = np.asarray(image.convert("L"), dtype=np.uint8), "mono8", 1
        elif image.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
            raise ToolError(f"{path}: {image.mode} image: only 8-bit images are written")
        else:
            arr, encoding, channels = np.asarray(image.convert("RGB"), dtype=np.uint8), "rgb8", 3
        h, w = arr.shape[0], arr.shape[1]
        return self.T["sensor_msgs/msg/Image"](header=self.header(t_ns, frame_id), height=h, width=w, encoding=encoding,
                                               is_bigendian=0, step=w * channels,
                                               data=np.ascontiguousarray(arr).reshape(-1))

    def imu(self, t_ns, values):
        import numpy as np
        V3 = self.T["geometry_msgs/msg/Vector3"]
        Q = self.T["geometry_msgs/msg/Quaternion"]
        unknown = np.zeros(9, dtype=np.float64)
        unknown[0] = -1.0
        return self.T["sensor_msgs/msg/Imu"](
            header=self.header(t_ns, "imu0"), orientation=Q(x=0.0, y=0.0, z=0.0, w=1.0),
            orientation_covariance=unknown,
            angular_velocity=V3(x=values[0], y=values[1], z=values[2]), angular_velocity_covariance=np.zeros(9),
            linear_acceleration=V3(x=values[3], y=values[4], z=values[5]), linear_acceleration_covariance=np.zeros(9))

    def ground_truth(self, t_ns, values, kind):
        import numpy as np
        p, q = values[0:3], values[3:7]  # p x y z, q w x y z
        Q = self.T["geometry_msgs/msg/Quaternion"](x=q[1], y=q[2], z=q[3], w=q[0])
        header = self.header(t_ns, "world")
        if kind == "transform":
            V3 = self.T["geometry_msgs/msg/Vector3"]
            return self.T["geometry_msgs/msg/TransformStamped"](
                header=header, child_frame_id="body",
                transform=self.T["geometry_msgs/msg/Transform"](translation=V3(x=p[0], y=p[1], z=p[2]), rotation=Q))
        pose = self.T["geometry_msgs/msg/Pose"](position=self.T["geometry_msgs/msg/Point"](x=p[0], y=p[1], z=p[2]),
                                                orientation=Q)
        if kind == "pose":
            return self.T["geometry_msgs/msg/PoseStamped"](header=header, pose=pose)
        V3 = self.T["geometry_msgs/msg/Vector3"]
        zero = V3(x=0.0, y=0.0, z=0.0)
        return self.T["nav_msgs/msg/Odometry"](
            header=header, child_frame_id="body",
            pose=self.T["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
            twist=self.T["geometry_msgs/msg/TwistWithCovariance"](
                twist=self.T["geometry_msgs/msg/Twist"](linear=zero, angular=zero), covariance=np.zeros(36)))


def write_bag(args, cameras, imu_rows, gt_rows):
    from rosbags.typesys import Stores, get_typestore

    image_type = "sensor_msgs/msg/CompressedImage" if args.compressed else "sensor_msgs/msg/Image"
    suffix = "/compressed" if args.compressed else ""
    topics = [f"/{cam.name}/image_raw{suffix}" for cam in cameras]
    gt_type = GT_TYPES[args.gt_type]
    # Written inside a temporary folder beside --out and renamed into place when complete (a ROS 2 writer names
    # its storage file after its folder, so the bag's own folder gets the final name from the start).
    out = os.path.normpath(args.out)
    tmp_parent = f"{out}.partial-{os.getpid()}"
    os.makedirs(tmp_parent)
    tmp = os.path.join(tmp_parent, os.path.basename(out))
    if args.ros1:
        from rosbags.rosbag1 import Writer as Writer1
        factory = MessageFactory(get_typestore(Stores.ROS1_NOETIC), ros1=True)
        writer = Writer1(tmp)
    else:
        from rosbags.rosbag2 import StoragePlugin
        from rosbags.rosbag2 import Writer as Writer2
        factory = MessageFactory(get_typestore(Stores.ROS2_HUMBLE), ros1=False)
        plugin = StoragePlugin.MCAP if args.storage == "mcap" else StoragePlugin.SQLITE3
        writer = Writer2(tmp, version=9, storage_plugin=plugin)

    events = [(t, 0, i, path) for i, cam in enumerate(cameras) for t, path in cam.frames]
    events += [(t, 1, 0, values) for t, values in imu_rows]
    events += [(t, 2, 0, values) for t, values in gt_rows]
    events.sort(key=lambda e: (e[0], e[1], e[2]))
    ok = False
    start = last = time.monotonic()
    try:
        writer.open()
        conns = [writer.add_connection(topic, image_type, typestore=factory.ts) for topic in topics]
        imu_conn = writer.add_connection("/imu0", "sensor_msgs/msg/Imu", typestore=factory.ts)
        gt_conn = writer.add_connection("/groundtruth/pose", gt_type, typestore=factory.ts) if gt_rows else None
        for n, (t, kind, i, payload) in enumerate(events, 1):
            if kind == 0:
                msg, msgtype, conn = factory.image(t, cameras[i].name, payload, args.compressed), image_type, conns[i]
            elif kind == 1:
                msg, msgtype, conn = factory.imu(t, payload), "sensor_msgs/msg/Imu", imu_conn
            else:
                msg, msgtype, conn = factory.ground_truth(t, payload, args.gt_type), gt_type, gt_conn
            writer.write(conn, t, factory.serialize(msg, msgtype))
            now = time.monotonic()
            if not args.quiet and now - last >= 2.0:
                last = now
                print(f"{TOOL}: {n}/{len(events)} messages ({100.0 * n / len(events):.0f}%), {now - start:.0f} s",
                      file=sys.stderr, flush=True)
        writer.close()
        if os.path.lexists(out):
            remove(out)
        os.rename(tmp, out)
        ok = True
    finally:
        if not ok:
            try:
                writer.close()
            except Exception:
                pass
        remove(tmp_parent)
    return topics, len(events), time.monotonic() - start


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    ensure_dependencies(TOOL)
    try:
        check_out(args.out, args.force, "--out")
        for opt, path in (("--camchain-out", args.camchain_out), ("--imu-yaml-out", args.imu_yaml_out)):
            if path:
                if os.path.isdir(path):
                    raise ToolError(f"{opt} {path} is a folder")
                check_out(path, args.force, opt)
        cameras, imu_rows, imu_doc, gt_rows = read_dataset(args.dataset)
        topics, count, seconds = write_bag(args, cameras, imu_rows, gt_rows)
        if args.camchain_out:
            with open(args.camchain_out, "w") as f:
                f.write(camchain_text(cameras, topics))
        if args.imu_yaml_out:
            with open(args.imu_yaml_out, "w") as f:
                f.write(imu_yaml_text(imu_doc, "/imu0"))
    except ToolError as e:
        fail(TOOL, str(e))
    except KeyboardInterrupt:
        print(f"{TOOL}: interrupted", file=sys.stderr)
        sys.exit(130)
    kind = "ROS 1 bag" if args.ros1 else f"ROS 2 bag ({args.storage or 'sqlite3'})"
    print(f"{TOOL}: wrote {kind} {args.out}: {count} messages on {', '.join(topics)}, /imu0"
          + (", /groundtruth/pose" if gt_rows else "") + f" ({seconds:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
