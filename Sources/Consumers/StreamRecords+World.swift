// The stream's record types live in `StreamFormat` (a small module that readers such as `Evaluation` and the
// tests depend on without the engine). Consumers re-exports it because its API is made of them
// (`FrameConsumer.consume` returns `StreamRecord`s): a plug-in author writes `import Consumers`.
@_exported import StreamFormat

import Foundation
import Geometry
import Sensors
import World

extension AnchorInViewJSON {
    /// An entry from the world layer's `AnchorInView`, in the given convention.
    public init(_ a: AnchorInView, convention: StreamConvention = .worldtrack) {
        let T = convention.surfacePose(a.T_W_A)
        self.init(id: a.id, kind: a.kind.rawValue, transform: StreamJSON.matrix(T), position: StreamJSON.array(T.translation),
                  pixel: StreamJSON.array(a.pixel), classification: a.classification?.rawValue)
    }
}

extension FrameRecord {
    /// The record of a world frame, in the given convention.
    public init(_ frame: WorldFrame, convention: StreamConvention = .worldtrack) {
        let T_C = convention.cameraPose(frame.T_W_C), T_B = convention.bodyPose(frame.T_W_B)
        self.init(t_ns: frame.t_ns, tracking_state: frame.trackingState.description,
                  position: StreamJSON.array(T_C.translation), orientation: StreamJSON.quaternion(T_C.rotation),
                  T_world_camera: StreamJSON.matrix(T_C),
                  body_position: StreamJSON.array(T_B.translation), body_orientation: StreamJSON.quaternion(T_B.rotation),
                  intrinsics: IntrinsicsJSON(frame.camera.model), features: frame.featureCount,
                  anchors: frame.anchorsInView.map { AnchorInViewJSON($0, convention: convention) })
        // The estimator's motion and uncertainty, once it has an estimate (finite σ).
        if let e = frame.input.estimate, e.positionStd_m.isFinite, e.orientationStd_rad.isFinite, e.v_W.isFinite {
            velocity = StreamJSON.array(convention.point(e.v_W))
            position_std = e.positionStd_m
            orientation_std = e.orientationStd_rad
            gyro_bias = StreamJSON.array(e.gyroBias_B)
            accel_bias = StreamJSON.array(e.accelBias_B)
        }
    }
}

extension PlaneJSON {
    /// The JSON of a plane anchor, in the given convention.
    public init(_ p: PlaneAnchor, convention: StreamConvention = .worldtrack) {
        self.init(alignment: p.alignment.rawValue, classification: p.classification.rawValue,
                  center: StreamJSON.array(convention.point(p.center)),
                  extent: ExtentJSON(width: p.extent.width, length: p.extent.length, yaw: p.extent.yaw),
                  boundary: p.boundary.map { StreamJSON.array(convention.point($0)) },
                  normal: StreamJSON.array(convention.point(p.normal_W)),
                  offset: p.offset_m, offset_std: p.offsetStd_m, points: p.pointCount)
    }
}

extension AnchorEventRecord {
    /// The record of an anchor event (default conventions); usable as `events.map(AnchorEventRecord.init)`.
    public init(_ e: AnchorEvent) { self.init(e, convention: .worldtrack) }

    /// The record of an anchor event, in the given convention.
    public init(_ e: AnchorEvent, convention: StreamConvention) {
        let T = convention.surfacePose(e.anchor.T_W_A)
        var plane: PlaneJSON?, planeId: String?, name: String?
        switch e.anchor {
        case let .plane(p): plane = PlaneJSON(p, convention: convention)
        case let .user(u): planeId = u.planeId; name = u.name
        }
        self.init(type: e.change.rawValue, t_ns: e.t_ns, id: e.anchor.id, kind: e.anchor.kind.rawValue,
                  transform: StreamJSON.matrix(T), position: StreamJSON.array(T.translation),
                  orientation: StreamJSON.quaternion(T.rotation), plane: plane, plane_id: planeId, name: name,
                  merged_into: e.mergedInto)
    }
}
