import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthStore

/// A new service-account key in Google's JSON credential format, as `hearth service-accounts create` writes it.
/// The private key leaves Hearth only in this JSON; the store keeps the public key.
public struct ServiceAccountCredential: Sendable {
    public var key: ServiceAccountKey
    /// The file's content: `type`, `project_id`, `private_key_id`, `private_key`, `client_email`, `token_uri`, …
    public var json: JSONValue

    /// Generates an RSA-2048 key for `projectID`. `tokenURI` is Hearth's OAuth2 token endpoint as clients reach it.
    public static func generate(
        projectID: String, tokenURI: String, name: String? = nil, random: SecureRandom, now: Date
    )
        throws -> ServiceAccountCredential
    {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyID = random.bytes(20).map { String(format: "%02x", $0) }.joined()
        let account = name ?? "hearth-admin-\(random.alphanumeric(6).lowercased())"
        let email = "\(account)@\(projectID).iam.hearth.local"
        // Google's client ids are 21 digits.
        let clientID = "1" + random.bytes(20).map { String($0 % 10) }.joined()
        let key = ServiceAccountKey(
            keyID: keyID, projectID: projectID, clientEmail: email,
            publicKey: Array(privateKey.publicKey.derRepresentation),
            createdAt: now)
        let certs = tokenURI.replacingOccurrences(of: "/oauth2/token", with: "/service_accounts/v1/metadata/x509/")
        let json: JSONValue = [
            "type": "service_account",
            "project_id": .string(projectID),
            "private_key_id": .string(keyID),
            "private_key": .string(privateKey.pkcs8PEMRepresentation + "\n"),
            "client_email": .string(email),
            "client_id": .string(clientID),
            "auth_uri": .string(tokenURI.replacingOccurrences(of: "/oauth2/token", with: "/oauth2/auth")),
            "token_uri": .string(tokenURI),
            "auth_provider_x509_cert_url": .string(certs),
            "client_x509_cert_url": .string(certs + email),
            "universe_domain": "googleapis.com",
        ]
        return ServiceAccountCredential(key: key, json: json)
    }
}
