import Foundation
import HearthCore
import Testing

@Suite struct JSONValueTests {
    @Test func jsonTextIsCompactSortedAndEscaped() throws {
        let value: JSONValue = ["b": 1, "a": ["x\"y\n", true, nil], "c": .number(1.5)]
        #expect(value.jsonText == #"{"a":["x\"y\n",true,null],"b":1,"c":1.5}"#)
        #expect(try JSONValue(parsing: value.jsonText) == value)
    }

    @Test(arguments: [
        (#"{"a":"x\u00e9\ud83d\ude00\n","b":[1,-2.5e3,true,false,null],"c":{}}"#, true),
        (#"  [ ]  "#, true),
        (#"{"a":1,}"#, false), (#"[1 2]"#, false), (#"{"a" 1}"#, false), (#""\ud800""#, false),
        (#"01"#, false), (#"1."#, false), (#"tru"#, false), (#"{"a":1} x"#, false), ("\"a\u{01}\"", false),
        (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), false),
    ])
    func jsonParserAcceptsExactlyJSON(text: String, valid: Bool) {
        let parsed = try? JSONValue(parsing: text)
        #expect((parsed != nil) == valid)
        if valid, let parsed {
            #expect(parsed == (try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))))
        }
    }

    /// Strings with a character that needs escaping (or a multi-byte one) at every position around the parser's
    /// and the writer's eight-byte fast paths come back unchanged, and read as Foundation reads them.
    @Test func stringsRoundTripWhereverTheSpecialCharacterFalls() throws {
        for special in ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "😀", " ", "~", "\u{7F}"] {
            for length in 0..<20 {
                for position in 0...length {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    let value: JSONValue = ["k": .string(text)]
                    let written = value.jsonText
                    #expect(try JSONValue(parsing: written) == value)
                    let foundation = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: String]
                    #expect(foundation?["k"] == text)
                }
            }
        }
    }

    @Test func aControlCharacterOrAnUnterminatedStringIsRefusedAfterALongRun() {
        let run = String(repeating: "x", count: 37)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: "\"" + run + "\u{02}\"") }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: "\"" + run) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: "\"" + run + "\\") }
        #expect((try? JSONValue(parsing: "\"" + run + "\\u0041\"")) == .string(run + "A"))
    }
}
