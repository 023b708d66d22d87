import ArgumentParser

/// `worldtrack features`: Run the feature frontend alone and report track quality.
struct FeaturesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "features", abstract: "Run the feature frontend alone and report track quality.")

    func run() throws {
        throw CLIError.notImplemented("worldtrack features")
    }
}
