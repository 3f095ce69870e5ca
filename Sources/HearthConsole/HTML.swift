import HearthCore

/// Markup whose interpolated strings are escaped: `"<td>\(user.email)</td>" as HTML` cannot inject a tag, since
/// only other `HTML` values are spliced in as they are. There is no way to interpolate unescaped text.
struct HTML: ExpressibleByStringInterpolation, Sendable {
    private(set) var text: String

    init(stringLiteral value: String) { text = value }

    init(stringInterpolation: StringInterpolation) { text = stringInterpolation.text }

    struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity * 2) }

        mutating func appendLiteral(_ literal: String) { text += literal }
        mutating func appendInterpolation(_ value: String) { text += HTMLEscaping.escape(value) }
        mutating func appendInterpolation(_ value: String?) { text += HTMLEscaping.escape(value ?? "") }
        mutating func appendInterpolation(_ value: Int) { text += String(value) }
        mutating func appendInterpolation(_ value: HTML) { text += value.text }
        mutating func appendInterpolation(_ values: [HTML]) { for value in values { text += value.text } }
    }

    static func + (a: HTML, b: HTML) -> HTML { "\(a)\(b)" }
}
