import Crypto
import HearthWebAuthnTestSupport
import Testing

@testable import HearthWebAuthn

@Suite struct CBORTests {
    static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue { try CBORDecoder.decodeWhole(bytes) }

    @Test func decodesRFC8949Examples() throws {
        let examples: [([UInt8], CBORValue)] = [
            ([0x00], .integer(0)), ([0x17], .integer(23)), ([0x18, 0x18], .integer(24)),
            ([0x19, 0x03, 0xE8], .integer(1000)),
            ([0x1B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .integer(Int64.max)),
            ([0x20], .integer(-1)), ([0x38, 0x63], .integer(-100)), ([0x39, 0x01, 0x00], .integer(-257)),
            ([0x40], .bytes([])), ([0x44, 1, 2, 3, 4], .bytes([1, 2, 3, 4])), ([0x61, 0x61], .text("a")),
            ([0x62, 0xC3, 0xBC], .text("ü")), ([0x80], .array([])),
            (
                [0x83, 0x01, 0x82, 0x02, 0x03, 0x82, 0x04, 0x05],
                .array([.integer(1), .array([.integer(2), .integer(3)]), .array([.integer(4), .integer(5)])])
            ),
            ([0xA2, 0x01, 0x02, 0x03, 0x04], .map([1: .integer(2), 3: .integer(4)])),
            (
                [0xA2, 0x61, 0x61, 0x01, 0x20, 0x82, 0x02, 0x03],
                .map(["a": .integer(1), -1: .array([.integer(2), .integer(3)])])
            ),
            ([0xF4], .bool(false)), ([0xF5], .bool(true)), ([0xF6], .null),
        ]
        for (bytes, expected) in examples { #expect(try Self.decode(bytes) == expected, "\(bytes)") }
    }

    @Test func reportsWhereEachItemEnds() throws {
        let bytes: [UInt8] = [0xFF, 0xA1, 0x01, 0x42, 0xAA, 0xBB, 0x63, 0x61, 0x62, 0x63]
        var decoder = CBORDecoder(bytes, at: 1)
        #expect(try decoder.decodeItem() == .map([1: .bytes([0xAA, 0xBB])]))
        #expect(decoder.position == 6)
        #expect(try decoder.decodeItem() == .text("abc"))
        #expect(decoder.position == bytes.count)
    }

    /// Each hand-made malicious or out-of-subset input is refused, none crashes or allocates what it declares.
    @Test func refusesMaliciousAndUnsupportedInput() {
        let deep = [UInt8](repeating: 0x81, count: 10_000) + [0x00]
        let refused: [(String, [UInt8])] = [
            ("empty", []),
            ("byte string declaring 2^64-1 bytes", [0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("text declaring 4 GiB", [0x7A, 0xFF, 0xFF, 0xFF, 0xFF, 0x61]),
            ("array declaring 2^32 items", [0x9A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
            ("map declaring 2^64-1 entries", [0xBB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("bytes past the end", [0x45, 1, 2]),
            ("argument past the end", [0x19, 0x01]),
            ("array past the end", [0x82, 0x01]),
            ("nested 10000 deep", deep),
            ("indefinite byte string", [0x5F, 0x41, 0x00, 0xFF]),
            ("indefinite array", [0x9F, 0x01, 0xFF]),
            ("indefinite map", [0xBF, 0x01, 0x02, 0xFF]),
            ("break alone", [0xFF]),
            ("reserved additional information", [0x1C]),
            ("tag", [0xC2, 0x41, 0x01]),
            ("half float", [0xF9, 0x3C, 0x00]),
            ("double", [0xFB, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]),
            ("undefined", [0xF7]),
            ("simple value 16", [0xF0]),
            ("duplicate integer key", [0xA2, 0x01, 0x00, 0x01, 0x00]),
            ("duplicate text key", [0xA2, 0x61, 0x61, 0x00, 0x61, 0x61, 0x01]),
            ("byte-string key", [0xA1, 0x41, 0x00, 0x00]),
            ("array key", [0xA1, 0x80, 0x00]),
            ("invalid UTF-8", [0x62, 0xC3, 0x28]),
            ("unsigned above Int64", [0x1B, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            ("negative below Int64", [0x3B, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            ("trailing byte", [0x00, 0x00]),
            ("string over the length limit", CBORItem.bytes(Array(repeating: 0, count: 16 * 1024 + 1)).encoded),
            ("more items than the limit", CBORItem.array(Array(repeating: .int(0), count: 2049)).encoded),
        ]
        for (why, bytes) in refused {
            #expect(throws: CBORError.self, "\(why)") { try Self.decode(bytes) }
        }
    }

    /// Deterministic fuzzing: random bytes, and valid attestation objects and assertions with bytes flipped, cut,
    /// inserted or overwritten with boundary values, through the decoder and through both ceremonies. Passing means
    /// no crash, every decode ending inside its input, and nothing mutated accepted with a bad signature.
    @Test func survivesRandomAndMutatedInput() throws {
        var random = SplitMix64(seed: 0x5EED_CB0F)
        // A fixed Ed25519 key: its signatures are deterministic, so every run fuzzes the same bytes.
        let auth = SoftwareAuthenticator(
            key: .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 7, count: 32))))
        let challenge = RegistrationTests.challenge
        let clientData = SoftwareAuthenticator.clientData(type: "webauthn.create", challenge: challenge)
        let authData = auth.authenticatorData(
            flags: RegistrationTests.goodFlags | SoftwareAuthenticator.edFlag, attested: true,
            extensions: .map([(.text("credProtect"), .int(2)), (.text("hmac-secret"), .bool(true))]))
        let seeds: [[UInt8]] = [
            auth.attestationObject(authData: authData, clientDataJSON: clientData, attestation: .packedSelf),
            auth.attestationObject(authData: authData, clientDataJSON: clientData),
            auth.key.cose.encoded,
        ]
        var decoded = 0
        for round in 0..<40_000 {
            let input: [UInt8]
            if round % 4 == 0 {
                input = (0..<random.next(below: 64)).map { _ in random.byte() }
            } else {
                input = random.mutate(seeds[(round / 4) % seeds.count])
            }
            var decoder = CBORDecoder(input)
            if (try? decoder.decodeItem()) != nil {
                decoded += 1
                #expect(decoder.position <= input.count)
            }
            if round % 3 == 1 {
                _ = try? WebAuthn.verifyRegistration(
                    clientDataJSON: clientData, attestationObject: input, expectedChallenge: challenge,
                    relyingParty: RegistrationTests.rp)
            }
        }
        // The mutations must leave many inputs decodable, or the fuzzing only exercises the first byte.
        #expect(decoded > 5_000)

        // Assertions: any mutation of authenticatorData breaks the signature, so none is accepted.
        let getData = SoftwareAuthenticator.clientData(type: "webauthn.get", challenge: challenge)
        let assertionData = auth.authenticatorData(
            flags: SoftwareAuthenticator.upFlag | SoftwareAuthenticator.uvFlag, signCount: 4, attested: false)
        let signature = auth.key.sign(assertionData + Array(SHA256.hash(data: getData)))
        for _ in 0..<5_000 {
            let mutated = random.mutate(assertionData)
            guard mutated != assertionData else { continue }
            let accepted = try? WebAuthn.verifyAssertion(
                clientDataJSON: getData, authenticatorData: mutated, signature: signature, expectedChallenge: challenge,
                relyingParty: RegistrationTests.rp, credentialPublicKey: auth.key.cose.encoded, storedSignCount: 0)
            #expect(accepted == nil)
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failing fuzz input is the same on every run.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// `bytes` with one to four edits: a flipped bit, a boundary byte (0x00, 0x17-0x1B, 0x1F, 0x7F, 0xFF), an
    /// inserted or removed byte, or the input cut short.
    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        let boundary: [UInt8] = [0x00, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1F, 0x5F, 0x7F, 0x9F, 0xBF, 0xFF]
        for _ in 0...next(below: 4) {
            guard !out.isEmpty else { break }
            let at = next(below: out.count)
            switch next(below: 5) {
            case 0: out[at] ^= 1 << UInt8(next(below: 8))
            case 1: out[at] = boundary[next(below: boundary.count)]
            case 2: out.insert(byte(), at: at)
            case 3: out.remove(at: at)
            default: out.removeLast(next(below: out.count))
            }
        }
        return out
    }
}
