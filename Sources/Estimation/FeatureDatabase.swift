import Geometry
import Sensors

/// One stored observation of a track: the clone time, the camera and the normalised point.
struct TrackObservation: Equatable {
    var t_ns: TimestampNs
    var camera: Int
    var normalized: Vec2
}

/// A feature track: its observations at cloned frames, oldest first.
struct FeatureTrack: Equatable {
    var id: Int
    var observations: [TrackObservation] = []
    /// Number of distinct clone times observed.
    var distinctTimes: Int {
        var n = 0, last: TimestampNs? = nil
        for o in observations where o.t_ns != last { n += 1; last = o.t_ns }
        return n
    }
}

/// The tracks of all features seen in the clone window.
struct FeatureDatabase {
    private(set) var tracks: [Int: FeatureTrack] = [:]

    var count: Int { tracks.count }

    /// Records a frame's observations at clone time `t_ns`. Stereo observations become two entries
    /// (`camera` and `camera + 1`).
    mutating func add(_ observations: [FeatureObservation], at t_ns: TimestampNs, cameraCount: Int) {
        for o in observations {
            guard o.camera >= 0, o.camera < cameraCount, o.normalized.x.isFinite, o.normalized.y.isFinite else { continue }
            // Appended in place (a copy taken out of the dictionary would copy the observations each frame).
            tracks[o.id, default: FeatureTrack(id: o.id)].observations
                .append(TrackObservation(t_ns: t_ns, camera: o.camera, normalized: o.normalized))
            if let right = o.rightNormalized, o.camera + 1 < cameraCount, right.x.isFinite, right.y.isFinite {
                tracks[o.id]?.observations.append(TrackObservation(t_ns: t_ns, camera: o.camera + 1, normalized: right))
            }
        }
    }

    /// Ids of tracks whose latest observation is older than `t_ns` (the feature was lost).
    func lost(before t_ns: TimestampNs) -> [Int] {
        tracks.values.filter { ($0.observations.last?.t_ns ?? t_ns) < t_ns }.map(\.id)
    }

    /// Ids of tracks with an observation at `t_ns`.
    func observed(at t_ns: TimestampNs) -> [Int] {
        tracks.values.filter { $0.observations.contains { $0.t_ns == t_ns } }.map(\.id)
    }

    func track(_ id: Int) -> FeatureTrack? { tracks[id] }

    mutating func remove(_ id: Int) { tracks[id] = nil }

    /// Drops observations at or before `t_ns` (their clone is gone) and tracks left empty.
    mutating func removeObservations(atOrBefore t_ns: TimestampNs) {
        // In place: only tracks that hold such observations are touched (observations are oldest first).
        var emptied: [Int] = []
        for i in tracks.values.indices {
            guard let first = tracks.values[i].observations.first, first.t_ns <= t_ns else { continue }
            tracks.values[i].observations.removeAll { $0.t_ns <= t_ns }
            if tracks.values[i].observations.isEmpty { emptied.append(tracks.values[i].id) }
        }
        for id in emptied { tracks[id] = nil }
    }

    mutating func removeAll() { tracks.removeAll() }
}
