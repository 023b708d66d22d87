import Foundation
import Pipeline
import Testing
@testable import OptionsFile

/// The run configuration file (`worldtrack run --config`, `worldtrack config --defaults`).
@Suite struct OptionsFileTests {
    /// The leaves of `value`'s stored properties, as dotted paths (structs are walked into; optionals, enums and
    /// scalars are leaves).
    static func leafPaths(_ value: Any, prefix: String) -> [String] {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .struct, !mirror.children.isEmpty else { return [prefix] }
        return mirror.children.flatMap { child -> [String] in
            guard let label = child.label else { return [] }
            return leafPaths(child.value, prefix: prefix.isEmpty ? label : prefix + "." + label)
        }
    }

    @Test("every stored option below frontend, estimator, world, mapReuse and relocalization is a setting (or listed as not in the file)")
    func everyOptionIsASetting() {
        let defaults = PipelineOptions()
        var leaves: [String] = []
        for (name, value) in [("frontend", defaults.frontend as Any), ("estimator", defaults.estimator), ("world", defaults.world),
                              ("mapReuse", defaults.mapReuse), ("relocalization", defaults.relocalization)] {
            leaves += Self.leafPaths(value, prefix: name)
        }
        let keys = Set(Settings.all.map(\.key))
        let missing = leaves.filter { !keys.contains($0) && Settings.notInFile[$0] == nil }
        let stale = keys.subtracting(leaves)
        #expect(missing.isEmpty, "options without a setting: \(missing)")
        #expect(stale.isEmpty, "settings that are no option: \(stale)")
        #expect(leaves.count > 100)   // the walk really found the options
        #expect(keys.count == Settings.all.count)   // no key twice
    }

    @Test("the defaults file reads back to the defaults, and every setting has a comment")
    func defaultsRoundTrip() throws {
        let text = OptionsFile.yaml()
        let read = try OptionsFile.parse(text)
        let a = OptionsFile.values(read), b = OptionsFile.values(PipelineOptions())
        #expect(a.map(\.value) == b.map(\.value))
        #expect(Settings.all.allSatisfy { !$0.help.isEmpty })
        #expect(text.contains("    pixelNoiseStd: 1.0\n"))
        #expect(text.contains("  maxTrackAge: 25\n") && text.contains("  landmarkMaxAge_ns: null\n"))
    }

    @Test("values of every kind are read: numbers, booleans, null, words, underscores; the rest keeps its default")
    func readsEveryKind() throws {
        let text = """
        # a comment
        estimator:
          updater:
            pixelNoiseStd: 0.7        # pixels
          state:
            maxClones: 15
            timeOffset:
              estimate: false
              initial_s: -0.012
        frontend:
          maxTrackAge: null
          detector: shiTomasi
          contrast: clahe:2.5
          essentialEstimator: usac
          appearanceMinCorrelation: null
          stillFrameMaxMotionPx: 2.5
        mapReuse:
          minGap_ns: 1_500_000_000
        """
        let o = try OptionsFile.parse(text)
        #expect(o.estimator.updater.pixelNoiseStd == 0.7)
        #expect(o.estimator.state.maxClones == 15)
        #expect(o.estimator.state.timeOffset.estimate == false && o.estimator.state.timeOffset.initial_s == -0.012)
        #expect(o.frontend.maxTrackAge == nil && o.frontend.detector == .shiTomasi && o.frontend.contrast == .clahe(clipLimit: 2.5))
        #expect(o.frontend.essentialEstimator == .usac)
        #expect(o.frontend.appearanceMinCorrelation == nil && o.frontend.stillFrameMaxMotionPx == 2.5)
        #expect(o.mapReuse.minGap_ns == 1_500_000_000)
        // Everything else is untouched.
        #expect(o.estimator.updater.maxFeaturesPerUpdate == PipelineOptions().estimator.updater.maxFeaturesPerUpdate)
        #expect(o.world == PipelineOptions().world)
        // And the file written from these options reads back the same.
        let again = try OptionsFile.parse(OptionsFile.yaml(o))
        #expect(OptionsFile.values(again).map(\.value) == OptionsFile.values(o).map(\.value))
        #expect(try OptionsFile.parse("").estimator == PipelineOptions().estimator)   // an empty file: the defaults
    }

    /// The error for `text`, which must fail.
    static func failure(_ text: String) -> OptionsFile.ReadError? {
        do { _ = try OptionsFile.parse(text, path: "my.yaml"); return nil } catch { return error as? OptionsFile.ReadError }
    }

    @Test("unknown keys, wrong types, out-of-range values and broken YAML name the file, the line and the key")
    func errorsNameTheLine() throws {
        let unknown = try #require(Self.failure("estimator:\n  updater:\n    pixelNoise: 1\n"))
        #expect(unknown.line == 3 && unknown.message.contains("unknown setting estimator.updater.pixelNoise"))
        #expect(unknown.description.hasPrefix("my.yaml:3: "))
        let typo = try #require(Self.failure("estimator:\n  updater:\n    pixelnoisestd: 1\n"))
        #expect(typo.message.contains("did you mean estimator.updater.pixelNoiseStd?"))
        let type = try #require(Self.failure("frontend:\n  featureBudget: many\n"))
        #expect(type.line == 2 && type.message.contains("frontend.featureBudget") && type.message.contains("whole number"))
        let range = try #require(Self.failure("estimator:\n  updater:\n    chi2GateProbability: 1.5\n"))
        #expect(range.line == 3 && range.message.contains("between"))
        let negative = try #require(Self.failure("world:\n  detector:\n    minBand_m: -0.1\n"))
        #expect(negative.line == 3)
        let notFinite = try #require(Self.failure("estimator:\n  gravity: .nan\n"))
        #expect(notFinite.message.contains("finite"))
        let boolean = try #require(Self.failure("mapReuse:\n  enabled: yes please\n"))
        #expect(boolean.message.contains("true or false"))
        let word = try #require(Self.failure("frontend:\n  detector: harris\n"))
        #expect(word.message.contains("fast, shiTomasi"))
        let clahe = try #require(Self.failure("frontend:\n  contrast: clahe:-1\n"))
        #expect(clahe.message.contains("clip limit"))
        let notOptional = try #require(Self.failure("frontend:\n  featureBudget: null\n"))
        #expect(notOptional.message.contains("whole number"))
        let section = try #require(Self.failure("estimator: 3\n"))
        #expect(section.line == 1 && section.message.contains("section"))
        let list = try #require(Self.failure("frontend:\n  featureBudget: [1, 2]\n"))
        #expect(list.message.contains("single value"))
        let twice = try #require(Self.failure("frontend:\n  featureBudget: 100\nfrontend:\n  featureBudget: 200\n"))
        #expect(twice.line == 4 && twice.message.contains("set twice"))
        let broken = try #require(Self.failure("frontend:\n  featureBudget: 100\n   bad: [\n"))
        #expect(broken.line >= 3 && broken.message.contains("not valid YAML"))
        let top = try #require(Self.failure("- 1\n- 2\n"))
        #expect(top.message.contains("mapping"))
        let deep = try #require(Self.failure(String(repeating: "[", count: 100_000)))
        #expect(deep.message.contains("nesting"))
        let mask = try #require(Self.failure("frontend:\n  mask: 1\n"))
        #expect(mask.message.contains("not a value a text file holds"))
    }
}
