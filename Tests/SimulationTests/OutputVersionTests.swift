import Foundation
import Imaging
import Simulation
import Testing
import TestSupport

/// The simulator's output is cached under names that carry `SimulationModule.outputVersion` (the default dataset of
/// `worldtrack run`, the tests' sequence cache). A change that alters the output without a new version would let those
/// caches serve stale data as if it were current. This guard renders a quarter second with the default dataset's
/// configuration (mono, and stereo with the EuRoC rig's second camera) and compares a digest of everything written
/// with the digest recorded for the current version.
///
/// When it fails after a deliberate change to the simulator: bump `SimulationModule.outputVersion` and record the new
/// digest below (the failure message prints it). The digest covers the decoded pixels of every PNG (not the PNG bytes,
/// which depend on the zlib build) and the bytes of every other file (CSV, YAML, scene.json), in path order.
@Suite struct OutputVersionTests {
    /// Digests of the two quarter-second renders, by output version.
    static let recorded: [Int: UInt64] = [
        2: 0xa1b8_46ae_ae1d_5c41,
    ]

    /// FNV-1a, 64 bits.
    struct Digest {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        mutating func add<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for b in bytes { value = (value ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        }
    }

    static func digest(of dir: String, into digest: inout Digest) throws {
        let fm = FileManager.default
        var files: [String] = []
        let e = fm.enumerator(atPath: dir)
        while let p = e?.nextObject() as? String {
            var isDir: ObjCBool = false
            if fm.fileExists(atPath: dir + "/" + p, isDirectory: &isDir), !isDir.boolValue { files.append(p) }
        }
        for f in files.sorted() {
            digest.add(f.utf8)
            if f.hasSuffix(".png") {
                let image = try ImageCodec.decodeGray(contentsOf: dir + "/" + f)
                digest.add(withUnsafeBytes(of: Int64(image.width).littleEndian) { Array($0) })
                digest.add(withUnsafeBytes(of: Int64(image.height).littleEndian) { Array($0) })
                digest.add(image.pixels)
            } else {
                digest.add(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + f)))
            }
        }
    }

    /// The digest of the quarter-second mono and stereo renders of the default configuration with `seed`.
    static func renders(seed: UInt64) throws -> UInt64 {
        var digest = Digest()
        for stereo in [false, true] {
            var config = try SimulationConfig.defaultDataset()
            config.seconds = 0.25
            config.seed = seed
            config.rig = .euroc(stereo: stereo)
            let dir = try SimDatasets.write(config, label: "outputVersion")
            defer { try? FileManager.default.removeItem(atPath: dir) }
            try Self.digest(of: dir, into: &digest)
        }
        return digest.value
    }

    @Test func theSimulatorsOutputMatchesItsVersion() throws {
        let digest = try Self.renders(seed: try SimulationConfig.defaultDataset().seed)
        // The digest sees a change in the output: another seed (other noise and biases) gives another one.
        #expect(try Self.renders(seed: 2) != digest)
        let version = SimulationModule.outputVersion
        let found = String(format: "0x%016llx", digest)
        #expect(Self.recorded[version] == digest,
                """
                The simulator's output (digest \(found)) is not what output version \(version) wrote. If the change \
                is deliberate, bump SimulationModule.outputVersion and record \(found) for the new version in \
                OutputVersionTests.recorded; otherwise the change altered simulated datasets by accident.
                """)
    }
}
