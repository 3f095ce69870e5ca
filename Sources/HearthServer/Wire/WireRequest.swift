import Foundation
import HTTPTypes
import HearthCore
import Hummingbird
import HummingbirdCore

/// A decoded request body: the one way Hearth reads what a client sent.
///
/// Accepts JSON or form-urlencoded bodies (the JS SDK sends forms to securetoken, iOS sends JSON),
/// folds snake_case keys to camelCase as Google's JSON mapping does, and merges query parameters
/// for GET requests. Typed accessors answer a wrong type with Google's INVALID_ARGUMENT message.
public struct WireRequest: Sendable {
    public var fields: [String: JSONValue]
    /// The body's fields alone, without query parameters: what a config object is made of, so that the
    /// transport's parameters (`alt=json`, `prettyPrint`, `updateMask`, `idpId`) never become stored fields.
    public var body: [String: JSONValue]
    public var apiKey: String?
    public var headers: HTTPFields
    public var clientIP: String?

    public init(
        fields: [String: JSONValue], body: [String: JSONValue]? = nil, apiKey: String? = nil, headers: HTTPFields = [:],
        clientIP: String? = nil
    ) {
        self.fields = fields
        self.body = body ?? fields
        self.apiKey = apiKey
        self.headers = headers
        self.clientIP = clientIP
    }

