import Geometry
import Imaging

/// Little-endian writer of the world map's fields.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func uint8(_ v: UInt8) { bytes.append(v) }
    mutating func uint32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func uint64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
    mutating func int64(_ v: Int64) { uint64(UInt64(bitPattern: v)) }
    mutating func double(_ v: Double) { uint64(v.bitPattern) }
    mutating func float(_ v: Float) { uint32(v.bitPattern) }
    mutating func vec3(_ v: Vec3) { double(v.x); double(v.y); double(v.z) }
    /// Translation x y z, then the quaternion w x y z.
    mutating func pose(_ T: SE3) {
        vec3(T.translation)
        let q = T.rotation.quaternion
        double(q.w); double(q.x); double(q.y); double(q.z)
    }
    mutating func descriptor(_ d: ORBDescriptor) { bytes += d.bytes }
    /// UTF-8 with a 16-bit length (longer strings are cut at 65 535 bytes).
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8.prefix(Int(UInt16.max)))
        withUnsafeBytes(of: UInt16(utf8.count).littleEndian) { bytes += $0 }
        bytes += utf8
    }
    mutating func optionalString(_ s: String?) {
        uint8(s == nil ? 0 : 1)
        if let s { string(s) }
    }
}

/// Little-endian reader of the world map's fields; every read checks the bounds and every number its finiteness,
/// and errors name the field and its byte offset.
struct ByteReader {
    let bytes: [UInt8]
    var position: Int
    let path: String

    func bad(_ reason: String) -> WorldMapError { .corrupt(path: path, reason: "\(reason) (at byte \(position))") }

    private mutating func take(_ n: Int, _ what: String) throws -> ArraySlice<UInt8> {
        guard n >= 0, bytes.count - position >= n else { throw bad("\(what): the data ends early") }
        defer { position += n }
        return bytes[position..<(position + n)]
    }
    private mutating func little<T: FixedWidthInteger>(_ type: T.Type, _ what: String) throws -> T {
        let slice = try take(MemoryLayout<T>.size, what)
        var v: T = 0
        for (i, b) in slice.enumerated() { v |= T(truncatingIfNeeded: b) << (8 * i) }
        return v
    }
    mutating func uint8(_ what: String) throws -> UInt8 { try little(UInt8.self, what) }
    mutating func uint32(_ what: String) throws -> UInt32 { try little(UInt32.self, what) }
    mutating func uint64(_ what: String) throws -> UInt64 { try little(UInt64.self, what) }
    mutating func int64(_ what: String) throws -> Int64 { Int64(bitPattern: try uint64(what)) }
    mutating func double(_ what: String) throws -> Double {
        let v = Double(bitPattern: try uint64(what))
        guard v.isFinite else { throw bad("\(what): a number is not finite") }
        return v
    }
    mutating func float(_ what: String) throws -> Float {
        let v = Float(bitPattern: try uint32(what))
        guard v.isFinite else { throw bad("\(what): a number is not finite") }
        return v
    }
    mutating func vec3(_ what: String) throws -> Vec3 { Vec3(try double(what), try double(what), try double(what)) }
    /// A pose whose quaternion must have unit norm (within 1e-6); kept as stored, so a map reads back bit for bit.
    mutating func pose(_ what: String) throws -> SE3 {
        let t = try vec3(what)
        let q = Quaternion(w: try double(what), x: try double(what), y: try double(what), z: try double(what))
        guard abs(q.norm - 1) <= 1e-6 else { throw bad("\(what): the orientation quaternion has norm \(q.norm), not 1") }
        var R = SO3.identity
        R.quaternion = q
        return SE3(rotation: R, translation: t)
    }
    mutating func descriptor(_ what: String) throws -> ORBDescriptor {
        guard let d = ORBDescriptor(bytes: Array(try take(32, what))) else { throw bad("\(what): descriptor") }
        return d
    }
    /// A non-negative id that fits an Int.
    mutating func id(_ what: String) throws -> Int {
        let v = try int64(what)
        guard v >= 0 else { throw bad("\(what): negative id \(v)") }
        return Int(v)
    }
    /// A count of records of at least `minimumSize` bytes each, checked against the bytes left.
    mutating func count(_ what: String, minimumSize: Int) throws -> Int {
        let n = Int(try uint32("the number of \(what)"))
        guard n <= (bytes.count - position) / minimumSize else {
            throw bad("\(n) \(what) cannot fit in the \(bytes.count - position) bytes left")
        }
        return n
    }
    mutating func string(_ what: String) throws -> String {
        let n = Int(try little(UInt16.self, what))
        guard let s = String(validating: try take(n, what), as: UTF8.self) else { throw bad("\(what): a name is not UTF-8") }
        return s
    }
    mutating func optionalString(_ what: String) throws -> String? {
        switch try uint8(what) {
        case 0: return nil
        case 1: return try string(what)
        case let b: throw bad("\(what): optional-name byte \(b) is neither 0 nor 1")
        }
    }
}
