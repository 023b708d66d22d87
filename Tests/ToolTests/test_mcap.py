"""`worldtrack run --mcap`: the file read back with the PyPI `mcap` reader (the reference implementation).

One 3 s simulated room (moving from the start, so planes are found) is tracked once with --mcap, a cursor placing
two anchors and a measurement, and once without --mcap; the tests compare the file with the stream of the same run.
"""

import base64
import json
import math
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

import jsonschema
from mcap.exceptions import EndOfFile
from mcap.reader import make_reader
from mcap.records import Chunk, Message
from mcap.stream_reader import StreamReader, breakup_chunk

WORLDTRACK = os.environ.get("WORLDTRACK_BIN", os.path.join(os.path.dirname(__file__), "..", "..", ".build", "release", "worldtrack"))

# Channels of a run with the cursor and measure consumers: topic → (schema name, schema encoding).
EXPECTED_CHANNELS = {
    "/cam0/image": "foxglove.CompressedImage",
    "/cam0/calibration": "foxglove.CameraCalibration",
    "/tf": "foxglove.FrameTransforms",
    "/worldtrack/trajectory": "foxglove.PosesInFrame",
    "/worldtrack/landmarks": "foxglove.PointCloud",
    "/worldtrack/planes": "foxglove.SceneUpdate",
    "/worldtrack/anchors": "foxglove.SceneUpdate",
    "/worldtrack/log": "foxglove.Log",
    "/worldtrack/frame": "worldtrack.frame",
    "/worldtrack/anchor_events": "worldtrack.anchor",
    "/worldtrack/cursor": "worldtrack.cursor",
    "/worldtrack/measurement": "worldtrack.measurement",
}

# Required fields of Foxglove's schemas (foxglove-sdk's JSON Schemas), written out here independently of the
# schema documents WorldTrack puts in the file.
FOXGLOVE_REQUIRED = {
    "foxglove.CompressedImage": ["timestamp", "frame_id", "data", "format"],
    "foxglove.CameraCalibration": ["timestamp", "frame_id", "width", "height", "distortion_model", "D", "K", "R", "P"],
    "foxglove.FrameTransforms": ["transforms"],
    "foxglove.PosesInFrame": ["timestamp", "frame_id", "poses"],
    "foxglove.PointCloud": ["timestamp", "frame_id", "pose", "point_stride", "fields", "data"],
    "foxglove.SceneUpdate": ["deletions", "entities"],
    "foxglove.Log": ["timestamp", "level", "message", "name", "file", "line"],
}
FRAME_TRANSFORM_REQUIRED = ["timestamp", "parent_frame_id", "child_frame_id", "translation", "rotation"]
SCENE_ENTITY_REQUIRED = ["timestamp", "frame_id", "id", "lifetime", "frame_locked", "metadata", "arrows", "cubes",
                         "spheres", "cylinders", "lines", "triangles", "texts", "models"]


def run(*args, check=True):
    result = subprocess.run([WORLDTRACK, *args], capture_output=True)
    if check and result.returncode != 0:
        raise AssertionError(f"worldtrack {' '.join(args)} exited {result.returncode}: {result.stderr.decode()[-2000:]}")
    return result


