// WorldTrack benchmarks: per-stage timings on a release build. Implementation pending (issue 8).
print("worldtrack-bench: no benchmarks yet")
