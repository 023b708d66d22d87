import Testing
@testable import WorldTrackCLI
