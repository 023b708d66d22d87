import Evaluation

/// PNG plots of an evaluation (pending the Imaging drawing API).
enum EvalPlots {
    static func write(report: EvaluationReport, to folder: String) throws {
        throw CLIError.notImplemented("--plot")
    }
}
