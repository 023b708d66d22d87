import Foundation
import Testing
@testable import Pipeline

@Suite("Stage profiler")
struct StageProfilerTests {
    @Test("per-frame sums, warm-up exclusion and quantiles of known samples")
    func knownSamples() throws {
        let profiler = StageProfiler(warmupFrames: 2)
        // Two warm-up frames with huge times must not appear in the statistics.
        for _ in 0..<2 { profiler.add(.frontend, nanoseconds: 1_000_000_000); profiler.endFrame() }
        // Frames 1…10 ms of frontend, measured in two halves per frame (they must add up).
        for ms in 1...10 {
            profiler.add(.frontend, nanoseconds: UInt64(ms) * 500_000)
            profiler.add(.frontend, nanoseconds: UInt64(ms) * 500_000)
            profiler.add(.update, nanoseconds: 2_000_000)
            profiler.endFrame()
        }
        let frontend = try #require(profiler.statistics.first { $0.stage == .frontend })
        #expect(frontend.count == 10)
        #expect(abs(frontend.median_ms - 5.5) < 1e-9)    // linear interpolation between 5 and 6
        #expect(abs(frontend.p90_ms - 9.1) < 1e-9)       // 0.9·9 = 8.1 → 9 + 0.1·(10 − 9)
        #expect(abs(frontend.p99_ms - 9.91) < 1e-9)      // 0.99·9 = 8.91 → 9 + 0.91·(10 − 9)
        #expect(abs(frontend.max_ms - 10) < 1e-9)
        #expect(abs(frontend.total_ms - 55) < 1e-9)
        let total = try #require(profiler.total)
        #expect(abs(total.median_ms - 7.5) < 1e-9)       // frontend + 2 ms of update
        #expect(profiler.frameCount == 12)
        #expect(profiler.table().contains("frontend"))
        // Stages never measured (turned off) get no row.
        #expect(profiler.statistics.map(\.stage) == [.frontend, .update])
        #expect(!profiler.table().contains("mapReuse"))
    }

    @Test("per-frame CSV: one line per frame after the warm-up, its time stamp, the used stages and the total")
    func perFrameCSV() throws {
        let profiler = StageProfiler(warmupFrames: 1)
        profiler.add(.frontend, nanoseconds: 9_000_000); profiler.endFrame(t_ns: 100)   // warm-up: not listed
        profiler.add(.frontend, nanoseconds: 1_500_000); profiler.add(.update, nanoseconds: 250_000)
        profiler.add(.planeWorker, nanoseconds: 4_000_000)                               // its own thread: not in the total
        profiler.endFrame(t_ns: 200)
        profiler.add(.update, nanoseconds: 1_000); profiler.endFrame()
        let lines = profiler.perFrameCSV().split(separator: "\n").map(String.init)
        #expect(lines == ["t_ns,frontend_ms,update_ms,planeWorker_ms,total_ms",
                          "200,1.500,0.250,4.000,1.750",
                          ",0.000,0.001,0.000,0.001"])
    }

    @Test("the thread-CPU clock does not count a sleep; the wall clock does")
    func clocks() {
        let cpu = StageProfiler(), wall = StageProfiler(clock: .wall)
        #expect(cpu.clock == .threadCPU)
        for p in [cpu, wall] { p.measure(.decode) { usleep(30_000) }; p.endFrame() }
        // A 30 ms sleep: the wall clock sees at least 30 ms; the thread's CPU time is the few
        // microseconds of the call (1 ms leaves room for a slow, loaded machine).
        #expect(wall.statistics[0].median_ms >= 30)
        #expect(cpu.statistics[0].median_ms < 1)
    }

    @Test("measure returns the body's value and times it")
    func measureReturnsValue() {
        let profiler = StageProfiler()
        let v = profiler.measure(.decode) { (1...1000).reduce(0, +) }
        profiler.endFrame()
        #expect(v == 500_500)
        #expect(profiler.statistics.first { $0.stage == .decode }?.count == 1)
    }
}
