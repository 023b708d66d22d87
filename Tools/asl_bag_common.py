"""Shared helpers of Tools/bag_to_asl.py and Tools/asl_to_bag.py (not a command).

- `ensure_dependencies(tool)`: when `rosbags` (or Pillow) cannot be imported, re-executes the calling script
  with the Python of the tools' virtual environment (${WORLDTRACK_TOOLS_VENV:-~/.cache/worldtrack-tools-venv},
  the one Tools/tool_tests.sh uses), creating it and installing Tools/requirements.txt first when needed.
- PNG writing (zlib, 8-bit gray or RGB) and reading of the PNG header.
- ASL sensor.yaml text (EuRoC format) and reading of sensor.yaml / Kalibr YAML files.
- 4×4 rigid transforms as nested lists.

Errors are raised as `ToolError(message)`; the scripts print them and exit 2.
"""
import json
import os
import struct
import subprocess
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REQUIREMENTS = os.path.join(ROOT, "Tools", "requirements.txt")
DEFAULT_VENV = os.path.join(os.path.expanduser("~"), ".cache", "worldtrack-tools-venv")
REEXEC_MARK = "WORLDTRACK_TOOLS_REEXEC"

# EuRoC's ADIS16448 noise parameters (the numbers of EuRoC's imu0/sensor.yaml).
EUROC_GYRO_NOISE = 1.6968e-04    # rad / s / sqrt(Hz)
EUROC_GYRO_WALK = 1.9393e-05     # rad / s^2 / sqrt(Hz)
EUROC_ACCEL_NOISE = 2.0e-03      # m / s^2 / sqrt(Hz)
EUROC_ACCEL_WALK = 3.0e-03       # m / s^3 / sqrt(Hz)


class ToolError(Exception):
    """An input or usage problem: printed as `TOOL: error: MESSAGE`, exit status 2."""


def fail(tool, message, code=2):
    print(f"{tool}: error: {message}", file=sys.stderr)
    sys.exit(code)


# --- dependencies ----------------------------------------------------------------------------------------

def _have_dependencies():
    try:
        import rosbags  # noqa: F401
        import rosbags.highlevel  # noqa: F401
        import PIL.Image  # noqa: F401
        import ruamel.yaml  # noqa: F401  (rosbags' own YAML library)
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def ensure_dependencies(tool):
    """Returns when rosbags, Pillow, ruamel.yaml and numpy import; otherwise re-executes the running script
    in the tools' virtual environment (made and filled with Tools/requirements.txt when missing)."""
    if _have_dependencies():
        return
    venv = os.environ.get("WORLDTRACK_TOOLS_VENV") or DEFAULT_VENV
    python = os.path.join(venv, "bin", "python")
    if os.environ.get(REEXEC_MARK):
        fail(tool, f"rosbags/Pillow still not importable in {venv}; try: {python} -m pip install -r {REQUIREMENTS}")
    if not os.path.exists(python):
        print(f"{tool}: rosbags not found; creating the virtual environment {venv}", file=sys.stderr)
        if subprocess.run([sys.executable, "-m", "venv", venv]).returncode != 0:
            fail(tool, f"cannot create a virtual environment at {venv} (Debian: apt-get install python3-venv)")
    probe = subprocess.run([python, "-c", "import rosbags.highlevel, PIL.Image, ruamel.yaml, numpy"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if probe.returncode != 0:
        print(f"{tool}: installing {REQUIREMENTS} into {venv}", file=sys.stderr)
        pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS]
        if subprocess.run(pip, stdout=sys.stderr).returncode != 0:
            fail(tool, f"pip install -r {REQUIREMENTS} failed in {venv}")
    env = dict(os.environ)
    env[REEXEC_MARK] = "1"
    script = os.path.abspath(sys.argv[0])
    sys.stderr.flush()
    os.execve(python, [python, script] + sys.argv[1:], env)


# --- PNG -------------------------------------------------------------------------------------------------

def _chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)


def png_bytes(pixels, width, height, channels, level=3):
    """An 8-bit PNG (gray for channels 1, RGB for 3) of `pixels` (bytes-like, rows packed, no padding).
    Rows use filter type 0; the data is deflated with zlib at `level` (3: on camera images as small as 6 and twice as fast)."""
    if channels not in (1, 3):
        raise ValueError("png_bytes: channels must be 1 or 3")
    row = width * channels
    data = memoryview(bytes(pixels))
    if len(data) != row * height:
        raise ValueError(f"png_bytes: {len(data)} bytes for {width}x{height}x{channels}")
    raw = bytearray((row + 1) * height)
    for y in range(height):
        raw[y * (row + 1) + 1:(y + 1) * (row + 1)] = data[y * row:(y + 1) * row]
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0 if channels == 1 else 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(bytes(raw), level))
            + _chunk(b"IEND", b""))


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_header(data):
    """(width, height, bit depth, colour type, interlace) of PNG bytes, or None when `data` is not a PNG."""
    if len(data) < 33 or bytes(data[:8]) != PNG_SIGNATURE or bytes(data[12:16]) != b"IHDR":
        return None
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", bytes(data[16:29]))
    return width, height, depth, colour, interlace


# --- transforms ------------------------------------------------------------------------------------------

def invert_rigid(T):
    """The inverse of a 4×4 rigid transform (nested lists): [Rᵀ, −Rᵀ t]."""
    R = [[T[i][j] for j in range(3)] for i in range(3)]
    t = [T[i][3] for i in range(3)]
    Rt = [[R[j][i] for j in range(3)] for i in range(3)]
    ti = [-sum(Rt[i][k] * t[k] for k in range(3)) for i in range(3)]
    return [Rt[0] + [ti[0]], Rt[1] + [ti[1]], Rt[2] + [ti[2]], [0.0, 0.0, 0.0, 1.0]]


