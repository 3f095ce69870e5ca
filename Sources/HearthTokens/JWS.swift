import Crypto
import CryptoExtras
import Foundation
import HearthCore

/// Compact JWS with RS256 only: the one algorithm Hearth signs with and accepts for its own tokens.
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
    public static func signRS256(payload: JSONValue, kid: String, key: _RSA.Signing.PrivateKey) throws -> String {
        let header: JSONValue = ["alg": "RS256", "kid": .string(kid), "typ": "JWT"]
        let input = Base64URL.encode(Data(header.jsonText.utf8)) + "." + Base64URL.encode(Data(payload.jsonText.utf8))
        let signature = try key.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    /// Splits and decodes a compact JWS without checking its signature. Nil when malformed.
    public static func parse(_ token: String) -> Parsed? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            case .object(let header)? = try? JSONDecoder().decode(JSONValue.self, from: headerData),
            case .object(let payload)? = try? JSONDecoder().decode(JSONValue.self, from: payloadData)
        else { return nil }
        let input = token[token.startIndex..<token.index(token.startIndex, offsetBy: parts[0].count + 1 + parts[1].count)]
        return Parsed(header: header, payload: payload, signingInput: input, signature: signature)
    }

    /// Whether `parsed` carries a valid RS256 signature by `key`.
    public static func verifyRS256(_ parsed: Parsed, key: _RSA.Signing.PublicKey) -> Bool {
        let digest = SHA256.hash(data: Data(parsed.signingInput.utf8))
        return key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: parsed.signature), for: digest, padding: .insecurePKCS1v1_5)
    }
}
