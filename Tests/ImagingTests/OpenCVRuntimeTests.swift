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

    @Test func errorsCarryTheMessage() {
        do {
            _ = try FeatureDetector.shiTomasi(GrayImage(width: 8, height: 8), maxCorners: 5, qualityLevel: 2)
            Issue.record("accepted quality level 2")
        } catch let error as ImagingError {
            #expect(error.description.contains("quality level"))
        } catch { Issue.record("unexpected \(error)") }
    }
}
