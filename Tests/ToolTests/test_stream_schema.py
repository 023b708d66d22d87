"""docs/stream.schema.json against a whole run's stream, with the `jsonschema` package (draft 2020-12).

One simulated room (5 s, 376×240) is tracked once with every optional part of the stream switched on:
--stream-points, the burst, measure (taps) and cursor (with a place time) consumers. Every line must validate;
every record type the run produces must be there (so a type that disappears fails); records mutated to break
one rule must be rejected (so the schema is not vacuous); and the schema's fields must be docs/STREAM.md's.
The same run with `--convention arkit` validates too (test_stream_arkit.py checks its conversions).
"""
import copy
import json
import os
import re
import unittest

import jsonschema

from stream_run import FRAMES, ROOT, TAPS, runs

SCHEMA_PATH = os.path.join(ROOT, "docs", "stream.schema.json")
STREAM_MD = os.path.join(ROOT, "docs", "STREAM.md")


class StreamSchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.streams = {convention: run.records for convention, run in runs().items()}
        cls.stderr = runs()["worldtrack"].stderr
        with open(SCHEMA_PATH) as f:
            cls.schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(cls.schema)
        cls.validator = jsonschema.Draft202012Validator(cls.schema)

    def assertValid(self, records, label):
        problems = []
        for i, record in enumerate(records):
            for e in self.validator.iter_errors(record):
                problems.append(f"line {i + 1} ({record.get('type')}): {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        self.assertEqual(problems[:10], [], f"{label}: {len(problems)} schema violations")

    def test_every_line_of_the_run_validates(self):
        records = self.streams["worldtrack"]
        self.assertGreater(len(records), 200)
        self.assertValid(records, "default convention")

    def test_every_line_of_the_arkit_run_validates(self):
        records = self.streams["arkit"]
        self.assertEqual([r["type"] for r in records], [r["type"] for r in self.streams["worldtrack"]])
        self.assertValid(records, "--convention arkit")

    def test_the_run_produces_every_record_type_and_optional_part(self):
        records = self.streams["worldtrack"]
        types = {r["type"] for r in records}
        for t in ("frame", "anchor.added", "anchor.updated", "cursor", "measurement", "burst.captured", "world_input",
                  "divide", "object"):
            self.assertIn(t, types)
        frames = [r for r in records if r["type"] == "frame"]
        self.assertEqual(len(frames), FRAMES)
        # Motion fields once initialised, absent before (the first frames are still initialising).
        motion = ("velocity", "position_std", "orientation_std", "gyro_bias", "accel_bias")
        self.assertTrue(all(k not in frames[0] for k in motion))
        self.assertTrue(any(all(k in f for k in motion) for f in frames))
        self.assertTrue(any(len(f.get("points", [])) > 10 for f in frames), "--stream-points listed no points")
        self.assertTrue(any(f["anchors"] for f in frames), "no frame has an anchor in view")
        added = [r for r in records if r["type"] == "anchor.added"]
        self.assertTrue(any(a["kind"] == "plane" and "plane" in a for a in added))
        self.assertTrue(any(a["kind"] == "user" and a.get("name") == "cursor-1" for a in added), "cursor:place=3 placed nothing")
        cursors = [r for r in records if r["type"] == "cursor"]
        self.assertEqual(len(cursors), len(frames))
        self.assertTrue(any(c["state"] != "none" for c in cursors))
        measured = {r["label"]: r for r in records if r["type"] == "measurement"}
        self.assertEqual(set(measured), {t["label"] for t in TAPS})
        self.assertEqual(measured["before-the-data"]["status"], "failed")
        self.assertEqual(len([r for r in records if r["type"] == "burst.captured"]), 2)
        inputs = [r for r in records if r["type"] == "world_input"]
        self.assertEqual([r["t_ns"] for r in inputs], [f["t_ns"] for f in frames])
        self.assertIn("camera", inputs[0])
        self.assertTrue(any(r["landmarks"] for r in inputs))
        self.assertEqual(len([r for r in records if r["type"] == "divide" and r["state"] in ("placed", "failed")]), 1)
        objects = [r for r in records if r["type"] == "object"]
        self.assertEqual(objects[0]["state"], "tracked")
        self.assertEqual(len(objects), len([f for f in frames if f["t_ns"] >= objects[0]["t_ns"]]))

    def rejects(self, record, why):
        self.assertFalse(self.validator.is_valid(record), f"the schema accepts a record with {why}: {json.dumps(record)[:300]}")

    def first(self, predicate):
        found = next((r for r in self.streams["worldtrack"] if predicate(r)), None)
        self.assertIsNotNone(found)
        self.assertTrue(self.validator.is_valid(found))  # the mutations below are what breaks it
        return copy.deepcopy(found)

    def test_the_schema_rejects_broken_records(self):
        frame = self.first(lambda r: r["type"] == "frame" and "velocity" in r and r.get("points") and r["anchors"])
        for key in ("tracking_state", "t_ns", "schema", "T_world_camera", "intrinsics", "anchors"):
            broken = copy.deepcopy(frame)
            del broken[key]
            self.rejects(broken, f"no {key}")
        mutations = [
            ("type 'frames'", lambda r: r.update(type="frames")),
            ("an unknown field", lambda r: r.update(extra=1)),
            ("features as a string", lambda r: r.update(features=str(r["features"]))),
            ("t_ns with a fraction", lambda r: r.update(t_ns=1.5)),
            ("a 3-number orientation", lambda r: r.update(orientation=r["orientation"][:3])),
            ("a 15-number T_world_camera", lambda r: r.update(T_world_camera=r["T_world_camera"][:15])),
            ("an unknown tracking state", lambda r: r.update(tracking_state="limited(tired)")),
            ("another schema version", lambda r: r.update(schema="worldtrack.stream/2")),
            ("velocity without its σ", lambda r: r.pop("position_std")),
            ("a point without id", lambda r: r["points"][0].pop("id")),
            ("intrinsics without fx", lambda r: r["intrinsics"].pop("fx")),
            ("an anchor in view with an unknown kind", lambda r: r["anchors"][0].update(kind="table")),
            ("points while not tracking normally", lambda r: r.update(tracking_state="limited(initializing)")),
        ]
        for why, mutate in mutations:
            broken = copy.deepcopy(frame)
            mutate(broken)
            self.rejects(broken, why)

        plane = self.first(lambda r: r["type"] == "anchor.added" and r["kind"] == "plane")
        for why, mutate in [("a plane anchor without its plane", lambda r: r.pop("plane")),
                            ("a plane without a boundary", lambda r: r["plane"].pop("boundary")),
                            ("merged_into on anchor.added", lambda r: r.update(merged_into="plane-1")),
                            ("a plane classified 'sofa'", lambda r: r["plane"].update(classification="sofa"))]:
            broken = copy.deepcopy(plane)
            mutate(broken)
            self.rejects(broken, why)

        # The documented forms a 5 s run does not produce are accepted: a merged plane's removal, a user anchor
        # attached to a plane; and their misuse is not.
        removed = copy.deepcopy(plane)
        removed.update(type="anchor.removed", merged_into="plane-99")
        self.assertTrue(self.validator.is_valid(removed), list(self.validator.iter_errors(removed))[:1])
        user = self.first(lambda r: r["type"] == "anchor.added" and r["kind"] == "user")
        user["plane_id"] = "plane-1"
        self.assertTrue(self.validator.is_valid(user))
        for why, mutate in [("a user anchor with a plane", lambda r: r.update(plane=plane["plane"])),
                            ("a user anchor with a plane id", lambda r: r.update(id="plane-7")),
                            ("a user anchor attached to a non-plane", lambda r: r.update(plane_id="anchor-1"))]:
            broken = copy.deepcopy(user)
            mutate(broken)
            self.rejects(broken, why)

        hit = self.first(lambda r: r["type"] == "cursor" and r["state"] != "none")
        miss = self.first(lambda r: r["type"] == "cursor" and r["state"] == "none")
        broken = copy.deepcopy(hit)
        del broken["position"]
        self.rejects(broken, "a cursor hit without position")
        miss["position"] = hit["position"]
        self.rejects(miss, "a cursor miss with a position")

        failed = self.first(lambda r: r["type"] == "measurement" and r["status"] == "failed")
        broken = copy.deepcopy(failed)
        del broken["reason"]
        self.rejects(broken, "a failed measurement without a reason")
        failed["status"] = "ok"
        self.rejects(failed, "an ok measurement without total and total_std")

        burst = self.first(lambda r: r["type"] == "burst.captured")
        del burst["sidecar"]
        self.rejects(burst, "a burst record without its sidecar")

        world_input = self.first(lambda r: r["type"] == "world_input" and "camera" in r)
        for why, mutate in [("a 6-number camera_pose", lambda r: r.update(camera_pose=r["camera_pose"][:6])),
                            ("a 4-number landmark", lambda r: r.update(landmarks=[[7, 1.0, 2.0, 3.0]])),
                            ("no landmarks", lambda r: r.pop("landmarks")),
                            ("an unknown distortion model", lambda r: r["camera"].update(distortion="fisheye")),
                            ("a camera without its mounting", lambda r: r["camera"].pop("body_camera_pose"))]:
            broken = copy.deepcopy(world_input)
            mutate(broken)
            self.rejects(broken, why)
        divide = self.first(lambda r: r["type"] == "divide")
        for why, mutate in [("pieces = 1", lambda r: r.update(pieces=1)), ("no radius", lambda r: r.pop("radius")),
                            ("state 'cut'", lambda r: r.update(state="cut"))]:
            broken = copy.deepcopy(divide)
            mutate(broken)
            self.rejects(broken, why)
        tracked = self.first(lambda r: r["type"] == "object" and r["state"] == "tracked")
        for why, mutate in [("a tracked object without its box", lambda r: r.pop("box")),
                            ("a 3-number box", lambda r: r.update(box=r["box"][:3])),
                            ("a confidence of 2", lambda r: r.update(confidence=2))]:
            broken = copy.deepcopy(tracked)
            mutate(broken)
            self.rejects(broken, why)

    def test_the_schema_has_the_fields_of_stream_md(self):
        """Every field of docs/STREAM.md's record tables is in the schema, required exactly when the table says
        so, and the schema has no field the tables do not list."""
        sections = {"frame": "frame", "anchor.added": "anchorEvent", "cursor": "cursor", "measurement": "measurement",
                    "burst.captured": "burstCaptured", "divide": "divide", "object": "object", "world_input": "worldInput"}
        documented = parse_stream_md(STREAM_MD)
        for section, definition in sections.items():
            self.assertIn(section, documented)
            expected = documented[section]
            actual = schema_fields(self.schema, self.schema["$defs"][definition])
            self.assertEqual(sorted(actual), sorted(expected), f"fields of {section}: schema vs docs/STREAM.md")
            for path, required in expected.items():
                self.assertEqual(actual[path], required, f"{section}.{path}: required in the schema vs docs/STREAM.md")


def parse_stream_md(path):
    """Section (each backticked word of a heading) → {field path: required} from the `| field | type | required |`
    tables of docs/STREAM.md."""
    sections, names, in_table = {}, [], False
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if line.startswith("#"):
                names = re.findall(r"`([^`]+)`", line)
                in_table = False
                continue
            if not line.startswith("|"):
                in_table = False
                continue
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[:3] == ["field", "type", "required"]:
                in_table = True
                continue
            if in_table and cells[0].startswith("`"):
                for n in names:
                    sections.setdefault(n, {})[cells[0].strip("`")] = cells[2] == "yes"
    return sections


def resolve(schema, node):
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    return node


def schema_fields(schema, node, prefix=""):
    """{dotted path: required} of an object schema's properties, into nested objects and arrays of objects
    (`list[].child`), as docs/STREAM.md writes them."""
    node = resolve(schema, node)
    out = {}
    required = set(node.get("required", []))
    for name, sub in node.get("properties", {}).items():
        path = prefix + name
        out[path] = name in required
        sub = resolve(schema, sub)
        if sub.get("type") == "object":
            out.update(schema_fields(schema, sub, path + "."))
        elif sub.get("type") == "array" and "items" in sub:
            items = resolve(schema, sub["items"])
            if items.get("type") == "object":
                out.update(schema_fields(schema, items, path + "[]."))
    return out


if __name__ == "__main__":
    unittest.main()
