import Foundation
import Geometry
import LinearAlgebra

extension DynamicInitializer {
    /// How much of the window's motion can fix the scale, metres: the RMS over the window's frames of what is left of
    /// the IMU's position increments `α_k` (B0) after their best fit by `u·t_k + ½c·t_k² + B_k b`, where `B_k` is
    /// the double integral of `R_B0_B` (so `B_k b` is what an acceleration `b`, constant in the body frame, adds) and
    /// `u`, `c`, `b` are free: a velocity, gravity, and a constant body-frame acceleration (the accelerometer's bias,
    /// or the centripetal acceleration of a circle flown at an even speed while facing its centre).
    ///
    /// The alignment's camera positions are `v0·t + ½g·t² + α_k` and the images fix them up to a scale; motion the
    /// fit explains entirely looks the same at every scale once a bias takes up the difference, so only this residual
    /// holds the scale. Measured on the windows of the simulator and V1_01 (docs/ACCURACY.md, "Circling at an even
    /// speed"): 0.2–1.3 mm on an even circle, 16–19 mm on the simulated walk, 0.5–30 mm on the real V1_01 flight.
    func scaleExcitation(frames: [WindowFrame], buffer: IMUBuffer, increments inc: Increments, gyroBias: Vec3) -> Double? {
        let n = inc.alpha.count
        guard n >= 5 else { return nil }
        // B_k e_i = α_k(no bias) − α_k(a unit bias along e_i): α is linear in the accelerometer bias.
        var columns: [[Vec3]] = []
        for axis in 0..<3 {
            let e = Vec3(axis == 0 ? 1 : 0, axis == 1 ? 1 : 0, axis == 2 ? 1 : 0)
            let biased = integrate(frames: frames, buffer: buffer, gyroBias: gyroBias, accelBias: e)
            columns.append((0..<n).map { inc.alpha[$0] - biased.alpha[$0] })
        }
        // Normal equations of the 3n × 9 fit, unknowns (u, c, b), with a tiny ridge: without rotation B_k = ½t_k² I,
        // b cannot be told from c, and the ridge picks one without changing the residual.
        var N = Matrix(rows: 9, columns: 9), rhs = [Double](repeating: 0, count: 9)
        var fitRows: [[Double]] = []
        fitRows.reserveCapacity(3 * n)
        for k in 0..<n {
            let t = inc.dt[k]
            for r in 0..<3 {
                var row = [Double](repeating: 0, count: 9)
                row[r] = t
                row[3 + r] = 0.5 * t * t
                for i in 0..<3 { row[6 + i] = columns[i][k][r] }
                let y = inc.alpha[k][r]
                for i in 0..<9 {
                    rhs[i] += row[i] * y
                    for j in 0..<9 { N[i, j] += row[i] * row[j] }
                }
                fitRows.append(row)
            }
        }
        let trace = (0..<9).reduce(0) { $0 + N[$1, $1] }
        for i in 0..<9 { N[i, i] += 1e-12 * trace }
        guard let x = try? N.solve(Matrix(columnVector: rhs)) else { return nil }
        var sum = 0.0
        for (m, row) in fitRows.enumerated() {
            let fit = (0..<9).reduce(0) { $0 + row[$1] * x[$1, 0] }
            let y = inc.alpha[m / 3][m % 3]
            sum += (y - fit) * (y - fit)
        }
        return (sum / Double(n)).squareRoot()
    }
}
