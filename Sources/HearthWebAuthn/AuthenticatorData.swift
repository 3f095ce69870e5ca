/// authenticatorData (WebAuthn L3 §6.1): what the authenticator signs about itself and, at registration, the new
/// credential.
struct AuthenticatorData {
    struct Flags: OptionSet, Sendable {
        let rawValue: UInt8
        static let userPresent = Flags(rawValue: 0x01)
        static let userVerified = Flags(rawValue: 0x04)
        static let backupEligible = Flags(rawValue: 0x08)
        static let backedUp = Flags(rawValue: 0x10)
        static let attestedCredentialData = Flags(rawValue: 0x40)
        static let extensionData = Flags(rawValue: 0x80)
    }

    /// §6.5.1: the credential an authenticator created.
    struct AttestedCredential {
        var aaguid: [UInt8]
        var credentialID: [UInt8]
        /// The COSE_Key's bytes exactly as they appear, so the stored key is what was attested.
        var publicKeyBytes: [UInt8]
        var publicKey: CBORValue
    }

    /// §6.5.1: credentialIdLength above this is refused.
    static let maxCredentialIDLength = 1023

    var rpIDHash: [UInt8]
    var flags: Flags
    var signCount: UInt32
    var attestedCredential: AttestedCredential?

    init(_ bytes: [UInt8]) throws(WebAuthnFailure) {
        guard bytes.count >= 37 else { throw .invalid("authenticatorData shorter than 37 bytes") }
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        // §6.3.3: a credential that cannot be backed up cannot have been.
        if flags.contains(.backedUp) && !flags.contains(.backupEligible) {
            throw .invalid("BS set without BE")
        }
        var position = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count - position >= 18 else { throw .invalid("attested credential data truncated") }
            let aaguid = Array(bytes[position..<position + 16])
            let idLength = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard idLength <= Self.maxCredentialIDLength else { throw .invalid("credential id over 1023 bytes") }
            guard bytes.count - position >= idLength else { throw .invalid("credential id past the end") }
            let credentialID = Array(bytes[position..<position + idLength])
            position += idLength
            var decoder = CBORDecoder(bytes, at: position)
            let key: CBORValue
            do { key = try decoder.decodeItem() } catch { throw .invalid("credential key: \(error.reason)") }
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyBytes: Array(bytes[position..<decoder.position]),
                publicKey: key)
            position = decoder.position
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            var decoder = CBORDecoder(bytes, at: position)
            let extensions: CBORValue
            do { extensions = try decoder.decodeItem() } catch { throw .invalid("extensions: \(error.reason)") }
            guard extensions.mapValue != nil else { throw .invalid("extensions are not a map") }
            position = decoder.position
        }
        guard position == bytes.count else { throw .invalid("trailing bytes in authenticatorData") }
    }
}
