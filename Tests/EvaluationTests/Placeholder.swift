import Testing
@testable import Evaluation
