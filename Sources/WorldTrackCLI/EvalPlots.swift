import Evaluation
import Foundation

/// Writes the PNG plots of `worldtrack eval --plot DIR`.
enum EvalPlots {
    /// Writes the plots of `report` into `folder` and reports the files on stderr.
    static func write(report: EvaluationReport, to folder: String) throws {
        let written = try EvaluationCharts.writePNGs(for: report, to: folder)
        for path in written { FileHandle.standardError.write(Data("worldtrack: wrote \(path)\n".utf8)) }
    }
}
