import Foundation
import World

/// Builds consumers from `--consumer` specs (`NAME[:key=value,…]`).
public enum ConsumerFactory {
    /// Names of the built-in consumers.
    public static let names = ["burst", "measure", "cursor", "divide", "object"]

    /// One-paragraph help for each consumer, for `--help`.
    public static let help = """
    burst:every=N,count=K,out=DIR[,start=T][,at=T1,T2,…]  save every N-th frame, K frames per trigger, as PNG + JSON sidecar
    measure:taps=FILE[,pose_std=M][,pixel_std=PX][,…]       measure tapped pixel polylines (JSON taps file) on the nearest frame
                                                            (also edge=M, images=on|off, max_rel_std=F: docs/STREAM.md)
    cursor[:place=T1,T2,…]                                  raycast from the image centre every frame; place anchors at times
    divide:tap=X,Y,at=T,pieces=N[,radius=R]                 cake divider: N equal cuts of a disc (R m, 0.12) on the tapped table
    object:box=X,Y,W,H,at=T[,name=N]                        track an image box (CSRT) from time T; its centre in 3-D
    Times: seconds from the first frame (2.5 or 2.5s) or absolute nanoseconds (1403715273262142976ns).
    """

    /// A consumer from a spec string (default conventions); throws `ConsumerError` with a clear message on any
    /// problem. Usable as a function value: `specs.map(ConsumerFactory.make)`.
    public static func make(_ spec: String) throws -> any FrameConsumer { try make(spec, convention: .worldtrack) }

    /// A consumer from a spec string; throws `ConsumerError` with a clear message on any problem.
    /// Its records use `convention` (the same as the stream's `WorldStream.convention`).
    public static func make(_ spec: String, convention: StreamConvention) throws -> any FrameConsumer {
        try make(ConsumerSpec(parsing: spec), convention: convention)
    }

    /// A consumer from a parsed spec.
    public static func make(_ spec: ConsumerSpec, convention: StreamConvention = .worldtrack) throws -> any FrameConsumer {
        switch spec.name {
        case "burst": let c = try BurstConsumer(spec: spec); c.convention = convention; return c
        case "measure": let c = try MeasureConsumer(spec: spec); c.convention = convention; return c
        case "cursor": let c = try CursorConsumer(spec: spec); c.convention = convention; return c
        case "divide": let c = try DivideConsumer(spec: spec); c.convention = convention; return c
        case "object": let c = try ObjectConsumer(spec: spec); c.convention = convention; return c
        default: throw ConsumerError.unknownConsumer(spec.name, known: names)
        }
    }
}
