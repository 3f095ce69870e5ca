import Foundation
import HearthCore

/// ID tokens whose signature and claims have been checked, by token text, so a client that presents the same
/// token again (every call until it refreshes, about an hour) costs a dictionary lookup instead of a base64
/// decode, two JSON parses and an RSA verification.
///
/// Only what cannot change while the token lives is cached: the signature, issuer, audience and tenant. Expiry is
/// checked again on every hit against the caller's clock, and the key that signed must still be published.
/// Revocation is not a property of the token (it is the user's `validSince`, `disabled`, or the user's absence),
/// so callers check it against the store on every use, as they would without this cache.
final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        var token: VerifiedIDToken
        /// The key that signed it; nil for an unsigned (emulator) token.
        var kid: String?
        var sessionCookie: Bool
        /// `firebase.tenant`, read out once: every request with an ID token asks for it first (`peekTenant`).
        var tenant: String?

        init(token: VerifiedIDToken, kid: String?, sessionCookie: Bool) {
            self.token = token
            self.kid = kid
            self.sessionCookie = sessionCookie
            tenant = token.claims["firebase"]?["tenant"]?.stringValue
        }
    }

    /// A token as a key: hashed by its last bytes (inside its signature, so distinct tokens differ there) instead
    /// of all of its ~900, compared in full. A request looks its token up twice (its tenant, then its checks).
    struct Key: Hashable {
        let token: String

        func hash(into hasher: inout Hasher) {
            var token = token
            token.withUTF8 { bytes in hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32)))) }
        }
    }

    /// Bounds the memory: a full cache is emptied rather than tracked for eviction (about 1.5 KiB an entry).
    private let entries: BoundedTable<Key, Entry>

    init(capacity: Int = 2048) {
        entries = BoundedTable(capacity: capacity)
    }

    func entry(for token: String) -> Entry? {
        entries[Key(token: token)]
    }

    func insert(_ entry: Entry, for token: String) {
        entries.insert(entry, for: Key(token: token))
    }
}
