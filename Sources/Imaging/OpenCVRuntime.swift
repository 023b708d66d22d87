import COpenCV

/// Process-wide settings of the OpenCV library behind `Imaging`.
///
/// OpenCV starts with one worker thread and OpenCL disabled, so results are repeatable.
public enum OpenCVRuntime {
    /// OpenCV's version string, e.g. `"4.6.0"`.
    public static var version: String { String(cString: wt_opencv_version()) }

    /// OpenCV's current worker-thread count (1 = everything runs on the calling thread).
    public static var threadCount: Int { Int(wt_get_num_threads()) }

    /// Sets OpenCV's worker-thread count (process-wide, >= 1). Safe while other threads use `Imaging`: the change
    /// waits for their OpenCV calls in flight, and theirs for it (OpenCV rebuilds its thread pool).
    public static func setThreadCount(_ threads: Int) throws {
        try checkStatus(wt_set_num_threads(try checkCount(threads, "thread count")))
    }
}
