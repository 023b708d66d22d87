// swift-tools-version:6.0
//
// WorldTrack — an open world-tracking (visual-inertial odometry + world layer) engine.
// Module map: docs/ARCHITECTURE.md.

import PackageDescription

/// OpenCV modules the C-interop layer uses. Linking only these (not the pkg-config
/// set of ~55 modules) keeps start-up fast and the dependency surface small.
let openCVLibraries: [LinkerSetting] = [
    "opencv_core", "opencv_imgproc", "opencv_imgcodecs",
    "opencv_features2d", "opencv_video", "opencv_calib3d",
].map { .linkedLibrary($0) }

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "WorldTrack",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "worldtrack", targets: ["worldtrack"]),
        .executable(name: "worldtrack-bench", targets: ["WorldTrackBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        // MARK: C layers (implementation details; only Imaging / LinearAlgebra import them)
        .systemLibrary(name: "CLAPACKE", path: "Sources/CLAPACKE"),
        .target(
            name: "COpenCV",
            path: "Sources/COpenCV",
            cxxSettings: [
                .unsafeFlags(["-I/usr/include/opencv4", "-std=c++17", "-O2"]),
            ],
            // ISA-L (Debian libisal-dev): the fast grayscale PNG decoder's inflate and CRC.
            linkerSettings: openCVLibraries + [.linkedLibrary("isal"), .linkedLibrary("stdc++")]
        ),

        // MARK: Foundations
        .target(name: "Geometry", swiftSettings: swift5),
        .target(name: "LinearAlgebra", dependencies: ["CLAPACKE", "Geometry"], swiftSettings: swift5,
                linkerSettings: [.linkedLibrary("lapacke"), .linkedLibrary("lapack"), .linkedLibrary("blas")]),
        .target(name: "Imaging", dependencies: ["COpenCV"], swiftSettings: swift5),
        .target(name: "Sensors", dependencies: ["Geometry", "Imaging", "Yams"], swiftSettings: swift5),

        // MARK: Pipeline
        .target(name: "Vision", dependencies: ["Geometry", "Imaging", "Sensors", "LinearAlgebra"], swiftSettings: swift5),
        .target(name: "Estimation", dependencies: ["Geometry", "LinearAlgebra", "Sensors"], swiftSettings: swift5),
        .target(name: "World", dependencies: ["Geometry", "LinearAlgebra", "Sensors", "Estimation", "Vision"], swiftSettings: swift5),
        .target(name: "Consumers", dependencies: ["World", "Imaging", "Sensors", "Geometry"], swiftSettings: swift5),
        .target(name: "Evaluation", dependencies: ["Geometry", "LinearAlgebra", "Sensors", "Imaging"], swiftSettings: swift5),
        .target(name: "Simulation", dependencies: ["Geometry", "Sensors", "Imaging"], exclude: ["README.md"], swiftSettings: swift5),

        .target(name: "Pipeline",
                dependencies: ["Geometry", "Imaging", "Sensors", "Vision", "Estimation", "World", "Consumers", "Simulation"],
                swiftSettings: swift5),

        // MARK: Command line
        .target(
            name: "WorldTrackCLI",
            dependencies: [
                "Geometry", "LinearAlgebra", "Imaging", "Sensors", "Vision", "Estimation",
                "World", "Consumers", "Evaluation", "Simulation", "Pipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swift5
        ),
        .executableTarget(name: "worldtrack", dependencies: ["WorldTrackCLI"], swiftSettings: swift5),
        .executableTarget(
            name: "WorldTrackBench",
            dependencies: ["WorldTrackCLI", "Pipeline", "Simulation", "Vision", "Estimation", "Sensors", "Imaging",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/WorldTrackBench",
            swiftSettings: swift5
        ),

        // MARK: Tests
        .target(name: "TestSupport", dependencies: ["Geometry", "Sensors", "Simulation", "Imaging"],
                path: "Tests/TestSupport", swiftSettings: swift5),
        .testTarget(name: "GeometryTests", dependencies: ["Geometry"], swiftSettings: swift5),
        .testTarget(name: "LinearAlgebraTests", dependencies: ["LinearAlgebra", "Geometry"], swiftSettings: swift5),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging"], swiftSettings: swift5),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "Geometry", "Imaging", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "SimulationTests", dependencies: ["Simulation", "Sensors", "Geometry", "Imaging", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "VisionTests", dependencies: ["Vision", "Sensors", "Simulation", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "EstimationTests", dependencies: ["Estimation", "Sensors", "Geometry", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "EvaluationTests", dependencies: ["Evaluation", "Geometry", "Sensors"], swiftSettings: swift5),
        .testTarget(name: "WorldTests", dependencies: ["World", "Consumers", "Geometry", "Sensors", "Estimation", "Imaging", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "Evaluation", "Simulation", "Sensors", "Estimation", "Geometry", "Consumers", "World", "TestSupport"], swiftSettings: swift5),
        .testTarget(name: "WorldTrackCLITests", dependencies: ["WorldTrackCLI", "Simulation", "TestSupport"], swiftSettings: swift5),
    ],
    cxxLanguageStandard: .cxx17
)
