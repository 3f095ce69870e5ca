import Foundation

/// A direct UTF-8 JSON parser for `JSONValue`.
///
/// Every request body and every token payload goes through here; decoding `JSONValue` through
/// `Codable` tries each type in turn and costs several times more.
extension JSONValue {
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Parses one JSON value that must fill `bytes` (surrounding white space allowed).
    public static func parse(_ array: [UInt8]) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: array)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == array.count else { throw parser.error("unexpected trailing data") }
        return value
    }

    /// Parses JSON text.
    public init(parsing text: String) throws {
        self = try JSONValue.parse(Array(text.utf8))
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        static let maxDepth = 64

        func error(_ reason: String) -> ParseError { ParseError(offset: index, reason: reason) }

        mutating func skipWhitespace() {
            while index < bytes.count,
                bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
            {
                index += 1
            }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard depth < Self.maxDepth else { throw error("nesting too deep") }
            guard index < bytes.count else { throw error("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end") }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw error("invalid literal") }
            index += count
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object([:])
            }
            // Room for a typical object's keys up front, rather than growing (and rehashing) four times.
            var fields: [String: JSONValue] = .init(minimumCapacity: 8)
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a key") }
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                skipWhitespace()
                fields[key] = try value(depth: depth + 1)
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(fields) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw error("expected ',' or ']'")
            }
        }

        mutating func string() throws(ParseError) -> String {
            index += 1
            let start = index
            // Fast path: no escapes. ID tokens (~900 bytes) are the longest strings every request carries.
            let run = bytes.withUnsafeBufferPointer { [start] in JSONValue.plainASCIIRun($0, from: start) }
            index = run.end
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                defer { index += 1 }
                // ASCII needs no validation: the generic `String(validating:)` costs ~1.2k instructions a string
                // in metadata lookups alone.
                let text = bytes[start..<index]
                return run.ascii ? String(decoding: text, as: UTF8.self) : try validated(text)
            }
            if index < bytes.count, bytes[index] < 0x20 { throw error("control character in string") }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let b = bytes[index]
                switch b {
                case UInt8(ascii: "\""):
                    index += 1
                    return try validated(out[...])
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { throw error("unexpected end") }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                                bytes[index + 1] == UInt8(ascii: "u")
                            else { throw error("unpaired surrogate") }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            throw error("unpaired surrogate")
                        }
                        out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
                    default: throw error("invalid escape")
                    }
                default:
                    if b < 0x20 { throw error("control character in string") }
                    out.append(b)
                    index += 1
                }
            }
            throw error("unterminated string")
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("unexpected end") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
                default: throw error("invalid \\u escape")
                }
                v = v << 4 | UInt32(d)
                index += 1
            }
            return v
        }

        func validated(_ slice: ArraySlice<UInt8>) throws(ParseError) -> String {
            guard let s = String(validating: slice, as: UTF8.self) else { throw error("invalid UTF-8") }
            return s
        }

        mutating func number() throws(ParseError) -> Double {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
                throw error("invalid number")
            }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                let digits = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > digits else { throw error("invalid number") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                let digits = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                guard index > digits else { throw error("invalid number") }
            }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                throw error("invalid number")
            }
            return value
        }
    }
}
