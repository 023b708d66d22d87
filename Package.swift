// swift-tools-version:6.0
//
// WorldTrack — an open world-tracking (visual-inertial odometry + world layer) engine.
// Module map: docs/ARCHITECTURE.md.
//
// Every target's dependencies are exactly the modules its sources import: `Tools/check_package_graph.py`
// (run by `Tools/test.sh`) fails when a declared dependency is not imported or an import is not declared.

import PackageDescription

/// OpenCV modules the C-interop layer uses (`opencv_tracking`, from `libopencv-contrib-dev`, which Debian's
/// `libopencv-dev` depends on, only for the object consumer's CSRT tracker). Linking only these (not pkg-config's list of ~55 modules, which
/// brings in Qt, VTK and HDF5) keeps start-up fast and the dependency surface small. Not `opencv_imgcodecs`: it
/// pulls in GDAL, GDCM, HDF5 and about a hundred other libraries (32 MB resident); PNG and JPEG go through libpng
/// and libjpeg directly (`wt_codecs.cpp`). The headers come from
/// pkg-config through the `COpenCVSystem` target (see there).
let openCVLibraries: [LinkerSetting] = [
    "opencv_core", "opencv_imgproc",
    "opencv_features2d", "opencv_video", "opencv_calib3d", "opencv_tracking",
].map { .linkedLibrary($0) }

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "WorldTrack",
    platforms: [.macOS(.v13)],
    products: [
        /// The engine: `import WorldTrack` (the pipeline, sensors and datasets, frontend, estimator, world layer,
        /// consumers and the stream).
        .library(name: "WorldTrack", targets: ["WorldTrack"]),
        /// The world simulator (scenes, trajectories, rendered ASL datasets with exact ground truth): `import Simulation`.
        .library(name: "WorldTrackSimulation", targets: ["Simulation"]),
        /// Trajectory evaluation (association, alignment, ATE, RPE, plots): `import Evaluation`.
        .library(name: "WorldTrackEvaluation", targets: ["Evaluation"]),
        .executable(name: "worldtrack", targets: ["WorldTrackMain"]),
        .executable(name: "worldtrack-bench", targets: ["WorldTrackBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        // MARK: C layers (implementation details; only Imaging / LinearAlgebra import them)
        .systemLibrary(name: "CLAPACKE", path: "Sources/CLAPACKE"),
        // OpenCV's include path from pkg-config. SwiftPM links every library a system-library target's
        // pkg-config file lists, and `opencv4.pc` lists ~55 modules (Qt, VTK, HDF5 behind them; start-up
        // 0.5 s instead of 0.2 s), so the target names a .pc file of its own that takes opencv4's Cflags
        // through `Requires.private` and none of its Libs; COpenCV links the six modules it uses by name.
        // `Tools/check_package_graph.py --check-links` fails if more OpenCV modules end up linked.
        .systemLibrary(name: "COpenCVSystem", path: "Sources/COpenCVSystem",
                       pkgConfig: Context.packageDirectory + "/Sources/COpenCVSystem/worldtrack-opencv4.pc",
                       providers: [.apt(["libopencv-dev"]), .brew(["opencv"])]),
        .target(
            name: "COpenCV",
            dependencies: ["COpenCVSystem"],
            path: "Sources/COpenCV",
            // ISA-L (Debian libisal-dev): the fast grayscale PNG decoder's inflate and CRC; libpng16 (libpng-dev) and
            // libjpeg-turbo (libjpeg-dev): every other PNG and JPEG decode, and the encoders.
            linkerSettings: openCVLibraries + [.linkedLibrary("isal"), .linkedLibrary("png16"), .linkedLibrary("jpeg"),
                                               .linkedLibrary("stdc++")]
        ),

        // MARK: Foundations
        .target(name: "Geometry", swiftSettings: swift5),
        .target(name: "LinearAlgebra", dependencies: ["CLAPACKE", "Geometry"], swiftSettings: swift5,
                linkerSettings: [.linkedLibrary("lapacke"), .linkedLibrary("lapack"), .linkedLibrary("blas")]),
        .target(name: "Imaging", dependencies: ["COpenCV"], swiftSettings: swift5),
        .target(name: "Sensors", dependencies: ["Geometry", "Imaging", "Yams"], swiftSettings: swift5),

        // MARK: Engine
        .target(name: "Vision", dependencies: ["Geometry", "Imaging", "LinearAlgebra", "Sensors"], swiftSettings: swift5),
        .target(name: "Estimation", dependencies: ["Geometry", "LinearAlgebra", "Sensors"], swiftSettings: swift5),
        .target(name: "World", dependencies: ["Estimation", "Geometry", "Imaging", "LinearAlgebra", "Sensors"], swiftSettings: swift5),
        .target(name: "StreamFormat", dependencies: ["Geometry", "Sensors"], swiftSettings: swift5),
        .target(name: "Consumers", dependencies: ["Estimation", "Geometry", "Imaging", "Sensors", "StreamFormat", "World"], swiftSettings: swift5),
        .target(name: "WorldMap", dependencies: ["Geometry", "Imaging"], swiftSettings: swift5),
        .target(name: "Pipeline",
                dependencies: ["Consumers", "Estimation", "Geometry", "Imaging", "Sensors", "Vision", "World", "WorldMap"],
                swiftSettings: swift5),
        .target(name: "OptionsFile", dependencies: ["Pipeline", "Sensors", "Vision", "Yams"], swiftSettings: swift5),
        /// Umbrella: re-exports the engine's public modules (the `WorldTrack` product).
        .target(name: "WorldTrack",
                dependencies: ["Consumers", "Estimation", "Geometry", "Imaging", "OptionsFile", "Pipeline", "Sensors", "StreamFormat",
                               "Vision", "World", "WorldMap"],
                swiftSettings: swift5),

        // MARK: Tools around the engine
        .target(name: "Evaluation", dependencies: ["Geometry", "Imaging", "LinearAlgebra", "Sensors", "StreamFormat"],
                swiftSettings: swift5),
        .target(name: "Simulation", dependencies: ["Geometry", "Imaging", "Sensors"], exclude: ["README.md"], swiftSettings: swift5),
        /// A generic MCAP writer (chunked, indexed): Foundation only, nothing of WorldTrack.
        .target(name: "MCAP", swiftSettings: swift5),

        // MARK: Command line
        .target(
            name: "WorldTrackCLI",
            dependencies: [
                "Consumers", "Estimation", "Evaluation", "Geometry", "Imaging", "MCAP", "OptionsFile", "Pipeline", "Sensors", "Simulation",
                "Vision", "World", "WorldMap", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swift5
        ),
        .executableTarget(
            name: "WorldTrackMain",
            dependencies: ["WorldTrackCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/worldtrack",
            swiftSettings: swift5
        ),
        .executableTarget(
            name: "WorldTrackBench",
            dependencies: ["Consumers", "Evaluation", "Geometry", "Imaging", "OptionsFile", "Pipeline", "Sensors", "Simulation", "Vision", "World",
                           "WorldTrackCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/WorldTrackBench",
            swiftSettings: swift5
        ),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["Geometry", "Imaging", "Sensors", "Simulation"],
                path: "Tests/TestSupport", swiftSettings: swift5),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry"], swiftSettings: swift5),
        .testTarget(name: "LinearAlgebraTests", dependencies: ["Geometry", "LinearAlgebra"], swiftSettings: swift5),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "SensorsTests", dependencies: ["Geometry", "Imaging", "Sensors", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "SimulationTests", dependencies: ["Geometry", "Imaging", "Sensors", "Simulation", "TestSupport"],
                    swiftSettings: swift5),
        .testTarget(name: "VisionTests", dependencies: ["Geometry", "Imaging", "Sensors", "Simulation", "TestSupport", "Vision"],
                    swiftSettings: swift5),
        .testTarget(name: "EstimationTests", dependencies: ["Estimation", "Geometry", "LinearAlgebra", "Sensors", "Simulation", "TestSupport"],
                    swiftSettings: swift5),
        .testTarget(name: "EvaluationTests", dependencies: ["Evaluation", "Geometry", "Sensors", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "WorldTests", dependencies: ["Consumers", "Estimation", "Geometry", "Imaging", "Sensors", "TestSupport", "World"],
                    swiftSettings: swift5),
        .testTarget(name: "PipelineTests",
                    dependencies: ["Consumers", "Estimation", "Evaluation", "Geometry", "Imaging", "Pipeline", "Sensors",
                                   "Simulation", "TestSupport", "Vision", "World", "WorldMap"],
                    swiftSettings: swift5),
        .testTarget(name: "MCAPTests", dependencies: ["MCAP"], swiftSettings: swift5),
        .testTarget(name: "WorldMapTests", dependencies: ["Geometry", "Imaging", "TestSupport", "WorldMap"], swiftSettings: swift5),
        .testTarget(name: "OptionsFileTests", dependencies: ["OptionsFile", "Pipeline"], swiftSettings: swift5),
        .testTarget(name: "WorldTrackCLITests", dependencies: ["Evaluation", "Geometry", "Sensors", "Simulation", "StreamFormat", "TestSupport", "WorldMap"],
                    swiftSettings: swift5),
    ],
    cxxLanguageStandard: .cxx17
)
