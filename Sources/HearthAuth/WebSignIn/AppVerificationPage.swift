import Foundation

/// Phone app verification's reCAPTCHA fallback, as FirebaseAuth does it when no silent push proves the app: the
/// app opens `<server>/__/auth/handler?authType=verifyApp&…`, the page shows the project's reCAPTCHA, and the
/// handler redirects to `<callbackScheme>://firebaseauth/link?deep_link_id=…` whose `recaptchaToken` goes with
/// `accounts:sendVerificationCode` (the server checks it with siteverify).
///
/// Platform-independent, so the URL and the callback are tested on Linux; only presenting the page
/// (`WebAuthenticationPresenter`) needs Apple's AuthenticationServices.
struct AppVerificationPage: Sendable {
    let pageURL: URL
    let callbackScheme: String
    let eventID: String

    init(
        options: HearthOptions, endpoint: URL?, tenantID: String?, languageCode: String?,
        bundleID: String? = Bundle.main.bundleIdentifier, eventID: String = UUID().uuidString
    ) {
        self.eventID = eventID
        callbackScheme = WebSignInRequest.callbackScheme(for: options)
        var items = [
            URLQueryItem(name: "apiKey", value: options.apiKey),
            URLQueryItem(name: "authType", value: "verifyApp"),
            URLQueryItem(name: "ibi", value: bundleID ?? ""),
            URLQueryItem(name: "v", value: "HearthAuth/\(HearthAuthVersion.current)"),
            URLQueryItem(name: "eventId", value: eventID),
            URLQueryItem(name: "redirectUrl", value: "\(callbackScheme)://firebaseauth/link"),
        ]
        if let tenantID { items.append(URLQueryItem(name: "tid", value: tenantID)) }
        if let languageCode { items.append(URLQueryItem(name: "hl", value: languageCode)) }
        pageURL = WebSignInRequest.handlerURL(options: options, endpoint: endpoint, items: items)
    }

    /// The reCAPTCHA token the handler's redirect carries, or the error it reports (`firebaseError`).
    func token(fromCallback url: URL) throws -> String {
        guard url.scheme?.lowercased() == callbackScheme, url.host == "firebaseauth" else {
            throw AuthErrorCode.appVerificationUserInteractionFailure.error(message: "Unexpected redirect \(url).")
        }
        var query = WebSignInRequest.query(of: url)
        if let deepLink = query["deep_link_id"].flatMap(URL.init(string:)) {
            query = WebSignInRequest.query(of: deepLink)
            if let token = query["recaptchaToken"], !token.isEmpty { return token }
        }
        if let raw = query["firebaseError"], let error = JSON.parse(Data(raw.utf8)) {
            throw AuthErrorCode.appVerificationUserInteractionFailure.error(
                message: error["message"]?.string,
                userInfo: [AuthErrorUserInfoServerCodeKey: error["code"]?.string ?? ""])
        }
        throw AuthErrorCode.appVerificationUserInteractionFailure.error(message: "The redirect carries no token.")
    }
}

extension Auth {
    func appVerificationPage() -> AppVerificationPage {
        let (endpoint, tenantID, languageCode) = state.withLock {
            ($0.endpointOverride ?? hearthApp.options.endpoint, $0.tenantID, $0.languageCode)
        }
        return AppVerificationPage(
            options: hearthApp.options, endpoint: endpoint, tenantID: tenantID, languageCode: languageCode)
    }

    /// A reCAPTCHA token from the server's verification page, shown in `ASWebAuthenticationSession`. Elsewhere
    /// (Linux) there is nothing to show it with, and `unavailable` is thrown as it was.
    func recaptchaTokenFromWebPage(orThrow unavailable: Error) async throws -> String {
        #if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
            let page = appVerificationPage()
            let callback = try await WebAuthenticationPresenter().open(page.pageURL, callbackScheme: page.callbackScheme)
            return try page.token(fromCallback: callback)
        #else
            throw unavailable
        #endif
    }
}
