import Foundation
import Geometry

extension Scene {
    /// A furnished room, 6 m (x) × 5 m (y) × 2.7 m (z), world origin at a floor corner.
    ///
    /// Floor (z = 0), ceiling (z = 2.7), four walls (x = 0, x = 6, y = 0, y = 5), a dining table
    /// (1.2 × 0.8 m, top at 0.75 m, centred at (3, 2.5)), a bar table (0.8 × 0.6 m, top at 0.90 m,
    /// centred at (5.25, 0.75)), a box on the dining table and three boxes on the floor; every surface
    /// carries its own procedural texture. Walks loop around the dining table (≥ 1 m from the walls).
    public static func room(textureSeed: UInt64 = 0x5EED) -> Scene {
        // The geometry below is fixed and valid; a failure here is a programming error caught by tests.
        do {
            var b = SceneBuilder(textureSeed: textureSeed)
            let ex = Vec3(1, 0, 0), ey = Vec3(0, 1, 0), ez = Vec3(0, 0, 1)
            let L = 6.0, W = 5.0, H = 2.7
            let floor = try b.addRectangle(name: "floor", kind: .floor, center_W: Vec3(L / 2, W / 2, 0), normal_W: ez,
                                           axisU: ex, halfU: L / 2, axisV: ey, halfV: W / 2)
            try b.addRectangle(name: "ceiling", kind: .ceiling, center_W: Vec3(L / 2, W / 2, H), normal_W: -ez,
                               axisU: ex, halfU: L / 2, axisV: ey, halfV: W / 2)
            let wallX0 = try b.addRectangle(name: "wall.x0", kind: .wall, center_W: Vec3(0, W / 2, H / 2), normal_W: ex,
                                            axisU: ey, halfU: W / 2, axisV: ez, halfV: H / 2)
            try b.addRectangle(name: "wall.x6", kind: .wall, center_W: Vec3(L, W / 2, H / 2), normal_W: -ex,
                               axisU: ey, halfU: W / 2, axisV: ez, halfV: H / 2)
            try b.addRectangle(name: "wall.y0", kind: .wall, center_W: Vec3(L / 2, 0, H / 2), normal_W: ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: H / 2)
            try b.addRectangle(name: "wall.y5", kind: .wall, center_W: Vec3(L / 2, W, H / 2), normal_W: -ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: H / 2)
            let tableA = try b.addTable(name: "tableA", center: Vec2(3.0, 2.5), size: Vec2(1.2, 0.8), topHeight: 0.75)
            let tableB = try b.addTable(name: "tableB", center: Vec2(5.25, 0.75), size: Vec2(0.8, 0.6), topHeight: 0.90)
            let boxOnTable = try b.addMeasuredBox(name: "boxA", min_W: Vec3(2.65, 2.3, 0.75), max_W: Vec3(3.0, 2.6, 1.0))
            try b.addMeasuredBox(name: "boxB", min_W: Vec3(0.4, 3.8, 0), max_W: Vec3(1.0, 4.5, 0.5))
            try b.addMeasuredBox(name: "boxC", min_W: Vec3(1.0, 0.3, 0), max_W: Vec3(1.5, 0.7, 0.35))
            try b.addMeasuredBox(name: "cabinet", min_W: Vec3(5.2, 3.6, 0), max_W: Vec3(5.7, 4.4, 1.1))
            b.addMeasurement(name: "floor.length", Vec3(0, 0, 0), floor, Vec3(L, 0, 0), floor)
            b.addMeasurement(name: "floor.width", Vec3(0, 0, 0), floor, Vec3(0, W, 0), floor)
            b.addMeasurement(name: "wall.x0.height", Vec3(0, 2.5, 0), wallX0, Vec3(0, 2.5, H), wallX0)
            b.addMeasurement(name: "tableA.to.tableB", Vec3(3.0, 2.5, 0.75), tableA, Vec3(5.25, 0.75, 0.90), tableB)
            if let boxTop = boxOnTable["top"] {
                b.addMeasurement(name: "tableA.to.boxA.top", Vec3(2.4, 2.1, 0.75), tableA, Vec3(2.825, 2.45, 1.0), boxTop)
            }
            return b.build(name: "room", walkArea: WalkArea(center: Vec2(3.0, 2.5), radii: Vec2(1.8, 1.3), eyeHeight: 1.5),
                           orbitTarget: OrbitTarget(center: Vec3(3.0, 2.5, 0.75), radius: 1.4, eyeHeight: 1.45))
        } catch {
            preconditionFailure("built-in room scene is invalid: \(error)")
        }
    }

