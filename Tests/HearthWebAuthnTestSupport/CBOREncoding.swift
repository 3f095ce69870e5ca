/// CBOR encoding for the tests' software authenticator (HearthWebAuthnTests and HearthAuthTests): the server never encodes CBOR, so this lives here. Maps keep
/// the order given, so encodings (and the fuzz test's mutations of them) are the same on every run.
public indirect enum CBORItem {
    case int(Int64)
    case bytes([UInt8])
    case text(String)
    case array([CBORItem])
    case map([(CBORItem, CBORItem)])
    case bool(Bool)
    case null
    /// Bytes written as they are, for hand-made malformed items.
    case raw([UInt8])

    public var encoded: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    public static func head(_ major: UInt8, _ argument: UInt64) -> [UInt8] {
        let m = major << 5
        switch argument {
        case 0..<24: return [m | UInt8(argument)]
        case 24...0xFF: return [m | 24, UInt8(argument)]
        case 0x100...0xFFFF:
            return [m | 25] + (0..<2).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        case 0x1_0000...0xFFFF_FFFF:
            return [m | 26] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        default: return [m | 27] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: argument >> ($0 * 8)) }
        }
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .int(let n): out += n >= 0 ? Self.head(0, UInt64(n)) : Self.head(1, UInt64(-1 - n))
        case .bytes(let b): out += Self.head(2, UInt64(b.count)) + b
        case .text(let s): out += Self.head(3, UInt64(s.utf8.count)) + Array(s.utf8)
        case .array(let a):
            out += Self.head(4, UInt64(a.count))
            for item in a { item.write(to: &out) }
        case .map(let m):
            out += Self.head(5, UInt64(m.count))
            for (k, v) in m {
                k.write(to: &out)
                v.write(to: &out)
            }
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        case .raw(let bytes): out += bytes
        }
    }
}
