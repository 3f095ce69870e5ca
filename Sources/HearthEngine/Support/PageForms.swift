import HearthTokens

/// Anti-forgery for the forms of Hearth's own pages (HearthPages): a random cookie value, and a token bound to it by
/// a server secret (`FormTokens`), which the form carries back. A cookie its client chose, or another site planted,
/// comes with no token that matches it.
extension AuthEngine {
    /// A new cookie value for a browser that has none.
    public func newFormCookie() -> String { random.token(bytes: 24) }

    /// The token a form of `page` carries for the browser holding `cookie`.
    public func formToken(page: String, binding cookie: String) async throws -> String {
        try await FormTokens(keyRing: idTokens.keyRing, purpose: page).issue(binding: cookie, now: clock.now())
    }

    /// Whether a posted form's `token` was made by a Hearth server for `cookie` and this page.
    public func checkFormToken(_ token: String, page: String, binding cookie: String) async -> Bool {
        await FormTokens(keyRing: idTokens.keyRing, purpose: page).check(token, binding: cookie, now: clock.now())
    }
}