def matmul4(A, B):
    return [[sum(A[i][k] * B[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def check_rigid(T, what):
    """Raises ToolError unless T is a 4×4 matrix of numbers whose rotation is proper (|R Rᵀ − I| < 1e-3)."""
    if not (isinstance(T, list) and len(T) == 4 and all(isinstance(r, list) and len(r) == 4 for r in T)):
        raise ToolError(f"{what} must be a 4x4 matrix (4 rows of 4 numbers)")
    try:
        T = [[float(v) for v in row] for row in T]
    except (TypeError, ValueError):
        raise ToolError(f"{what} must hold numbers only") from None
    R = [row[:3] for row in T[:3]]
    err = max(abs(sum(R[i][k] * R[j][k] for k in range(3)) - (1.0 if i == j else 0.0)) for i in range(3) for j in range(3))
    det = (R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0])
           + R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]))
    if err > 1e-3 or det <= 0:
        raise ToolError(f"{what}: the rotation is not a proper rotation (|R Rᵀ − I| = {err:.3g}, det = {det:.6g})")
    if T[3] != [0.0, 0.0, 0.0, 1.0]:
        raise ToolError(f"{what}: the last row must be [0, 0, 0, 1], got {T[3]}")
    return T


# --- YAML ------------------------------------------------------------------------------------------------

def load_yaml(path, what):
    """A YAML file's content (safe loader; an OpenCV `%YAML:1.0` first line is skipped). ToolError when absent
    or invalid."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ToolError(f"{what} {path}: cannot read ({e.strerror})") from None
    if text.lstrip("\ufeff").startswith("%YAML:"):
        text = "#" + text.lstrip("\ufeff")
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as e:
        raise ToolError(f"{what} {path}: not valid YAML: {str(e).splitlines()[0] if str(e) else e}") from None


def fmt(x):
    """A float in the shortest text that reads back to the same float (Python's repr)."""
    return repr(float(x))


def matrix_yaml(T):
    rows = [", ".join(fmt(v) for v in row) for row in T]
    return ("T_BS:\n  cols: 4\n  rows: 4\n  data: [" + rows[0] + ",\n         " + rows[1] + ",\n         "
            + rows[2] + ",\n         " + rows[3] + "]\n")


def rate_text(rate):
    return str(int(rate)) if float(rate) == int(rate) else fmt(rate)


def camera_yaml(comment, T_BS, rate_hz, width, height, intrinsics, distortion_model, distortion):
    """camN/sensor.yaml in EuRoC's format, as WorldTrack's loader reads it."""
    return ("%YAML:1.0\n# General sensor definitions.\nsensor_type: camera\n"
            f"comment: {json.dumps(comment)}\n\n# Sensor extrinsics wrt. the body-frame.\n" + matrix_yaml(T_BS)
            + f"\n# Camera specific definitions.\nrate_hz: {rate_text(rate_hz)}\nresolution: [{width}, {height}]\n"
            + "camera_model: pinhole\n"
            + f"intrinsics: [{', '.join(fmt(v) for v in intrinsics)}] #fu, fv, cu, cv\n"
            + f"distortion_model: {distortion_model}\n"
            + f"distortion_coefficients: [{', '.join(fmt(v) for v in distortion)}]\n")


def imu_yaml(comment, rate_hz, gyro_noise, gyro_walk, accel_noise, accel_walk):
    """imu0/sensor.yaml in EuRoC's format (T_BS identity: the body frame is the IMU frame)."""
    identity = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    return ("%YAML:1.0\nsensor_type: imu\n" f"comment: {json.dumps(comment)}\n\n# Sensor extrinsics wrt. the body-frame.\n"
            + matrix_yaml(identity) + f"rate_hz: {rate_text(rate_hz)}\n\n# inertial sensor noise model parameters (static)\n"
            + f"gyroscope_noise_density: {fmt(gyro_noise)}     # [ rad / s / sqrt(Hz) ]   ( gyro \"white noise\" )\n"
            + f"gyroscope_random_walk: {fmt(gyro_walk)}       # [ rad / s^2 / sqrt(Hz) ] ( gyro bias diffusion )\n"
            + f"accelerometer_noise_density: {fmt(accel_noise)}  # [ m / s^2 / sqrt(Hz) ]   ( accel \"white noise\" )\n"
            + f"accelerometer_random_walk: {fmt(accel_walk)}    # [ m / s^3 / sqrt(Hz) ].  ( accel bias diffusion )\n")


GROUND_TRUTH_YAML = ("%YAML:1.0\nsensor_type: visual-inertial\n"
                     "comment: ground truth of the body (IMU) frame, converted from a ROS bag by Tools/bag_to_asl.py\n\n"
                     + matrix_yaml([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]))


def sensor_transform(doc, path):
    """T_BS of a parsed sensor.yaml as a 4×4 nested list (accepts {rows, cols, data}, 16/12 flat values or 4 rows)."""
    node = doc.get("T_BS")
    if node is None:
        return [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    if isinstance(node, dict):
        node = node.get("data")
    if isinstance(node, list) and node and all(isinstance(r, list) for r in node):
        node = [v for r in node for v in r]
    if not isinstance(node, list) or len(node) not in (12, 16):
        raise ToolError(f"{path}: T_BS must have 16 (4x4) or 12 (3x4) values")
    values = [float(v) for v in node] + ([0.0, 0.0, 0.0, 1.0] if len(node) == 12 else [])
    return check_rigid([values[0:4], values[4:8], values[8:12], values[12:16]], f"{path}: T_BS")
