import ArgumentParser
import Foundation
import WorldTrackCLI

// Errors of our own (and dataset errors) carry their exit code: 2 for bad input, 1 for a failed run.
// ArgumentParser handles usage errors (exit 64), --help and --version itself.
do {
    var command = try WorldTrackCommand.parseAsRoot()
    try command.run()
} catch {
    if let cliError = CLIError.from(error) {
        FileHandle.standardError.write(Data("worldtrack: error: \(cliError.description)\n".utf8))
        exit(cliError.exitCode)
    }
    WorldTrackCommand.exit(withError: error)
}
