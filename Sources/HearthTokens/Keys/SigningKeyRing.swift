import Crypto
import CryptoExtras
import Foundation
import HearthCore
import HearthStore
import Synchronization
import X509

/// The RS256 keys that sign ID tokens, loaded from the store and shared by every server process.
///
/// A key is published from the moment it is stored, signs from `activatesAt` (so verifiers that cache
/// the published keys see it before the first token it signs), stops signing at `retiredAt`, and stays
/// published for `publishAfterRetirement` so tokens it signed still verify until they expire.
public final class SigningKeyRing: Sendable {
    public struct Key: Sendable {
        public let kid: String
        public let privateKey: _RSA.Signing.PrivateKey
        public let publicKey: _RSA.Signing.PublicKey
        public let createdAt: Date
        public let activatesAt: Date
        public let retiredAt: Date?
        /// Self-signed X.509 certificate, the form Firebase Admin SDKs read.
        public let certificatePEM: String
        public let jwk: JSONValue
    }

    let store: AuthStore
    /// Also seals other secrets at rest (TOTP shared secrets).
    public let kek: KeyEncryptionKey?
    let clock: AuthClock
    let publishAfterRetirement: TimeInterval
    /// Emulator mode signs nothing with RSA (its tokens are `alg: none`), so the first key, a 2048-bit RSA
    /// generation of about 100 ms, is made only when something asks for a signature (`signer()`).
    let generatesFirstKeyOnDemand: Bool
    private let keys = Mutex<[Key]>([])
    private let unknownKidReloads = UnknownKidReloads()

    public init(
        store: AuthStore, kek: KeyEncryptionKey?, clock: AuthClock, publishAfterRetirement: TimeInterval = 15 * 86400,
        generatesFirstKeyOnDemand: Bool = false
    ) {
        self.store = store
        self.kek = kek
        self.clock = clock
        self.publishAfterRetirement = publishAfterRetirement
        self.generatesFirstKeyOnDemand = generatesFirstKeyOnDemand
    }

    /// Loads the keys from the store, generating the first one on first start (unless it is made on demand).
    public func load() async throws {
        try await load(generatingFirstKey: !generatesFirstKeyOnDemand)
    }

    private func load(generatingFirstKey: Bool) async throws {
        var stored = try await store.signingKeys()
        if stored.isEmpty && generatingFirstKey {
            stored = try await store.insertFirstSigningKey(try generate(activatesAt: clock.now()))
        }
        let loaded = try stored.map(decode)
        keys.withLock { $0 = loaded }
    }

    /// The key a token names, reloading the keys first when this process has not loaded `kid`: another process
    /// may have rotated with no lead, and its tokens must verify here at once. Forged kids are kept from driving
    /// the store by `UnknownKidReloads`.
    public func verificationKey(kid: String) async -> Key? {
        if let key = key(kid: kid) { return key }
        guard await unknownKidReloads.mayReload(for: kid) else { return nil }
        let loaded = await unknownKidReloads.reload { [self] in (try? await load()) != nil }
        if let key = key(kid: kid) { return key }
        // A reload that failed (the store unreachable) proves nothing about the kid.
        if loaded { await unknownKidReloads.recordMiss(kid) }
        return nil
    }

    /// The key that signs tokens now: the newest active one.
    public func currentSigner() throws -> Key {
        let now = clock.now()
        let all = keys.withLock { $0 }
        let active = all.filter { $0.activatesAt <= now && ($0.retiredAt.map { now < $0 } ?? true) }
        if let newest = active.max(by: { $0.activatesAt < $1.activatesAt }) { return newest }
        // Every key retired or pending: keep signing with the newest rather than fail closed.
        if let newest = all.max(by: { $0.activatesAt < $1.activatesAt }) { return newest }
        throw KeyRingError.noActiveKey
    }

    /// The current signer, generating the first key now if the ring makes it on demand and has none yet.
    public func signer() async throws -> Key {
        if let key = try? currentSigner() { return key }
        try await load(generatingFirstKey: true)
        return try currentSigner()
    }

    /// Seconds since the signing key became active (for the operator's key-age metric); nil without keys.
    public func currentKeyAge(now: Date) -> Double? {
        (try? currentSigner()).map { now.timeIntervalSince($0.activatesAt) }
    }

    public func key(kid: String) -> Key? {
        keys.withLock { $0.first { $0.kid == kid } }
    }

    /// Keys a verifier should accept now.
    public func publishedKeys() -> [Key] {
        let now = clock.now()
        return keys.withLock { $0 }.filter { key in
            guard let retired = key.retiredAt else { return true }
            return now < retired.addingTimeInterval(publishAfterRetirement)
        }
    }

    /// `{kid: PEM certificate}`, Google's x509 format.
    public func x509JSON() -> String {
        var map: [String: JSONValue] = [:]
        for key in publishedKeys() { map[key.kid] = .string(key.certificatePEM) }
        return JSONValue.object(map).jsonText
    }

    /// RFC 7517 JWK set.
    public func jwksJSON() -> String {
        JSONValue.object(["keys": .array(publishedKeys().map(\.jwk))]).jsonText
    }

