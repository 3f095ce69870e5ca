import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import Hummingbird

/// What Firebase's JS SDK opens the handler with (`core/util/handler.ts`): a web `authType`, `eventId`, `appName`,
/// and the app's page as `redirectUrl`, but no `sessionId`. The result goes back as the SDK's auth event
/// (`type`, `eventId`, `urlResponse`, `sessionId`, `postBody`, `tenantId`, `error`), whose `urlResponse` and
/// `sessionId` the SDK presents to `accounts:signInWithIdp`.
///
/// The handler makes the session id, and keeps it with the event's fields in this tab's sessionStorage (on the
/// auth domain) under the sign-in's `state` until the provider returns: only the tab that started a sign-in can
/// finish it, and the code in the provider's redirect is worthless without it. A popup's event is posted to the
/// auth iframe in the window that opened it; a redirect's is stored for the iframe the app loads on its return.
/// Either way the event names the app's origin, and the iframe hands it only to a parent of that origin.
struct WebSignInStart: Sendable {
    /// The SDK's `AuthEventType`s that come through the handler.
    static let authTypes: Set<String> = [
        "signInViaPopup", "signInViaRedirect", "linkViaPopup", "linkViaRedirect", "reauthViaPopup",
        "reauthViaRedirect",
    ]

    var authType: String
    var eventID: String?
    var apiKey: String
    var appName: String
    var tenantID: String?
    /// The app's page, already checked against the project's authorized domains.
    var redirectURL: String
    var sessionID: String

    /// Nil when the request is not the web SDK's (HearthAuth and FirebaseAuth send `signInWithRedirect`).
    init?(_ wire: WireRequest, redirectURL: String, sessionID: @autoclosure () -> String) throws {
        guard let authType = try wire.string("authType"), Self.authTypes.contains(authType) else { return nil }
        // The event goes back by script to a page: never to an app's callback scheme.
        guard AuthHandlerPage.isWebPage(redirectURL) else {
            throw AuthError(.unauthorizedDomain, "The web SDK's redirect URL must be an http or https page.")
        }
        self.authType = authType
        self.eventID = try wire.string("eventId")
        self.apiKey = try wire.string("apiKey") ?? ""
        self.appName = try wire.string("appName") ?? ""
        self.tenantID = try wire.string("tid").flatMap { $0.isEmpty ? nil : $0 }
        self.redirectURL = redirectURL
        self.sessionID = sessionID()
    }

    /// The fields the return page reads back (from sessionStorage) to build the event.
    var stored: JSONValue {
        [
            "type": .string(authType), "eventId": eventID.map(JSONValue.string) ?? .null, "apiKey": .string(apiKey),
            "appName": .string(appName), "tenantId": tenantID.map(JSONValue.string) ?? .null,
            "redirectUrl": .string(redirectURL), "sessionId": .string(sessionID),
        ]
    }

    /// The event for a sign-in that failed before reaching the provider.
    func failure(_ error: JSONValue) -> JSONValue {
        [
            "type": .string(authType), "eventId": eventID.map(JSONValue.string) ?? .null, "urlResponse": .null,
            "sessionId": .null, "postBody": .null, "tenantId": tenantID.map(JSONValue.string) ?? .null,
            "error": error,
        ]
    }
}

extension AuthHandlerPage {
    /// A web page rather than an app's callback scheme: the return goes through the web SDK's page.
    static func isWebPage(_ url: String) -> Bool {
        guard let scheme = BrowserURL(url)?.scheme else { return false }
        return scheme == "https" || scheme == "http"
    }

    /// Step 1 for the web SDK: keep the start in this tab under the state, then go to the provider.
    func webStartPage(_ web: WebSignInStart, _ authorization: BrowserAuthorization) -> Response {
        webPage(["start": web.stored, "state": .string(authorization.state), "providerUrl": .string(authorization.url)])
    }

    /// A failure before the provider: the event goes straight back to the app.
    func webEventPage(_ event: JSONValue, to web: WebSignInStart) -> Response {
        webPage(["event": event, "target": web.stored])
    }

    /// Step 2 for a web page: the event from the start this tab kept, or, when this tab kept none (an app using
    /// the `deep_link_id` protocol from a page), on to `appLink`.
    func webReturnPage(state: String, urlResponse: String?, error: JSONValue?, appLink: String) -> Response {
        webPage([
            "state": .string(state), "urlResponse": urlResponse.map(JSONValue.string) ?? .null, "error": error ?? .null,
            "appLink": .string(appLink),
        ])
    }

    /// The handler's one script with its data as JSON in a data block (`<` escaped, so no value closes the element),
    /// under a CSP allowing that script alone.
    func webPage(_ data: JSONValue) -> Response {
        let nonce = engine.randomToken(bytes: 16)
        let json = data.jsonText.replacingOccurrences(of: "<", with: "\\u003c")
        let body = """
            <p id="message">Signing in…</p>
            <script type="application/json" id="hearth-data">\(json)</script>
            <script nonce="\(nonce)">\(Self.webScript)</script>
            """
        var response = PageLayout.response(
            .ok, PageLayout.html(language: "en", title: "Signing in", body: body),
            contentSecurityPolicy: "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'unsafe-inline'; "
                + "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
        // The state and the provider's code are in these pages' URLs: no Referer to anyone.
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return response
    }

    static let webScript = """
        (function () {
          var data = JSON.parse(document.getElementById('hearth-data').textContent);
          var prefix = 'hearth:webSignIn:';
          function show(message) { document.getElementById('message').textContent = message; }
          function deliver(event, target) {
            var storageKey = target.apiKey + ':' + target.appName;
            var appOrigin = new URL(target.redirectUrl).origin;
            if (/Popup$/.test(event.type)) {
              var frames = window.opener ? window.opener.frames : [];
              for (var i = 0; i < frames.length; i++) {
                try {
                  var frame = frames[i], query = new URLSearchParams(frame.location.search);
                  if (frame.location.origin === location.origin && frame.location.pathname === '/__/auth/iframe' &&
                      query.get('apiKey') === target.apiKey && query.get('appName') === target.appName) {
                    frame.postMessage({eventType: 'sendAuthEvent',
                      data: {authEvent: event, storageKey: storageKey, appOrigin: appOrigin}}, location.origin);
                    return show('Signed in. You can close this window.');
                  }
                } catch (e) { /* another origin's frame */ }
              }
              return show('The app that opened this window is gone.');
            }
            sessionStorage.setItem('firebase:redirectEvent:' + storageKey,
              JSON.stringify({authEvent: event, appOrigin: appOrigin}));
            location.replace(target.redirectUrl);
          }
          if (data.start) {
            sessionStorage.setItem(prefix + data.state, JSON.stringify(data.start));
            return location.replace(data.providerUrl);
          }
          if (data.event) { return deliver(data.event, data.target); }
          var kept = sessionStorage.getItem(prefix + data.state);
          sessionStorage.removeItem(prefix + data.state);
          if (!kept) { return location.replace(data.appLink); }
          var start = JSON.parse(kept);
          deliver({type: start.type, eventId: start.eventId, urlResponse: data.urlResponse, sessionId: start.sessionId,
            postBody: null, tenantId: start.tenantId, error: data.error}, start);
        })();
        """
}
