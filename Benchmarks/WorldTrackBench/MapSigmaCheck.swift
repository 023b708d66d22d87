import Foundation
import Geometry
import Simulation
import World

/// How honest the world map's σ is, against the truth: for every landmark in front of the camera within 8 m at the
/// frames given, its depth error (estimated minus true depth along the true camera's ray through it, this frame's pose
/// error taken out: what a tap from this frame would inherit) divided by its σ, three ways (`TapDiagnostics`):
/// against the first surface the ray meets (`depthError`, which jumps to the surface behind wherever a landmark sits on
/// a silhouette), against the nearest surface along the ray (`nearestDepthError`), and as the distance to the nearest
/// surface (`surfaceDistance`, a lower bound). An honest Gaussian σ gives a median |e|/σ of 0.67, 90 % under 1.64 and
/// 0.27 % beyond 3 σ (docs/ACCURACY.md, "Twenty-fourth round" and "Measured again").
struct MapSigmaCheck {
    /// |e|/σ against the first surface, the nearest surface along the ray, and the distance to the nearest surface.
    private(set) var firstSurface: [Double] = [], nearestAlongRay: [Double] = [], offSurface: [Double] = []
    /// The landmarks' σ and |first-surface depth error|, metres.
    private(set) var sigmas: [Double] = [], errors: [Double] = []
    /// Frames added.
    private(set) var frames = 0

    /// Adds the landmarks in view at `frame`, whose estimate maps into the truth by `T_true_est`.
    mutating func add(frame: WorldFrame, T_true_est: SE3, scene: Scene) {
        frames += 1
        let c_W = frame.T_W_C.translation, T_C_W = frame.T_W_C.inverse
        for l in frame.session.map.all {
            let v = T_C_W.act(l.p_W)
            guard v.z > 0.2, v.norm < 8 else { continue }
            guard let e = TapDiagnostics.depthError(l.p_W, T_true_est: T_true_est, cameraCentre: c_W, scene: scene) else { continue }
            firstSurface.append(abs(e) / l.std_m); errors.append(abs(e)); sigmas.append(l.std_m)
            offSurface.append(TapDiagnostics.surfaceDistance(l.p_W, T_true_est: T_true_est, scene: scene) / l.std_m)
            if let n = TapDiagnostics.nearestDepthError(l.p_W, T_true_est: T_true_est, cameraCentre: c_W, scene: scene) {
                nearestAlongRay.append(abs(n) / l.std_m)
            }
        }
    }

    /// The figures in one line, `nil` before any landmark.
    func summary() -> String? {
        guard !firstSurface.isEmpty else { return nil }
        func q(_ a: [Double], _ f: Double) -> Double { let b = a.sorted(); return b.isEmpty ? .nan : b[min(b.count - 1, Int(f * Double(b.count)))] }
        func beyond(_ a: [Double]) -> Double { a.isEmpty ? .nan : 100 * Double(a.filter { $0 > 3 }.count) / Double(a.count) }
        return String(format: "map σ against the truth (%d frame%@, %d landmark sightings; honest: median 0.67, 90 %% 1.64, 0.27 %% beyond 3 σ): "
                      + "σ median %.3f m, |depth error| median %.3f m (90 %% %.3f); |e|/σ against the first surface median %.2f (90 %% %.2f), "
                      + "%.2f %% beyond 3 σ; against the nearest surface along the ray %.2f (%.2f), %.2f %%; off any surface %.2f (%.2f), %.2f %%",
                      frames, frames == 1 ? "" : "s", firstSurface.count, q(sigmas, 0.5), q(errors, 0.5), q(errors, 0.9),
                      q(firstSurface, 0.5), q(firstSurface, 0.9), beyond(firstSurface),
                      q(nearestAlongRay, 0.5), q(nearestAlongRay, 0.9), beyond(nearestAlongRay),
                      q(offSurface, 0.5), q(offSurface, 0.9), beyond(offSurface))
    }
}
