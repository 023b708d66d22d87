import Foundation
import Testing
import TestSupport

/// Every subcommand's `--help` on an 80-column terminal: the indented lines of its text (examples, the consumer list,
/// the manifest format) are never wrapped, so each example is still a command a user can copy.
@Suite("worldtrack --help at 80 columns")
struct HelpTextTests {
    static let commands: [[String]] = [[], ["info"], ["simulate"], ["features"], ["run"], ["eval"], ["config"],
                                       ["bench-suite"], ["help", "bench-suite", "run"], ["help", "bench-suite", "merge"], ["help", "bench-suite", "compare"],
                                       ["replay"]]

    /// The help text of `command` rendered for a terminal `columns` wide (ArgumentParser reads `COLUMNS`).
    static func help(_ command: [String], columns: Int) throws -> String {
        let args = ["COLUMNS=\(columns)", try ProcessRunner.product("worldtrack")] + command + (command.first == "help" ? [] : ["--help"])
        let r = try ProcessRunner.run("/usr/bin/env", args)
        #expect(r.status == 0, "\(command): \(r.stderr)")
        return r.stdout
    }

    @Test("indented lines fit in 80 columns and are not wrapped", arguments: commands)
    func indentedLinesAreNotWrapped(_ command: [String]) throws {
        // Unwrapped (1000 columns), the text before USAGE is the discussion as written; its indented lines must
        // appear whole, as lines of their own, at 80 columns.
        let wide = try Self.help(command, columns: 1000)
        let narrow = Set(try Self.help(command, columns: 80).split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        let discussion = try #require(wide.components(separatedBy: "USAGE:").first)
        let indented = discussion.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  ") }
        #expect(!indented.isEmpty, "\(command): no examples")
        for line in indented {
            #expect(line.count <= 80 && narrow.contains(line), "\(command): wrapped at 80 columns: \(line)")
        }
    }
}
