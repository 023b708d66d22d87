/// One measurement of a dataset, as `ASLDataset.events()` delivers them in time order.
public enum SensorEvent: Equatable, Sendable {
    /// An IMU sample.
    case imu(IMUSample)
    /// A frame of camera `camera` (its index in `ASLDataset.cameras`) with no partner of equal time.
    case frame(camera: Int, CameraFrameRef)
    /// Frames of cameras 0 (left) and 1 (right) taken at the same time.
    case stereoFrame(left: CameraFrameRef, right: CameraFrameRef)

    /// Time of the event, nanoseconds (the left frame's for a stereo pair).
    public var t_ns: TimestampNs {
        switch self {
        case .imu(let s): return s.t_ns
        case .frame(_, let f): return f.t_ns
        case .stereoFrame(let left, _): return left.t_ns
        }
    }
}

/// IMU samples and camera frames merged in time order. At equal times IMU samples come first, so
/// a filter has propagated to a frame's time when the frame arrives. Holds only frame references.
///
/// With `imuLookaheadNs = L > 0`, IMU samples up to `L` after a frame come before it (a frame is delivered
/// once the IMU covers `t + L`, or the IMU has ended): a filter that estimates a camera–IMU time offset
/// propagates to `t + t_d` for the frame stamped `t`.
public struct SensorEventSequence: Sequence, Sendable {
    private let imu: [IMUSample]
    private let frameEvents: [SensorEvent]
    private let imuLookaheadNs: TimestampNs

    /// Merges `imu` (time-ordered) with the frames of each camera (each time-ordered). With `stereo`,
    /// frames of cameras 0 and 1 less than or equal to `stereoTolerance_ns` apart become one `.stereoFrame`.
    public init(imu: [IMUSample], cameras: [[CameraFrameRef]], stereo: Bool = true, stereoTolerance_ns: TimestampNs = 1_000_000,
                imuLookaheadNs: TimestampNs = 0) {
        self.imu = imu
        self.imuLookaheadNs = Swift.max(0, imuLookaheadNs)
        var events: [SensorEvent] = []
        var firstSingle = 0
        if stereo, cameras.count >= 2 {
            events += SensorEventSequence.pairStereo(cameras[0], cameras[1], tolerance: stereoTolerance_ns)
            firstSingle = 2
        }
        for c in firstSingle..<cameras.count {
            events += cameras[c].map { SensorEvent.frame(camera: c, $0) }
        }
        // Stable sort keeps camera order at equal times.
        self.frameEvents = events.enumerated().sorted {
            $0.element.t_ns != $1.element.t_ns ? $0.element.t_ns < $1.element.t_ns : $0.offset < $1.offset
        }.map(\.element)
    }

    static func pairStereo(_ left: [CameraFrameRef], _ right: [CameraFrameRef], tolerance: TimestampNs) -> [SensorEvent] {
        var events: [SensorEvent] = []
        var i = 0, j = 0
        while i < left.count || j < right.count {
            if i < left.count, j < right.count {
                let dt = right[j].t_ns - left[i].t_ns
                if abs(dt) <= tolerance {
                    events.append(.stereoFrame(left: left[i], right: right[j])); i += 1; j += 1
                } else if dt > 0 {
                    events.append(.frame(camera: 0, left[i])); i += 1
                } else {
                    events.append(.frame(camera: 1, right[j])); j += 1
                }
            } else if i < left.count {
                events.append(.frame(camera: 0, left[i])); i += 1
            } else {
                events.append(.frame(camera: 1, right[j])); j += 1
            }
        }
        return events
    }

    /// Number of events (IMU samples plus frame events).
    public var count: Int { imu.count + frameEvents.count }

    /// An iterator from the first event.
    public func makeIterator() -> Iterator { Iterator(imu: imu, frames: frameEvents, imuLookaheadNs: imuLookaheadNs) }

    /// Walks the two time-ordered lists, taking the earlier head each step.
    public struct Iterator: IteratorProtocol {
        private let imu: [IMUSample]
        private let frames: [SensorEvent]
        private let imuLookaheadNs: TimestampNs
        private var i = 0, f = 0

        init(imu: [IMUSample], frames: [SensorEvent], imuLookaheadNs: TimestampNs = 0) {
            self.imu = imu; self.frames = frames; self.imuLookaheadNs = imuLookaheadNs
        }

        /// The next event in time order, `nil` after the last.
        public mutating func next() -> SensorEvent? {
            if i < imu.count, f >= frames.count || imu[i].t_ns <= frames[f].t_ns + imuLookaheadNs {
                defer { i += 1 }
                return .imu(imu[i])
            }
            guard f < frames.count else { return nil }
            defer { f += 1 }
            return frames[f]
        }
    }
}
