import Foundation
import HearthCore

/// A prefix search over one indexed field of the users, with filters and a keyset position.
public struct UserSearch: Sendable, Equatable {
    public enum Field: String, Sendable {
        case email
        case phoneNumber
        case uid
    }

    public var field: Field
    /// Compared byte by byte (e-mails are stored lower-cased, phone numbers in E.164); empty matches every user.
    public var prefix: String
    /// The last value of `field` the previous page reached (e-mails, phone numbers and uids are unique).
    public var after: String?
    /// Only users who can sign in with this provider id (`password`, `phone`, or a linked provider's id).
    public var provider: String?
    public var disabled: Bool?
    /// Only accounts with no way to sign in but their refresh token (`UserRecord.isAnonymous`).
    public var anonymousOnly: Bool
    /// Only accounts with an e-mail address that is not verified.
    public var unverifiedOnly: Bool
    /// Most rows of the range one page walks: a filter few users pass ends its page here rather than walking the
    /// whole index (`UserSearchPage.resumeAfter` says where to go on).
    public var scanLimit: Int = 5000

    public init(
        field: Field, prefix: String, after: String? = nil, provider: String? = nil, disabled: Bool? = nil,
        anonymousOnly: Bool = false, unverifiedOnly: Bool = false
    ) {
        self.field = field
        self.prefix = prefix
        self.after = after
        self.provider = provider
        self.disabled = disabled
        self.anonymousOnly = anonymousOnly
        self.unverifiedOnly = unverifiedOnly
    }

    /// The exclusive upper bound of the prefix's range in byte order (nil: no bound). U+10FFFF sorts after every
    /// other character, so it bounds a prefix that ends in any character (what `StoreSupport.prefixEnd` cannot).
    public var prefixEnd: String? { prefix.isEmpty ? nil : prefix + "\u{10FFFF}" }

    /// Whether any filter can leave out a row of the range.
    public var filters: Bool { provider != nil || disabled != nil || anonymousOnly || unverifiedOnly }

    /// The column the field is stored in.
    public var column: String {
        switch field {
        case .email: "email"
        case .phoneNumber: "phone_number"
        case .uid: "uid"
        }
    }
}

/// One page of a search: the users found, and where the walk stopped when it reached `scanLimit` rows before
/// finding a page's worth (the next page continues after that value).
public struct UserSearchPage: Sendable {
    public var users: [UserRecord]
    public var resumeAfter: String?

    public init(users: [UserRecord], resumeAfter: String?) {
        self.users = users
        self.resumeAfter = resumeAfter
    }
}
