import Foundation

/// The tokens a sign-in answer carries, with the ID token's expiry read from the token itself.
struct TokenSet: Sendable, Codable, Equatable {
    var idToken: String
    var refreshToken: String
    var expirationDate: Date

    init(idToken: String, refreshToken: String, expiresIn: Double?) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expirationDate =
            IDTokenClaims(idToken)?.date("exp") ?? Date().addingTimeInterval(expiresIn ?? 3600)
    }

    /// From an Identity Toolkit answer (`idToken`, `refreshToken`, `expiresIn`).
    init?(identityToolkit r: JSON) {
        guard let id = r["idToken"]?.string, !id.isEmpty, let refresh = r["refreshToken"]?.string else { return nil }
        self.init(idToken: id, refreshToken: refresh, expiresIn: r["expiresIn"]?.double)
    }

    /// From a Secure Token answer (`id_token`, `refresh_token`, `expires_in`).
    init?(secureToken r: JSON) {
        guard let id = r["id_token"]?.string ?? r["access_token"]?.string, let refresh = r["refresh_token"]?.string
        else { return nil }
        self.init(idToken: id, refreshToken: refresh, expiresIn: r["expires_in"]?.double)
    }
}

/// The decoded (not verified: the server verifies) payload of a Hearth ID token.
struct IDTokenClaims: Sendable {
    let claims: [String: JSON]

    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Data(base64URL: String(parts[1])), let json = JSON.parse(data)?.object
        else { return nil }
        claims = json
    }

    func date(_ name: String) -> Date? { claims[name]?.double.map { Date(timeIntervalSince1970: $0) } }
}

extension Data {
    init?(base64URL text: String) {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s += String(repeating: "=", count: (4 - s.count % 4) % 4)
        self.init(base64Encoded: s)
    }
}
