/// A CBOR data item (RFC 8949), the definite-length subset WebAuthn uses: integers, byte and text strings, arrays,
/// maps keyed by integers or text, false/true/null. Nothing else is decoded.
enum CBORValue: Sendable, Equatable {
    /// An integer, unsigned (major type 0) or negative (1), within Int64: COSE labels and algorithms fit.
    case integer(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    case map([CBORKey: CBORValue])
    case bool(Bool)
    case null

    subscript(key: CBORKey) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries[key]
    }

    var integerValue: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }

    var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    var mapValue: [CBORKey: CBORValue]? {
        if case .map(let m) = self { return m }
        return nil
    }

    var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
}

/// A map key: COSE keys use integer labels, attestation objects text ones.
enum CBORKey: Sendable, Hashable, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    case integer(Int64)
    case text(String)

    init(integerLiteral value: Int64) { self = .integer(value) }
    init(stringLiteral value: String) { self = .text(value) }
}

/// Why bytes were not a CBOR item this decoder accepts; `reason` ends up in `WebAuthnFailure.reason`.
struct CBORError: Error, Sendable, Equatable {
    var reason: String
    var offset: Int
}

/// Decodes one item at a time and says where it ends, so callers can read what follows (authenticatorData's
/// credential key is followed by its extensions). Bounded: nesting depth, total item count and string lengths are
/// capped, and a declared length or count is checked against the bytes left before anything is allocated.
struct CBORDecoder {
    struct Limits: Sendable {
        var maxDepth = 8
        var maxItems = 2048
        var maxStringLength = 16 * 1024
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private(set) var position: Int
    private var items = 0

    init(_ bytes: [UInt8], at position: Int = 0, limits: Limits = Limits()) {
        self.bytes = bytes
        self.position = position
        self.limits = limits
    }

    /// The single item `bytes` hold: anything after it is refused.
    static func decodeWhole(_ bytes: [UInt8], limits: Limits = Limits()) throws(CBORError) -> CBORValue {
        var decoder = CBORDecoder(bytes, limits: limits)
        let value = try decoder.decodeItem()
        guard decoder.position == bytes.count else {
            throw CBORError(reason: "trailing bytes after the item", offset: decoder.position)
        }
        return value
    }

    /// Decodes the item at `position` and moves `position` past it.
    mutating func decodeItem() throws(CBORError) -> CBORValue {
        try decodeItem(depth: 0)
    }

    private mutating func fail(_ reason: String) -> CBORError {
        CBORError(reason: reason, offset: position)
    }

    private mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < bytes.count else { throw fail("unexpected end") }
        defer { position += 1 }
        return bytes[position]
    }

    /// The argument of a head whose additional information is `info` (RFC 8949 §3): indefinite lengths (31) and the
    /// reserved values (28-30) are refused.
    private mutating func readArgument(_ info: UInt8) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            let width = 1 << Int(info - 24)
            guard bytes.count - position >= width else { throw fail("argument past the end") }
            var value: UInt64 = 0
            for i in 0..<width { value = value << 8 | UInt64(bytes[position + i]) }
            position += width
            return value
        case 31: throw fail("indefinite length")
        default: throw fail("reserved additional information \(info)")
        }
    }

    /// A declared length or count, refused before allocating when the bytes left cannot hold it.
    private mutating func readLength(_ info: UInt8, minimumBytesEach: Int, cap: Int) throws(CBORError) -> Int {
        let declared = try readArgument(info)
        let left = UInt64(bytes.count - position)
        guard declared <= UInt64(cap) else { throw fail("length \(declared) over the limit \(cap)") }
        guard declared * UInt64(minimumBytesEach) <= left else { throw fail("length \(declared) past the end") }
        return Int(declared)
    }

    private mutating func decodeItem(depth: Int) throws(CBORError) -> CBORValue {
        guard depth <= limits.maxDepth else { throw fail("nested deeper than \(limits.maxDepth)") }
        items += 1
        guard items <= limits.maxItems else { throw fail("more than \(limits.maxItems) items") }
        let head = try readByte()
        let major = head >> 5
        let info = head & 0x1F
        switch major {
        case 0:
            let n = try readArgument(info)
            guard n <= UInt64(Int64.max) else { throw fail("integer out of range") }
            return .integer(Int64(n))
        case 1:
            let n = try readArgument(info)
            guard n <= UInt64(Int64.max) else { throw fail("integer out of range") }
            return .integer(-1 - Int64(n))
        case 2:
            let count = try readLength(info, minimumBytesEach: 1, cap: limits.maxStringLength)
            defer { position += count }
            return .bytes(Array(bytes[position..<position + count]))
        case 3:
            let count = try readLength(info, minimumBytesEach: 1, cap: limits.maxStringLength)
            guard let text = String(validating: bytes[position..<position + count], as: UTF8.self) else {
                throw fail("text string is not UTF-8")
            }
            position += count
            return .text(text)
        case 4:
            let count = try readLength(info, minimumBytesEach: 1, cap: limits.maxItems)
            var elements: [CBORValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try decodeItem(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let count = try readLength(info, minimumBytesEach: 2, cap: limits.maxItems)
            var entries: [CBORKey: CBORValue] = [:]
            for _ in 0..<count {
                let keyOffset = position
                let key: CBORKey
                switch try decodeItem(depth: depth + 1) {
                case .integer(let n): key = .integer(n)
                case .text(let s): key = .text(s)
                default: throw CBORError(reason: "map key is neither an integer nor text", offset: keyOffset)
                }
                let value = try decodeItem(depth: depth + 1)
                guard entries.updateValue(value, forKey: key) == nil else {
                    throw CBORError(reason: "duplicate map key", offset: keyOffset)
                }
            }
            return .map(entries)
        case 6: throw fail("tags are not used by WebAuthn")
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            default: throw fail("simple value or float \(info) is not used by WebAuthn")
            }
        }
    }
}
