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
}
