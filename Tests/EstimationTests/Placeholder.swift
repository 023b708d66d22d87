import Testing
@testable import Estimation