def quaternion_rotate(q, v):
    """Rotates v by the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    vx, vy, vz = v
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx))


class MCAPRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="worldtrack-mcap-test-")
        cls.dataset = os.path.join(cls.tmp, "room")
        run("simulate", "--seconds", "3", "--start-moving", "--out", cls.dataset)
        taps = os.path.join(cls.tmp, "taps.json")
        with open(taps, "w") as f:
            json.dump([{"t_s": 2.8, "pixels": [[300, 240], [450, 240]], "label": "test"}], f)
        cls.consumers = ["--consumer", "cursor:place=2,2.5", "--consumer", f"measure:taps={taps}"]
        cls.mcap = os.path.join(cls.tmp, "run.mcap")
        with_mcap = run("run", cls.dataset, *cls.consumers, "--trajectory", os.path.join(cls.tmp, "with.tum"),
                        "--mcap", cls.mcap, "--mcap-images", "1")
        cls.stream_bytes = with_mcap.stdout
        cls.stream = [json.loads(line) for line in with_mcap.stdout.decode().splitlines()]
        cls.without = run("run", cls.dataset, *cls.consumers, "--trajectory", os.path.join(cls.tmp, "without.tum"))
        with open(cls.mcap, "rb") as f:
            reader = make_reader(f, validate_crcs=True)
            cls.summary = reader.get_summary()
            cls.messages = [(schema, channel, message, json.loads(message.data))
                            for schema, channel, message in reader.iter_messages(log_time_order=False)]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def on(self, topic):
        return [(m, d) for _, c, m, d in self.messages if c.topic == topic]

    def records(self, *types):
        return [r for r in self.stream if r["type"] in types]

    def test_channels_schemas_and_encodings(self):
        channels = {c.topic: c for c in self.summary.channels.values()}
        self.assertEqual(set(channels), set(EXPECTED_CHANNELS))
        for topic, name in EXPECTED_CHANNELS.items():
            channel = channels[topic]
            schema = self.summary.schemas[channel.schema_id]
            self.assertEqual(channel.message_encoding, "json", topic)
            self.assertEqual((schema.name, schema.encoding), (name, "jsonschema"), topic)
            document = json.loads(schema.data)
            jsonschema.Draft202012Validator.check_schema(document)
            self.assertEqual(document["title"], name)

    def test_counts_match_the_stream(self):
        frames = self.records("frame")
        self.assertEqual(len(frames), 61)
        counts = self.summary.statistics.channel_message_counts
        by_topic = {c.topic: counts.get(c.id, 0) for c in self.summary.channels.values()}
        self.assertEqual(by_topic["/cam0/image"], len(frames))
        self.assertEqual(by_topic["/cam0/calibration"], len(frames))
        self.assertEqual(by_topic["/tf"], len(frames))
        self.assertEqual(by_topic["/worldtrack/frame"], len(frames))
        anchor_records = self.records("anchor.added", "anchor.updated", "anchor.removed")
        self.assertEqual(by_topic["/worldtrack/anchor_events"], len(anchor_records))
        planes = [r for r in anchor_records if r["kind"] == "plane"]
        users = [r for r in anchor_records if r["kind"] == "user"]
        self.assertGreaterEqual(len([r for r in planes if r["type"] == "anchor.added"]), 2, "planes found in 3 s")
        self.assertEqual(len([r for r in users if r["type"] == "anchor.added"]), 2, "two cursor anchors")
        self.assertEqual(by_topic["/worldtrack/planes"], len(planes))
        self.assertEqual(by_topic["/worldtrack/anchors"], len(users))
        self.assertEqual(by_topic["/worldtrack/cursor"], len(self.records("cursor")))
        self.assertEqual(by_topic["/worldtrack/measurement"], len(self.records("measurement")))
        self.assertEqual(len(self.records("measurement")), 1)
        self.assertEqual(self.summary.statistics.message_count, len(self.messages))
        # Every stream record is in the file, byte for byte, on its type's channel, at its t_ns.
        stream_lines = self.stream_bytes.decode().splitlines()
        recorded = sorted((m.log_time, m.data.decode()) for _, c, m, _ in self.messages
                          if c.topic in ("/worldtrack/frame", "/worldtrack/anchor_events", "/worldtrack/cursor", "/worldtrack/measurement"))
        self.assertEqual(recorded, sorted((json.loads(line)["t_ns"], line) for line in stream_lines))
        # Planes: each added plane is an entity of its id, each removed one a deletion.
        entity_ids = [e["id"] for m, d in self.on("/worldtrack/planes") for e in d["entities"]]
        deletions = [x["id"] for m, d in self.on("/worldtrack/planes") for x in d["deletions"]]
        self.assertEqual(sorted(set(entity_ids)), sorted({r["id"] for r in planes if r["type"] == "anchor.added"}))
        self.assertEqual(sorted(deletions), sorted(r["id"] for r in planes if r["type"] == "anchor.removed"))
        # Tracking-state log lines: one per change of state.
        states = [r["tracking_state"] for r in frames]
        changes = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
        self.assertEqual([d["message"] for m, d in self.on("/worldtrack/log")], [f"tracking: {s}" for s in changes])
        # The trajectory and the map are sent once a second of data (and at the end): 3 s → 4 messages.
        self.assertEqual(len(self.on("/worldtrack/trajectory")), 4)
        self.assertEqual(len(self.on("/worldtrack/landmarks")), 4)

    def test_messages_have_the_required_fields(self):
        checked = 0
        for schema, channel, message, data in self.messages:
            jsonschema.validate(data, json.loads(schema.data))
            for field in FOXGLOVE_REQUIRED.get(schema.name, []):
                self.assertIn(field, data, f"{channel.topic}: {field}")
            if "timestamp" in data:
                self.assertEqual(data["timestamp"]["sec"] * 1_000_000_000 + data["timestamp"]["nsec"], message.log_time)
            checked += 1
        self.assertEqual(checked, len(self.messages))
        for m, d in self.on("/tf"):
            self.assertEqual([(t["parent_frame_id"], t["child_frame_id"]) for t in d["transforms"]], [("world", "body"), ("body", "cam0")])
            for t in d["transforms"]:
                for field in FRAME_TRANSFORM_REQUIRED:
                    self.assertIn(field, t)
        for topic in ("/worldtrack/planes", "/worldtrack/anchors"):
            entities = [e for m, d in self.on(topic) for e in d["entities"]]
            self.assertGreater(len(entities), 0, topic)
            for e in entities:
                for field in SCENE_ENTITY_REQUIRED:
                    self.assertIn(field, e)
                self.assertEqual(e["frame_id"], "world")
        for m, d in self.on("/worldtrack/planes"):
            for e in d["entities"]:
                loop = e["lines"][0]
                self.assertEqual(loop["type"], 1)   # LINE_LOOP
                self.assertGreaterEqual(len(loop["points"]), 3)
                self.assertEqual(len(e["triangles"][0]["points"]), 3 * (len(loop["points"]) - 2))

    def test_images_are_the_dataset_files(self):
        images = self.on("/cam0/image")
        self.assertEqual(len(images), 61)
        for m, d in images:
            self.assertEqual((d["format"], d["frame_id"]), ("png", "cam0"))
            with open(os.path.join(self.dataset, "mav0", "cam0", "data", f"{m.log_time}.png"), "rb") as f:
                self.assertEqual(base64.b64decode(d["data"], validate=True), f.read())

    def test_calibration_is_the_stream_intrinsics(self):
        intrinsics = {r["t_ns"]: r["intrinsics"] for r in self.records("frame")}
        calibrations = self.on("/cam0/calibration")
        self.assertEqual(sorted(m.log_time for m, d in calibrations), sorted(intrinsics))
        for m, d in calibrations:
            i = intrinsics[m.log_time]
            self.assertEqual(d["K"], [i["fx"], 0, i["cx"], 0, i["fy"], i["cy"], 0, 0, 1])
            self.assertEqual(d["P"], [i["fx"], 0, i["cx"], 0, 0, i["fy"], i["cy"], 0, 0, 0, 1, 0])
            self.assertEqual((d["width"], d["height"], d["frame_id"]), (i["width"], i["height"], "cam0"))
            # The simulator's camera is EuRoC's: radial-tangential, which Foxglove calls plumb_bob (k1 k2 p1 p2 k3).
            self.assertEqual(d["distortion_model"], "plumb_bob")
            self.assertEqual(len(d["D"]), 5)

    def test_landmarks_decode_as_float32_points(self):
        clouds = self.on("/worldtrack/landmarks")
        last = clouds[-1][1]
        self.assertEqual(last["point_stride"], 12)
        self.assertEqual([(f["name"], f["offset"], f["type"]) for f in last["fields"]], [("x", 0, 7), ("y", 4, 7), ("z", 8, 7)])
        raw = base64.b64decode(last["data"], validate=True)
        self.assertEqual(len(raw) % 12, 0)
        points = [struct.unpack_from("<3f", raw, i) for i in range(0, len(raw), 12)]
        self.assertGreater(len(points), 100, "the room's map after 3 s")
        # The simulated room is 6 × 5 × 2.7 m around the start: every mapped point lies within ~10 m of the origin.
        self.assertTrue(all(math.isfinite(c) and abs(c) < 10 for p in points for c in p))

    def test_transforms_are_the_stream_poses(self):
        frames = {r["t_ns"]: r for r in self.records("frame")}
        transforms = self.on("/tf")
        self.assertEqual(sorted(m.log_time for m, d in transforms), sorted(frames))
        for m, d in transforms:
            r = frames[m.log_time]
            world_body, body_camera = d["transforms"]
            t = world_body["translation"]
            self.assertEqual([t["x"], t["y"], t["z"]], r["body_position"])
            q = world_body["rotation"]
            self.assertEqual([q["w"], q["x"], q["y"], q["z"]], r["body_orientation"])
            # world → body → cam0 composed is the stream's camera position (to rounding).
            qb = (q["w"], q["x"], q["y"], q["z"])
            tc = body_camera["translation"]
            offset = quaternion_rotate(qb, (tc["x"], tc["y"], tc["z"]))
            camera = [t["x"] + offset[0], t["y"] + offset[1], t["z"] + offset[2]]
            for a, b in zip(camera, r["position"]):
                self.assertAlmostEqual(a, b, delta=1e-9)
        # The poses in the last trajectory message are stream body poses.
        poses = self.on("/worldtrack/trajectory")[-1][1]["poses"]
        body_positions = {tuple(r["body_position"]) for r in frames.values()}
        self.assertGreater(len(poses), 5)
        for p in poses:
            self.assertIn((p["position"]["x"], p["position"]["y"], p["position"]["z"]), body_positions)

    def test_stream_and_trajectory_are_the_same_without_mcap(self):
        self.assertEqual(self.stream_bytes, self.without.stdout)
        with open(os.path.join(self.tmp, "with.tum"), "rb") as a, open(os.path.join(self.tmp, "without.tum"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_file_is_a_function_of_the_input(self):
        # Times are the frames' t_ns and throttling is in data time: a second run (on two threads, which gives the
        # same stream) writes the same bytes.
        again = os.path.join(self.tmp, "again.mcap")
        run("run", self.dataset, *self.consumers, "--no-stream", "--threads", "2", "--mcap", again, "--mcap-images", "1")
        with open(self.mcap, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_file_cut_after_a_chunk_is_readable_up_to_it(self):
        with open(self.mcap, "rb") as f:
            data = f.read()
        indexes = sorted(self.summary.chunk_indexes, key=lambda c: c.chunk_start_offset)
        self.assertGreaterEqual(len(indexes), 5, "~1 MB chunks of ~18 MB")
        per_chunk = []
        for index in indexes:
            with open(self.mcap, "rb") as f:
                f.seek(index.chunk_start_offset)
                chunk = next(StreamReader(f, skip_magic=True, emit_chunks=True).records)
            self.assertIsInstance(chunk, Chunk)
            per_chunk.append(sum(isinstance(r, Message) for r in breakup_chunk(chunk, validate_crc=True)))
        last = indexes[-1]
        # Cut after the second-to-last chunk's message indexes, and in the middle of the last chunk: the
        # non-seeking reader gets every message of the chunks before the cut, then reaches the end of the data.
        for cut in (last.chunk_start_offset, last.chunk_start_offset + last.chunk_length // 2):
            path = os.path.join(self.tmp, f"cut-{cut}.mcap")
            with open(path, "wb") as f:
                f.write(data[:cut])
            read = 0
            with open(path, "rb") as f:
                with self.assertRaises(EndOfFile):
                    for record in StreamReader(f, validate_crcs=True).records:
                        read += isinstance(record, Message)
            self.assertEqual(read, sum(per_chunk[:-1]))
            self.assertGreater(read, 0)

    def test_refuses_to_overwrite_and_bad_paths(self):
        existing = os.path.join(self.tmp, "existing.mcap")
        with open(existing, "w") as f:
            f.write("keep me")
        result = run("run", self.dataset, "--seconds", "0.5", "--no-stream", "--mcap", existing, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"--mcap {existing}: exists; pass --force to replace it", result.stderr.decode())
        with open(existing) as f:
            self.assertEqual(f.read(), "keep me")
        run("run", self.dataset, "--seconds", "0.5", "--no-stream", "--mcap", existing, "--force")
        with open(existing, "rb") as f:
            summary = make_reader(f).get_summary()
        self.assertEqual(summary.statistics.channel_message_counts[0], 6, "0.5 s at 20 Hz: 11 frames, every 2nd image by default")
        for path, why in ((os.path.join(self.tmp, "no-such-folder", "x.mcap"), "does not exist"), (self.tmp, "is a folder")):
            result = run("run", self.dataset, "--seconds", "0.5", "--no-stream", "--mcap", path, check=False)
            self.assertEqual(result.returncode, 2, path)
            self.assertIn(f"--mcap {path}", result.stderr.decode())
            self.assertIn(why, result.stderr.decode())
        same = os.path.join(self.tmp, "same")
        result = run("run", self.dataset, "--no-stream", "--mcap", same, "--trajectory", same, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("name the same file", result.stderr.decode())
        self.assertFalse(os.path.exists(same))


if __name__ == "__main__":
    unittest.main()
