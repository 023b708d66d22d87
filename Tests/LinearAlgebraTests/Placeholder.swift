import Testing
@testable import LinearAlgebra
