/// A time stamp in integer nanoseconds, as ASL/EuRoC files store it.
public typealias TimestampNs = Int64

/// Conversions between nanoseconds and seconds at the edges where a format wants seconds.
public enum Time {
    /// Nanoseconds in one second.
    public static let nanosecondsPerSecond: Int64 = 1_000_000_000
    /// Seconds (Double) from nanoseconds.
    @inlinable public static func seconds(_ ns: TimestampNs) -> Double { Double(ns) * 1e-9 }
    /// Nanoseconds from seconds, rounded to the nearest nanosecond.
    @inlinable public static func nanoseconds(_ s: Double) -> TimestampNs { TimestampNs((s * 1e9).rounded()) }
}
