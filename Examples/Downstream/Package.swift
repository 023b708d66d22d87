// swift-tools-version:6.0
//
// A package that uses WorldTrack as a dependency, the way an application would: it depends on the
// `WorldTrack` library product (the engine) and `WorldTrackSimulation` (the simulator, to make its input).
// `Tools/test.sh` builds and runs it, so the engine stays usable from another package.
//
// Here WorldTrack is the checkout two folders up; an application names the repository instead:
//     .package(url: "https://example.com/worldtrack.git", from: "1.0.0")
// and refers to its products with `package: "worldtrack"` (the package identity: the URL's last component).

import Foundation
import PackageDescription

/// The WorldTrack checkout this example lives in. A path dependency's identity is its folder's name.
let engine = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().deletingLastPathComponent()

let package = Package(
    name: "WorldTrackDownstream",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: engine.path),
    ],
    targets: [
        .executableTarget(
            name: "TrackSimulatedRoom",
            dependencies: [
                .product(name: "WorldTrack", package: engine.lastPathComponent),
                .product(name: "WorldTrackSimulation", package: engine.lastPathComponent),
            ]
        ),
    ]
)
