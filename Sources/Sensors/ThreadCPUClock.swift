import Foundation

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`): what one core spends on the thread's work, unaffected
/// by other processes competing for the cores. The pipeline's profile, its worker threads and `worldtrack features`
/// read it.
public enum ThreadCPUClock {
    /// Nanoseconds of CPU time the calling thread has used.
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
