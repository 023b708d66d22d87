import Foundation
import Pipeline
import WorldMap

/// `run --load-map` / `--save-map`: reading the map before the first frame, writing it however the run ended, and
/// the lines they leave on stderr.
enum RunWorldMap {
    /// The map at `path`; any problem is bad input (exit 2) naming the file.
    static func load(_ path: String) throws -> WorldMap {
        do { return try WorldMapFile.read(path: path) } catch let error as WorldMapError {
            throw CLIError.badInput("--load-map \(error.description)")
        }
    }

    /// Writes the pipeline's world map to `path` (checked before the run started); returns the error message if
    /// it could not.
    static func save(_ pipeline: TrackingPipeline, to path: String, log: StderrLog) -> String? {
        let map = pipeline.worldMap()
        do { try WorldMapFile.write(map, to: path) } catch { return "--save-map \(error)" }
        log.line("run: saved the world map to \(path): \(map.points.count) map points, \(map.keyframes.count) keyframes, "
                 + "\(map.planes.count) planes, \(map.anchors.count) anchors")
        return nil
    }

    /// What the relocalisation in a loaded map found, in one line.
    static func note(_ summary: PipelineSummary, map path: String, firstFrame_ns: Int64?) -> String {
        func seconds(_ t_ns: Int64) -> String { firstFrame_ns.map { String(format: "%.2f s", Double(t_ns - $0) * 1e-9) } ?? "\(t_ns) ns" }
        // Places accepted and revoked, one clause each.
        let revoked = summary.revokedRelocalizations.map { v in
            let t = v.T_Ws_W.translation
            return String(format: "; a place accepted at %@ (map frame = yaw %.2f° and (%.3f, %.3f, %.3f) m from the run's) was revoked at %@: ",
                          seconds(v.accepted_ns), v.T_Ws_W.rotation.yaw * 180 / .pi, t.x, t.y, t.z, seconds(v.revoked_ns)) + v.reason
        }.joined()
        guard let r = summary.relocalization else { return "run: the saved map \(path) was not found (never relocalised)\(revoked)" }
        let yaw = r.T_Ws_W.rotation.yaw * 180 / .pi, t = r.T_Ws_W.translation
        let after = firstFrame_ns.map { String(format: " %.2f s after the first frame", Double(r.t_ns - $0) * 1e-9) } ?? ""
        let refuted = r.refuted == 0 ? "" : "; \(r.refuted) other place\(r.refuted == 1 ? "" : "s") refuted by what the cameras saw through"
        return String(format: "run: relocalised in %@%@ (%d map points agree): map frame = yaw %.2f° and (%.3f, %.3f, %.3f) m from the run's%@%@",
                      path, after, r.inliers, yaw, t.x, t.y, t.z, refuted, revoked)
    }
}
