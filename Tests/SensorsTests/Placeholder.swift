import Testing
@testable import Sensors
