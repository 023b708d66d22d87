import Foundation
import Geometry
import Imaging
import Testing
import WorldMap

/// The world map file (docs/WORLDMAP.md): round trip, and the reader's refusals.
@Suite("World map file format")
struct WorldMapFileTests {
    /// A map with every kind of record, from a seeded generator.
    static func sampleMap() -> WorldMap {
        var random = SeededRandom(seed: 19)
        func descriptor() -> ORBDescriptor { ORBDescriptor(words: SIMD4(random.next(), random.next(), random.next(), random.next())) }
        func pose() -> SE3 {
            SE3(rotation: SO3.exp(Vec3(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-3, 3))),
                translation: Vec3(random.uniform(-5, 5), random.uniform(-5, 5), random.uniform(0, 3)))
        }
        var map = WorldMap(saved_ns: 1_403_715_273_262_142_976)
        for i in 0..<50 {
            map.points.append(WorldMap.MapPoint(id: i * 3, p_W: Vec3(random.uniform(-4, 4), random.uniform(-4, 4), random.uniform(0, 3)),
                                                std_m: random.uniform(0.01, 0.03), descriptor: descriptor(),
                                                lastSeen_ns: 1_000_000_000 + Int64(i)))
        }
        for k in 0..<4 {
            let keypoints = (0..<20).map { j in
                WorldMap.Keypoint(pixel: SIMD2(Float(random.uniform(0, 752)), Float(random.uniform(0, 480))),
                                  mapPointId: j % 3 == 0 ? nil : (j * 7 % 50) * 3, descriptor: descriptor())
            }
            map.keyframes.append(WorldMap.Keyframe(t_ns: Int64(k) * 500_000_000, T_W_C: pose(), keypoints: keypoints))
        }
        map.planes = [
            WorldMap.Plane(id: "plane-1", isVertical: false, classification: "floor", T_W_P: SE3(translation: Vec3(0, 0, 0.01)),
                           boundaryLocal: [Vec2(-2, -2), Vec2(2, -2), Vec2(2, 2), Vec2(-2, 2)], offset_m: 0.01, offsetStd_m: 0.002,
                           pointCount: 412),
            WorldMap.Plane(id: "plane-3", isVertical: true, classification: "wall", T_W_P: pose(), boundaryLocal: [Vec2(0, 0), Vec2(1, 0), Vec2(0, 1)],
                           offset_m: -3.2, offsetStd_m: 0.004, pointCount: 77),
        ]
        map.anchors = [
            WorldMap.Anchor(id: "anchor-1", name: "cursor-1", T_W_A: pose(), planeId: "plane-1", created_ns: 20_000_000_000),
            WorldMap.Anchor(id: "anchor-2", name: nil, T_W_A: pose(), planeId: nil, created_ns: 21_000_000_000),
        ]
        return map
    }

    @Test("a map written and read back is the same, bit for bit (through a file)")
    func roundTrip() throws {
        let map = Self.sampleMap()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("worldmap-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("room.wtmap").path
        try WorldMapFile.write(map, to: path)
        let back = try WorldMapFile.read(path: path)
        // Quaternions are stored as written: equality is exact, not within a tolerance.
        #expect(back == map)
        #expect(back.points.count == 50 && back.keyframes.count == 4 && back.planes.count == 2 && back.anchors.count == 2)
        #expect(back.anchors[1].name == nil && back.anchors[0].planeId == "plane-1")
        // Deterministic bytes: the same map encodes the same way.
        #expect(WorldMapFile.encode(map) == WorldMapFile.encode(back))
        // Nothing left behind but the map (the temporary file was renamed).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["room.wtmap"])
    }

    @Test("another magic, another version, unknown flags: refused, naming the file and the reason")
    func refusesOtherFiles() throws {
        let bytes = WorldMapFile.encode(Self.sampleMap())
        func error(_ b: [UInt8]) -> WorldMapError? {
            do { _ = try WorldMapFile.decode(b, path: "x.wtmap"); return nil } catch let e as WorldMapError { return e } catch { return nil }
        }
        var wrongMagic = bytes; wrongMagic[0] = UInt8(ascii: "X")
        #expect(error(wrongMagic) == .notAWorldMap(path: "x.wtmap"))
        #expect(error(Array("{\"type\":\"frame\"}\n".utf8)) == .notAWorldMap(path: "x.wtmap"))
        var v2 = bytes; v2[8] = 2
        #expect(error(v2) == .unsupportedVersion(path: "x.wtmap", version: 2))
        #expect(error(v2)?.description.contains("version 2 is not supported (this worldtrack reads version 1)") == true)
        var flags = bytes; flags[12] = 1
        #expect(error(flags)?.description.contains("unknown flags") == true)
    }

    @Test("truncated, extended or corrupted files are refused: length and checksum")
    func refusesDamagedFiles() throws {
        let bytes = WorldMapFile.encode(Self.sampleMap())
        func message(_ b: [UInt8]) -> String? {
            do { _ = try WorldMapFile.decode(b, path: "x.wtmap"); return nil } catch { return "\(error)" }
        }
        // Every truncation is refused (the header's length), including inside the header.
        for cut in [1, 9, 20, 31, 32, 100, bytes.count / 2, bytes.count - 1] {
            let m = message(Array(bytes.prefix(cut)))
            #expect(m != nil, "truncated to \(cut) bytes was accepted")
            if cut >= 32 { #expect(m?.contains("truncated") == true, "\(m ?? "")") }
        }
        #expect(message(bytes + [0])?.contains("1 bytes after the end") == true)
        // A flipped bit anywhere in the data is caught by the checksum.
        for position in stride(from: 32, to: bytes.count, by: max(1, bytes.count / 40)) {
            var b = bytes; b[position] ^= 0x10
            #expect(message(b)?.contains("checksum mismatch") == true, "bit flip at \(position) not detected")
        }
    }

    @Test("data that passes the checksum but makes no sense is refused naming the record")
    func refusesBadValues() throws {
        var map = Self.sampleMap()
        map.keyframes[2].keypoints[1].mapPointId = 10_000   // no such point
        #expect(throws: WorldMapError.self) { try WorldMapFile.decode(WorldMapFile.encode(map), path: "x") }
        do { _ = try WorldMapFile.decode(WorldMapFile.encode(map), path: "x") } catch {
            #expect("\(error)".contains("keyframe 2, keypoint 1: no map point has id 10000"), "\(error)")
        }
        var nan = Self.sampleMap()
        nan.points[4].p_W.y = .nan
        do { _ = try WorldMapFile.decode(WorldMapFile.encode(nan), path: "x"); Issue.record("NaN accepted") } catch {
            #expect("\(error)".contains("map point 4: a number is not finite"), "\(error)")
        }
        var twice = Self.sampleMap()
        twice.points[7].id = twice.points[6].id
        do { _ = try WorldMapFile.decode(WorldMapFile.encode(twice), path: "x"); Issue.record("duplicate id accepted") } catch {
            #expect("\(error)".contains("appears twice"), "\(error)")
        }
    }

    @Test("the header is as documented: magic, version 1, flags 0, payload length and CRC-32 of the payload")
    func headerLayout() throws {
        let bytes = WorldMapFile.encode(WorldMap())
        #expect(Array(bytes[0..<8]) == Array("WTWMAP\r\n".utf8))
        #expect(Array(bytes[8..<16]) == [1, 0, 0, 0, 0, 0, 0, 0])
        // An empty map's payload: the save time (8 bytes) and four zero counts (16 bytes).
        #expect(Array(bytes[16..<24]) == [24, 0, 0, 0, 0, 0, 0, 0])
        #expect(bytes.count == 32 + 24)
        // CRC-32 of 24 zero bytes as zlib computes it (`zlib.crc32(bytes(24))`), little-endian in the header.
        let crc = UInt32(bytes[24]) | UInt32(bytes[25]) << 8 | UInt32(bytes[26]) << 16 | UInt32(bytes[27]) << 24
        #expect(crc == 0xA3C1_CA20)
        #expect(try WorldMapFile.decode(bytes, path: "x") == WorldMap())
    }
}
