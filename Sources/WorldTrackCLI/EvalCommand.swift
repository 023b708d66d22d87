import ArgumentParser

/// `worldtrack eval`: Evaluate an estimated trajectory against ground truth (ATE, RPE).
struct EvalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "eval", abstract: "Evaluate an estimated trajectory against ground truth (ATE, RPE).")

    func run() throws {
        throw CLIError.notImplemented("worldtrack eval")
    }
}
