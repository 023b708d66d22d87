import Foundation
import Testing
import TestSupport
@testable import Consumers

@Suite struct ConsumerSpecTests {
    @Test func parsesNameKeysAndValueLists() throws {
        let s = try ConsumerSpec(parsing: "burst:every=6,count=10,start=2.5,out=/tmp/b")
        #expect(s.name == "burst")
        #expect(s.options.map(\.key) == ["every", "count", "start", "out"])
        #expect(try s.positiveInt("every") == 6 && s.single("out") == "/tmp/b")
        let c = try ConsumerSpec(parsing: "cursor:place=1.5,3,1403715273262142976ns")
        #expect(c.values("place") == ["1.5", "3", "1403715273262142976ns"])
        #expect(try c.times("place") == [.relativeSeconds(1.5), .relativeSeconds(3), .absolute(1_403_715_273_262_142_976)])
        #expect(try ConsumerSpec(parsing: "cursor").options.isEmpty)
    }

    @Test func timeGrammar() {
        #expect(StreamTime(parsing: "2.5") == .relativeSeconds(2.5))
        #expect(StreamTime(parsing: "2.5s") == .relativeSeconds(2.5))
        #expect(StreamTime(parsing: "1403715273262142976") == .absolute(1_403_715_273_262_142_976))
        #expect(StreamTime(parsing: "12ns") == .absolute(12))
        #expect(StreamTime(parsing: "-1") == nil)
        #expect(StreamTime(parsing: "soon") == nil)
        #expect(StreamTime.relativeSeconds(1.5).resolve(firstFrame: 1_000) == 1_500_001_000)
    }

    /// The error a spec produces, as text.
    func error(_ spec: String) -> String {
        do { _ = try ConsumerFactory.make(spec); return "no error" } catch { return "\(error)" }
    }

    @Test func clearErrorsForBadSpecs() {
        #expect(error("teleport:x=1") == "unknown consumer 'teleport' (known: burst, measure, cursor, divide, object)")
        #expect(error("cursor:colour=red") == "consumer 'cursor': unknown key 'colour' (allowed: place)")
        #expect(error("cursor:place=soon").hasPrefix("consumer 'cursor': bad value 'soon' for 'place': expected seconds"))
        #expect(error("burst:every=0,out=/tmp/x") == "consumer 'burst': bad value '0' for 'every': expected a positive integer")
        #expect(error("burst:count=abc,out=/tmp/x") == "consumer 'burst': bad value 'abc' for 'count': expected a positive integer")
        #expect(error("burst:every=2") == "consumer 'burst': missing required key 'out'")
        #expect(error("burst:every=2,every=3,out=/tmp/x") == "consumer 'burst': key 'every' given twice")
        #expect(error("measure") == "consumer 'measure': missing required key 'taps'")
        #expect(error("measure:taps=/nonexistent/taps.json").hasPrefix("/nonexistent/taps.json: cannot read"))
        #expect(error(":x=1").hasPrefix("malformed consumer spec ':x=1'"))
        #expect(error("cursor:1.5").hasPrefix("malformed consumer spec 'cursor:1.5': '1.5' is not key=value"))
        #expect(error("cursor:place=1,,2").hasPrefix("malformed consumer spec"))
        #expect(error("divide:tap=10,20,at=3,pieces=8") == "no error")
        #expect(error("divide:at=3,pieces=8") == "consumer 'divide': missing required key 'tap'")
        #expect(error("divide:tap=10,at=3,pieces=8").hasPrefix("consumer 'divide': bad value '10' for 'tap': expected a pixel X,Y"))
        #expect(error("divide:tap=10,20,pieces=8") == "consumer 'divide': missing required key 'at'")
        #expect(error("divide:tap=10,20,at=3,4,pieces=8").hasPrefix("consumer 'divide': bad value '3,4' for 'at': expected one time"))
        #expect(error("divide:tap=10,20,at=3") == "consumer 'divide': missing required key 'pieces'")
        #expect(error("divide:tap=10,20,at=3,pieces=1") == "consumer 'divide': bad value '1' for 'pieces': expected an integer from 2 to 64")
        #expect(error("divide:tap=10,20,at=3,pieces=8,radius=0").hasPrefix("consumer 'divide': bad value '0.0' for 'radius'"))
        #expect(error("divide:tap=10,20,at=3,pieces=8,colour=red").hasPrefix("consumer 'divide': unknown key 'colour'"))
        #expect(error("object:box=10,20,40,30,at=2,name=cup") == "no error")
        #expect(error("object:at=2") == "consumer 'object': missing required key 'box'")
        #expect(error("object:box=10,20,40,at=2").hasPrefix("consumer 'object': bad value '10,20,40' for 'box': expected X,Y,W,H"))
        #expect(error("object:box=10,20,3,30,at=2").hasPrefix("consumer 'object': bad value '10,20,3,30' for 'box'"))
        #expect(error("object:box=10,20,40,30") == "consumer 'object': missing required key 'at'")
        #expect(error("object:box=10,20,40,30,at=2,name=") == "consumer 'object': bad value '' for 'name': expected a non-empty name")
    }

