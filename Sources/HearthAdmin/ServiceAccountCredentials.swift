import CryptoExtras
import Foundation
import HearthCore

/// A service-account JSON file, as `hearth service-accounts create` writes it (Google's format).
public struct ServiceAccountCredentials: Sendable {
    public let projectID: String
    public let clientEmail: String
    public let privateKeyID: String
    public let privateKey: _RSA.Signing.PrivateKey
    /// Hearth's OAuth 2.0 token endpoint.
    public let tokenURI: URL

    public init(json data: Data) throws {
        guard case .object(let o) = try JSONValue.parse([UInt8](data)),
            o["type"]?.stringValue == "service_account",
            let project = o["project_id"]?.stringValue, let email = o["client_email"]?.stringValue,
            let keyID = o["private_key_id"]?.stringValue, let pem = o["private_key"]?.stringValue,
            let tokenURI = o["token_uri"]?.stringValue.flatMap(URL.init(string:))
        else {
            throw HearthAdminError.invalidCredentials(
                "expected a service-account JSON file with project_id, client_email, private_key_id, private_key, token_uri"
            )
        }
        projectID = project
        clientEmail = email
        privateKeyID = keyID
        privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        self.tokenURI = tokenURI
    }

    public init(contentsOf url: URL) throws {
        try self.init(json: try Data(contentsOf: url))
    }

    /// An RS256 JWT signed with this key, `kid` its id.
    func sign(_ claims: [String: JSONValue]) throws -> String {
        let header: JSONValue = ["alg": "RS256", "typ": "JWT", "kid": .string(privateKeyID)]
        let input = Base64URL.encode(header.jsonBytes) + "." + Base64URL.encode(JSONValue.object(claims).jsonBytes)
        let signature = try privateKey.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}
