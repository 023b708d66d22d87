import Foundation
import Geometry
import LinearAlgebra
import Sensors
import Testing
@testable import Estimation

/// The MSCKF update's steps on their own: Jacobians, null-space projection, gating and measurement compression.
@Suite struct MsckfStepTests {

    static let camera = CameraCalibration(
        name: "cam0", model: CameraModel(width: 752, height: 480, intrinsics: PinholeIntrinsics(fx: 460, fy: 460, cx: 376, cy: 240)),
        rate_hz: 20, T_B_C: SE3(rotation: SO3(angle: 0.1, axis: Vec3(0.3, 1, 0.2).normalized), translation: Vec3(0.02, -0.05, 0.01)))

    /// The normalised projection of `p_W` by `camera` on the body pose `(R, p)`.
    static func project(_ p_W: Vec3, R: SO3, p: Vec3) -> Vec2 {
        let p_C = camera.T_B_C.inverse * (R.inverse.act(p_W - p))
        return Vec2(p_C.x / p_C.z, p_C.y / p_C.z)
    }

    /// The point every scene's track sees, in W (metres).
    static let scenePoint = Vec3(0.4, 3.0, 0.3)

    /// Moves `state` to the k-th pose of the scenes' arc (k = 0…3, 50 ms apart) and clones it: body x → world −y-ish
    /// so that the camera (z forward after T_B_C) looks towards +y.
    static func addArcClone(_ k: Int, to state: inout FilterState) {
        state.imu.t_ns = Int64(k + 1) * 50_000_000
        state.imu.R_W_B = SO3(angle: 0.05 * Double(k), axis: Vec3(0, 0, 1)) * SO3(angle: -.pi / 2, axis: Vec3(1, 0, 0))
        state.imu.p_W = Vec3(0.15 * Double(k), 0, 0.02 * Double(k))
        state.augmentClone()
    }

    /// A state with four clones on an arc, and a track of one point seen exactly by each of them.
    static func scene() -> (FilterState, FeatureTrack, Vec3) {
        var state = FilterState(imu: IMUState(t_ns: 0), diagonalCovariance: [Double](repeating: 1e-4, count: 15))
        let p_W = scenePoint
        var track = FeatureTrack(id: 1)
        for k in 0..<4 {
            addArcClone(k, to: &state)
            track.observations.append(TrackObservation(t_ns: state.imu.t_ns, camera: 0,
                                                       normalized: project(p_W, R: state.imu.R_W_B, p: state.imu.p_W)))
        }
        return (state, track, p_W)
    }

    /// Jacobians: each column of `H_x` and `H_f` matches a central difference of the whitened prediction
    /// (`r ≈ H δx`, right perturbation `R Exp(δθ)`), and the exact observations triangulate to the point.
    @Test func jacobiansMatchFiniteDifferences() throws {
        let (state, track, p_true) = Self.scene()
        let updater = MSCKFUpdater(cameras: [Self.camera], configuration: EstimatorConfiguration())
        var cloneIndex: [TimestampNs: Int] = [:]
        for (i, c) in state.clones.enumerated() { cloneIndex[c.t_ns] = i }
        let f = try #require(updater.linearize(track, state: state, cloneIndex: cloneIndex))
        #expect((f.point.p_W - p_true).norm < 1e-8)
        #expect(f.rows == 8 && f.columns == 24 && f.r.allSatisfy { abs($0) < 1e-6 })
        let w = 1 / updater.sigma(0), eps = 1e-6
        for (k, o) in track.observations.enumerated() {
            let c = state.clones[k]
            for col in 0..<6 {
                var d = Vec3.zero
                d[col % 3] = eps
                func h(_ s: Double) -> Vec2 {
                    col < 3 ? Self.project(f.point.p_W, R: c.R_W_B * SO3.exp(s * d), p: c.p_W)
                        : Self.project(f.point.p_W, R: c.R_W_B, p: c.p_W + s * d)
                }
                let numeric = (h(1) - h(-1)) / (2 * eps) * w
                let local = f.observationLocal[k]
                #expect(abs(f.Hx[(2 * k) * f.columns + 6 * local + col] - numeric.x) < 1e-4 * max(1, abs(numeric.x)))
                #expect(abs(f.Hx[(2 * k + 1) * f.columns + 6 * local + col] - numeric.y) < 1e-4 * max(1, abs(numeric.y)))
            }
            for j in 0..<3 {
                var d = Vec3.zero
                d[j] = eps
                let numeric = (Self.project(f.point.p_W + d, R: c.R_W_B, p: c.p_W) - Self.project(f.point.p_W - d, R: c.R_W_B, p: c.p_W)) / (2 * eps) * w
                #expect(abs(f.Hf[(2 * k) * 3 + j] - numeric.x) < 1e-4 * max(1, abs(numeric.x)))
                #expect(abs(f.Hf[(2 * k + 1) * 3 + j] - numeric.y) < 1e-4 * max(1, abs(numeric.y)))
            }
            _ = o
        }
    }

