import Testing
@testable import Imaging

@Suite(.serialized) struct OpenCVRuntimeTests {
    @Test func versionAndThreads() throws {
        #expect(OpenCVRuntime.version.hasPrefix("4."))
        let before = OpenCVRuntime.threadCount
        #expect(before >= 1)
        try OpenCVRuntime.setThreadCount(2)
        #expect(OpenCVRuntime.threadCount == 2)
        try OpenCVRuntime.setThreadCount(before)
        #expect(OpenCVRuntime.threadCount == before)
        #expect(throws: ImagingError.self) { try OpenCVRuntime.setThreadCount(0) }
    }

    @Test func changingTheThreadCountWhileOtherThreadsUseOpenCVIsSafe() async throws {
        // cv::setNumThreads rebuilds OpenCV's thread pool; a call running in the old pool on another thread crashed
        // the test process (SIGSEGV in libtbb, seen once in CI while `versionAndThreads` ran beside other suites). The
        // C layer's runtime lock makes the change wait for the calls in flight, and them for it.
        var image = GrayImage(width: 1024, height: 768)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) }
        let before = OpenCVRuntime.threadCount
        let reference = try Contrast.clahe(image).pixels
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<300 {
                        #expect(try Contrast.clahe(image).pixels == reference)
                        _ = try Contrast.equalizeHistogram(image)
                    }
                }
            }
            group.addTask {
                for k in 0..<3000 { try OpenCVRuntime.setThreadCount(k % 2 == 0 ? 2 : 1) }
            }
            try await group.waitForAll()
        }
        try OpenCVRuntime.setThreadCount(before)
        #expect(OpenCVRuntime.threadCount == before)
    }

    @Test func errorsCarryTheMessage() {
        do {
            _ = try FeatureDetector.shiTomasi(GrayImage(width: 8, height: 8), maxCorners: 5, qualityLevel: 2)
            Issue.record("accepted quality level 2")
        } catch let error as ImagingError {
            #expect(error.description.contains("quality level"))
        } catch { Issue.record("unexpected \(error)") }
    }
}
