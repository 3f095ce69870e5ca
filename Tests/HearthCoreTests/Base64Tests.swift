import Foundation
import HearthCore
import Testing

@Suite struct Base64Tests {
    @Test func encodesTheRFC4648Vectors() {
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
            "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
            #expect(Base64.decode(encoded.replacingOccurrences(of: "=", with: "")) == Array(plain.utf8))
        }
        #expect(Base64.encode(Array("fo".utf8), padded: false) == "Zm8")
    }

    @Test func acceptsBothAlphabetsAndRefusesAnythingElse() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64.decode("+/+/") == bytes)
        #expect(Base64.decode("-_-_") == bytes)
        for bad in ["Zm9v!", "Z", "Zm9vY", "Zg===", "Z===", "Zm=8"] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }

    /// Every length around the three-byte groups, against Foundation; a character outside the alphabet anywhere,
    /// in a whole group or in the tail, refuses the text.
    @Test func groupsAndTailsMatchFoundation() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(($0 * 53 + 7) % 256) }
            let text = Base64.encode(bytes)
            #expect(text == Data(bytes).base64EncodedString())
            #expect(Base64.decode(text) == bytes)
            #expect(Base64.decode(Substring(text)) == bytes)
            let unpadded = Base64.encode(bytes, padded: false)
            for position in 0..<unpadded.count {
                var chars = Array(unpadded.utf8)
                chars[position] = UInt8(ascii: "!")
                #expect(Base64.decode(String(decoding: chars, as: UTF8.self)) == nil, "\(n) \(position)")
            }
        }
    }
}
