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
        let prefix: String
        if case .stopped = cliError { prefix = "worldtrack: stopped: " } else { prefix = "worldtrack: error: " }
        let text = prefix + cliError.description + "\n"
        // write(2), not FileHandle.write: a closed stderr must not turn an error into a crash.
        _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(cliError.exitCode)
    }
    WorldTrackCommand.exit(withError: error)
}
