import HearthCore
import HearthEngine
import Hummingbird

/// The association files with which a domain lets apps and other sites use its passkeys, served for the server's
/// default project when Hearth's host is that project's RP id: `/.well-known/webauthn` (related origin requests:
/// the `https` expected origins), `/.well-known/apple-app-site-association` (`webcredentials`) and
/// `/.well-known/assetlinks.json` (`get_login_creds`). Each answers 404 until what it lists is configured.
struct PasskeyAssociationRoutes: Sendable {
    let engine: AuthEngine

    func register(on router: HearthRouter) {
        router.get("/.well-known/webauthn") { _, _ in
            let origins = try settings().expectedOrigins.filter { $0.hasPrefix("https://") }
            guard !origins.isEmpty else { throw AuthError(.notFound, "Not Found") }
            return WireResponse.json(["origins": .array(origins.map(JSONValue.string))], cacheControl: Self.cache)
        }
        router.get("/.well-known/apple-app-site-association") { _, _ in
            let apps = try settings().appleAppIDs
            guard !apps.isEmpty else { throw AuthError(.notFound, "Not Found") }
            return WireResponse.json(
                ["webcredentials": ["apps": .array(apps.map(JSONValue.string))]], cacheControl: Self.cache)
        }
        router.get("/.well-known/assetlinks.json") { _, _ in
            let apps = try settings().androidApps
            guard !apps.isEmpty else { throw AuthError(.notFound, "Not Found") }
            let statements: [JSONValue] = apps.map { app in
                [
                    "relation": ["delegate_permission/common.get_login_creds"],
                    "target": [
                        "namespace": "android_app", "package_name": .string(app.packageName),
                        "sha256_cert_fingerprints": .array(app.sha256CertFingerprints.map(JSONValue.string)),
                    ],
                ]
            }
            return WireResponse.json(.array(statements), cacheControl: Self.cache)
        }
    }

    /// Platforms fetch these through their own caches; an hour lets a change reach them the same day.
    static let cache = "public, max-age=3600"

    func settings() throws(AuthError) -> PasskeySettings {
        guard let project = engine.projects.config(engine.projects.defaultProjectID), project.passkeys.isEnabled else {
            throw AuthError(.notFound, "Not Found")
        }
        return project.passkeys
    }
}
