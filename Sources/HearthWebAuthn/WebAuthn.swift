import Crypto
import HearthCore

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
        try ClientData(clientDataJSON).challenge
    }

    /// WebAuthn L3 §7.1: type "webauthn.create", challenge == expectedChallenge, origin ∈ rp.origins, crossOrigin
    /// not true, rpIdHash == SHA-256(rp.id), UP and UV set, AT set, alg ∈ {-7,-257,-8} and matching the key,
    /// attestation "none" (empty attStmt) or "packed" (self, or x5c checked per §8.2.1, no trust chain).
    public static func verifyRegistration(
        clientDataJSON: [UInt8], attestationObject: [UInt8], expectedChallenge: [UInt8], relyingParty: RelyingParty
    ) throws(WebAuthnFailure) -> VerifiedRegistration {
        try ClientData(clientDataJSON).check(
            type: "webauthn.create", challenge: expectedChallenge, relyingParty: relyingParty)
        let attestation = try AttestationObject(attestationObject)
        let authData = try AuthenticatorData(attestation.authenticatorDataBytes)
        try checkCommon(authData, relyingParty: relyingParty)
        guard let credential = authData.attestedCredential else { throw .invalid("AT flag not set") }
        let key = try COSEKey(credential.publicKey)
        try attestation.verifyStatement(
            credential: key, aaguid: credential.aaguid, clientDataHash: Array(SHA256.hash(data: clientDataJSON)))
        return VerifiedRegistration(
            credentialID: credential.credentialID, publicKey: credential.publicKeyBytes,
            algorithm: key.algorithm.rawValue, signCount: authData.signCount,
            backupEligible: authData.flags.contains(.backupEligible), backedUp: authData.flags.contains(.backedUp),
            aaguid: credential.aaguid, attestationFormat: attestation.format)
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
        try ClientData(clientDataJSON).check(
            type: "webauthn.get", challenge: expectedChallenge, relyingParty: relyingParty)
        let authData = try AuthenticatorData(authenticatorData)
        try checkCommon(authData, relyingParty: relyingParty)
        let key = try COSEKey.stored(credentialPublicKey)
        guard key.isValidSignature(signature, for: authenticatorData + Array(SHA256.hash(data: clientDataJSON))) else {
            throw .invalid("assertion signature is not valid")
        }
        let backupEligible = authData.flags.contains(.backupEligible)
        try checkCounter(presented: authData.signCount, stored: storedSignCount, backupEligible: backupEligible)
        return VerifiedAssertion(
            signCount: authData.signCount, backupEligible: backupEligible, backedUp: authData.flags.contains(.backedUp))
    }

    /// §7.1 steps 14-17, §7.2 steps 15-17: the RP id this server serves, a present and verified user. Hearth asks
    /// for user verification in every ceremony (passkeys are the only factor), so UV is required, not preferred.
    private static func checkCommon(_ authData: AuthenticatorData, relyingParty: RelyingParty) throws(WebAuthnFailure) {
        guard authData.rpIDHash == Array(SHA256.hash(data: Array(relyingParty.id.utf8))) else {
            throw .invalid("rpIdHash is not SHA-256 of \(relyingParty.id)")
        }
        guard authData.flags.contains(.userPresent) else { throw .invalid("UP flag not set") }
        guard authData.flags.contains(.userVerified) else { throw .invalid("UV flag not set") }
    }

    /// §7.2 step 22, relaxed for synced passkeys: their counters are per device (or always 0), so a counter that does
    /// not increase proves nothing about a backup-eligible credential. On a device-bound one it suggests a clone.
    static func checkCounter(presented: UInt32, stored: UInt32, backupEligible: Bool) throws(WebAuthnFailure) {
        guard !backupEligible, presented != 0 || stored != 0, presented <= stored else { return }
        throw WebAuthnFailure(.possibleClone, "signCount \(presented) after \(stored) on a device-bound credential")
    }
}
