import Foundation
import Testing
@testable import Imaging

@Suite struct UndistortionTests {
    /// A grid of undistorted normalised points covering a field of view of about ±35° x ±25°.
    static let normalisedGrid: [SIMD2<Double>] = stride(from: -0.7, through: 0.7, by: 0.1).flatMap { x in
        stride(from: -0.45, through: 0.45, by: 0.09).map { y in SIMD2(x, y) }
    }

    // 1e-6 normalised units (~5e-4 px at f = 460 px): the task's bound; far below the detector
    // noise, and the inversions converge to ~1e-12.
    static let tolerance = 1e-6

    @Test func invertsRadialTangential() throws {
        // EuRoC cam0 (V1_01 sensor.yaml).
        let k = Undistortion.Intrinsics(fx: 458.654, fy: 457.296, cx: 367.215, cy: 248.375)
        let (k1, k2, p1, p2) = (-0.28340811, 0.07395907, 0.00019359, 1.76187114e-05)
        // The radial-tangential formula of Sensors/CameraModel.swift.
        let pixels = Self.normalisedGrid.map { n -> SIMD2<Double> in
            let (x, y) = (n.x, n.y), r2 = x * x + y * y
            let radial = 1 + k1 * r2 + k2 * r2 * r2
            let xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            let yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            return SIMD2(k.fx * xd + k.cx, k.fy * yd + k.cy)
        }
        let out = try Undistortion.radialTangential(pixels, intrinsics: k, coefficients: [k1, k2, p1, p2])
        #expect(out.count == pixels.count)
        let worst = try zip(out, Self.normalisedGrid).map { o, n in
            let o = try #require(o)
            return ((o - n) * (o - n)).sum().squareRoot()
        }.max()!
        #expect(worst < Self.tolerance, "worst error \(worst)")
    }

    @Test func invertsEquidistant() throws {
        // TUM-VI cam0 (512x512 fisheye, 190° lens), points out to ~60° off axis.
        let k = Undistortion.Intrinsics(fx: 190.978, fy: 190.973, cx: 254.932, cy: 256.897)
        let c = [0.003482389402, 0.000715034845, -0.002053236141, 0.000202936736]
        var rays: [SIMD3<Double>] = []
        for theta in stride(from: 0.0, through: 1.05, by: 0.15) {
            for phi in stride(from: 0.0, to: 2 * Double.pi, by: Double.pi / 5) {
                rays.append(SIMD3(sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta)))
            }
        }
        // The equidistant formula of Sensors/CameraModel.swift.
        let pixels = rays.map { p -> SIMD2<Double> in
            let r = (p.x * p.x + p.y * p.y).squareRoot()
            if r < 1e-15 { return SIMD2(k.cx, k.cy) }
            let theta = atan2(r, p.z), t2 = theta * theta
            let thetaD = theta * (1 + t2 * (c[0] + t2 * (c[1] + t2 * (c[2] + t2 * c[3]))))
            return SIMD2(k.fx * p.x / r * thetaD + k.cx, k.fy * p.y / r * thetaD + k.cy)
        }
        let out = try Undistortion.equidistant(pixels, intrinsics: k, coefficients: c)
        for (o, p) in zip(out, rays) {
            let o = try #require(o)
            let truth = SIMD2(p.x / p.z, p.y / p.z)
            // Relative to the point's size: tan θ grows to ~1.7 at 60°.
            let error = ((o - truth) * (o - truth)).sum().squareRoot() / max(1, (truth * truth).sum().squareRoot())
            #expect(error < Self.tolerance, "ray \(p): got \(o), want \(truth)")
        }
    }

    @Test func failedInversionsAreNil() throws {
        // Three focal lengths out, OpenCV's fixed-point iteration diverges for this strong
        // barrel distortion (the true preimage radius is about 2.23; OpenCV returns 3.23):
        // the wrong answer must come back as nil, not as a point.
        let k = Undistortion.Intrinsics(fx: 460, fy: 460, cx: 376, cy: 240)
        let radtan = try Undistortion.radialTangential([SIMD2(376 + 460 * 3, 240), SIMD2(376 + 460 * 0.3, 240)],
                                                       intrinsics: k, coefficients: [-0.28, 0.07, 0, 0])
        #expect(radtan[0] == nil)
        #expect(radtan[1] != nil)
        // Equidistant: a distorted angle of 2.5 rad needs an incidence angle beyond 90 degrees.
        let fisheye = try Undistortion.equidistant([SIMD2(376 + 460 * 2.5, 240), SIMD2(376 + 460 * 1.0, 240)],
                                                   intrinsics: k, coefficients: [0.0035, 0.0007, -0.002, 0.0002])
        #expect(fisheye[0] == nil)
        let valid = try #require(fisheye[1])
        #expect(valid.x > 1.5 && abs(valid.y) < 1e-12) // tan(~1 rad) ≈ 1.55
    }

    @Test func rejectsBadArguments() {
        let k = Undistortion.Intrinsics(fx: 400, fy: 400, cx: 320, cy: 240)
        #expect(throws: ImagingError.self) { try Undistortion.radialTangential([SIMD2(1, 1)], intrinsics: k, coefficients: [0.1]) }
        #expect(throws: ImagingError.self) { try Undistortion.equidistant([SIMD2(1, 1)], intrinsics: k, coefficients: [0, 0, 0]) }
        let zeroFocal = Undistortion.Intrinsics(fx: 0, fy: 400, cx: 320, cy: 240)
        #expect(throws: ImagingError.self) {
            try Undistortion.radialTangential([SIMD2(1, 1)], intrinsics: zeroFocal, coefficients: [0, 0, 0, 0])
        }
        #expect((try? Undistortion.equidistant([], intrinsics: k, coefficients: [0, 0, 0, 0])) == [])
    }
}
