import HearthCore
import NIOCore

/// `accounts:lookup`'s answer for an end user, encoded once per version of the user: the answer is a function of
/// the stored user alone (and of emulator mode), and the user usually comes from the engine's user cache
/// unchanged from one lookup to the next, so its JSON need not be built and written every time.
///
/// An entry is used only when the user it was made from equals the user looked up now (the whole record, compared
/// field by field; a cached user's strings and arrays share their storage, which makes that cheap), so an answer is
/// never staler than the user it answers for. Bounded (`BoundedTable`): a full table is emptied.
final class LookupAnswers: Sendable {
    private struct Entry: Sendable {
        let user: UserRecord
        let emulator: Bool
        let body: ByteBuffer
    }

    private let entries: BoundedTable<String, Entry>

    init(capacity: Int = 4096) {
        entries = BoundedTable(capacity: capacity)
    }

    /// The encoded answer for `user`, from the table when it was made from this very user.
    func body(for user: UserRecord, emulator: Bool) -> ByteBuffer {
        if let hit = entries[user.uid], hit.emulator == emulator, hit.user == user { return hit.body }
        let body = ByteBuffer(bytes: Self.answer(user, emulator: emulator).jsonBytes)
        entries.insert(Entry(user: user, emulator: emulator, body: body), for: user.uid)
        return body
    }

    /// What `accounts:lookup` answers for one user (also an admin's lookup by ID token).
    static func answer(_ user: UserRecord, emulator: Bool) -> JSONValue {
        ["kind": "identitytoolkit#GetAccountInfoResponse", "users": [UserEncoding.userInfo(user, emulator: emulator)]]
    }
}
