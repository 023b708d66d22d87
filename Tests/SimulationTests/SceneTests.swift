import Foundation
import Geometry
import Testing
@testable import Simulation

@Test func raycastHitsTheRightSurface() throws {
    let room = Scene.room()
    func name(_ hit: SceneHit?) -> String? { hit.map { room.surfaces[$0.surfaceId].name } }
    let o = Vec3(3.3, 2.5, 1.5)
    let east = room.raycast(origin_W: o, direction_W: Vec3(1, 0, 0))
    #expect(name(east) == "wall.x6")
    #expect(abs((east?.distance ?? 0) - 2.7) < 1e-12)
    let down = room.raycast(origin_W: o, direction_W: Vec3(0, 0, -2))
    #expect(name(down) == "tableA.top")
    #expect(abs((down?.distance ?? 0) - 0.75) < 1e-12)
    #expect(down?.normal_W == Vec3(0, 0, 1))
    #expect(name(room.raycast(origin_W: o, direction_W: Vec3(0, 0, 1))) == "ceiling")
    // Onto the box standing on the table, from the side: its +x face.
    let boxHit = room.raycast(origin_W: Vec3(3.5, 2.45, 0.9), direction_W: Vec3(-1, 0, 0))
    #expect(name(boxHit) == "boxA.+x")
    #expect(abs((boxHit?.point_W.x ?? 0) - 3.0) < 1e-12)
    // Surfaces are one-sided: from outside the room the near wall is invisible, the far one is hit.
    #expect(name(room.raycast(origin_W: Vec3(-1, 2.5, 1.5), direction_W: Vec3(1, 0, 0))) == "wall.x6")
    // Open sky in the courtyard.
    #expect(Scene.courtyard().raycast(origin_W: Vec3(15, 12, 1.6), direction_W: Vec3(0, 0, 1)) == nil)
}

@Test func builtInScenesAreComplete() throws {
    for scene in [Scene.room(), Scene.courtyard()] {
        #expect(scene.measurements.count >= 20)
        for (i, s) in scene.surfaces.enumerated() { #expect(s.id == i) }
        for m in scene.measurements {
            for (p, sid) in [(m.a_W, m.surfaceA), (m.b_W, m.surfaceB)] {
                let s = scene.surfaces[sid]
                #expect(abs(s.normal_W.dot(p) - s.offset) < 1e-9, "\(m.name) point off its plane")
                #expect(s.contains(planePoint: s.planeCoordinates(p), tolerance: 1e-9), "\(m.name) point off its polygon")
            }
            #expect(abs(m.distance - (m.b_W - m.a_W).norm) < 1e-12)
        }
    }
    let room = Scene.room()
    #expect(room.surfaces(ofKind: .tableTop).count == 2)
    #expect(room.surfaces(ofKind: .wall).count == 4)
    #expect(room.surfaces(ofKind: .tableTop).map { $0.offset }.sorted() == [0.75, 0.90])
    #expect(room.measurements.first { $0.name == "floor.length" }?.distance == 6)
    #expect(throws: SceneError.unknownScene("attic")) { try Scene.builtIn(named: "attic") }
}

@Test func sceneJSONRoundTrips() throws {
    for scene in [Scene.room(), Scene.courtyard()] {
        let data = try scene.jsonData()
        let back = try Scene.fromJSON(data, source: "mem.json")
        #expect(back == scene)
        #expect(try back.jsonData() == data)
    }
}

@Test func badSceneJSONNamesTheFile() throws {
    let cases: [(String, String)] = [
        ("{ not json", "not valid JSON"),
        (#"{"surfaces": [{"id": 0, "kind": "floor", "normal": [0,0,1], "corners": [[0,0,0],[1,0,0]]}]}"#, "corners"),
        (#"{"surfaces": [{"id": 0, "kind": "roof", "normal": [0,0,1], "corners": [[0,0,0],[1,0,0],[1,1,0]]}]}"#, "kind"),
        (#"{"surfaces": [{"id": 0, "kind": "floor", "normal": [0,0,1], "corners": [[0,0,0],[1,0,0],[1,1,0.5]]}]}"#, "normal"),
        (#"{"surfaces": []}"#, "no surfaces"),
    ]
    for (json, needle) in cases {
        do {
            _ = try Scene.fromJSON(Data(json.utf8), source: "/tmp/bad.json")
            Issue.record("accepted bad scene: \(json)")
        } catch let e as SceneError {
            #expect(e.description.hasPrefix("/tmp/bad.json: "), "\(e)")
            #expect(e.description.contains(needle), "\(e)")
        }
    }
    #expect(throws: SceneError.badFile(path: "/nonexistent/x.json", reason: "cannot read the file")) {
        try Scene.load(jsonFile: "/nonexistent/x.json")
    }
}

@Test func crossingsAndNearestSurfaceSeePastASilhouette() throws {
    let room = Scene.room()
    let top = try #require(room.surfaces.first { $0.name == "tableA.top" })
    let xMax = top.corners_W.map(\.x).max()!, yMid = top.corners_W.map(\.y).reduce(0, +) / Double(top.corners_W.count)
    // Straight down through the table top: the top 0.75 m down, its underside, and the floor 1.5 m down; `raycast`
    // gives the top only.
    let o = Vec3(xMax - 0.1, yMid, 1.5)
    let down = room.crossings(origin_W: o, direction_W: Vec3(0, 0, -3)).sorted()
    #expect(down.count == 3)
    #expect(abs(down.first! - 0.75) < 1e-9 && abs(down.last! - 1.5) < 1e-9)
    #expect(abs((room.raycast(origin_W: o, direction_W: Vec3(0, 0, -1))?.distance ?? 0) - 0.75) < 1e-9)
    // 5 mm past the top's rim the ray misses the table and meets the floor; a 1 cm margin counts the top again.
    let past = Vec3(xMax + 0.005, yMid, 1.5)
    #expect(room.crossings(origin_W: past, direction_W: Vec3(0, 0, -1)).map { ($0 * 1e9).rounded() / 1e9 } == [1.5])
    #expect(room.crossings(origin_W: past, direction_W: Vec3(0, 0, -1), margin_m: 0.01).contains { abs($0 - 0.75) < 1e-9 })
    // A point 5 mm past that rim at the top's height lies 5 mm from the top's polygon (the floor is 0.75 m away);
    // one 2 cm above the top's middle lies 2 cm from it.
    #expect(abs(room.distanceToNearestSurface(Vec3(xMax + 0.005, yMid, 0.75)) - 0.005) < 1e-9)
    #expect(abs(room.distanceToNearestSurface(Vec3(xMax - 0.1, yMid, 0.77)) - 0.02) < 1e-9)
    #expect(room.crossings(origin_W: o, direction_W: .zero).isEmpty)
}
