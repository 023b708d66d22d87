import Testing
@testable import Geometry
