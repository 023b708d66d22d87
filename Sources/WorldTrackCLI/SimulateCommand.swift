import ArgumentParser

/// `worldtrack simulate`: Write a synthetic image + IMU dataset with exact ground truth.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", abstract: "Write a synthetic image + IMU dataset with exact ground truth.")

    func run() throws {
        throw CLIError.notImplemented("worldtrack simulate")
    }
}
