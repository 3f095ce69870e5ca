import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import Hummingbird

/// The Firebase Auth Emulator's browser sign-in pages, served only by `hearth serve --emulator`: the web SDK opens
/// `/emulator/auth/handler` for `signInWithRedirect`/`signInWithPopup` once `connectAuthEmulator` is called, and
/// embeds `/emulator/auth/iframe` to receive the result.
///
/// The handler is an account picker, as the emulator's is: the developer chooses an account that already signed in
/// with the provider, or makes up a new one. No provider is contacted; the result is a fake ID token (JSON claims)
/// in the `urlResponse` the SDK presents to `accounts:signInWithIdp`, which emulator mode accepts unsigned. A
/// redirect keeps that event in the handler origin's sessionStorage and goes back to the app; the iframe, on the
/// same origin inside the app's page, hands it to the SDK through `gapi.iframes`. A popup posts it to that iframe.
public struct EmulatorSignInPages: Sendable {
    let engine: AuthEngine
    /// How many accounts the picker looks through for ones linked to the provider.
    static let scanLimit = 1000

    public init(engine: AuthEngine) { self.engine = engine }

    public func register(on router: Router<HearthRequestContext>) {
        guard engine.isEmulator else { return }
        router.get("/emulator/auth/handler") { request, context in try await handler(request, context) }
        router.get("/emulator/auth/iframe") { _, _ in iframe() }
    }

