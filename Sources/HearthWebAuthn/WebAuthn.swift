/// The relying party a ceremony is checked against: its id (whose SHA-256 the authenticator signs) and the origins
/// whose clientDataJSON is accepted.
public struct RelyingParty: Sendable, Equatable {
    /// The RP id, e.g. "example.com" or "localhost".
    public var id: String
    /// expectedOrigins: "https://…", "http://localhost…", "android:apk-key-hash:…", compared exactly.
    public var origins: [String]

    public init(id: String, origins: [String]) {
        self.id = id
        self.origins = origins
    }
}

/// Why a ceremony was refused. `reason` is for logs only, never sent to the client.
public struct WebAuthnFailure: Error, Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case invalidResponse, possibleClone }
    public var kind: Kind
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    static func invalid(_ reason: String) -> WebAuthnFailure { WebAuthnFailure(.invalidResponse, reason) }
}

/// A registration that passed every check of WebAuthn L3 §7.1.
public struct VerifiedRegistration: Sendable, Equatable {
    public var credentialID: [UInt8]
    /// The credential's COSE_Key bytes, as they appeared in authenticatorData.
    public var publicKey: [UInt8]
    /// COSE alg: -7 ES256, -257 RS256, -8 EdDSA.
    public var algorithm: Int
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool
    /// 16 bytes.
    public var aaguid: [UInt8]
    /// "none" or "packed".
    public var attestationFormat: String

    public init(
        credentialID: [UInt8], publicKey: [UInt8], algorithm: Int, signCount: UInt32, backupEligible: Bool,
        backedUp: Bool, aaguid: [UInt8], attestationFormat: String
    ) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
    }
}

/// An assertion that passed every check of WebAuthn L3 §7.2 and the counter rule.
public struct VerifiedAssertion: Sendable, Equatable {
    public var signCount: UInt32
    public var backupEligible: Bool
    public var backedUp: Bool

    public init(signCount: UInt32, backupEligible: Bool, backedUp: Bool) {
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
    }
}

/// The relying party's two ceremonies, bytes in and verified facts out.
public enum WebAuthn {
    /// The challenge bytes a clientDataJSON answers (its `challenge`, base64url), read before verification so the
    /// caller can find and claim its stored challenge. Throws .invalidResponse on malformed JSON or challenge.
    public static func challenge(inClientDataJSON clientDataJSON: [UInt8]) throws(WebAuthnFailure) -> [UInt8] {
        throw .invalid("not implemented")
    }

    /// WebAuthn L3 §7.1: type "webauthn.create", challenge == expectedChallenge, origin ∈ rp.origins, crossOrigin
    /// not true, rpIdHash == SHA-256(rp.id), UP and UV set, AT set, alg ∈ {-7,-257,-8} and matching the key,
    /// attestation "none" (empty attStmt) or "packed" (self, or x5c checked per §8.2.1, no trust chain).
    public static func verifyRegistration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], expectedChallenge: [UInt8], relyingParty: RelyingParty
    ) throws(WebAuthnFailure) -> VerifiedRegistration {
        throw .invalid("not implemented")
    }

    /// §7.2: type "webauthn.get", challenge, origin, crossOrigin, rpIdHash, UP and UV, the signature over
    /// authenticatorData ‖ SHA-256(clientDataJSON) by `credentialPublicKey` (COSE_Key bytes as stored), and the
    /// counter rule: a counter that does not increase (presented ≤ stored, with either non-zero) on a credential that
    /// is NOT backup-eligible throws .possibleClone; backup-eligible (synced) credentials, and counters that stay 0,
    /// pass; BE/BS changes between uses are accepted.
    public static func verifyAssertion(
        clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], expectedChallenge: [UInt8],
        relyingParty: RelyingParty, credentialPublicKey: [UInt8], storedSignCount: UInt32
    ) throws(WebAuthnFailure) -> VerifiedAssertion {
        throw .invalid("not implemented")
    }
}
