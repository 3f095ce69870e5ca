import Crypto
import CryptoExtras
import Foundation
import HearthCore

/// Compact JWS with RS256: the one algorithm Hearth signs with and accepts for its own tokens
/// (`alg: none` only in emulator mode, as the Firebase Auth Emulator does).
///
/// Signing goes straight to swift-crypto rather than through jwt-kit's `JWTKeyCollection`,
/// which is an actor and would serialise every signature onto one thread.
public enum JWS {
    public struct Parsed: Sendable {
        public var header: [String: JSONValue]
        public var payload: [String: JSONValue]
        public var signingInput: Substring
        public var signature: Data
    }

    /// `header.payload.signature` for the given payload, signed with `key`.
    public static func signRS256(
        payload: JSONValue, kid: String, key: _RSA.Signing.PrivateKey, type: String = "JWT"
    ) throws -> String {
        let header: JSONValue = ["alg": "RS256", "kid": .string(kid), "typ": .string(type)]
        let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(payload.jsonBytes)
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// An unsecured JWS (`alg: none`, empty signature): what the Firebase Auth Emulator issues.
    public static func unsigned(payload: JSONValue) -> String {
        let header: JSONValue = ["alg": "none", "typ": "JWT"]
        return Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(payload.jsonBytes) + "."
    }

    /// Splits and decodes a compact JWS without checking its signature. Nil when malformed.
    public static func parse(_ token: String) -> Parsed? {
        // Work on UTF-8 code units: splitting a String by Character costs grapheme breaking on every byte.
        let utf8 = token.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let rest = utf8.index(after: firstDot)
        guard let secondDot = utf8[rest...].firstIndex(of: UInt8(ascii: ".")) else { return nil }
        let signatureStart = utf8.index(after: secondDot)
        guard !utf8[signatureStart...].contains(UInt8(ascii: ".")),
            let headerData = Base64URL.decode(token[..<firstDot]),
            let payloadData = Base64URL.decode(token[rest..<secondDot]),
            let signature = Base64URL.decode(token[signatureStart...]),
            case .object(let header)? = try? JSONValue.parse(headerData),
            case .object(let payload)? = try? JSONValue.parse(payloadData)
        else { return nil }
        return Parsed(header: header, payload: payload, signingInput: token[..<secondDot], signature: Data(signature))
    }

    /// Whether a JWT's `nbf` (not before), if it has one, has been reached at `now`, allowing `skew` seconds of
    /// clock difference. Every JWT Hearth accepts is checked with this, besides its `exp` and `iat`.
    public static func hasStarted(_ payload: [String: JSONValue], now: Date, skew: TimeInterval) -> Bool {
        guard let value = payload["nbf"] else { return true }
        guard let nbf = value.doubleValue else { return false }
        return nbf <= now.timeIntervalSince1970 + skew
    }

    /// Whether `parsed` carries a valid RS256 signature by `key`.
    public static func verifyRS256(_ parsed: Parsed, key: _RSA.Signing.PublicKey) -> Bool {
        let digest = SHA256.hash(data: Data(parsed.signingInput.utf8))
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: parsed.signature), for: digest, padding: .insecurePKCS1v1_5)
    }
}
