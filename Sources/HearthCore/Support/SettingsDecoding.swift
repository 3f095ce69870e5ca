/// Decoding helpers for configuration types: every setting optional with a default, and
/// misspelt settings refused rather than silently ignored.
extension KeyedDecodingContainer {
    /// The value at `key`, or `fallback` when the key is absent or null.
    public func decode<T: Decodable>(_ key: Key, default fallback: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? fallback
    }
}

/// Throws when the object being decoded has a key that `Keys` does not list.
public func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(in decoder: Decoder, known: Keys.Type) throws {
    let container = try decoder.container(keyedBy: AnySettingKey.self)
    let names = Set(Keys.allCases.map(\.stringValue))
    if let unknown = container.allKeys.first(where: { !names.contains($0.stringValue) }) {
        throw DecodingError.dataCorruptedError(
            forKey: unknown, in: container,
            debugDescription: "unknown setting; expected one of \(names.sorted().joined(separator: ", "))")
    }
}

public struct AnySettingKey: CodingKey {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
