import Foundation
import HearthCore
import Testing

/// Hashes imported from Firebase: every `hashAlgorithm` of its user import, verified against known answers.
@Suite struct ImportedHashTests {
    /// The project parameters published in github.com/firebase/scrypt's README.
    static let firebaseProject = FirebaseScryptParameters(
        signerKey: base64Bytes(
            "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        saltSeparator: base64Bytes("Bw=="), rounds: 8, memoryCost: 14)

    /// The README's own example: user1password, as exported by `firebase auth:export`.
    @Test func firebaseScryptMatchesTheREADMEVector() {
        let hash = PasswordHash.firebaseScrypt(
            Self.firebaseProject, salt: base64Bytes("42xEC+ixf3L2lw=="),
            hash: base64Bytes(
                "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="))
        #expect(hash.verify("user1password"))
        #expect(!hash.verify("user1passwore"))
    }

    /// The vector the Admin SDKs' integration tests import into real Firebase projects ("password", salt "NaCl").
    @Test func firebaseScryptMatchesTheAdminSDKVector() throws {
        let hash = PasswordHash.firebaseScrypt(
            Self.firebaseProject, salt: Array("NaCl".utf8),
            hash: base64Bytes(
                "V358E8LdWJXAO7muq0CufVpEOXaj8aFiC7T/rcaGieN04q/ZPJ08WhJEHGjj9lz/2TT+/86N5VjVoc5DdBhBiw=="))
        #expect(hash.verify("password"))
        let decoded = try #require(PasswordHash(encoded: hash.encoded))
        #expect(decoded == hash)
        #expect(hash.encoded.hasPrefix("$firebase-scrypt$rounds=8,mem=14$TmFDbA$Bw$jxspr8Ki0RYy"))
    }

    /// (stored text, password), generated once with Python's hashlib and hmac following the rules in PasswordHash.swift.
    /// "password"/"NaCl" and "pass123123"/"skeleton" are the inputs of Firebase's own import tests.
    static let knownAnswers: [(String, String)] = [
        (
            "$firebase-standard-scrypt$ln=10,r=8,p=16$TmFDbA$/bq+HJ00cgB4VucZDQHp/nxq18vII3gw53N2Y0s3MWIurzDZLiKjiG/xCSedmDDaxyevuUqD7m2DYMvfoswGQA",
            "password"
        ),
        (
            "$firebase-standard-scrypt$ln=4,r=1,p=1$AAECAwQFBgcICQoLDA0ODw$GImgYqZBp+6CyTBan5R5E2D0OV9K8vsB41xdKb8+3xQ",
            "correct horse"
        ),
        ("$firebase-pbkdf-sha1$rounds=1000$TmFDbA$lyyzCFlAUpkzVJDKKPSl1PyJGrk", "password"),
        (
            "$firebase-pbkdf2-sha256$rounds=10000$TmFDbA$5yZRhcIGnnrNS7ATB7zj9LUEXAGDveM2SRZOsE0LAov1tVKXvLBFi1Hf+Hs1Xe2itcMxECWSXt35m+h1I1diEA",
            "password"
        ),
        ("$firebase-pbkdf2-sha256$rounds=1$$984LZT0tcqQQjPWr6RL/3Xd2Ftu7J6cOggTzri0Pb60", ""),
        ("$firebase-hmac-md5$order=password-first$c2VjcmV0$TmFDbA$4tZGVrzeu9LZ9eWZ03FrLg", "password"),
        ("$firebase-hmac-sha1$order=password-first$c2VjcmV0$TmFDbA$tSjltw8SZxad1AY6k8wDYCwUeyI", "password"),
        (
            "$firebase-hmac-sha256$order=password-first$c2tlbGV0b24$TmFDbA$oXs1MuIxxUPdVep3uVmTVENj9y2bWX4dMIh186cHpRE",
            "pass123123"
        ),
        (
            "$firebase-hmac-sha512$order=salt-first$AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8$AP9zYWx0$lUmEyDbS0FPu+FXdCNzyiWaG8iLppsqdpQCC8414+nhofSTA3wwJwR4GcBIq2vsSMj0cUyMlrHaO1oHSm0t/hw",
            "pässwörd"
        ),
        ("$firebase-md5$rounds=0,order=salt-first$TmFDbA$NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ", "password"),
        ("$firebase-md5$rounds=2,order=password-first$cXdlcnR5$NDJhZmJjYjg2MGNmNzFiMzVlMmJjNDI4OTJlMmYxOGE", "tester5"),
        ("$firebase-sha1$rounds=1,order=salt-first$TmFDbA$3QKL7IT9CerzdT6JSZByrjBAa5Y", "pass123123"),
        ("$firebase-sha256$rounds=1,order=salt-first$TmFDbA$sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM", "password"),
        (
            "$firebase-sha256$rounds=3,order=password-first$AAECAwQFBgc$uasc4yYD16Hq+PRuLCxSFMCefNx+g6C0hr72XhHD3cc",
            "pässwörd"
        ),
        (
            "$firebase-sha512$rounds=20,order=salt-first$TmFDbA$ZC2kCegsUI7BigEijsk7zG9EESs7Yl4MoWC9qF2tXSqDBgDANXZcEyD7hpn4fA1BPZM0tqRezv6jbdjrtT7RsA",
            "password"
        ),
    ]

    @Test(arguments: knownAnswers)
    func knownAnswerVerifiesOnlyItsPassword(text: String, password: String) throws {
        let hash = try #require(PasswordHash(encoded: text))
        #expect(hash.verify(password))
        #expect(!hash.verify(password + "1"))
        #expect(!hash.verify("x" + password.dropFirst()))
        #expect(hash.encoded == text)
    }

    @Test func pbkdf2TakesZeroRoundsAsOne() throws {
        // PBKDF2-HMAC-SHA1("password", "NaCl", 1 round, 20 bytes).
        let hash = try #require(
            PasswordHash(encoded: "$firebase-pbkdf-sha1$rounds=0$TmFDbA$AkKtb2q2LHRnQ9RU9b58JNqHKqI"))
        #expect(hash.verify("password"))
    }

    @Test func md5IsComparedAsLowerCaseHex() {
        // Firebase's MD5 test stores Buffer.from(md5(salt + password).digest('hex')); the raw digest is not that.
        let salt = Array("NaCl".utf8)
        let lower = PasswordHash.digest(
            .md5, rounds: 0, order: .saltFirst, salt: salt, hash: Array("62d19f7e7ddcb5946728776d25e410ed".utf8))
        let upper = PasswordHash.digest(
            .md5, rounds: 0, order: .saltFirst, salt: salt, hash: Array("62D19F7E7DDCB5946728776D25E410ED".utf8))
        #expect(lower.verify("password"))
        #expect(!upper.verify("password"))
    }

    @Test func saltOrderMatters() throws {
        let saltFirst = try #require(
            PasswordHash(
                encoded: "$firebase-sha256$rounds=1,order=salt-first$TmFDbA$sgq3SqJUn34ToOiGy0RxzC5w/NLOgHXA7mSDq7phMvM"
            ))
        guard case .digest(let digest, let rounds, _, let salt, let hash) = saltFirst else {
            Issue.record("decoded as \(saltFirst)")
            return
        }
        #expect(
            !PasswordHash.digest(digest, rounds: rounds, order: .passwordFirst, salt: salt, hash: hash).verify(
                "password"))
    }

    /// Every imported scheme, at the edges of Firebase's ranges, with empty salts and separators where allowed.
    static let edges: [PasswordHash] = [
        .firebaseScrypt(
            FirebaseScryptParameters(signerKey: [1], saltSeparator: [], rounds: 1, memoryCost: 1), salt: [], hash: [2]),
        .firebaseScrypt(
            FirebaseScryptParameters(signerKey: [1, 2], saltSeparator: [3], rounds: 8, memoryCost: 14), salt: [4],
            hash: [5, 6]),
        .standardScrypt(ScryptParameters(logN: 1, r: 1, p: 1), salt: [], hash: [1]),
        .standardScrypt(ScryptParameters(logN: 20, r: 8, p: 16), salt: [1], hash: [UInt8](repeating: 7, count: 1024)),
        .pbkdf2(.sha1, rounds: 0, salt: [], hash: [1]),
        .pbkdf2(.sha256, rounds: 120_000, salt: [1], hash: [UInt8](repeating: 1, count: 64)),
        .hmac(.md5, key: [0], order: .saltFirst, salt: [], hash: [UInt8](repeating: 0, count: 16)),
        .hmac(.sha512, key: [1, 2, 3], order: .passwordFirst, salt: [4], hash: [UInt8](repeating: 0, count: 64)),
        .digest(.md5, rounds: 0, order: .saltFirst, salt: [], hash: [UInt8](repeating: 0x61, count: 32)),
        .digest(.md5, rounds: 8192, order: .passwordFirst, salt: [1], hash: [UInt8](repeating: 0x61, count: 32)),
        .digest(.sha1, rounds: 1, order: .saltFirst, salt: [1], hash: [UInt8](repeating: 0, count: 20)),
        .digest(.sha512, rounds: 8192, order: .passwordFirst, salt: [1], hash: [UInt8](repeating: 0, count: 64)),
    ]

    @Test(arguments: edges)
    func encodingRoundTripsExactly(hash: PasswordHash) throws {
        #expect(hash.isValid)
        let decoded = try #require(PasswordHash(encoded: hash.encoded))
        #expect(decoded == hash)
        #expect(decoded.encoded == hash.encoded)
    }

    @Test(arguments: edges)
    func everyImportedHashIsUpgraded(hash: PasswordHash) {
        #expect(hash.needsUpgrade(to: .default))
    }

    @Test(arguments: [
        // Outside Firebase's ranges.
        "$firebase-scrypt$rounds=0,mem=14$AA$Bw$AQ$Ag", "$firebase-scrypt$rounds=9,mem=14$AA$Bw$AQ$Ag",
        "$firebase-scrypt$rounds=8,mem=0$AA$Bw$AQ$Ag", "$firebase-scrypt$rounds=8,mem=15$AA$Bw$AQ$Ag",
        "$firebase-pbkdf-sha1$rounds=-1$AA$AQ", "$firebase-pbkdf2-sha256$rounds=120001$AA$AQ",
        "$firebase-md5$rounds=8193,order=salt-first$AA$YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE",
        "$firebase-sha1$rounds=0,order=salt-first$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$firebase-sha256$rounds=8193,order=salt-first$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        // Outside Hearth's bounds for standard scrypt: N too large for r, r too large, more than 1 GiB, p too large.
        "$firebase-standard-scrypt$ln=16,r=1,p=1$AA$AQ", "$firebase-standard-scrypt$ln=10,r=17,p=1$AA$AQ",
        "$firebase-standard-scrypt$ln=20,r=16,p=1$AA$AQ", "$firebase-standard-scrypt$ln=10,r=8,p=17$AA$AQ",
        "$firebase-standard-scrypt$ln=0,r=8,p=1$AA$AQ",
        // Lengths the scheme cannot produce: empty signer key or hash, a hash unlike the key or the digest, raw MD5.
        "$firebase-scrypt$rounds=8,mem=14$AA$Bw$$", "$firebase-scrypt$rounds=8,mem=14$AA$Bw$AQ$AgM",
        "$firebase-pbkdf-sha1$rounds=1$AA$",
        "$firebase-hmac-sha256$order=salt-first$$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$firebase-hmac-sha1$order=salt-first$AQ$AA$AAAA",
        "$firebase-md5$rounds=0,order=salt-first$AA$AAAAAAAAAAAAAAAAAAAAAA",
        // Unknown schemes, digests and orders; missing, repeated and extra parameters.
        "$firebase-sha384$rounds=1,order=salt-first$AA$AA", "$firebase-hmac-sha384$order=salt-first$AQ$AA$AA",
        "$firebase-pbkdf-sha256$rounds=1$AA$AQ", "$firebase-sha1$rounds=1,order=both$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$firebase-sha1$rounds=1$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$firebase-sha1$rounds=1,rounds=1$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$firebase-sha1$rounds=1,order=salt-first,x=1$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "$firebase-pbkdf-sha1$rounds=$AA$AQ",
        "$firebase-scrypt$rounds=8$AA$Bw$AQ$Ag", "$md5$rounds=0,order=salt-first$AA$AA",
        // Wrong shapes and bad base64.
        "$firebase-scrypt$rounds=8,mem=14$AA$AQ$Ag", "$firebase-sha1$rounds=1,order=salt-first$AA",
        "$firebase-sha1$rounds=1,order=salt-first$AA$AAAAAAAAAAAAAAAAAAAAAAAAAAA$",
        "$firebase-pbkdf-sha1$rounds=1$A!$AQ",
        "$firebase-pbkdf-sha1$rounds=1$AA$AQAAA", "firebase-pbkdf-sha1$rounds=1$AA$AQ", "$firebase-pbkdf-sha1", "$$$$",
    ])
    func malformedOrOutOfRangeTextDoesNotDecode(text: String) {
        #expect(PasswordHash(encoded: text) == nil)
    }

    /// Hashes built in code can be out of range; they must fail to verify, not crash.
    @Test(arguments: [
        PasswordHash.digest(.sha1, rounds: -3, order: .saltFirst, salt: [], hash: [UInt8](repeating: 0, count: 20)),
        .pbkdf2(.sha256, rounds: -1, salt: [], hash: []),
        .standardScrypt(ScryptParameters(logN: 40, r: 0, p: 0), salt: [], hash: [1]),
        .firebaseScrypt(
            FirebaseScryptParameters(signerKey: [], saltSeparator: [], rounds: 99, memoryCost: 99), salt: [], hash: []),
        .hmac(.sha256, key: [], order: .saltFirst, salt: [], hash: []),
    ])
    func invalidHashesVerifyNothing(hash: PasswordHash) {
        #expect(!hash.isValid)
        #expect(!hash.verify(""))
        #expect(!hash.verify("password"))
    }
}

/// The bytes of standard base64 text known to be valid.
private func base64Bytes(_ base64: String) -> [UInt8] {
    Array(Data(base64Encoded: base64)!)
}
