import ArgumentParser
import Foundation
import OptionsFile
import Pipeline

/// `worldtrack config`: print the full configuration file with its defaults, or check one.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Print every run setting with its default and meaning, or check a configuration file.",
        discussion: """
        `worldtrack run --config FILE.yaml` reads the estimator, frontend, plane and map-reuse settings from a YAML \
        file whose nested keys are the settings' names (estimator → updater → pixelNoiseStd). Keys left out keep their \
        defaults; an unknown key, a value of the wrong type or out of range stops with the file, the line and the \
        key (exit 2). Flags given on the command line (--refine-extrinsics, --time-offset-ms, …) override the file.

        Examples:
          worldtrack config --defaults > my.yaml  # every setting, commented; edit it
          worldtrack config --check my.yaml       # exit 2 at the first problem's line
          worldtrack run DATASET --config my.yaml
        """)

    @Flag(help: "Print the full configuration file with every setting at its default, each with a comment (meaning, unit).")
    var defaults = false

    @Option(help: "Check this configuration file and list the settings it changes from the defaults.")
    var check: String?

    func run() throws {
        guard defaults != (check != nil) else { throw CLIError.badInput("give either --defaults or --check FILE") }
        if defaults {
            print(OptionsFile.yaml(), terminator: "")
            return
        }
        guard let check else { return }
        let options: PipelineOptions
        do { options = try OptionsFile.read(path: check) } catch let error as OptionsFile.ReadError {
            throw CLIError.badInput(error.description)
        }
        let base = OptionsFile.values(PipelineOptions())
        let changed = zip(base, OptionsFile.values(options)).filter { $0.0.value != $0.1.value }
        if changed.isEmpty {
            print("\(check): valid; every setting at its default")
        } else {
            print("\(check): valid; \(changed.count) setting\(changed.count == 1 ? "" : "s") changed from the defaults:")
            for (old, new) in changed { print("  \(new.key): \(new.value) (default \(old.value))") }
        }
    }
}
