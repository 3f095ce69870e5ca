/// Provider ids as Firebase spells them: Firebase's own sign-in methods and the identity providers Hearth knows by
/// name, the one list that settings validation, the provider-config API, the OAuth presets and sign-in take them from.
public enum ProviderID {
    public static let password = "password"
    public static let phone = "phone"
    public static let anonymous = "anonymous"
    public static let custom = "custom"
    /// The sign-in method of an e-mail link (its sessions' provider is `password`, as in Firebase).
    public static let emailLink = "emailLink"

    public static let google = "google.com"
    public static let facebook = "facebook.com"
    public static let apple = "apple.com"
    public static let twitter = "twitter.com"
    public static let github = "github.com"
    public static let microsoft = "microsoft.com"
    public static let yahoo = "yahoo.com"
    public static let linkedin = "linkedin.com"
    public static let gameCenter = "gc.apple.com"
    public static let playGames = "playgames.google.com"

    /// The OAuth 2.0 providers without ID tokens whose real endpoints Hearth knows (`OAuthSettings`, `OAuthPreset`).
    public static let oauth = [github, microsoft, yahoo, linkedin]

    /// The providers of `defaultSupportedIdpConfigs`, in Firebase's order.
    public static let builtIn = [google, facebook, apple, twitter] + oauth
}
