/// A passkey enrolled on the account, as `user.enrolledPasskeys` lists it (`passkeyInfo` of `accounts:lookup`).
public final class PasskeyInfo: Sendable {
    /// The name given at enrolment.
    public let name: String?
    /// The credential id as the server spells it (standard base64): what `unenrollPasskey(withCredentialID:)` takes.
    public let credentialID: String?

    init(name: String?, credentialID: String?) {
        self.name = name
        self.credentialID = credentialID
    }

    /// From a `passkeyInfo` entry.
    convenience init(lookup j: JSON) {
        self.init(name: j["name"]?.string, credentialID: j["credentialId"]?.string)
    }
}
