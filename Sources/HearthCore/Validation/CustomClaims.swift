/// Developer claims: `customAttributes` set by an admin, and the `claims` of a custom token.
public enum CustomClaims {
    /// The `aud` of every custom token, as the Admin SDKs write it: what the server checks and HearthAdmin signs.
    public static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// Firebase's limit on the serialized claims.
    public static let maxLength = 1000

    /// Claims a developer may not set (FORBIDDEN_CLAIM): names the token format itself uses.
    public static let reserved: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti",
        "nbf", "nonce", "sub",
    ]

    /// Checks serialized claims as Firebase does: CLAIMS_TOO_LARGE, INVALID_CLAIMS (not a JSON object),
    /// FORBIDDEN_CLAIM. Returns the text to store; nil for an empty object, which clears the claims.
    public static func validate(serialized text: String) throws(AuthError) -> String? {
        if text.utf8.count > maxLength { throw AuthError(.claimsTooLarge) }
        guard case .object(let object)? = try? JSONValue(parsing: text) else { throw AuthError(.invalidClaims) }
        try validate(object)
        return object.isEmpty ? nil : text
    }

    /// Two serialized claim sets as one; `later`'s names win (a blocking function's session claims over a custom
    /// token's).
    public static func merged(_ earlier: String?, _ later: String?) -> String? {
        guard let later else { return earlier }
        guard let earlier, case .object(var base)? = try? JSONValue(parsing: earlier),
            case .object(let extra)? = try? JSONValue(parsing: later)
        else { return later }
        for (k, v) in extra { base[k] = v }
        return JSONValue.object(base).jsonText
    }

    public static func validate(_ object: [String: JSONValue]) throws(AuthError) {
        if let name = object.keys.sorted().first(where: reserved.contains) {
            throw AuthError(.forbiddenClaim, name)
        }
    }
}
