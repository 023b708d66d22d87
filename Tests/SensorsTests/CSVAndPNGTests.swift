import Foundation
import Testing
@testable import Sensors
import TestSupport

@Suite("CSV reader and PNG header check")
struct CSVAndPNGTests {
    @Test("CSV: comments and blank lines skipped, CRLF accepted, fields trimmed, line numbers kept")
    func csv() {
        let rows = CSVReader.rows(text: "#timestamp, a\r\n1, 2\r\n\r\n  3 ,4,\n# note\n5")
        #expect(rows.map(\.line) == [2, 4, 6])
        #expect(rows.map(\.fields) == [["1", "2"], ["3", "4", ""], ["5"]])
    }

    @Test("CRC-32 of the standard check string")
    func crc() {
        // The CRC-32/ISO-HDLC check value of "123456789" is 0xCBF43926.
        #expect(PNGHeader.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test("A fixture PNG passes; truncated, wrong-signature, corrupt-IHDR and empty files are told apart")
    func pngHeader() throws {
        let dir = try TemporaryDirectory()
        let bytes = DatasetPNG.encodeGray(width: 7, height: 5, pixels: DatasetPNG.testPattern(width: 7, height: 5))
        let good = dir.path("good.png")
        try Data(bytes).write(to: URL(fileURLWithPath: good))
        #expect(try PNGHeader.read(path: good) == PNGHeader(width: 7, height: 5, bitDepth: 8, colorType: 0))

        func check(_ data: [UInt8], _ expected: PNGHeaderError) throws {
            let p = dir.path("bad.png")
            try Data(data).write(to: URL(fileURLWithPath: p))
            #expect(throws: expected) { try PNGHeader.read(path: p) }
        }
        try check(Array(bytes.dropLast(20)), .truncated(fileSize: bytes.count - 20))
        try check(Array("GIF89a".utf8) + Array(bytes.dropFirst(6)), .notPNG)
        var corrupt = bytes
        corrupt[17] ^= 0xFF // a width byte: the IHDR CRC no longer matches
        try check(corrupt, .corruptHeader("IHDR checksum does not match"))
        try check([], .empty)
        #expect(throws: PNGHeaderError.unreadable) { try PNGHeader.read(path: dir.path("absent.png")) }
    }

    @Test("The real EuRoC PNG header: 752×480, 8-bit gray", .enabled(if: SharedDatasets.eurocMicroIsPresent, "needs ../shared/datasets/euroc-v101-micro"))
    func realPNG() throws {
        let root = try SharedDatasets.eurocMicro()
        let h = try PNGHeader.read(path: root + "/mav0/cam0/data/1403715273262142976.png")
        #expect(h == PNGHeader(width: 752, height: 480, bitDepth: 8, colorType: 0))
    }
}
