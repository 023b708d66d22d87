import Testing
@testable import Vision
