/// The providers FirebaseAuth knows by name.
public enum AuthProviderID: String, Sendable, CaseIterable {
    case apple = "apple.com"
    case email = "password"
    case facebook = "facebook.com"
    case gameCenter = "gc.apple.com"
    case gitHub = "github.com"
    case google = "google.com"
    case phone = "phone"
}
