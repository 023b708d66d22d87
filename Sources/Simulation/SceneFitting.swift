import Foundation
import Geometry

/// Options of `SceneFitting`: how far the enclosure stays from the trajectory and where furniture may go.
/// All distances in metres, world frame (z up).
public struct SceneFitOptions: Equatable, Sendable, Codable {
    /// Horizontal distance from the cameras' bounding box to the walls (room) or façades (courtyard).
    public var wallMargin: Double
    /// Distance from the highest camera to the ceiling (room only).
    public var ceilingMargin: Double
    /// Lowest ceiling height above the floor (room only).
    public var minimumRoomHeight: Double
    /// The floor's height when the cameras are well above it (EuRoC's Vicon world has its floor at z ≈ 0).
    public var nominalFloorZ: Double
    /// The floor is at least this far below the lowest camera: `floorZ = min(nominalFloorZ, minCameraZ − floorMargin)`.
    public var floorMargin: Double
    /// Furniture keeps at least this horizontal distance from every camera and body position of the trajectory
    /// (the trajectory's footprint inflated by this much).
    public var furnitureClearance: Double
    /// Gap between two pieces of furniture, and between furniture and walls.
    public var furnitureGap: Double
    /// Smallest floor (x, y): a short trajectory still gets a room its furniture fits in (margins grow evenly).
    public var minimumFloorSize: Vec2
    /// Another arrangement of the same furniture, drawn from this seed: the pieces are placed in a shuffled order,
    /// around the trajectory from a random starting angle, and the textures are seeded from it (unless the caller
    /// gives a texture seed). The same clearances hold. It makes other rooms around one recorded trajectory, to check
    /// that a result is not the built-in arrangement's. `nil`: the built-in arrangement.
    public var arrangementSeed: UInt64?

    public init(wallMargin: Double = 1.5, ceilingMargin: Double = 1.0, minimumRoomHeight: Double = 2.7,
                nominalFloorZ: Double = 0, floorMargin: Double = 0.3, furnitureClearance: Double = 0.5,
                furnitureGap: Double = 0.3, minimumFloorSize: Vec2 = Vec2(6, 5), arrangementSeed: UInt64? = nil) {
        self.wallMargin = wallMargin; self.ceilingMargin = ceilingMargin; self.minimumRoomHeight = minimumRoomHeight
        self.nominalFloorZ = nominalFloorZ; self.floorMargin = floorMargin
        self.furnitureClearance = furnitureClearance; self.furnitureGap = furnitureGap
        self.minimumFloorSize = minimumFloorSize; self.arrangementSeed = arrangementSeed
    }

    /// Defaults for the room layout: walls 1.5 m beyond the cameras, floor at least 6 × 5 m.
    public static let room = SceneFitOptions()
    /// Defaults for the courtyard layout: façades 6 m beyond the cameras, ground at least 30 × 24 m.
    public static let courtyard = SceneFitOptions(wallMargin: 6, furnitureClearance: 0.8, furnitureGap: 0.5,
                                                  minimumFloorSize: Vec2(30, 24))
}

/// One piece of furniture of a fitted scene: an axis-aligned block (table slab with legs, or box).
public struct FittedFurniture: Equatable, Sendable, Codable {
    /// Name, as the surfaces' prefix (`"tableA"`, `"cabinet"`).
    public var name: String
    /// `"table"` or `"box"`.
    public var kind: String
    /// Bounding box corners, world frame, metres (a table's from the floor to its top).
    public var min: Vec3, max: Vec3
    /// Height of the top surface, world z, metres.
    public var topHeight: Double
    /// Horizontal distance from the block to the nearest camera/body position of the trajectory, metres.
    public var clearance: Double
}

