/// Which passwords a project accepts. Defaults to Firebase's: at least 6 characters.
public struct PasswordPolicy: Sendable, Equatable, Codable {
    public var minLength: Int = 6
    public var maxLength: Int = 4096

    public init(minLength: Int = 6, maxLength: Int = 4096) {
        self.minLength = minLength
        self.maxLength = maxLength
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case minLength, maxLength }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(in: decoder, known: CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minLength = try c.decode(.minLength, default: 6)
        maxLength = try c.decode(.maxLength, default: 4096)
    }

    /// The one size rule for every password Hearth hashes (sign-up, update, reset, admin writes, sign-in), in
    /// UTF-8 bytes and checked before hashing: a password within `maxLength` characters can still be megabytes of
    /// combining marks, and what one path accepts another must not refuse.
    public static let maxBytes = 4 * 4096

    /// Whether `password` is small enough to hash at all (`maxBytes`).
    public static func isHashable(_ password: String) -> Bool { password.utf8.count <= maxBytes }

    /// Firebase's rule for a project without a password policy (6 to 4096 characters): announced as not enforced,
    /// since such a project refuses a short password as WEAK_PASSWORD rather than by policy.
    public var isFirebaseDefault: Bool { minLength == 6 && maxLength == 4096 }

    /// The characters Firebase's policy counts as non-alphanumeric (`allowedNonAlphanumericCharacters`).
    public static let nonAlphanumericCharacters = Array("^$*.[]{}()?\"!@#%&/\\,><':;|_~`=+-").map(String.init)

    /// Throws the error Firebase gives for a password this policy refuses.
    public func check(_ password: String) throws(AuthError) {
        guard Self.isHashable(password) else {
            throw AuthError(
                .passwordDoesNotMeetRequirements,
                "Missing password requirements: [Password may contain at most \(Self.maxBytes) bytes]")
        }
        let length = password.count
        if length < minLength {
            throw AuthError(.weakPassword, "Password should be at least \(minLength) characters")
        }
        if length > maxLength {
            throw AuthError(
                .passwordDoesNotMeetRequirements,
                "Missing password requirements: [Password may contain at most \(maxLength) characters]")
        }
    }
}
