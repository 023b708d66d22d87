/// # Evaluation
///
/// Compares an estimated trajectory with ground truth, as `worldtrack eval` reports it.
///
/// | file | job |
/// | --- | --- |
/// | `TrajectoryLoader.swift` | reads TUM, ASL ground truth (file or dataset folder) and WorldTrack JSON-Lines streams; detects the format by content |
/// | `Association.swift`, `PoseInterpolation.swift` | pairs estimates with ground truth by time |
/// | `Alignment.swift` | posyaw (4-DoF), SE(3), Sim(3) (Umeyama), none |
/// | `AbsoluteTrajectoryError.swift`, `RelativePoseError.swift`, `Completeness.swift`, `Statistics.swift` | the metrics |
/// | `Evaluator.swift`, `EvaluationSummary.swift` | one call that runs everything; the JSON summary |
/// | `Plots/` | charts (axes, legend, box plots) over a `PlotCanvas`; PNGs through Imaging |
///
/// TUM/ASL file reading and writing itself lives in `Sources/Sensors/TrajectoryFiles.swift`.
///
/// ## Definitions
///
/// - **Association.** Each estimate is paired with ground truth within `maxDt` (default 10 ms). `interpolate`
///   (default): when ground-truth samples lie within `maxDt` on both sides of the estimate, the ground truth is
///   interpolated at the estimate's time (slerp + lerp, Geometry's `SE3.interpolate`);
///   otherwise the nearest sample within `maxDt`. `nearest`: the nearest sample, as evo. Unlike evo, the estimate
///   is always the side that is matched (evo matches the shorter trajectory against the longer one).
/// - **Alignment** maps the estimate frame E into the ground-truth frame W, `p_W = s R p_E + t`, least squares on
///   positions. posyaw: yaw about z plus translation, `θ = atan2(Σ e'ₓg'ᵧ − e'ᵧg'ₓ, Σ e'ₓg'ₓ + e'ᵧg'ᵧ)` on centred
///   points. SE(3)/Sim(3): Umeyama 1991, SVD of the 3×3 cross-covariance, reflection excluded. `alignFirst`
///   fits on the first N pairs and applies the result to all.
/// - **ATE**: position error `|p_gt − p_aligned|` (RMSE, mean, median, max, std) and rotation error angle of
///   `R_gtᵀ R R_est` (degrees). The RMSE is over associated pairs; it matches `evo_ape -a` / `-as` to ~1e-15
///   (`Tools/evo_crosscheck.py`).
/// - **RPE** (rpg_trajectory_evaluation): for each start pose and sub-trajectory length L (default 10–50 % of
///   the associated ground-truth path, or explicit metres), the end pose whose travelled ground-truth distance is
///   closest to `d_i + L` (within 20 % of L; the path must reach `d_i + L`). Error `(G_i⁻¹G_j)⁻¹(E_i⁻¹E_j)` with E
///   the aligned estimate: translation (m and % of L) and rotation angle (deg).
/// - **Scale error**: `|1 − s| · 100` of a Sim(3) alignment on the same pairs, whatever the chosen method.
/// - **Completeness** (time coverage): the share of the ground-truth time span covered by intervals between
///   consecutive estimates that are no longer than 3× the estimate's median interval (and at least 2 × maxDt).
public enum EvaluationModule {
    /// The module's name, for logs.
    public static let name = "Evaluation"
}
