import ArgumentParser

/// `worldtrack run`: Track a dataset: pose every frame, streamed as JSON Lines.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Track a dataset: pose every frame, streamed as JSON Lines.")

    func run() throws {
        throw CLIError.notImplemented("worldtrack run")
    }
}