/// What `SceneFitting.fit` built, for `scene.json`.
public struct SceneFitReport: Equatable, Sendable, Codable {
    /// `"room"` or `"courtyard"`.
    public var layout: String
    /// Bounding box of the camera centres, world frame, metres.
    public var cameraBoundsMin: Vec3, cameraBoundsMax: Vec3
    /// The enclosure: floor corner to ceiling (room) or façade tops (courtyard), world frame, metres.
    public var enclosureMin: Vec3, enclosureMax: Vec3
    /// Floor height, world z, metres, and how it was chosen.
    public var floorZ: Double
    public var floorRule: String
    /// Ceiling height (room), world z, metres.
    public var ceilingZ: Double?
    /// The options used.
    public var options: SceneFitOptions
    /// Furniture placed, with its distance to the trajectory.
    public var furniture: [FittedFurniture]
    /// Furniture that found no place clear of the trajectory (left out).
    public var notPlaced: [String]
}

/// Builds a scene around a recorded trajectory: a room (or courtyard) whose walls, ceiling and floor
/// enclose every camera with a margin, furnished with the built-in scene's tables and boxes placed where
/// the trajectory does not pass (its footprint inflated by `furnitureClearance`), as close to the trajectory
/// as that allows so the cameras see them.
///
/// World frame W is the recording's (z up, metres). Deterministic for the same inputs and `textureSeed`.
public enum SceneFitting {
    /// A piece of furniture to place: footprint size (x, y) and what to build there.
    struct Item {
        var name: String
        var size: Vec2
        var height: Double
        var table: (thickness: Double, legWidth: Double)?
    }

