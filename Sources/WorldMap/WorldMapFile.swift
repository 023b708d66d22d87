import Foundation
import Geometry
import Imaging

/// The world map file format, version 1 (docs/WORLDMAP.md): a 32-byte header — the magic `WTWMAP\r\n`, the
/// version, flags, the payload's length and CRC-32 — then the payload, little-endian: the save time, the map
/// points, the keyframes, the planes and the user anchors. The reader refuses another magic or version, a length
/// that does not match the file, a checksum that does not match, and any value that does not make sense (names
/// what and where).
public enum WorldMapFile {
    /// The first 8 bytes of every world map file (`WTWMAP`, CR, LF: a text-mode transfer that rewrites line ends
    /// breaks it visibly).
    public static let magic: [UInt8] = Array("WTWMAP\r\n".utf8)
    /// The magic as the error messages show it.
    public static let magicText = "WTWMAP"
    /// The format version this code writes and reads.
    public static let version: UInt32 = 1
    /// Size of the header, bytes.
    public static let headerSize = 32

    /// The file's bytes for `map`.
    public static func encode(_ map: WorldMap) -> [UInt8] {
        var w = ByteWriter()
        w.int64(map.saved_ns)
        w.uint32(UInt32(map.points.count))
        for p in map.points {
            w.int64(Int64(p.id)); w.vec3(p.p_W); w.double(p.std_m); w.int64(p.lastSeen_ns); w.descriptor(p.descriptor)
        }
        w.uint32(UInt32(map.keyframes.count))
        for k in map.keyframes {
            w.int64(k.t_ns); w.pose(k.T_W_C)
            w.uint32(UInt32(k.keypoints.count))
            for kp in k.keypoints {
                w.float(kp.pixel.x); w.float(kp.pixel.y); w.int64(kp.mapPointId.map(Int64.init) ?? -1); w.descriptor(kp.descriptor)
            }
        }
        w.uint32(UInt32(map.planes.count))
        for p in map.planes {
            w.string(p.id); w.uint8(p.isVertical ? 1 : 0); w.string(p.classification); w.pose(p.T_W_P)
            w.double(p.offset_m); w.double(p.offsetStd_m); w.uint32(UInt32(clamping: p.pointCount))
            w.uint32(UInt32(p.boundaryLocal.count))
            for q in p.boundaryLocal { w.double(q.x); w.double(q.y) }
        }
        w.uint32(UInt32(map.anchors.count))
        for a in map.anchors {
            w.string(a.id); w.optionalString(a.name); w.pose(a.T_W_A); w.optionalString(a.planeId); w.int64(a.created_ns)
        }
        var h = ByteWriter()
        h.bytes += magic
        h.uint32(version)
        h.uint32(0)
        h.uint64(UInt64(w.bytes.count))
        h.uint32(CRC32.checksum(w.bytes))
        h.uint32(0)
        return h.bytes + w.bytes
    }