    /// An open courtyard, 30 m (x) × 24 m (y): ground (kind `floor`, z = 0), four building façades
    /// (kind `wall`, 8–12 m high, no roof: rays above them see the sky), three benches (seat tops at
    /// 0.45 m, kind `tableTop`), two planters and a fountain basin (boxes). Walks loop around the fountain.
    public static func courtyard(textureSeed: UInt64 = 0xC0DE) -> Scene {
        do {
            var b = SceneBuilder(textureSeed: textureSeed)
            let ex = Vec3(1, 0, 0), ey = Vec3(0, 1, 0), ez = Vec3(0, 0, 1)
            let L = 30.0, W = 24.0
            let ground = try b.addRectangle(name: "ground", kind: .floor, center_W: Vec3(L / 2, W / 2, 0), normal_W: ez,
                                            axisU: ex, halfU: L / 2, axisV: ey, halfV: W / 2)
            let facadeX0 = try b.addRectangle(name: "facade.x0", kind: .wall, center_W: Vec3(0, W / 2, 4.5), normal_W: ex,
                                              axisU: ey, halfU: W / 2, axisV: ez, halfV: 4.5)
            try b.addRectangle(name: "facade.x30", kind: .wall, center_W: Vec3(L, W / 2, 6), normal_W: -ex,
                               axisU: ey, halfU: W / 2, axisV: ez, halfV: 6)
            try b.addRectangle(name: "facade.y0", kind: .wall, center_W: Vec3(L / 2, 0, 4), normal_W: ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: 4)
            try b.addRectangle(name: "facade.y24", kind: .wall, center_W: Vec3(L / 2, W, 5), normal_W: -ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: 5)
            let bench1 = try b.addTable(name: "bench1", center: Vec2(15, 5), size: Vec2(1.8, 0.5), topHeight: 0.45,
                                        thickness: 0.06, legWidth: 0.08)
            try b.addTable(name: "bench2", center: Vec2(10, 19), size: Vec2(1.8, 0.5), topHeight: 0.45, thickness: 0.06, legWidth: 0.08)
            let bench3 = try b.addTable(name: "bench3", center: Vec2(24, 12), size: Vec2(0.5, 1.8), topHeight: 0.45,
                                        thickness: 0.06, legWidth: 0.08)
            try b.addMeasuredBox(name: "planter1", min_W: Vec3(7.5, 7.5, 0), max_W: Vec3(8.5, 8.5, 0.6))
            try b.addMeasuredBox(name: "planter2", min_W: Vec3(21.5, 5.5, 0), max_W: Vec3(22.5, 6.5, 0.6))
            try b.addMeasuredBox(name: "fountain", min_W: Vec3(14, 11, 0), max_W: Vec3(16, 13, 0.5))
            b.addMeasurement(name: "ground.length", Vec3(0, 0, 0), ground, Vec3(L, 0, 0), ground)
            b.addMeasurement(name: "ground.width", Vec3(0, 0, 0), ground, Vec3(0, W, 0), ground)
            b.addMeasurement(name: "facade.x0.height", Vec3(0, 12, 0), facadeX0, Vec3(0, 12, 9), facadeX0)
            b.addMeasurement(name: "bench1.to.bench3", Vec3(15, 5, 0.45), bench1, Vec3(24, 12, 0.45), bench3)
            return b.build(name: "courtyard", walkArea: WalkArea(center: Vec2(15, 12), radii: Vec2(6, 4.5), eyeHeight: 1.6),
                           orbitTarget: OrbitTarget(center: Vec3(15, 12, 0.5), radius: 2.6, eyeHeight: 1.6),
                           backgroundGray: 215)
        } catch {
            preconditionFailure("built-in courtyard scene is invalid: \(error)")
        }
    }
}