    /// Reads and decodes the body of `request`.
    public static func decode(_ request: Request, context: HearthRequestContext) async throws -> WireRequest {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw AuthError(.payloadTooLarge, "Request payload size exceeds the limit: \(context.maxUploadSize) bytes.")
        }
        var fields: [String: JSONValue] = [:]
        let bytes = buffer.readableBytesView
        if Self.isForm(request.headers.value(.contentType)) {
            fields = parseForm(String(decoding: bytes, as: UTF8.self))
        } else if !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            fields = try parseJSONObject([UInt8](bytes))
        }
        let body = fields
        let query = queryItems(request.uri)
        for item in query where item.key != "key" {
            let key = camelCase(String(item.key))
            // Query strings end up in proxy and access logs: a POST's credentials count only from its body.
            if request.method != .get && credentialFields.contains(key) { continue }
            if fields[key] == nil { fields[key] = .string(String(item.value)) }
        }
        let apiKey =
            query.first(where: { $0.key == "key" }).map { String($0.value) } ?? request.headers.value(googleAPIKey)
        return WireRequest(
            fields: fields, body: body, apiKey: apiKey, headers: request.headers, clientIP: context.clientIP)
    }

    static let googleAPIKey = HTTPField.Name("x-goog-api-key")!

    /// The query's parameters in order. A lone `name=value` with nothing to decode (`key=…`, nearly every call) is
    /// split here; anything else goes to Hummingbird's parser. Its `FlatDictionary` hashes every key on creation:
    /// with the parsing, ~5k instructions for that one pair.
    static func queryItems(_ uri: URI) -> [(key: Substring, value: Substring)] {
        guard let query = uri.query else { return [] }
        let utf8 = query.utf8
        guard !utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }),
            let equals = utf8.firstIndex(of: UInt8(ascii: "=")), equals != utf8.startIndex
        else { return Array(uri.queryParameters) }
        let value = utf8.index(after: equals)
        guard !utf8[value...].contains(UInt8(ascii: "=")) else { return Array(uri.queryParameters) }
        return [(key: query[..<equals], value: query[value...])]
    }

    /// Fields that prove who the caller is; never read from a POST's query string.
    static let credentialFields: Set<String> = [
        "password", "newPassword", "idToken", "refreshToken", "oobCode", "code", "sessionInfo", "temporaryProof",
        "pendingToken", "token", "postBody", "assertion", "mfaPendingCredential",
    ]

    /// Whether the content type is form-urlencoded, compared without allocating a lower-cased copy.
    static func isForm(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let form = "application/x-www-form-urlencoded".utf8
        guard contentType.utf8.count >= form.count else { return false }
        return zip(contentType.utf8, form).allSatisfy { a, b in a == b || (a >= 65 && a <= 90 && a + 32 == b) }
    }

    static func parseJSONObject(_ bytes: [UInt8]) throws -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw AuthError(
                .invalidJSONPayload,
                "Invalid JSON payload received. \(error.reason.prefix(1).uppercased() + error.reason.dropFirst()) at byte \(error.offset)."
            )
        }
        guard case .object(let object) = value else {
            throw AuthError(
                .invalidJSONPayload, "Invalid JSON payload received. Unknown name \"\": Root element must be a message."
            )
        }
        // Clients send camelCase almost always: fold only when some key has an underscore.
        guard object.keys.contains(where: { $0.utf8.contains(UInt8(ascii: "_")) }) else { return object }
        var out: [String: JSONValue] = [:]
        for (k, v) in object { out[camelCase(k)] = v }
        return out
    }

    static func parseForm(_ text: String) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for pair in text.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = formDecode(kv[0])
            let value = kv.count > 1 ? formDecode(kv[1]) : ""
            out[camelCase(key)] = .string(value)
        }
        return out
    }

    static func formDecode(_ s: Substring) -> String {
        s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
    }

    /// `refresh_token` → `refreshToken`.
    static func camelCase(_ key: String) -> String {
        guard key.utf8.contains(UInt8(ascii: "_")) else { return key }
        var out = ""
        var upper = false
        for ch in key {
            if ch == "_" { upper = !out.isEmpty; continue }
            out.append(upper ? Character(ch.uppercased()) : ch)
            upper = false
        }
        return out
    }

    // MARK: Typed access

    public func string(_ name: String) throws(AuthError) -> String? {
        switch fields[name] {
        case nil, .null?: return nil
        case .string(let s)?: return s
        case let other?: throw Self.typeError(name, "TYPE_STRING", other)
        }
    }

    /// A protobuf enum field: its name, or (as proto3 JSON allows) its number, looked up in `names` (by number).
    public func enumName(_ name: String, names: [String]) throws(AuthError) -> String? {
        if case .number(let n)? = fields[name], n == n.rounded(), n >= 0, n < Double(names.count) {
            return names[Int(n)]
        }
        return try string(name)
    }

    public func bool(_ name: String) throws(AuthError) -> Bool? {
        switch fields[name] {
        case nil, .null?: return nil
        case .bool(let b)?: return b
        case .string("true")?: return true
        case .string("false")?: return false
        case let other?: throw Self.typeError(name, "TYPE_BOOL", other)
        }
    }

    public func stringArray(_ name: String) throws(AuthError) -> [String] {
        switch fields[name] {
        case nil, .null?: return []
        case .string(let s)?: return [s]
        case .array(let items)?:
            var out: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw Self.typeError(name, "TYPE_STRING", item) }
                out.append(s)
            }
            return out
        case let other?: throw Self.typeError(name, "TYPE_STRING", other)
        }
    }

    /// An integer as Google's JSON mapping sends it: a number, or a string for 64-bit fields.
    public func int(_ name: String) throws(AuthError) -> Int64? {
        switch fields[name] {
        case nil, .null?: return nil
        case .number(let n)? where n == n.rounded() && abs(n) < 9.0e15: return Int64(n)
        case .string(let s)?:
            guard let n = Int64(s) else { throw Self.typeError(name, "TYPE_INT64", .string(s)) }
            return n
        case let other?: throw Self.typeError(name, "TYPE_INT64", other)
        }
    }

    /// A repeated message field: an array of JSON objects.
    public func objects(_ name: String) throws(AuthError) -> [[String: JSONValue]] {
        switch fields[name] {
        case nil, .null?: return []
        case .array(let items)?:
            var out: [[String: JSONValue]] = []
            for item in items {
                guard case .object(let o) = item else { throw Self.typeError(name, "TYPE_MESSAGE", item) }
                out.append(o)
            }
            return out
        case let other?: throw Self.typeError(name, "TYPE_MESSAGE", other)
        }
    }

    /// A singular message field (`phoneEnrollmentInfo`, `totpVerificationInfo`, …), read with the same typed
    /// accessors; its keys are folded to camelCase like the body's.
    public func message(_ name: String) throws(AuthError) -> WireRequest? {
        switch fields[name] {
        case nil, .null?: return nil
        case .object(let o)?:
            var folded: [String: JSONValue] = [:]
            for (k, v) in o { folded[Self.camelCase(k)] = v }
            return WireRequest(fields: folded, apiKey: apiKey, headers: headers, clientIP: clientIP)
        case let other?: throw Self.typeError(name, "TYPE_MESSAGE", other)
        }
    }

    /// A `bytes` field: base64, standard or URL-safe, as Google's JSON mapping accepts it.
    public func bytes(_ name: String) throws(AuthError) -> [UInt8]? {
        guard let text = try string(name) else { return nil }
        guard let bytes = Base64.decode(text) else {
            throw Self.typeError(name, "TYPE_BYTES", .string(text))
        }
        return bytes
    }

    static func typeError(_ name: String, _ type: String, _ value: JSONValue) -> AuthError {
        AuthError(
            .invalidJSONPayload,
            "Invalid JSON payload received. Invalid value at '\(name)' (\(type)), \(value.jsonText)")
    }
}
