/// Why a world map file cannot be read or written. The description names the file and the problem.
public enum WorldMapError: Error, Equatable, CustomStringConvertible {
    /// The file does not start with the magic bytes (not a WorldTrack world map).
    case notAWorldMap(path: String)
    /// The file is a world map of a format version this reader does not read.
    case unsupportedVersion(path: String, version: UInt32)
    /// The file is shorter or longer than its header says, or its checksum does not match (truncated or corrupt).
    case corrupt(path: String, reason: String)
    /// The file could not be read or written.
    case io(path: String, reason: String)

    public var description: String {
        switch self {
        case let .notAWorldMap(path):
            return "\(path): not a WorldTrack world map (the file does not start with \"\(WorldMapFile.magicText)\")"
        case let .unsupportedVersion(path, version):
            return "\(path): world map format version \(version) is not supported (this worldtrack reads version \(WorldMapFile.version))"
        case let .corrupt(path, reason):
            return "\(path): corrupt world map: \(reason)"
        case let .io(path, reason):
            return "\(path): \(reason)"
        }
    }
}
