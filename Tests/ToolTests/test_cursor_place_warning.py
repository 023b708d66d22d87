"""`--consumer cursor:place=T` with T past the end of the data: one warning on stderr, after the last frame."""
import unittest

from stream_run import runs


class CursorPlaceWarningTest(unittest.TestCase):
    def test_a_place_time_past_the_data_is_one_warning_at_the_end(self):
        run = runs()["worldtrack"]   # cursor:place=3,60 on 5 s of data, --quiet
        lines = run.stderr.splitlines()
        warnings = [line for line in lines if line.startswith("warning: cursor:")]
        self.assertEqual(warnings, ["warning: cursor: no anchor placed for place=60.00 s: past the last frame "
                                    "(5.00 s) (times after the first frame)"])
        # At the end of the run: the line just before the run's summary ("run: <N> frames (…").
        summary = next(i for i, line in enumerate(lines) if line.startswith("run: ") and " frames (" in line)
        self.assertEqual(lines.index(warnings[0]), summary - 1)
        # The place time inside the data did place its anchor.
        added = [r for r in run.records if r["type"] == "anchor.added" and r["kind"] == "user"]
        self.assertEqual([r["name"] for r in added], ["cursor-1"])


if __name__ == "__main__":
    unittest.main()