    /// Fits a scene.
    /// - Parameters:
    ///   - layout: `"room"` or `"courtyard"`.
    ///   - cameraPositions_W: camera centres of every frame (they set the enclosure's size).
    ///   - footprint_W: positions the furniture must stay clear of (cameras and body, every ground-truth row).
    ///   - options: margins; `nil` takes the layout's defaults.
    ///   - textureSeed: base seed of the procedural textures (default: the built-in scene's).
    public static func fit(layout: String, cameraPositions_W: [Vec3], footprint_W: [Vec3],
                           options: SceneFitOptions? = nil, textureSeed: UInt64? = nil) throws -> (scene: Scene, report: SceneFitReport) {
        let isRoom: Bool
        switch layout.lowercased() {
        case "room": isRoom = true
        case "courtyard": isRoom = false
        default: throw SceneError.unknownScene(layout)
        }
        let o = options ?? (isRoom ? .room : .courtyard)
        guard !cameraPositions_W.isEmpty, cameraPositions_W.allSatisfy(\.isFinite), footprint_W.allSatisfy(\.isFinite) else {
            throw SceneError.invalid("cannot fit a scene: no (finite) camera positions")
        }
        let bLo = cameraPositions_W.reduce(Vec3(repeating: .infinity)) { pointwiseMin($0, $1) }
        let bHi = cameraPositions_W.reduce(Vec3(repeating: -.infinity)) { pointwiseMax($0, $1) }
        let floorZ = Swift.min(o.nominalFloorZ, bLo.z - o.floorMargin)
        let floorRule = floorZ == o.nominalFloorZ
            ? String(format: "z = %.2f m (nominal floor; the lowest camera is at %.3f m, ≥ %.2f m above it)", o.nominalFloorZ, bLo.z, o.floorMargin)
            : String(format: "z = %.3f m (lowest camera %.3f m − %.2f m margin, below the nominal %.2f m)", floorZ, bLo.z, o.floorMargin, o.nominalFloorZ)
        // Walls at least `wallMargin` beyond the cameras, on a 5 cm world grid, widened evenly to the minimum size.
        let grid = 0.05
        var lo = Vec2(bLo.x - o.wallMargin, bLo.y - o.wallMargin), hi = Vec2(bHi.x + o.wallMargin, bHi.y + o.wallMargin)
        for axis in 0..<2 {
            let grow = Swift.max(0, o.minimumFloorSize[axis] - (hi[axis] - lo[axis])) / 2
            lo[axis] = ((lo[axis] - grow) / grid).rounded(.down) * grid
            hi[axis] = ((hi[axis] + grow) / grid).rounded(.up) * grid
        }
        let L = hi.x - lo.x, W = hi.y - lo.y
        let ceilingZ = Swift.max(bHi.z + o.ceilingMargin, floorZ + o.minimumRoomHeight)
        let centre = (lo + hi) / 2
        let ex = Vec3(1, 0, 0), ey = Vec3(0, 1, 0), ez = Vec3(0, 0, 1)
        // Another arrangement (`arrangementSeed`): the order the pieces are placed in, the angle the first one's anchor
        // starts from, and the textures. Without it nothing is drawn, so the built-in arrangement stays as it was.
        var arrangement = o.arrangementSeed.map { SeededRandom(seed: $0 ^ 0xA11A_46E5_EED0_0000) }
        var arrangedTextureSeed: UInt64?
        if var r = arrangement { arrangedTextureSeed = r.next() >> 16; arrangement = r }
        var b = SceneBuilder(textureSeed: textureSeed ?? arrangedTextureSeed ?? (isRoom ? 0x5EED : 0xC0DE))
        let floorName = isRoom ? "floor" : "ground"
        let floor = try b.addRectangle(name: floorName, kind: .floor, center_W: Vec3(centre.x, centre.y, floorZ), normal_W: ez,
                                       axisU: ex, halfU: L / 2, axisV: ey, halfV: W / 2)
        let wallX0: Int
        let topZ: Double
        if isRoom {
            let H = ceilingZ - floorZ, zc = floorZ + H / 2
            try b.addRectangle(name: "ceiling", kind: .ceiling, center_W: Vec3(centre.x, centre.y, ceilingZ), normal_W: -ez,
                               axisU: ex, halfU: L / 2, axisV: ey, halfV: W / 2)
            wallX0 = try b.addRectangle(name: "wall.x0", kind: .wall, center_W: Vec3(lo.x, centre.y, zc), normal_W: ex,
                                        axisU: ey, halfU: W / 2, axisV: ez, halfV: H / 2)
            try b.addRectangle(name: "wall.x1", kind: .wall, center_W: Vec3(hi.x, centre.y, zc), normal_W: -ex,
                               axisU: ey, halfU: W / 2, axisV: ez, halfV: H / 2)
            try b.addRectangle(name: "wall.y0", kind: .wall, center_W: Vec3(centre.x, lo.y, zc), normal_W: ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: H / 2)
            try b.addRectangle(name: "wall.y1", kind: .wall, center_W: Vec3(centre.x, hi.y, zc), normal_W: -ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: H / 2)
            b.addMeasurement(name: "wall.x0.height", Vec3(lo.x, centre.y, floorZ), wallX0, Vec3(lo.x, centre.y, ceilingZ), wallX0)
            topZ = ceilingZ
        } else {
            // Façades of different heights (like the built-in courtyard), open to the sky.
            let heights = [9.0, 12.0, 8.0, 10.0]
            wallX0 = try b.addRectangle(name: "facade.x0", kind: .wall, center_W: Vec3(lo.x, centre.y, floorZ + heights[0] / 2), normal_W: ex,
                                        axisU: ey, halfU: W / 2, axisV: ez, halfV: heights[0] / 2)
            try b.addRectangle(name: "facade.x1", kind: .wall, center_W: Vec3(hi.x, centre.y, floorZ + heights[1] / 2), normal_W: -ex,
                               axisU: ey, halfU: W / 2, axisV: ez, halfV: heights[1] / 2)
            try b.addRectangle(name: "facade.y0", kind: .wall, center_W: Vec3(centre.x, lo.y, floorZ + heights[2] / 2), normal_W: ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: heights[2] / 2)
            try b.addRectangle(name: "facade.y1", kind: .wall, center_W: Vec3(centre.x, hi.y, floorZ + heights[3] / 2), normal_W: -ey,
                               axisU: ex, halfU: L / 2, axisV: ez, halfV: heights[3] / 2)
            b.addMeasurement(name: "facade.x0.height", Vec3(lo.x, centre.y, floorZ), wallX0, Vec3(lo.x, centre.y, floorZ + heights[0]), wallX0)
            topZ = floorZ + heights.max()!
        }
        b.addMeasurement(name: "\(floorName).length", Vec3(lo.x, lo.y, floorZ), floor, Vec3(hi.x, lo.y, floorZ), floor)
        b.addMeasurement(name: "\(floorName).width", Vec3(lo.x, lo.y, floorZ), floor, Vec3(lo.x, hi.y, floorZ), floor)

        // Furniture: the built-in scene's pieces, biggest first.
        let items: [Item] = isRoom ? [
            Item(name: "tableA", size: Vec2(1.2, 0.8), height: 0.75, table: (0.04, 0.05)),
            Item(name: "tableB", size: Vec2(0.8, 0.6), height: 0.90, table: (0.04, 0.05)),
            Item(name: "cabinet", size: Vec2(0.5, 0.8), height: 1.1, table: nil),
            Item(name: "boxB", size: Vec2(0.6, 0.7), height: 0.5, table: nil),
            Item(name: "boxC", size: Vec2(0.5, 0.4), height: 0.35, table: nil),
        ] : [
            Item(name: "fountain", size: Vec2(2, 2), height: 0.5, table: nil),
            Item(name: "bench1", size: Vec2(1.8, 0.5), height: 0.45, table: (0.06, 0.08)),
            Item(name: "bench2", size: Vec2(1.8, 0.5), height: 0.45, table: (0.06, 0.08)),
            Item(name: "bench3", size: Vec2(0.5, 1.8), height: 0.45, table: (0.06, 0.08)),
            Item(name: "planter1", size: Vec2(1, 1), height: 0.6, table: nil),
            Item(name: "planter2", size: Vec2(1, 1), height: 0.6, table: nil),
        ]
        // Placement tests the footprint decimated to a 5 cm grid (one point per cell), so it keeps the cell's
        // half-diagonal more than the clearance; reported clearances use every point.
        let cell = 0.05
        let allPoints = (footprint_W.isEmpty ? cameraPositions_W : footprint_W).map { Vec2($0.x, $0.y) }
        let points = decimate(footprint_W.isEmpty ? cameraPositions_W : footprint_W, cell: cell)
        var placing = o
        placing.furnitureClearance += cell * 0.5.squareRoot()
        let half = Vec2((bHi.x - bLo.x) / 2, (bHi.y - bLo.y) / 2) + Vec2(repeating: o.wallMargin / 2)
        let bCentre = Vec2((bLo.x + bHi.x) / 2, (bLo.y + bHi.y) / 2)
        var placed: [(lo: Vec2, hi: Vec2)] = []
        var furniture: [FittedFurniture] = []
        var notPlaced: [String] = []
        var tops: [String: Int] = [:]
        var order = Array(items.indices), phase = 0.0
        if var r = arrangement {
            for k in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(k, r.int(k + 1)) }
            phase = r.uniform(0, 2 * Double.pi)
        }
        for (i, item) in order.map({ items[$0] }).enumerated() {
            // Anchor: spread the pieces around the trajectory, halfway into the wall margin.
            let angle = 2 * Double.pi * (Double(i) + 0.5) / Double(items.count) + phase
            let anchor = bCentre + Vec2(half.x * cos(angle), half.y * sin(angle))
            guard let spot = place(item.size, anchor: anchor, within: (lo, hi), points: points, placed: placed, options: placing) else {
                notPlaced.append(item.name)
                continue
            }
            placed.append(spot)
            let size = spot.hi - spot.lo
            let top = floorZ + item.height
            if let table = item.table {
                tops[item.name] = try b.addTable(name: item.name, center: (spot.lo + spot.hi) / 2, size: size, topHeight: top,
                                                 thickness: table.thickness, legWidth: table.legWidth, floorZ: floorZ)
                // The table's height: a top corner above the floor.
                let corner = Vec3(spot.lo.x, spot.lo.y, top)
                b.addMeasurement(name: "\(item.name).height", Vec3(corner.x, corner.y, floorZ), floor, corner, tops[item.name]!)
                furniture.append(FittedFurniture(name: item.name, kind: "table", min: Vec3(spot.lo.x, spot.lo.y, floorZ),
                                                 max: Vec3(spot.hi.x, spot.hi.y, top), topHeight: top,
                                                 clearance: clearance(spot, allPoints)))
            } else {
                let ids = try b.addMeasuredBox(name: item.name, min_W: Vec3(spot.lo.x, spot.lo.y, floorZ), max_W: Vec3(spot.hi.x, spot.hi.y, top))
                tops[item.name] = ids["top"]
                furniture.append(FittedFurniture(name: item.name, kind: "box", min: Vec3(spot.lo.x, spot.lo.y, floorZ),
                                                 max: Vec3(spot.hi.x, spot.hi.y, top), topHeight: top,
                                                 clearance: clearance(spot, allPoints)))
            }
        }
        if isRoom, let tableA = furniture.first(where: { $0.name == "tableA" }), let tableATop = tops["tableA"] {
            // A box on the dining table, as in the built-in room.
            // 35 × 30 × 25 cm, 25 cm and 20 cm in from the table's corner (along its long and short side).
            let s = tableA.max - tableA.min
            let alongX = s.x >= s.y
            let boxSize = alongX ? Vec2(0.35, 0.3) : Vec2(0.3, 0.35)
            let boxLo = Vec3(tableA.min.x + (alongX ? 0.25 : 0.2), tableA.min.y + (alongX ? 0.2 : 0.25), tableA.topHeight)
            let boxHi = Vec3(boxLo.x + boxSize.x, boxLo.y + boxSize.y, tableA.topHeight + 0.25)
            let ids = try b.addMeasuredBox(name: "boxA", min_W: boxLo, max_W: boxHi)
            furniture.append(FittedFurniture(name: "boxA", kind: "box", min: boxLo, max: boxHi, topHeight: boxHi.z,
                                             clearance: clearance((Vec2(boxLo.x, boxLo.y), Vec2(boxHi.x, boxHi.y)), allPoints)))
            if let boxTop = ids["top"] {
                b.addMeasurement(name: "tableA.to.boxA.top", Vec3(tableA.min.x, tableA.min.y, tableA.topHeight), tableATop,
                                 Vec3((boxLo.x + boxHi.x) / 2, (boxLo.y + boxHi.y) / 2, boxHi.z), boxTop)
            }
        }
        let tableNames = isRoom ? ("tableA", "tableB") : ("bench1", "bench3")
        if let a = furniture.first(where: { $0.name == tableNames.0 }), let c = furniture.first(where: { $0.name == tableNames.1 }),
           let ta = tops[a.name], let tc = tops[c.name] {
            b.addMeasurement(name: "\(a.name).to.\(c.name)", Vec3((a.min.x + a.max.x) / 2, (a.min.y + a.max.y) / 2, a.topHeight), ta,
                             Vec3((c.min.x + c.max.x) / 2, (c.min.y + c.max.y) / 2, c.topHeight), tc)
        }
        let walk = WalkArea(center: bCentre, radii: Vec2(Swift.max(0.1, (bHi.x - bLo.x) / 2), Swift.max(0.1, (bHi.y - bLo.y) / 2)),
                            eyeHeight: (bLo.z + bHi.z) / 2)
        let orbitCentre = furniture.first.map { Vec3(($0.min.x + $0.max.x) / 2, ($0.min.y + $0.max.y) / 2, $0.topHeight) }
            ?? Vec3(bCentre.x, bCentre.y, floorZ)
        let scene = b.build(name: isRoom ? "room-fitted" : "courtyard-fitted", walkArea: walk,
                            orbitTarget: OrbitTarget(center: orbitCentre, radius: 1.4, eyeHeight: orbitCentre.z + 0.7),
                            backgroundGray: isRoom ? 190 : 215)
        let report = SceneFitReport(layout: isRoom ? "room" : "courtyard", cameraBoundsMin: bLo, cameraBoundsMax: bHi,
                                    enclosureMin: Vec3(lo.x, lo.y, floorZ), enclosureMax: Vec3(hi.x, hi.y, topZ),
                                    floorZ: floorZ, floorRule: floorRule, ceilingZ: isRoom ? ceilingZ : nil, options: o,
                                    furniture: furniture, notPlaced: notPlaced)
        return (scene, report)
    }

    /// Positions rounded to a `cell`-metre grid, duplicates removed (order kept), as (x, y).
    static func decimate(_ p: [Vec3], cell: Double) -> [Vec2] {
        var seen = Set<SIMD2<Int>>()
        var out: [Vec2] = []
        for q in p {
            let k = SIMD2(Int((q.x / cell).rounded()), Int((q.y / cell).rounded()))
            if seen.insert(k).inserted { out.append(Vec2(q.x, q.y)) }
        }
        return out
    }

    /// Horizontal distance from an axis-aligned rectangle to the nearest point.
    static func clearance(_ r: (lo: Vec2, hi: Vec2), _ points: [Vec2]) -> Double {
        var best = Double.infinity
        for p in points {
            let dx = Swift.max(r.lo.x - p.x, 0, p.x - r.hi.x), dy = Swift.max(r.lo.y - p.y, 0, p.y - r.hi.y)
            best = Swift.min(best, (dx * dx + dy * dy).squareRoot())
        }
        return best
    }

    /// The free spot (lower and upper corner) for a footprint of `size` (either orientation) nearest to
    /// `anchor`: inside the walls by `furnitureGap`, at least `furnitureClearance` from every point and
    /// `furnitureGap` from placed pieces. Candidates on a 5 cm grid, tried nearest first.
    static func place(_ size: Vec2, anchor: Vec2, within bounds: (lo: Vec2, hi: Vec2), points: [Vec2],
                      placed: [(lo: Vec2, hi: Vec2)], options o: SceneFitOptions) -> (lo: Vec2, hi: Vec2)? {
        let step = 0.05
        var candidates: [(score: Double, lo: Vec2, hi: Vec2)] = []
        let sizes = size.x == size.y ? [size] : [size, Vec2(size.y, size.x)]
        for s in sizes {
            // Corners on the 5 cm world grid.
            var minLo = bounds.lo + Vec2(repeating: o.furnitureGap)
            minLo = Vec2((minLo.x / step).rounded(.up) * step, (minLo.y / step).rounded(.up) * step)
            let maxLo = bounds.hi - Vec2(repeating: o.furnitureGap) - s
            guard maxLo.x >= minLo.x, maxLo.y >= minLo.y else { continue }
            let nx = Int(((maxLo.x - minLo.x) / step).rounded(.down)), ny = Int(((maxLo.y - minLo.y) / step).rounded(.down))
            for iy in 0...ny {
                for ix in 0...nx {
                    let lo = Vec2(((minLo.x / step).rounded() + Double(ix)) * step, ((minLo.y / step).rounded() + Double(iy)) * step)
                    let c = lo + s / 2
                    candidates.append(((c - anchor).norm, lo, lo + s))
                }
            }
        }
        candidates.sort { $0.score != $1.score ? $0.score < $1.score : ($0.lo.x, $0.lo.y) < ($1.lo.x, $1.lo.y) }
        for c in candidates {
            let blocked = placed.contains { p in
                c.lo.x < p.hi.x + o.furnitureGap && c.hi.x > p.lo.x - o.furnitureGap &&
                    c.lo.y < p.hi.y + o.furnitureGap && c.hi.y > p.lo.y - o.furnitureGap
            }
            if blocked { continue }
            if clearance((c.lo, c.hi), points) >= o.furnitureClearance { return (c.lo, c.hi) }
        }
        return nil
    }
}
