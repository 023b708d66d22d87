import ArgumentParser

/// The `worldtrack` command: the root of all subcommands.
public struct WorldTrackCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "worldtrack",
        abstract: "Open visual-inertial world tracking on recorded camera + IMU data.",
        discussion: """
        WorldTrack estimates the metric 6-DoF camera pose every frame from images and an IMU, \
        finds planes, keeps anchors and streams JSON Lines on stdout. Datasets use the ASL layout \
        of EuRoC and TUM-VI; `worldtrack simulate` writes synthetic ones with exact ground truth.

        Examples:
          worldtrack info ../shared/datasets/euroc-v101-micro
          worldtrack simulate --scene room --trajectory handheld --seconds 30 \\
              --out /tmp/room
          worldtrack run /tmp/room --trajectory /tmp/est.tum
          worldtrack eval --estimate /tmp/est.tum --groundtruth /tmp/room
        """,
        version: WorldTrackVersion.string,
        subcommands: [InfoCommand.self, SimulateCommand.self, FeaturesCommand.self, RunCommand.self, EvalCommand.self, ConfigCommand.self,
                      BenchSuiteCommand.self, ReplayCommand.self]
    )
    public init() {}
}

/// The version of WorldTrack.
public enum WorldTrackVersion {
    public static let string = "0.1.0"
}
