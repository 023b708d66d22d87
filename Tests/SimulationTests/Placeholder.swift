import Testing
@testable import Simulation