    /// Adds a new key that starts signing after `lead` seconds and retires the current signer then.
    /// Returns the new key's kid.
    @discardableResult
    public func rotate(lead: TimeInterval) async throws -> String {
        try await load()
        let activation = clock.now().addingTimeInterval(lead)
        let fresh = try generate(activatesAt: activation)
        try await store.insertSigningKey(fresh)
        for key in keys.withLock({ $0 }) where key.retiredAt == nil {
            try await store.retireSigningKey(kid: key.kid, at: activation)
        }
        // Keys whose publication has ended are of no use to anyone.
        let cutoff = clock.now().addingTimeInterval(-publishAfterRetirement)
        for key in keys.withLock({ $0 }) where (key.retiredAt.map { $0 < cutoff } ?? false) {
            try await store.deleteSigningKey(kid: key.kid)
        }
        try await load()
        return fresh.kid
    }

    // MARK: - Key material

    func generate(activatesAt: Date) throws -> StoredSigningKey {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let der = Array(key.pkcs8DERRepresentation)
        let kid = SecureRandom.system.bytes(20).map { String(format: "%02x", $0) }.joined()
        return StoredSigningKey(
            kid: kid, algorithm: "RS256", privateKey: try kek?.seal(der) ?? der, encrypted: kek != nil,
            createdAt: clock.now(), activatesAt: activatesAt)
    }

    func decode(_ stored: StoredSigningKey) throws -> Key {
        var der = stored.privateKey
        if stored.encrypted {
            guard let kek else { throw KeyRingError.encryptedKeyWithoutKEK(kid: stored.kid) }
            do { der = try kek.open(der) } catch { throw KeyRingError.undecryptableKey(kid: stored.kid) }
        }
        let privateKey = try _RSA.Signing.PrivateKey(derRepresentation: der)
        let publicKey = privateKey.publicKey
        let primitives = try publicKey.getKeyPrimitives()
        let jwk: JSONValue = [
            "kty": "RSA", "alg": "RS256", "use": "sig", "kid": .string(stored.kid),
            "n": .string(Base64URL.encode(primitives.modulus)),
            "e": .string(Base64URL.encode(primitives.publicExponent)),
        ]
        return Key(
            kid: stored.kid, privateKey: privateKey, publicKey: publicKey, createdAt: stored.createdAt,
            activatesAt: stored.activatesAt, retiredAt: stored.retiredAt,
            certificatePEM: try Self.selfSignedCertificate(
                for: privateKey, kid: stored.kid, createdAt: stored.createdAt),
            jwk: jwk)
    }

    /// A certificate derived only from the key, kid and creation time, so every process publishes the same bytes.
    static func selfSignedCertificate(for key: _RSA.Signing.PrivateKey, kid: String, createdAt: Date) throws -> String {
        let signingKey = Certificate.PrivateKey(key)
        let name = try DistinguishedName { CommonName("securetoken.system.gserviceaccount.com") }
        let serial = Certificate.SerialNumber(
            bytes: Array(SHA256.hash(data: Data(kid.utf8)).prefix(16)).map { $0 & 0x7F })
        let certificate = try Certificate(
            version: .v3, serialNumber: serial, publicKey: signingKey.publicKey,
            notValidBefore: createdAt.addingTimeInterval(-86400),
            notValidAfter: createdAt.addingTimeInterval(10 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions {}, issuerPrivateKey: signingKey)
        return try certificate.serializeAsPEM().pemString + "\n"
    }
}

/// The reloads asked for by tokens whose kid this process has not loaded.
///
/// Each asker is answered by a reload that started after it asked, so a key stored a moment ago is always found;
/// reloads run one at a time and askers arriving meanwhile share the next one. A reload that leaves some kid
/// unknown makes the next one wait until `missInterval` after it, and a kid once looked up in vain is refused
/// without a read (kids are random: a missing one never appears later), so forged kids cost the store at most one
/// read per interval while a genuine new key waits at most that long, never refused.
actor UnknownKidReloads {
    let missInterval: Duration
    /// Forgotten wholesale when full; a forgotten kid costs one more read.
    let maxRememberedMisses: Int
    private var misses: Set<String> = []
    private var quietUntil = ContinuousClock.now
    /// The reload new askers join: queued behind `latest`, not yet reading the store.
    private var queued: Task<Bool, Never>?
    /// The reload that started (or was queued) last.
    private var latest: Task<Bool, Never>?

    init(missInterval: Duration = .seconds(1), maxRememberedMisses: Int = 4096) {
        self.missInterval = missInterval
        self.maxRememberedMisses = maxRememberedMisses
    }

    func mayReload(for kid: String) -> Bool { !misses.contains(kid) }

    /// Returns once a run of `load` that started after this call has finished, with its outcome.
    func reload(_ load: @escaping @Sendable () async -> Bool) async -> Bool {
        if let queued { return await queued.value }
        let previous = latest
        let task = Task {
            _ = await previous?.value
            await self.waitOutQuietPeriod()
            self.started()
            return await load()
        }
        queued = task
        latest = task
        return await task.value
    }

    func recordMiss(_ kid: String) {
        if misses.count >= maxRememberedMisses { misses.removeAll() }
        misses.insert(kid)
        quietUntil = .now + missInterval
    }

    private func waitOutQuietPeriod() async {
        while ContinuousClock.now < quietUntil {
            try? await Task.sleep(until: quietUntil, clock: .continuous)
        }
    }

    /// From here on, new askers queue a reload of their own.
    private func started() { queued = nil }
}
