import ArgumentParser
import Sensors

/// Errors the command line reports to the user. Each carries a message and an exit code:
/// 2 for bad input (the user's data or arguments), 1 for a failure of the run, 128 + n for a run stopped by signal n.
public enum CLIError: Error, CustomStringConvertible {
    /// The user's input (dataset, file, argument) is unusable; exit code 2.
    case badInput(String)
    /// The run itself failed; exit code 1.
    case failure(String)
    /// The subcommand exists but is not built yet; exit code 1.
    case notImplemented(String)
    /// The run was stopped from outside (a signal, or its stdout reader went away) after saving its
    /// outputs; exit code 128 + the signal's number (130 SIGINT, 143 SIGTERM, 141 closed pipe).
    case stopped(String, exitCode: Int32)

    public var description: String {
        switch self {
        case .badInput(let m), .failure(let m), .stopped(let m, _): return m
        case .notImplemented(let what): return "\(what) is not implemented yet"
        }
    }
    /// The process exit code for this error.
    public var exitCode: Int32 {
        switch self {
        case .badInput: return 2
        case .failure, .notImplemented: return 1
        case .stopped(_, let code): return code
        }
    }
}

extension CLIError {
    /// The `CLIError` for an error thrown by a library module, when it is one the user caused:
    /// a `DatasetError` (unusable dataset) becomes `.badInput`. `nil` for any other error.
    public static func from(_ error: any Error) -> CLIError? {
        if let error = error as? CLIError { return error }
        if let error = error as? DatasetError { return .badInput(error.description) }
        return nil
    }
}
