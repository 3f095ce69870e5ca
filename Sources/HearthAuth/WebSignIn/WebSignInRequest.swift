import Foundation

/// One browser sign-in through the server's auth handler, shaped as FirebaseAuth's "headful lite"
/// flow: the app opens `<server>/__/auth/handler?…`, the handler runs the provider's OAuth flow and
/// redirects to `<callbackScheme>://firebaseauth/link?deep_link_id=…`, whose `link` is the
/// `requestUri` that `accounts:signInWithIdp` finishes the sign-in with, next to the raw session id
/// whose SHA-256 the handler saw.
///
/// Platform-independent, so the URL and callback handling are tested on Linux; only presenting the
/// page (`WebAuthenticationPresenter`) needs Apple's AuthenticationServices.
struct WebSignInRequest: Sendable {
    let providerID: String
    let handlerURL: URL
    let callbackScheme: String
    let sessionID: String
    let eventID: String

    /// The URL scheme the app registers (Info.plist `CFBundleURLTypes`) for the handler's redirect:
    /// `hearth-<project id>`, lowercased, with characters a scheme cannot hold replaced by `-`.
    static func callbackScheme(for options: HearthOptions) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
        return "hearth-" + String(options.projectID.lowercased().map { allowed.contains($0) ? $0 : "-" })
    }

    init(
        providerID: String, scopes: [String]?, customParameters: [String: String]?, options: HearthOptions,
        endpoint: URL?, tenantID: String?, languageCode: String?, bundleID: String? = Bundle.main.bundleIdentifier,
        sessionID: String = UUID().uuidString, eventID: String = UUID().uuidString
    ) {
        self.providerID = providerID
        self.sessionID = sessionID
        self.eventID = eventID
        callbackScheme = Self.callbackScheme(for: options)
        var items = [
            URLQueryItem(name: "apiKey", value: options.apiKey),
            URLQueryItem(name: "authType", value: "signInWithRedirect"),
            URLQueryItem(name: "ibi", value: bundleID ?? ""),
            URLQueryItem(name: "sessionId", value: CryptoUtils.sha256(sessionID)),
            URLQueryItem(name: "v", value: "HearthAuth/\(HearthAuthVersion.current)"),
            URLQueryItem(name: "eventId", value: eventID),
            URLQueryItem(name: "providerId", value: providerID),
            URLQueryItem(name: "redirectUrl", value: "\(callbackScheme)://firebaseauth/link"),
        ]
        if let tenantID { items.append(URLQueryItem(name: "tid", value: tenantID)) }
        if let scopes, !scopes.isEmpty {
            items.append(URLQueryItem(name: "scopes", value: scopes.joined(separator: ",")))
        }
        if let customParameters, !customParameters.isEmpty {
            let json = JSON.object(customParameters.mapValues { .string($0) }).data
            items.append(URLQueryItem(name: "customParameters", value: String(decoding: json, as: UTF8.self)))
        }
        if let languageCode { items.append(URLQueryItem(name: "hl", value: languageCode)) }
        handlerURL = Self.handlerURL(options: options, endpoint: endpoint, items: items)
    }

    /// `<server>/__/auth/handler?<items>`. Without a Hearth endpoint the handler is Firebase Hosting's, as
    /// FirebaseAuth uses.
    static func handlerURL(options: HearthOptions, endpoint: URL?, items: [URLQueryItem]) -> URL {
        let base = endpoint?.absoluteString.trimmingSuffix("/") ?? "https://\(options.projectID).firebaseapp.com"
        var components = URLComponents(string: "\(base)/__/auth/handler")!
        components.queryItems = items
        // `+` is a space to form decoders; the handler must see it as itself (in scopes, JSON).
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// Whether `url` is this flow's redirect back into the app.
    func isCallback(_ url: URL) -> Bool {
        url.scheme?.lowercased() == callbackScheme && url.host == "firebaseauth"
    }

    /// The credential the handler's redirect carries, or the error it reports (`firebaseError`).
    func credential(fromCallback url: URL) throws -> OAuthCredential {
        guard isCallback(url) else {
            throw AuthErrorCode.webSignInUserInteractionFailure.error(message: "Unexpected redirect \(url).")
        }
        var query = Self.query(of: url)
        if let deepLink = query["deep_link_id"].flatMap(URL.init(string:)) {
            query = Self.query(of: deepLink)
            if let link = query["link"], !link.isEmpty {
                return OAuthCredential(providerID: providerID, webRedirect: (requestURI: link, sessionID: sessionID))
            }
        }
        if let raw = query["firebaseError"], let error = JSON.parse(Data(raw.utf8)) {
            let code = error["code"]?.string ?? ""
            let message = error["message"]?.string
            if code.hasSuffix("web-context-canceled") || code.hasSuffix("cancelled-popup-request") {
                throw AuthErrorCode.webContextCancelled.error(message: message)
            }
            throw AuthErrorCode.webSignInUserInteractionFailure.error(
                message: message, userInfo: [AuthErrorUserInfoServerCodeKey: code])
        }
        throw AuthErrorCode.webSignInUserInteractionFailure.error(message: "The redirect carries no sign-in result.")
    }

    static func query(of url: URL) -> [String: String] {
        var out: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] {
            out[item.name] = item.value ?? ""
        }
        return out
    }
}

extension Auth {
    func webSignInRequest(providerID: String, scopes: [String]?, customParameters: [String: String]?)
        -> WebSignInRequest
    {
        let (endpoint, tenantID, languageCode) = state.withLock {
            ($0.endpointOverride ?? hearthApp.options.endpoint, $0.tenantID, $0.languageCode)
        }
        return WebSignInRequest(
            providerID: providerID, scopes: scopes, customParameters: customParameters, options: hearthApp.options,
            endpoint: endpoint, tenantID: tenantID, languageCode: languageCode)
    }
}
