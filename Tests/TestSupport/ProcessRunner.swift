import Foundation

/// Runs a program as a subprocess and collects its exit status and output, for end-to-end tests.
public enum ProcessRunner {
    /// What a run produced.
    public struct Result: Sendable {
        /// Exit status (or the terminating signal's number, negated).
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Errors of the runner itself (not of the program).
    public enum RunnerError: Error, CustomStringConvertible {
        case productNotFound(String, searched: [String])
        case timedOut(String)
        public var description: String {
            switch self {
            case let .productNotFound(name, searched):
                return "cannot find the built '\(name)' executable (run `swift build` first); looked in: \(searched.joined(separator: ", "))"
            case .timedOut(let what): return "timed out: \(what)"
            }
        }
    }

    /// The folders where SwiftPM puts built products, nearest to the running test bundle first.
    public static var productFolders: [String] {
        var folders: [String] = []
        if let first = CommandLine.arguments.first {
            let exe = URL(fileURLWithPath: first).resolvingSymlinksInPath()
            folders.append(exe.deletingLastPathComponent().path)
            // A bundle directory (macOS `.xctest`) sits in the products folder too.
            folders.append(exe.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path)
        }
        folders.append(Bundle.main.bundleURL.deletingLastPathComponent().path)
        folders.append(Bundle.main.bundleURL.path)
        let build = (SharedDatasets.packageRoot as NSString).appendingPathComponent(".build")
        folders.append((build as NSString).appendingPathComponent("debug"))
        return folders
    }

    /// Path of the built product `name` (e.g. `worldtrack`).
    public static func product(_ name: String) throws -> String {
        let folders = productFolders
        for folder in folders {
            let candidate = (folder as NSString).appendingPathComponent(name)
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDir), !isDir.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate) {
                return candidate
            }
        }
        throw RunnerError.productNotFound(name, searched: folders)
    }

    /// Runs `executable` with `arguments`, waiting at most `timeout` seconds.
    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> Result {
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("wt-out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("wt-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            _ = done.wait(timeout: .now() + 5)
            throw RunnerError.timedOut("\(executable) \(arguments.joined(separator: " "))")
        }
        try? outHandle.close()
        try? errHandle.close()
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return Result(status: status,
                      stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
                      stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
    }
}