    @Test func tapsFileErrorsNameTheFileAndTap() throws {
        let dir = try TemporaryDirectory()
        func check(_ json: String, _ expected: String) throws {
            let p = dir.path("taps.json")
            try json.write(toFile: p, atomically: true, encoding: .utf8)
            do { _ = try MeasureTap.load(path: p); Issue.record("no error for \(json)") } catch {
                #expect("\(error)".hasPrefix("\(p): \(expected)"))
            }
        }
        try check("{", "not valid JSON (") // Foundation's own message follows; it differs by platform
        try check("{}", "expected a JSON array of taps")
        try check(#"[{"pixels": [[1, 2], [3, 4]]}]"#, "tap 0: missing t_ns or t_s")
        try check(#"[{"t_s": 1, "pixels": [[1, 2]]}]"#, "tap 0: pixels must list at least 2 [u, v] points")
        try check(#"[{"t_s": 1, "pixels": [[1, 2], [3, 4]]}, {"t_s": 1, "pixels": [[1, 2], [3]]}]"#, "tap 1: pixel 1 must be [u, v]")
        try check(#"[{"t_s": 1, "t_ns": 5, "pixels": [[1, 2], [3, 4]]}]"#, "tap 0: give t_ns or t_s, not both")
        try check(#"[{"t_s": 1, "pixels": [[1, 2], [3, 4]], "colour": 1}]"#, "tap 0: unknown key 'colour'")
        let p = dir.path("ok.json")
        try #"[{"t_ns": 1403715273262142976, "pixels": [[1, 2], [3, 4.5]], "label": "door"}]"#.write(toFile: p, atomically: true, encoding: .utf8)
        let taps = try MeasureTap.load(path: p)
        #expect(taps == [MeasureTap(time: .absolute(1_403_715_273_262_142_976), pixels: [.init(1, 2), .init(3, 4.5)], label: "door")])
        // `images` switches the check against a second view: on by default, off on request, and nothing else.
        func measure(_ extra: String) throws -> MeasureConsumer {
            try MeasureConsumer(spec: try ConsumerSpec(parsing: "measure:taps=\(p)\(extra)"))
        }
        #expect(try measure("").checker.photometric != nil)
        #expect(try measure(",images=on").checker.photometric != nil)
        #expect(try measure(",images=off").checker.photometric == nil)
        #expect(error("measure:taps=\(p),images=maybe") == "consumer 'measure': bad value 'maybe' for 'images': expected on or off")
        // `max_rel_std`: the too-uncertain refusal's fraction, 0.25 by default, any positive number.
        #expect(try measure("").maxRelativeStd == 0.25)
        #expect(try measure(",max_rel_std=0.05").maxRelativeStd == 0.05)
        for bad in ["0", "-0.1", "ten", "inf"] {
            #expect(error("measure:taps=\(p),max_rel_std=\(bad)") == "consumer 'measure': bad value '\(bad)' for 'max_rel_std': expected a positive number")
        }
    }
}
