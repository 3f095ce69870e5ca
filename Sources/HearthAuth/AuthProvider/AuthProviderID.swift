/// The providers FirebaseAuth knows by name; `custom(_:)` for any other (`oidc.…`, `saml.…`).
public struct AuthProviderID: Equatable, Hashable, Sendable {
    public let rawValue: String

    private init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static var apple: Self { Self(rawValue: "apple.com") }
    public static var email: Self { Self(rawValue: "password") }
    public static var facebook: Self { Self(rawValue: "facebook.com") }
    public static var gameCenter: Self { Self(rawValue: "gc.apple.com") }
    public static var gitHub: Self { Self(rawValue: "github.com") }
    public static var google: Self { Self(rawValue: "google.com") }
    public static var phone: Self { Self(rawValue: "phone") }
    /// Not in FirebaseAuth's list, but Hearth signs users in with Twitter, Microsoft and Yahoo too.
    public static var twitter: Self { Self(rawValue: "twitter.com") }
    public static var microsoft: Self { Self(rawValue: "microsoft.com") }
    public static var yahoo: Self { Self(rawValue: "yahoo.com") }

    public static func custom(_ value: String) -> Self { Self(rawValue: value) }
}
