import Crypto
import CryptoExtras
import HearthCore

/// A credential public key (RFC 9052/9053 COSE_Key) of one of the algorithms Hearth accepts, as a swift-crypto key.
struct COSEKey: Sendable {
    /// The COSE algorithms accepted, as WebAuthn's pubKeyCredParams name them.
    enum Algorithm: Int, Sendable, CaseIterable {
        case es256 = -7
        case rs256 = -257
        case edDSA = -8
    }

    enum PublicKey: Sendable {
        case p256(P256.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    let algorithm: Algorithm
    let publicKey: PublicKey

    /// RSA moduli above this are refused: verification cost grows with the size and nothing issues larger keys.
    static let maxRSABits = 4096

    // COSE labels (RFC 9052 §7.1, RFC 9053 §7) and values.
    private static let kty: CBORKey = 1
    private static let alg: CBORKey = 3
    private static let crv: CBORKey = -1
    private static let x: CBORKey = -2
    private static let y: CBORKey = -3
    private static let n: CBORKey = -1
    private static let e: CBORKey = -2

    /// The key stored as `bytes`, decoded once per process: a passkey signs in again and again, and decoding it and
    /// checking its point cost ~15 µs each time (the verification itself ~100). Bounded: emptied when full.
    static func stored(_ bytes: [UInt8]) throws(WebAuthnFailure) -> COSEKey {
        if let key = decoded[bytes] { return key }
        let key = try COSEKey(bytes: bytes)
        decoded.insert(key, for: bytes)
        return key
    }

    private static let decoded = BoundedTable<[UInt8], COSEKey>(capacity: 4096)

    /// The key whose COSE_Key encoding is exactly `bytes` (as stored after registration).
    init(bytes: [UInt8]) throws(WebAuthnFailure) {
        let value: CBORValue
        do { value = try CBORDecoder.decodeWhole(bytes) } catch { throw .invalid("credential key: \(error.reason)") }
        try self.init(value)
    }

    /// The key a decoded COSE_Key describes; its `alg` must be allowed and agree with its key type and curve.
    init(_ value: CBORValue) throws(WebAuthnFailure) {
        guard value.mapValue != nil else { throw .invalid("credential key is not a map") }
        guard let rawAlg = value[Self.alg]?.integerValue, let algorithm = Algorithm(rawValue: Int(rawAlg)) else {
            throw .invalid("credential key algorithm \(value[Self.alg].map { "\($0)" } ?? "missing") is not allowed")
        }
        let kty = value[Self.kty]?.integerValue
        self.algorithm = algorithm
        switch algorithm {
        case .es256:
            guard kty == 2, value[Self.crv]?.integerValue == 1 else { throw .invalid("ES256 key is not EC2 P-256") }
            guard let x = value[Self.x]?.bytesValue, let y = value[Self.y]?.bytesValue, x.count == 32, y.count == 32
            else { throw .invalid("EC2 coordinates are not 32 bytes") }
            do { publicKey = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)) } catch {
                throw .invalid("EC2 point is not on P-256")
            }
        case .rs256:
            guard kty == 3 else { throw .invalid("RS256 key is not RSA") }
            guard let n = value[Self.n]?.bytesValue, let e = value[Self.e]?.bytesValue, !e.isEmpty, e.count <= 8 else {
                throw .invalid("RSA key lacks n or e")
            }
            guard n.drop(while: { $0 == 0 }).count * 8 <= Self.maxRSABits else {
                throw .invalid("RSA modulus over \(Self.maxRSABits) bits")
            }
            // swift-crypto refuses moduli under 2048 bits here.
            do { publicKey = .rsa(try _RSA.Signing.PublicKey(n: n, e: e)) } catch {
                throw .invalid("RSA key refused (under 2048 bits or malformed)")
            }
        case .edDSA:
            guard kty == 1, value[Self.crv]?.integerValue == 6 else { throw .invalid("EdDSA key is not OKP Ed25519") }
            guard let x = value[Self.x]?.bytesValue, x.count == 32 else {
                throw .invalid("Ed25519 key is not 32 bytes")
            }
            do { publicKey = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x)) } catch {
                throw .invalid("Ed25519 key refused")
            }
        }
    }

    /// Whether `signature` (as WebAuthn carries it: DER for ECDSA, raw for RSA and EdDSA) signs `data`.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        Self.isValidSignature(signature, for: data, by: publicKey)
    }

    static func isValidSignature(_ signature: [UInt8], for data: [UInt8], by key: PublicKey) -> Bool {
        switch key {
        case .p256(let key):
            guard let der = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(der, for: SHA256.hash(data: data))
        case .rsa(let key):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: data),
                padding: .insecurePKCS1v1_5)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        }
    }
}
