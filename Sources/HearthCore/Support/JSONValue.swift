import Foundation

/// Any JSON value, for the parts of the protocol whose shape the caller chooses
/// (custom claims, raw user info).
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index` of an array, nil for anything else.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }

    /// Compact JSON text with sorted keys, so equal values serialise equally.
    public var jsonText: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// The UTF-8 bytes of `jsonText`, written directly: responses are serialised on every request.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 {
                out.append(contentsOf: String(Int64(n)).utf8)
            } else {
                out.append(contentsOf: "\(n)".utf8)
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(field.key, to: &out)
                out.append(UInt8(ascii: ":"))
                field.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static let hexDigits = Array("0123456789abcdef".utf8)

    /// The index of the first `"`, `\\` or control byte at or after `start` (or the end), eight bytes at a time:
    /// what a JSON string can hold without escapes, for the parser and the writer.
    static func plainRun(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        plainASCIIRun(buffer, from: start).end
    }

    /// `plainRun`, and whether every byte before its end is ASCII (so the run is valid UTF-8 as it is).
    static func plainASCIIRun(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, ascii: Bool) {
        let count = buffer.count
        var i = start
        let highs: UInt64 = 0x8080_8080_8080_8080
        var seen: UInt64 = 0
        if let base = buffer.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            while i + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                // Some byte of `v` is zero exactly when (v - ones) & ~v & highs is non-zero; `x ^ c` is zero where
                // x has c, and (x - 0x20…) & ~x & highs is non-zero exactly when some byte is below 0x20.
                let quote = word ^ (ones &* 0x22)
                let slash = word ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash) | ((word &- ones &* 0x20) & ~word)
                if special & highs != 0 { break }
                seen |= word
                i += 8
            }
        }
        while i < count {
            let b = buffer[i]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
            seen |= UInt64(b)
            i += 1
        }
        return (i, seen & highs == 0)
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copy them whole.
        let copied: Bool? = s.utf8.withContiguousStorageIfAvailable { bytes in
            guard plainRun(bytes, from: 0) == bytes.count else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default:
                out.append(byte)  // multi-byte UTF-8 passes through unchanged
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}
