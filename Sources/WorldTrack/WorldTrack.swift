// The engine's public face for packages that depend on WorldTrack (the `WorldTrack` library product):
// `import WorldTrack` brings in the pipeline and every module its API exposes.
//
// Not re-exported: `Simulation` (the renderer; product `WorldTrackSimulation`), `Evaluation` (ATE/RPE;
// product `WorldTrackEvaluation`), `LinearAlgebra` and the C layers (implementation details).

@_exported import Consumers
@_exported import Estimation
@_exported import Geometry
@_exported import Imaging
@_exported import OptionsFile
@_exported import Pipeline
@_exported import Sensors
@_exported import StreamFormat
@_exported import Vision
@_exported import World
@_exported import WorldMap
