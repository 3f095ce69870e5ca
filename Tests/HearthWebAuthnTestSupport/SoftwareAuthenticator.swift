import Crypto
import CryptoExtras
import Foundation
import HearthCore
import X509

/// A credential key of each algorithm Hearth accepts, with its COSE_Key encoding.
public enum TestCredentialKey {
    case es256(P256.Signing.PrivateKey)
    case rs256(_RSA.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// One RSA key for the whole run: generating one takes a while.
    public static let sharedRSA = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    public var algorithm: Int64 {
        switch self {
        case .es256: -7
        case .rs256: -257
        case .ed25519: -8
        }
    }

    public var cose: CBORItem {
        switch self {
        case .es256(let key):
            let point = Array(key.publicKey.x963Representation)
            return .map([
                (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(Array(point[1..<33]))),
                (.int(-3), .bytes(Array(point[33..<65]))),
            ])
        case .rs256(let key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            return .map([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(primitives.modulus))),
                (.int(-2), .bytes(Array(primitives.publicExponent))),
            ])
        case .ed25519(let key):
            return .map([
                (.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)),
                (.int(-2), .bytes(Array(key.publicKey.rawRepresentation))),
            ])
        }
    }

    public func sign(_ data: [UInt8]) -> [UInt8] {
        switch self {
        case .es256(let key): Array(try! key.signature(for: data).derRepresentation)
        case .rs256(let key): Array(try! key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        case .ed25519(let key): Array(try! key.signature(for: data))
        }
    }
}

/// A WebAuthn authenticator in software, with every field the verifier checks open to tampering.
public struct SoftwareAuthenticator {
    public enum Attestation {
        case none
        case packedSelf
        /// Signed by `key`, whose certificate is `certificate` (DER).
        case packedX5C(key: TestCredentialKey, certificate: [UInt8])
    }

    public static let upFlag: UInt8 = 0x01
    public static let uvFlag: UInt8 = 0x04
    public static let beFlag: UInt8 = 0x08
    public static let bsFlag: UInt8 = 0x10
    public static let atFlag: UInt8 = 0x40
    public static let edFlag: UInt8 = 0x80

    public var key: TestCredentialKey
    public var credentialID: [UInt8] = Array((0..<32).map { UInt8($0) })
    public var aaguid: [UInt8] = Array(repeating: 0xAA, count: 16)

    public init(key: TestCredentialKey) { self.key = key }

    public static func clientData(
        type: String, challenge: [UInt8], origin: String = "https://example.com", crossOrigin: Bool? = nil,
        challengeText: String? = nil
    ) -> [UInt8] {
        var members: [String: JSONValue] = [
            "type": .string(type), "challenge": .string(challengeText ?? Base64URL.encode(challenge)),
            "origin": .string(origin),
        ]
        if let crossOrigin { members["crossOrigin"] = .bool(crossOrigin) }
        return JSONValue.object(members).jsonBytes
    }

    public func authenticatorData(
        rpID: String = "example.com", flags: UInt8, signCount: UInt32 = 0, attested: Bool, coseKey: CBORItem? = nil,
        extensions: CBORItem? = nil
    ) -> [UInt8] {
        var out = Array(SHA256.hash(data: Array(rpID.utf8)))
        out.append(flags)
        out += (0..<4).reversed().map { UInt8(truncatingIfNeeded: signCount >> ($0 * 8)) }
        if attested {
            out += aaguid
            out += [UInt8(credentialID.count >> 8), UInt8(credentialID.count & 0xFF)] + credentialID
            out += (coseKey ?? key.cose).encoded
        }
        if let extensions { out += extensions.encoded }
        return out
    }

    /// An attestation object over `authData` for `clientDataJSON`.
    public func attestationObject(
        authData: [UInt8], clientDataJSON: [UInt8], attestation: Attestation = .none, statementAlg: Int64? = nil
    ) -> [UInt8] {
        let signed = authData + Array(SHA256.hash(data: clientDataJSON))
        let (fmt, statement): (String, [(CBORItem, CBORItem)])
        switch attestation {
        case .none: (fmt, statement) = ("none", [])
        case .packedSelf:
            (fmt, statement) = (
                "packed",
                [(.text("alg"), .int(statementAlg ?? key.algorithm)), (.text("sig"), .bytes(key.sign(signed)))]
            )
        case .packedX5C(let attestationKey, let certificate):
            (fmt, statement) = (
                "packed",
                [
                    (.text("alg"), .int(statementAlg ?? attestationKey.algorithm)),
                    (.text("sig"), .bytes(attestationKey.sign(signed))),
                    (.text("x5c"), .array([.bytes(certificate)])),
                ]
            )
        }
        return CBORItem.map([
            (.text("fmt"), .text(fmt)), (.text("attStmt"), .map(statement)), (.text("authData"), .bytes(authData)),
        ])
        .encoded
    }

    /// A packed attestation certificate for `key`, self-issued, with the §8.2.1 fields unless told otherwise.
    public static func attestationCertificate(
        for key: TestCredentialKey, organizationalUnit: String = "Authenticator Attestation",
        certificateAuthority: Bool = false, aaguid: [UInt8]? = nil
    ) throws -> [UInt8] {
        let subject = try DistinguishedName {
            CountryName("US")
            OrganizationName("Hearth Test Authenticators")
            OrganizationalUnitName(organizationalUnit)
            CommonName("Hearth Test Attestation")
        }
        var extensions = try Certificate.Extensions {
            Critical(
                certificateAuthority
                    ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority)
        }
        if let aaguid {
            try extensions.append(
                Certificate.Extension(
                    oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: [0x04, 0x10] + aaguid[...]))
        }
        let (publicKey, privateKey, algorithm):
            (Certificate.PublicKey, Certificate.PrivateKey, Certificate.SignatureAlgorithm) =
                switch key {
                case .es256(let k): (.init(k.publicKey), .init(k), .ecdsaWithSHA256)
                case .rs256(let k): (.init(k.publicKey), .init(k), .sha256WithRSAEncryption)
                case .ed25519(let k): (.init(k.publicKey), .init(k), .ed25519)
                }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey,
            notValidBefore: Date().addingTimeInterval(-3600), notValidAfter: Date().addingTimeInterval(3600),
            issuer: subject, subject: subject, signatureAlgorithm: algorithm, extensions: extensions,
            issuerPrivateKey: privateKey)
        return try certificate.serializeAsPEM().derBytes
    }
}
