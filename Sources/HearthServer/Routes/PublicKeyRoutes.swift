import HearthCore
import HearthTokens
import Hummingbird

/// Publishes the ID-token verification keys where Firebase's are, in both of Google's formats.
struct PublicKeyRoutes: Sendable {
    let keyRing: SigningKeyRing
    /// How long verifiers may cache the keys; new keys are published at least this long before they sign.
    let cacheSeconds: Int

    static let account = "securetoken@system.gserviceaccount.com"

    func register(on router: HearthRouter) {
        let cacheControl = "public, max-age=\(cacheSeconds), must-revalidate, no-transform"
        for prefix in ["", "/www.googleapis.com"] {
            router.get("\(prefix)/robot/v1/metadata/x509/\(Self.account)") { _, _ in
                WireResponse.json(try JSONValue(parsing: keyRing.x509JSON()), cacheControl: cacheControl)
            }
            router.get("\(prefix)/service_accounts/v1/jwk/\(Self.account)") { _, _ in
                WireResponse.json(try JSONValue(parsing: keyRing.jwksJSON()), cacheControl: cacheControl)
            }
            // Where the Admin SDKs fetch session-cookie keys (`verify_session_cookie`); the same keys sign both.
            router.get("\(prefix)/identitytoolkit/v3/relyingparty/publicKeys") { _, _ in
                WireResponse.json(try JSONValue(parsing: keyRing.x509JSON()), cacheControl: cacheControl)
            }
        }
        // Identity Toolkit v1's names for the same keys: x509 certificates by kid, and the session-cookie JWKS.
        for prefix in ["", "/identitytoolkit.googleapis.com"] {
            router.get("\(prefix)/v1/publicKeys") { _, _ in
                WireResponse.json(try JSONValue(parsing: keyRing.x509JSON()), cacheControl: cacheControl)
            }
            router.get("\(prefix)/v1/sessionCookiePublicKeys") { _, _ in
                WireResponse.json(try JSONValue(parsing: keyRing.jwksJSON()), cacheControl: cacheControl)
            }
        }
    }
}
