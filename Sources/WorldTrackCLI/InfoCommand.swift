import ArgumentParser

/// `worldtrack info`: Describe a dataset: cameras, IMU, ground truth and problems found.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Describe a dataset: cameras, IMU, ground truth and problems found.")

    func run() throws {
        throw CLIError.notImplemented("worldtrack info")
    }
}