    /// Null-space projection: with `H_x = I` the projected rows are `Nᵀ` itself; `Nᵀ H_f = 0` (no component
    /// along the feature Jacobian's column space), `Nᵀ N = I` with 2n − 3 rows, `r` and `S` are projected the
    /// same way (`Nᵀ r`, `Nᵀ S N`), and `H_f` keeps all its norm in its first three rows (the control: what
    /// was removed is exactly the feature's part).
    @Test func nullspaceProjectionRemovesTheFeature() {
        var rng = SeededRandom(seed: 5)
        let n = 6, m = 2 * n
        let Hf0 = (0..<(m * 3)).map { _ in rng.uniform(-1, 1) }
        let r0 = (0..<m).map { _ in rng.uniform(-1, 1) }
        var B = [Double](repeating: 0, count: m * m)
        for i in 0..<(m * m) { B[i] = rng.uniform(-1, 1) }
        var S0 = [Double](repeating: 0, count: m * m)
        for i in 0..<m { for j in 0..<m { for k in 0..<m { S0[i * m + j] += B[i * m + k] * B[j * m + k] } } }
        var Hf = Hf0, r = r0, S = S0
        var Hx = [Double](repeating: 0, count: m * m)
        for i in 0..<m { Hx[i * m + i] = 1 }
        let rows = MSCKFUpdater.nullspaceProject(Hf: &Hf, Hx: &Hx, r: &r, S: &S, columns: m)
        #expect(rows == 2 * n - 3)
        func N(_ a: Int, _ i: Int) -> Double { Hx[(3 + a) * m + i] } // row a of Nᵀ
        var worstHf = 0.0, worstOrtho = 0.0, worstR = 0.0, worstS = 0.0
        for a in 0..<rows {
            for j in 0..<3 { worstHf = max(worstHf, abs((0..<m).reduce(0) { $0 + N(a, $1) * Hf0[$1 * 3 + j] })) }
            for b in 0..<rows {
                let dot = (0..<m).reduce(0) { $0 + N(a, $1) * N(b, $1) }
                worstOrtho = max(worstOrtho, abs(dot - (a == b ? 1 : 0)))
                var nsn = 0.0
                for i in 0..<m { for j in 0..<m { nsn += N(a, i) * S0[i * m + j] * N(b, j) } }
                worstS = max(worstS, abs(S[(3 + a) * m + 3 + b] - nsn))
            }
            worstR = max(worstR, abs(r[3 + a] - (0..<m).reduce(0) { $0 + N(a, $1) * r0[$1] }))
        }
        #expect(worstHf < 1e-12 && worstOrtho < 1e-12 && worstR < 1e-12 && worstS < 1e-10)
        for i in 3..<m { for j in 0..<3 { #expect(abs(Hf[i * 3 + j]) < 1e-12) } }
        let before = Hf0.reduce(0) { $0 + $1 * $1 }, after = Hf[0..<9].reduce(0) { $0 + $1 * $1 }
        #expect(abs(before - after) < 1e-12 * before)
    }

    /// Gating: with `H P Hᵀ = 0` the statistic is `|rₒ|²`; a 2-dof residual of χ² 5.0 passes the 95 % gate
    /// (5.991), one of 6.56 does not; a non-trivial `S` divides each row by `1 + s_ii` (diagonal case).
    @Test func gateOnKnownChiSquareCases() throws {
        let updater = MSCKFUpdater(cameras: [Self.camera], configuration: EstimatorConfiguration())
        let m = 5 // 3 rows removed by the projection, 2 left
        let zero = [Double](repeating: 0, count: m * m)
        let inside = try #require(MSCKFUpdater.chi2(S: zero, r: [9, 9, 9, 2, 1], rows: m))
        let outside = try #require(MSCKFUpdater.chi2(S: zero, r: [9, 9, 9, 2, 1.6], rows: m))
        #expect(abs(inside - 5) < 1e-12 && abs(outside - 6.56) < 1e-12)
        #expect(updater.passesGate(chi2: inside, dof: 2))
        #expect(!updater.passesGate(chi2: outside, dof: 2))
        var S = zero
        S[3 * m + 3] = 3 // S_o = diag(3, 0) → χ² = r₀²/4 + r₁²
        let weighted = try #require(MSCKFUpdater.chi2(S: S, r: [0, 0, 0, 4, 1], rows: m))
        #expect(abs(weighted - 5) < 1e-12)
        S[3 * m + 3] = -2 // S_o + I not positive definite
        #expect(MSCKFUpdater.chi2(S: S, r: [0, 0, 0, 4, 1], rows: m) == nil)
    }

    /// Measurement compression: the stacked `[H | r]` and its compressed form carry the same information
    /// (`HᵀH` and `Hᵀr`) over the clone columns; more rows than columns are cut to `c` rows (upper
    /// triangular), fewer are passed through.
    @Test func compressionKeepsTheInformation() {
        var rng = SeededRandom(seed: 9)
        let clones = 4, c = 6 * clones
        func residual(_ cloneIndices: [Int], rows: Int) -> MSCKFUpdater.FeatureResidual {
            let cols = 6 * cloneIndices.count
            return MSCKFUpdater.FeatureResidual(cloneIndices: cloneIndices, Hx: (0..<(rows * cols)).map { _ in rng.uniform(-1, 1) },
                                                r: (0..<rows).map { _ in rng.uniform(-1, 1) }, rows: rows,
                                                point: TriangulatedPoint(p_W: .zero, std_m: 0), dropped: 0, chi2: 0)
        }
        for features in [[residual([2, 3], rows: 5), residual([0, 1, 2], rows: 7)],
                         (0..<8).map { k in residual([k % 4, (k + 1) % 4].sorted(), rows: 5) }] {
            let m = features.reduce(0) { $0 + $1.rows }
            // The dense stack, for reference: row-major m × c and r.
            var H0 = [Double](repeating: 0, count: m * c), r0 = [Double](repeating: 0, count: m)
            var row = 0
            for f in features {
                for i in 0..<f.rows {
                    for (a, ci) in f.cloneIndices.enumerated() { for j in 0..<6 { H0[(row + i) * c + 6 * ci + j] = f.Hx[i * 6 * f.cloneIndices.count + 6 * a + j] } }
                    r0[row + i] = f.r[i]
                }
                row += f.rows
            }
            let (H, r) = MSCKFUpdater.stackAndCompress(features, columns: c)
            #expect(H.rows == min(m, c) && H.columns == c && r.count == H.rows)
            for p in 0..<c {
                var htr0 = 0.0, htr = 0.0
                for i in 0..<m { htr0 += H0[i * c + p] * r0[i] }
                for i in 0..<H.rows { htr += H[i, p] * r[i] }
                #expect(abs(htr0 - htr) < 1e-12 * max(1, abs(htr0)))
                for q in 0..<c {
                    var a0 = 0.0, a = 0.0
                    for i in 0..<m { a0 += H0[i * c + p] * H0[i * c + q] }
                    for i in 0..<H.rows { a += H[i, p] * H[i, q] }
                    #expect(abs(a0 - a) < 1e-12 * max(1, abs(a0)))
                }
            }
            if m > c { for j in 0..<c { for i in (j + 1)..<c { #expect(H[i, j] == 0) } } }
        }
    }
}
