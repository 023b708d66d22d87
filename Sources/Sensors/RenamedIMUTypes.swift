// Former names of the IMU types (docs/NAMING.md: acronyms are all capitals), kept while Estimation,
// World, Pipeline and Vision still use them; remove this file once they are renamed there.

/// Former name of ``IMUSample``.
@available(*, deprecated, renamed: "IMUSample")
public typealias ImuSample = IMUSample

/// Former name of ``IMUNoiseModel``.
@available(*, deprecated, renamed: "IMUNoiseModel")
public typealias ImuNoiseModel = IMUNoiseModel

/// Former name of ``IMUCalibration``.
@available(*, deprecated, renamed: "IMUCalibration")
public typealias ImuCalibration = IMUCalibration
