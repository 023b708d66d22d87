import ArgumentParser
import Foundation
import Sensors

/// `worldtrack info`: describe a dataset: cameras, IMU, ground truth and problems found.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a dataset: cameras, IMU, ground truth and problems found.",
        discussion: """
        Reads an ASL-layout dataset (EuRoC, TUM-VI): mav0/cam0, mav0/cam1 (data.csv, data/*.png, \
        sensor.yaml), mav0/imu0 (data.csv, sensor.yaml) and, if present, \
        mav0/state_groundtruth_estimate0/data.csv. Checks every listed image's PNG header, the \
        timestamps, the IMU values and the calibration, and lists each problem with its file and line. \
        Rates are estimated from the timestamps (median period) and compared with sensor.yaml.

        Listed images that are absent are skipped and reported as a warning. With --check-images every \
        image is decoded too, and each one whose data is corrupt is a warning naming it (`run` skips \
        those frames, with a warning each). Exit status: 0 when the dataset is usable (warnings \
        included), 2 when it has a fatal problem (the problems go to stderr as \
        `worldtrack: error: FILE:LINE: MESSAGE`).

        Examples:
          worldtrack info ../shared/datasets/euroc-v101-micro
          worldtrack info ../shared/datasets/euroc-v101-micro --json
          worldtrack info /data/V1_01_easy --json \\
              | jq '.cameras[] | {name, frames, missing_images}'
        """
    )

    @Argument(help: "Dataset folder in the ASL layout (the folder that contains mav0/).")
    var dataset: String

    @Flag(help: "Print one JSON object (sorted keys) instead of text.")
    var json = false

    @Flag(name: .customLong("skip-image-check"), help: "Do not open every image to check its PNG header (faster on huge datasets).")
    var skipImageCheck = false

    @Flag(name: .customLong("check-images"), help: "Decode every image and list those whose data is corrupt (slow: reads the whole dataset).")
    var checkImages = false

    init() {}

    func run() throws {
        // A DatasetError (fatal problem) reaches main, which reports it and exits 2.
        if checkImages && skipImageCheck { throw CLIError.badInput("--check-images and --skip-image-check contradict each other") }
        var options = ASLLoadOptions(checkImageHeaders: !skipImageCheck)
        options.decodeImages = checkImages
        let loaded = try ASLDataset(path: dataset, options: options)
        let report = InfoReport(loaded)
        let output = json ? try report.json() : report.text()
        FileHandle.standardOutput.write(Data((output + "\n").utf8))
    }
}
