import Foundation
import HearthCore
import Hummingbird

/// Builds responses the way Google's APIs send them.
public enum WireResponse {
    public static let noStore = "no-cache, no-store, max-age=0, must-revalidate"

    public static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, cacheControl: String = noStore)
        -> Response
    {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=UTF-8"
        headers[.cacheControl] = cacheControl
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: value.jsonBytes)))
    }

    /// Firebase's error envelope: `{"error":{"code","message","errors":[…],"status"}}`.
    public static func error(_ error: AuthError) -> Response {
        let status = error.code.httpStatus
        let envelope: JSONValue = [
            "error": [
                "code": .number(Double(status)),
                "message": .string(error.message),
                "errors": [["message": .string(error.message), "domain": "global", "reason": .string(error.reason)]],
                "status": .string(error.code.googleStatus),
            ]
        ]
        return json(envelope, status: HTTPResponse.Status(code: status))
    }
}

extension JSONValue {
    /// An object with the nil-valued entries dropped: Google omits unset fields.
    static func compact(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        var out: [String: JSONValue] = [:]
        for (k, v) in pairs { if let v { out[k] = v } }
        return .object(out)
    }

    static func text(_ s: String?) -> JSONValue? { s.map(JSONValue.string) }
    static func millisString(_ d: Date?) -> JSONValue? { d.map { .string(String($0.millisecondsSince1970)) } }
}