    func handler(_ request: Request, _ context: HearthRequestContext) async throws -> Response {
        let wire = try await WireRequest.decode(request, context: context)
        guard let apiKey = try wire.string("apiKey"), !apiKey.isEmpty, let providerID = try wire.string("providerId"),
            !providerID.isEmpty
        else {
            return WireResponse.json(
                ["authEmulator": ["error": "missing apiKey or providerId query parameters"]], status: .badRequest)
        }
        // A redirect goes back to the app with JavaScript; only to a web page.
        if let redirect = try wire.string("redirectUrl"),
            !["http", "https"].contains(URLComponents(string: redirect)?.scheme?.lowercased())
        {
            return WireResponse.json(
                ["authEmulator": ["error": "redirectUrl must be an http or https URL"]], status: .badRequest)
        }
        var project = try engine.projects.resolve(apiKey: apiKey, pathProject: nil)
        if let tenant = try wire.string("tid").flatMap({ $0.isEmpty ? nil : $0 }) {
            project = try engine.projects.tenant(tenant, of: project)
        }
        var accounts: [JSONValue] = []
        for info in try await engine.signedInIdentities(
            projectID: project.projectID, providerID: providerID, limit: Self.scanLimit)
        {
            var account: [String: JSONValue] = ["sub": .string(info.rawID)]
            account["email"] = info.email.map(JSONValue.string)
            account["name"] = info.displayName.map(JSONValue.string)
            account["picture"] = info.photoURL.map(JSONValue.string)
            accounts.append(.object(account))
        }
        let nonce = engine.randomToken(bytes: 16)
        // The accounts reach the script as JSON in a data block; `<` is escaped so no value can close the element.
        let data = JSONValue.array(accounts).jsonText.replacingOccurrences(of: "<", with: "\\u003c")
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Sign in – Hearth Auth Emulator</title><style>\(PageLayout.stylesheet)
            li{list-style:none;margin:.4rem 0}ul{padding:0}input[type=text],input[type=email]{box-sizing:border-box;width:100%;
            padding:.6rem;font-size:1rem;border:1px solid #a1a1aa;border-radius:6px}.account{width:100%;text-align:left}</style></head>
            <body><main><h1>Sign in with <span id="provider">\(HTMLEscaping.escape(providerID))</span></h1>
            <p>Hearth's emulator: no provider is contacted. Choose an account or add a new one.</p>
            <ul id="accounts"></ul>
            <form id="new-account"><label for="email-input">Email</label><input id="email-input" type="email" name="email">
            <label for="display-name-input">Display name</label><input id="display-name-input" type="text" name="name">
            <button id="sign-in" type="submit">Sign in with a new account</button></form>
            <p id="error" class="error"></p></main>
            <script type="application/json" id="account-data">\(data)</script>
            <script nonce="\(nonce)">\(Self.handlerScript)</script></body></html>
            """
        return PageLayout.response(
            .ok, html,
            contentSecurityPolicy: "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'unsafe-inline'; "
                + "img-src https: data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
            referrerPolicy: "no-referrer")
    }

    /// The handler's script: the auth event as the web SDK reads it (`urlResponse` is what it presents to
    /// signInWithIdp), kept for the iframe (redirect) or posted to it (popup).
    static let handlerScript = """
        var query = new URLSearchParams(location.search);
        var apiKey = query.get('apiKey'), appName = query.get('appName'), authType = query.get('authType') || '';
        var providerId = query.get('providerId'), redirectUrl = query.get('redirectUrl');
        var storageKey = apiKey + ':' + appName;
        function fail(message) { document.getElementById('error').textContent = message; }
        function finish(claims) {
          var urlResponse = location.origin + location.pathname + '?providerId=' + encodeURIComponent(providerId) +
            '&id_token=' + encodeURIComponent(JSON.stringify(claims));
          var event = {type: authType, eventId: query.get('eventId'), urlResponse: urlResponse,
            sessionId: 'ValueNotUsedByAuthEmulator', postBody: '', tenantId: query.get('tid'), error: null};
          if (/popup/i.test(authType)) {
            var frames = window.opener ? window.opener.frames : [];
            for (var i = 0; i < frames.length; i++) {
              try {
                var frameQuery = new URLSearchParams(frames[i].location.search);
                if (frames[i].location.origin === location.origin && frameQuery.get('apiKey') === apiKey &&
                    frameQuery.get('appName') === appName) {
                  frames[i].postMessage({eventType: 'sendAuthEvent', data: {authEvent: event, storageKey: storageKey}},
                    location.origin);
                  return;
                }
              } catch (e) { /* another origin's frame */ }
            }
            return fail('The app that opened this window is gone.');
          }
          if (!redirectUrl) { return fail('No redirectUrl to return to.'); }
          sessionStorage['firebase:redirectEvent:' + storageKey] = JSON.stringify(event);
          location.assign(redirectUrl);
        }
        function randomId() { var s = ''; for (var i = 0; i < 20; i++) { s += Math.floor(Math.random() * 10); } return s; }
        var accounts = JSON.parse(document.getElementById('account-data').textContent);
        accounts.forEach(function (account, index) {
          var button = document.createElement('button');
          button.className = 'account';
          button.id = 'account-' + index;
          button.textContent = (account.name || '(no display name)') + ' ' + (account.email || '');
          button.addEventListener('click', function () {
            finish({sub: account.sub, iss: '', aud: '', exp: 0, iat: 0, name: account.name, email: account.email,
              email_verified: true, picture: account.picture});
          });
          var item = document.createElement('li');
          item.appendChild(button);
          document.getElementById('accounts').appendChild(item);
        });
        document.getElementById('new-account').addEventListener('submit', function (e) {
          e.preventDefault();
          var email = document.getElementById('email-input').value;
          var name = document.getElementById('display-name-input').value;
          finish({sub: randomId(), iss: '', aud: '', exp: 0, iat: 0, name: name || undefined, email: email || undefined,
            email_verified: true});
        });
        """

    /// The iframe the web SDK embeds in the app's page: it hands the SDK the stored redirect event (or "none"), and a
    /// popup's event when the handler posts it, through `gapi.iframes`, Google's script as the emulator's uses it.
    func iframe() -> Response {
        let nonce = engine.randomToken(bytes: 16)
        let html = """
            <!doctype html>
            <meta charset="utf-8"><title>Auth Emulator Helper Iframe</title>
            <script nonce="\(nonce)">
            var query = new URLSearchParams(location.search);
            var storageKey = query.get('apiKey') + ':' + query.get('appName');
            var parentFrame = null;
            function sendAuthEvent(authEvent) {
              parentFrame.send('authEvent', {type: 'authEvent',
                authEvent: authEvent || {type: 'unknown', error: {code: 'auth/no-auth-event'}}}, function () {},
                gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
            }
            window.addEventListener('message', function (e) {
              // Only the handler, on this origin, posts events here.
              if (e.origin !== location.origin || !e.data || e.data.eventType !== 'sendAuthEvent') { return; }
              if (e.data.data.storageKey !== storageKey) { return; }
              if (parentFrame) { sendAuthEvent(e.data.data.authEvent); }
              else { sessionStorage['firebase:redirectEvent:' + storageKey] = JSON.stringify(e.data.data.authEvent); }
            });
            window.hearthGapiLoaded = function () {
              gapi.load('gapi.iframes', {callback: function () {
                parentFrame = gapi.iframes.getContext().getParentIframe();
                parentFrame.register('webStorageSupport', function () {
                  return {status: 'ACK', webStorageSupport: true};
                }, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
                var stored = sessionStorage['firebase:redirectEvent:' + storageKey];
                delete sessionStorage['firebase:redirectEvent:' + storageKey];
                var event = null;
                try { event = stored ? JSON.parse(stored) : null; } catch (e) { event = null; }
                sendAuthEvent(event);
              }});
            };
            </script>
            <script nonce="\(nonce)" src="https://apis.google.com/js/api.js?onload=hearthGapiLoaded"></script>
            """
        // Embedded by any app (the emulator serves any origin); Google's script and what it loads, nothing else.
        return PageLayout.response(
            .ok, html,
            contentSecurityPolicy: "default-src 'none'; script-src 'nonce-\(nonce)' https://apis.google.com; "
                + "frame-src https://*.google.com; connect-src https://*.google.com; base-uri 'none'",
            referrerPolicy: nil, framed: true)
    }
}
