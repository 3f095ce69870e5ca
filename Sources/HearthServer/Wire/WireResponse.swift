import Foundation
import HTTPTypes
import HearthCore
import Hummingbird

/// Builds responses the way Google's APIs send them.
public enum WireResponse {
    public static let noStore = "no-cache, no-store, max-age=0, must-revalidate"
    static let noStoreField = HTTPField(name: .cacheControl, value: noStore)
    static let jsonContentType = HTTPField(name: .contentType, value: "application/json; charset=UTF-8")

    public static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, cacheControl: String = noStore)
        -> Response
    {
        json(encoded: ByteBuffer(bytes: value.jsonBytes), status: status, cacheControl: cacheControl)
    }

    /// A JSON answer already encoded (`LookupAnswers`).
    static func json(encoded body: ByteBuffer, status: HTTPResponse.Status = .ok, cacheControl: String = noStore)
        -> Response
    {
        guard cacheControl == noStore else {
            var headers = HTTPFields()
            headers.append(jsonContentType)
            headers.append(HTTPField(name: .cacheControl, value: cacheControl))
            return Response(status: status, headers: headers, body: .init(byteBuffer: body))
        }
        return Response(status: status, headers: jsonHeaders, body: .init(byteBuffer: body))
    }

    /// The fields of nearly every answer, made once: a field built from a String validates its value each time, and
    /// each `append` goes through `HTTPFields`' unspecialised `replaceSubrange` (~0.7k instructions). `nosniff` is
    /// here already, so `HTTPFront` finds it and adds only the request id.
    static let jsonHeaders: HTTPFields = {
        var headers = HTTPFields()
        headers.append(contentsOf: [jsonContentType, noStoreField, HTTPHygiene.nosniff])
        return headers
    }()

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
        var out: [String: JSONValue] = .init(minimumCapacity: pairs.count)
        for (k, v) in pairs { if let v { out[k] = v } }
        return .object(out)
    }

    static func text(_ s: String?) -> JSONValue? { s.map(JSONValue.string) }
    static func millisString(_ d: Date?) -> JSONValue? { d.map { .string(String($0.millisecondsSince1970)) } }
}
