import Crypto
import CryptoExtras
import Foundation
import HearthCore
import X509

/// What `accounts:signInWithGameCenter` carries: GameKit's identity-verification signature.
public struct GameCenterCredential: Sendable {
    public var publicKeyURL: String
    public var signature: [UInt8]
    public var salt: [UInt8]
    /// Milliseconds since 1970, when GameKit signed.
    public var timestamp: UInt64
    public var teamPlayerID: String
    public var gamePlayerID: String?
    public var displayName: String?

    public init(
        publicKeyURL: String, signature: [UInt8], salt: [UInt8], timestamp: UInt64, teamPlayerID: String,
        gamePlayerID: String?, displayName: String?
    ) {
        self.publicKeyURL = publicKeyURL
        self.signature = signature
        self.salt = salt
        self.timestamp = timestamp
        self.teamPlayerID = teamPlayerID
        self.gamePlayerID = gamePlayerID
        self.displayName = displayName
    }

    /// What GameKit signs: the team player id and bundle id (UTF-8), the timestamp (big-endian), the salt.
    func signedBytes(bundleID: String) -> [UInt8] {
        Array(teamPlayerID.utf8) + Array(bundleID.utf8) + withUnsafeBytes(of: timestamp.bigEndian) { Array($0) }
            + salt
    }
}

extension IdentityProviders {
    /// Checks the signature with the certificate at `publicKeyURL` (only from the configured Apple prefixes, and
    /// only a certificate issued to Apple under a trusted root), for one of the games' bundle IDs, no older than
    /// the configured age; the identity is the team player id.
    public func verifyGameCenter(_ credential: GameCenterCredential, settings: GameCenterSettings) async throws
        -> FederatedIdentity
    {
        guard Self.isAllowedKeyURL(credential.publicKeyURL, prefixes: settings.publicKeyUrlPrefixes) else {
            throw AuthError(.invalidIDPResponse, "The Game Center public key URL is not Apple's.")
        }
        let now = clock.now().timeIntervalSince1970
        let signedAt = Double(credential.timestamp) / 1000
        guard signedAt <= now + 60, now - signedAt <= Double(settings.maxSignatureAgeSeconds) else {
            throw AuthError(.invalidIDPResponse, "The Game Center signature has expired.")
        }
        let der = try await http.getBytes(credential.publicKeyURL)
        guard let certificate = try? Certificate(derEncoded: der),
            let key = _RSA.Signing.PublicKey(certificate.publicKey)
        else { throw AuthError(.invalidIDPResponse, "The Game Center public key is not an RSA certificate.") }
        try await gameCenterChain.check(certificate, rootsPEM: settings.trustedRootCertificates)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: credential.signature)
        let signed = settings.bundleIds.contains { bundleID in
            key.isValidSignature(
                signature, for: credential.signedBytes(bundleID: bundleID), padding: .insecurePKCS1v1_5)
        }
        guard signed else { throw AuthError(.invalidIDPResponse, "The Game Center signature does not verify.") }
        return FederatedIdentity(
            providerID: ProviderID.gameCenter, rawID: credential.teamPlayerID, displayName: credential.displayName,
            rawUserInfo: ["teamPlayerId": .string(credential.teamPlayerID)],
            tokenNonce: Base64URL.encode(credential.salt + credential.signature),
            tokenExpiresAt: Date(timeIntervalSince1970: signedAt + Double(settings.maxSignatureAgeSeconds)))
    }

    /// `url` read as a browser reads it (`BrowserURL`: no `\` or `@` tricks), with the scheme, host and port of a
    /// prefix and a path that starts with the prefix's.
    static func isAllowedKeyURL(_ url: String, prefixes: [String]) -> Bool {
        guard let key = BrowserURL(url), key.host != nil, !key.hasCredentials, !key.rest.contains("\\") else {
            return false
        }
        return prefixes.contains { text in
            guard let prefix = BrowserURL(text) else { return false }
            return prefix.scheme == key.scheme && prefix.host == key.host && prefix.port == key.port
                && key.rest.hasPrefix(prefix.rest)
        }
    }
}
