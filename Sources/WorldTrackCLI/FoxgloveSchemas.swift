import Foundation

/// The JSON Schema documents of the MCAP channels `run --mcap` writes (schema encoding `jsonschema`).
///
/// Foxglove recognises its well-known types by the schema *name* (`foxglove.PointCloud`, …); the documents here
/// describe the fields WorldTrack writes, with their required lists, so that a generic reader can check them.
/// The `worldtrack.*` schemas describe the stream's records (docs/STREAM.md) carried as they are.
enum FoxgloveSchemas {
    /// A schema document: `name`, and its JSON text.
    struct Document { var name: String; var json: [UInt8] }

    private typealias S = [String: Any]

    private static let number: S = ["type": "number"]
    private static let integer: S = ["type": "integer"]
    private static let string: S = ["type": "string"]
    private static let boolean: S = ["type": "boolean"]
    /// Primitives WorldTrack never writes (their lists are always empty).
    private static let anyObject: S = ["type": "object"]
    private static let bytes: S = ["type": "string", "contentEncoding": "base64"]
    private static func array(_ items: S) -> S { ["type": "array", "items": items] }
    private static func object(_ properties: S, required: [String]? = nil, title: String? = nil) -> S {
        var s: S = ["type": "object", "properties": properties, "required": required ?? properties.keys.sorted()]
        if let title { s["title"] = title }
        return s
    }
    private static func enumeration(_ values: [Int]) -> S { ["type": "integer", "enum": values] }

    private static let time = object(["sec": integer, "nsec": integer], title: "time")
    private static let duration = object(["sec": integer, "nsec": integer], title: "duration")
    private static let vector3 = object(["x": number, "y": number, "z": number], title: "foxglove.Vector3")
    private static let quaternion = object(["x": number, "y": number, "z": number, "w": number], title: "foxglove.Quaternion")
    private static let pose = object(["position": vector3, "orientation": quaternion], title: "foxglove.Pose")
    private static let color = object(["r": number, "g": number, "b": number, "a": number], title: "foxglove.Color")
    private static let frameTransform = object(
        ["timestamp": time, "parent_frame_id": string, "child_frame_id": string, "translation": vector3, "rotation": quaternion],
        title: "foxglove.FrameTransform")
    private static let shape = object(["pose": pose, "size": vector3, "color": color])
    private static let line = object(
        ["type": enumeration([0, 1, 2]), "pose": pose, "thickness": number, "scale_invariant": boolean, "points": array(vector3),
         "color": color, "colors": array(color), "indices": array(integer)], title: "foxglove.LinePrimitive")
    private static let triangles = object(
        ["pose": pose, "points": array(vector3), "color": color, "colors": array(color), "indices": array(integer)],
        title: "foxglove.TriangleListPrimitive")
    private static let text = object(
        ["pose": pose, "billboard": boolean, "font_size": number, "scale_invariant": boolean, "color": color, "text": string],
        title: "foxglove.TextPrimitive")
    private static let entity = object(
        ["timestamp": time, "frame_id": string, "id": string, "lifetime": duration, "frame_locked": boolean,
         "metadata": array(object(["key": string, "value": string])), "arrows": array(anyObject), "cubes": array(shape),
         "spheres": array(shape), "cylinders": array(anyObject), "lines": array(line), "triangles": array(triangles),
         "texts": array(text), "models": array(anyObject)], title: "foxglove.SceneEntity")

    static let compressedImage = document("foxglove.CompressedImage",
        object(["timestamp": time, "frame_id": string, "data": bytes, "format": string]))
    static let cameraCalibration = document("foxglove.CameraCalibration",
        object(["timestamp": time, "frame_id": string, "width": integer, "height": integer, "distortion_model": string,
                "D": array(number), "K": array(number), "R": array(number), "P": array(number)]))
    static let frameTransforms = document("foxglove.FrameTransforms", object(["transforms": array(frameTransform)]))
    static let posesInFrame = document("foxglove.PosesInFrame",
        object(["timestamp": time, "frame_id": string, "poses": array(pose)]))
    static let pointCloud = document("foxglove.PointCloud",
        object(["timestamp": time, "frame_id": string, "pose": pose, "point_stride": integer,
                "fields": array(object(["name": string, "offset": integer, "type": enumeration(Array(0...8))])),
                "data": bytes]))
    static let sceneUpdate = document("foxglove.SceneUpdate",
        object(["deletions": array(object(["timestamp": time, "type": enumeration([0, 1]), "id": string])),
                "entities": array(entity)]))
    static let log = document("foxglove.Log",
        object(["timestamp": time, "level": enumeration(Array(0...5)), "message": string, "name": string, "file": string,
                "line": integer]))

    /// A stream record type carried unchanged (`worldtrack.frame`, …): the fields every record has, plus those
    /// `required` lists (docs/STREAM.md); other fields are allowed.
    static func streamRecord(_ type: String, required: [String]) -> Document {
        var properties: S = ["type": string, "t_ns": integer, "schema": string]
        for key in required where properties[key] == nil { properties[key] = [String: Any]() }
        return document("worldtrack.\(type)", object(properties, required: ["type", "t_ns", "schema"] + required))
    }

    private static func document(_ name: String, _ schema: S) -> Document {
        var s = schema
        s["title"] = name
        s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        let json = (try? JSONSerialization.data(withJSONObject: s, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Document(name: name, json: Array(json))
    }
}
