import ArgumentParser
import Foundation
import WorldTrackCLI

// Errors of our own carry their exit code; ArgumentParser handles usage errors (exit 64) itself.
do {
    var command = try WorldTrackCommand.parseAsRoot()
    try command.run()
} catch let error as CLIError {
    FileHandle.standardError.write(Data("worldtrack: error: \(error.description)\n".utf8))
    exit(error.exitCode)
} catch {
    WorldTrackCommand.exit(withError: error)
}
