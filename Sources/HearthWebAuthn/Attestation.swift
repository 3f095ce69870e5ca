import Crypto
import CryptoExtras
import X509

/// The attestation object (WebAuthn L3 §6.5.4): the statement format, the statement, and authenticatorData.
struct AttestationObject {
    var format: String
    var statement: [CBORKey: CBORValue]
    var authenticatorDataBytes: [UInt8]

    init(_ bytes: [UInt8]) throws(WebAuthnFailure) {
        let value: CBORValue
        do { value = try CBORDecoder.decodeWhole(bytes) } catch { throw .invalid("attestationObject: \(error.reason)") }
        guard let format = value["fmt"]?.textValue, let statement = value["attStmt"]?.mapValue,
            let authData = value["authData"]?.bytesValue
        else { throw .invalid("attestationObject lacks fmt, attStmt or authData") }
        self.format = format
        self.statement = statement
        self.authenticatorDataBytes = authData
    }

    /// §7.1 step 21: the statement of a supported format, verified; other formats are refused rather than trusted.
    func verifyStatement(credential: COSEKey, aaguid: [UInt8], clientDataHash: [UInt8]) throws(WebAuthnFailure) {
        switch format {
        case "none":
            guard statement.isEmpty else { throw .invalid("none attestation with a statement") }
        case "packed":
            try verifyPacked(
                credential: credential, aaguid: aaguid, signedData: authenticatorDataBytes + clientDataHash)
        default:
            throw .invalid("attestation format \(format) is not supported")
        }
    }

    /// §8.2: `alg` and `sig`, and either `x5c` (signed by the leaf, checked per §8.2.1; no trust chain, as Hearth
    /// keeps no metadata service) or nothing more (self attestation: signed by the credential key itself).
    private func verifyPacked(credential: COSEKey, aaguid: [UInt8], signedData: [UInt8]) throws(WebAuthnFailure) {
        guard let rawAlg = statement["alg"]?.integerValue, let signature = statement["sig"]?.bytesValue else {
            throw .invalid("packed statement lacks alg or sig")
        }
        guard statement["ecdaaKeyId"] == nil else { throw .invalid("ECDAA is not supported") }
        guard let x5c = statement["x5c"] else {
            guard rawAlg == Int64(credential.algorithm.rawValue) else {
                throw .invalid("self attestation alg \(rawAlg) differs from the credential's")
            }
            guard credential.isValidSignature(signature, for: signedData) else {
                throw .invalid("self attestation signature is not valid")
            }
            return
        }
        guard let chain = x5c.arrayValue, let leafBytes = chain.first?.bytesValue,
            chain.allSatisfy({ $0.bytesValue != nil })
        else { throw .invalid("x5c is not an array of certificates") }
        guard let algorithm = COSEKey.Algorithm(rawValue: Int(rawAlg)) else {
            throw .invalid("attestation alg \(rawAlg) is not allowed")
        }
        let leaf: Certificate
        do { leaf = try Certificate(derEncoded: leafBytes) } catch { throw .invalid("x5c leaf is not a certificate") }
        let key: COSEKey.PublicKey
        switch algorithm {
        case .es256:
            guard let k = P256.Signing.PublicKey(leaf.publicKey) else { throw .invalid("leaf key is not P-256") }
            key = .p256(k)
        case .rs256:
            guard let k = _RSA.Signing.PublicKey(leaf.publicKey) else { throw .invalid("leaf key is not RSA") }
            key = .rsa(k)
        case .edDSA:
            guard let k = Curve25519.Signing.PublicKey(leaf.publicKey) else {
                throw .invalid("leaf key is not Ed25519")
            }
            key = .ed25519(k)
        }
        guard COSEKey.isValidSignature(signature, for: signedData, by: key) else {
            throw .invalid("x5c attestation signature is not valid")
        }
        try Self.checkPackedLeaf(leaf, aaguid: aaguid)
    }

    /// id-fido-gen-ce-aaguid: the authenticator model a packed attestation certificate vouches for.
    static let aaguidExtensionOID = "1.3.6.1.4.1.45724.1.1.4"

    /// §8.2.1: version 3; subject C, O, OU "Authenticator Attestation" and CN; not a CA; the aaguid extension, when
    /// present, not critical and equal to authenticatorData's.
    static func checkPackedLeaf(_ leaf: Certificate, aaguid: [UInt8]) throws(WebAuthnFailure) {
        guard leaf.version == .v3 else { throw .invalid("attestation certificate is not version 3") }
        var subject: [String: [String]] = [:]
        for rdn in leaf.subject {
            for attribute in rdn {
                subject[attribute.type.description, default: []].append(String(attribute.value) ?? "")
            }
        }
        func has(_ type: String, _ check: (String) -> Bool) -> Bool { subject[type]?.contains(where: check) ?? false }
        guard has("2.5.4.6", { $0.count == 2 }), has("2.5.4.10", { !$0.isEmpty }),
            has("2.5.4.11", { $0 == "Authenticator Attestation" }), has("2.5.4.3", { !$0.isEmpty })
        else { throw .invalid("attestation certificate subject lacks C, O, OU or CN as §8.2.1 requires") }
        let constraints: BasicConstraints?
        do { constraints = try leaf.extensions.basicConstraints } catch {
            throw .invalid("attestation certificate basicConstraints malformed")
        }
        guard constraints == .notCertificateAuthority else {
            throw .invalid("attestation certificate is a CA or lacks basicConstraints")
        }
        if let ext = leaf.extensions.first(where: { $0.oid.description == aaguidExtensionOID }) {
            // An OCTET STRING of 16 bytes inside the extension's value.
            guard !ext.critical, ext.value.count == 18, ext.value.first == 0x04, ext.value.dropFirst().first == 16,
                Array(ext.value.dropFirst(2)) == aaguid
            else { throw .invalid("attestation certificate aaguid differs from authenticatorData's") }
        }
    }
}