    /// The map in `bytes`, read from `path` (named in errors).
    /// - Throws: `WorldMapError` for another magic or version, a truncated or corrupt file, or a bad value.
    public static func decode(_ bytes: [UInt8], path: String) throws -> WorldMap {
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            throw WorldMapError.notAWorldMap(path: path)
        }
        guard bytes.count >= headerSize else {
            throw WorldMapError.corrupt(path: path, reason: "the file ends inside its \(headerSize)-byte header (\(bytes.count) bytes)")
        }
        var h = ByteReader(bytes: bytes, position: magic.count, path: path)
        let fileVersion = try h.uint32("version")
        guard fileVersion == version else { throw WorldMapError.unsupportedVersion(path: path, version: fileVersion) }
        let flags = try h.uint32("flags")
        guard flags == 0 else { throw WorldMapError.corrupt(path: path, reason: "unknown flags \(flags) in the header") }
        let length = try h.uint64("payload length")
        let crc = try h.uint32("checksum")
        let payloadBytes = bytes.count - headerSize
        guard UInt64(payloadBytes) == length else {
            throw WorldMapError.corrupt(path: path, reason: payloadBytes < length
                ? "truncated: the header announces \(length) bytes of data, the file has \(payloadBytes)"
                : "\(UInt64(payloadBytes) - length) bytes after the end of the data the header announces")
        }
        let actual = CRC32.checksum(bytes[headerSize...])
        guard actual == crc else {
            throw WorldMapError.corrupt(path: path, reason: String(format: "checksum mismatch (header 0x%08x, data 0x%08x)", crc, actual))
        }
        var r = ByteReader(bytes: bytes, position: headerSize, path: path)
        var map = WorldMap()
        map.saved_ns = try r.int64("save time")
        let pointCount = try r.count("map points", minimumSize: 80)
        var ids = Set<Int>()
        for i in 0..<pointCount {
            let what = "map point \(i)"
            let id = try r.id(what)
            guard ids.insert(id).inserted else { throw r.bad("\(what): id \(id) appears twice") }
            let p = try r.vec3(what)
            let std = try r.double(what)
            guard std >= 0 else { throw r.bad("\(what): negative σ \(std)") }
            map.points.append(WorldMap.MapPoint(id: id, p_W: p, std_m: std, descriptor: .init(words: .zero), lastSeen_ns: try r.int64(what)))
            map.points[i].descriptor = try r.descriptor(what)
        }
        let keyframeCount = try r.count("keyframes", minimumSize: 68)
        for i in 0..<keyframeCount {
            let what = "keyframe \(i)"
            let t = try r.int64(what)
            let pose = try r.pose(what)
            let n = try r.count("\(what)'s keypoints", minimumSize: 48)
            var keypoints: [WorldMap.Keypoint] = []
            keypoints.reserveCapacity(n)
            for j in 0..<n {
                let kwhat = "\(what), keypoint \(j)"
                let u = try r.float(kwhat), v = try r.float(kwhat)
                let ref = try r.int64(kwhat)
                guard ref == -1 || (ref >= 0 && ids.contains(Int(ref))) else { throw r.bad("\(kwhat): no map point has id \(ref)") }
                keypoints.append(WorldMap.Keypoint(pixel: SIMD2(u, v), mapPointId: ref < 0 ? nil : Int(ref), descriptor: try r.descriptor(kwhat)))
            }
            map.keyframes.append(WorldMap.Keyframe(t_ns: t, T_W_C: pose, keypoints: keypoints))
        }
        let planeCount = try r.count("planes", minimumSize: 85)
        for i in 0..<planeCount {
            let what = "plane \(i)"
            let id = try r.string(what)
            let vertical = try r.uint8(what)
            guard vertical <= 1 else { throw r.bad("\(what): alignment byte \(vertical) is neither 0 nor 1") }
            let classification = try r.string(what)
            let pose = try r.pose(what)
            let offset = try r.double(what), offsetStd = try r.double(what)
            let points = Int(try r.uint32(what))
            let n = try r.count("\(what)'s boundary", minimumSize: 16)
            var boundary: [Vec2] = []
            for _ in 0..<n { boundary.append(Vec2(try r.double(what), try r.double(what))) }
            map.planes.append(WorldMap.Plane(id: id, isVertical: vertical == 1, classification: classification, T_W_P: pose,
                                             boundaryLocal: boundary, offset_m: offset, offsetStd_m: offsetStd, pointCount: points))
        }
        let anchorCount = try r.count("anchors", minimumSize: 68)
        for i in 0..<anchorCount {
            let what = "anchor \(i)"
            let id = try r.string(what)
            let name = try r.optionalString(what)
            let pose = try r.pose(what)
            let planeId = try r.optionalString(what)
            map.anchors.append(WorldMap.Anchor(id: id, name: name, T_W_A: pose, planeId: planeId, created_ns: try r.int64(what)))
        }
        guard r.position == bytes.count else { throw r.bad("\(bytes.count - r.position) bytes left after the anchors") }
        return map
    }

    /// Reads the map at `path`.
    /// - Throws: `WorldMapError` (a file that cannot be read is `.io`).
    public static func read(path: String) throws -> WorldMap {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw WorldMapError.io(path: path, reason: "cannot read the world map: \((error as NSError).localizedDescription)")
        }
        return try decode([UInt8](data), path: path)
    }

    /// Writes `map` to `path`, through a temporary file in the same folder renamed over it, so a reader never sees
    /// a partial map. The caller decides whether an existing file may be replaced.
    public static func write(_ map: WorldMap, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do { try Data(encode(map)).write(to: temporary) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw WorldMapError.io(path: path, reason: "cannot write the world map: \((error as NSError).localizedDescription)")
        }
        // rename(2) replaces an existing file atomically (Foundation's replaceItemAt does not on Linux).
        guard rename(temporary.path, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw WorldMapError.io(path: path, reason: "cannot write the world map: \(reason)")
        }
    }
}
