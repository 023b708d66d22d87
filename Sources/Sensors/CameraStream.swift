import Foundation

/// One image of a camera stream: its time stamp and where the image file is. The image itself is
/// read only when `loadImage()` is called, so a whole sequence is never held in memory.
public struct CameraFrameRef: Equatable, Sendable {
    /// Time of exposure, nanoseconds (the `#timestamp [ns]` column of `data.csv`).
    public var t_ns: TimestampNs
    /// Absolute path of the image file.
    public var path: String

    /// A frame at `t_ns` whose image is the file at `path`.
    public init(t_ns: TimestampNs, path: String) { self.t_ns = t_ns; self.path = path }

    /// The file name without its folder (`1403715273262142976.png`).
    public var fileName: String { (path as NSString).lastPathComponent }
}

/// The frames of one camera of a dataset, in time order, with the camera's calibration.
public struct CameraStream: Equatable, Sendable {
    /// Position of this camera in `ASLDataset.cameras` (0 for `cam0`).
    public var index: Int
    /// Calibration from the camera's `sensor.yaml`; `calibration.name` is the folder name (`cam0`).
    public var calibration: CameraCalibration
    /// The camera's folder (`…/mav0/cam0`).
    public var folder: String
    /// Frames whose image file exists, strictly increasing in time.
    public var frames: [CameraFrameRef]
    /// Number of rows `data.csv` lists (frames plus missing images).
    public var listedCount: Int
    /// File names listed in `data.csv` whose image is absent from `data/` (skipped, in listing order).
    public var missingImages: [String]
    /// File names of images that could not be decoded; filled only when loaded with
    /// `ASLLoadOptions.decodeImages` (nil otherwise).
    public var undecodableImages: [String]?
    /// Frame rate estimated from the time stamps (1 / median period), Hz; `nil` with fewer than 2 frames.
    public var estimatedRate_hz: Double?

    /// Creates a stream (loaders build these; tests and simulators may too).
    public init(index: Int, calibration: CameraCalibration, folder: String, frames: [CameraFrameRef],
                listedCount: Int? = nil, missingImages: [String] = [], estimatedRate_hz: Double? = nil) {
        self.index = index; self.calibration = calibration; self.folder = folder; self.frames = frames
        self.listedCount = listedCount ?? frames.count; self.missingImages = missingImages
        self.estimatedRate_hz = estimatedRate_hz ?? RateEstimate.medianRate_hz(frames.map(\.t_ns))
    }

    /// The camera's name (`cam0`).
    public var name: String { calibration.name }
    /// Time of the first frame, nanoseconds.
    public var firstT_ns: TimestampNs? { frames.first?.t_ns }
    /// Time of the last frame, nanoseconds.
    public var lastT_ns: TimestampNs? { frames.last?.t_ns }
    /// Time from the first to the last frame, seconds (0 when there are fewer than 2 frames).
    public var duration_s: Double {
        guard let a = firstT_ns, let b = lastT_ns else { return 0 }
        return Time.seconds(b - a)
    }
}

/// Rates from time stamps.
public enum RateEstimate {
    /// 1 / (median of successive differences) of strictly increasing time stamps, Hz; `nil` for fewer
    /// than two stamps. The median ignores gaps and dropped samples, unlike count / duration.
    public static func medianRate_hz(_ t_ns: [TimestampNs]) -> Double? {
        guard let period = medianPeriod_ns(t_ns), period > 0 else { return nil }
        return 1e9 / Double(period)
    }

    /// The median of successive differences of `t_ns`, nanoseconds; `nil` for fewer than two stamps.
    public static func medianPeriod_ns(_ t_ns: [TimestampNs]) -> TimestampNs? {
        guard t_ns.count >= 2 else { return nil }
        var diffs = [TimestampNs](repeating: 0, count: t_ns.count - 1)
        for i in 1..<t_ns.count { diffs[i - 1] = t_ns[i] - t_ns[i - 1] }
        diffs.sort()
        return diffs[diffs.count / 2]
    }
}
