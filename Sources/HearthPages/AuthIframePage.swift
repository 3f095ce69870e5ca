import Foundation
import HTTPTypes
import HearthCore
import HearthEngine
import HearthServer
import Hummingbird

/// `/__/auth/iframe`, the page Firebase's JS SDK embeds from the auth domain (`platform_browser/iframe/iframe.ts`)
/// and talks to through Google's `gapi.iframes`: it hands the SDK the redirect event the handler stored in this
/// origin's sessionStorage (or "no event"), and a popup's event when the handler posts it here.
///
/// Only the app that started a sign-in gets its event: the handler names the app's origin (from its checked
/// `redirectUrl`) with each event, and the frame sends it only to a parent of exactly that origin. Any page may
/// frame it, as Firebase's: the SDK on an unauthorized domain then reports `auth/unauthorized-domain` itself.
struct AuthIframePage: Sendable {
    static let path = "/__/auth/iframe"
    let engine: AuthEngine

    func handle(_ request: Request, _ context: HearthRequestContext) async -> Response {
        do {
            // Only a project's frame: an unknown key is a page saying so.
            let wire = try await WireRequest.decode(request, context: context)
            _ = try engine.projects.resolve(apiKey: try wire.string("apiKey") ?? wire.apiKey, pathProject: nil)
        } catch let error as AuthError {
            return AuthHandlerPage.errorPage(.badRequest, error.message)
        } catch {
            return AuthHandlerPage.errorPage(.internalServerError, "The sign-in could not continue.")
        }
        let nonce = engine.randomToken(bytes: 16)
        let html = """
            <!doctype html>
            <meta charset="utf-8"><title>Auth iframe</title>
            <script nonce="\(nonce)">\(Self.script)</script>
            <script nonce="\(nonce)" src="https://apis.google.com/js/api.js?onload=hearthGapiLoaded"></script>
            """
        // Google's script and what it loads, nothing else.
        return PageLayout.response(
            .ok, html,
            contentSecurityPolicy: "default-src 'none'; script-src 'nonce-\(nonce)' https://apis.google.com; "
                + "frame-src https://*.google.com; connect-src https://*.google.com; base-uri 'none'",
            referrerPolicy: "no-referrer", framed: true)
    }

    static let script = """
        var query = new URLSearchParams(location.search);
        var storageKey = query.get('apiKey') + ':' + query.get('appName');
        var eventKey = 'firebase:redirectEvent:' + storageKey;
        // The page this frame is in, as the browser names it.
        var parentOrigin = location.ancestorOrigins && location.ancestorOrigins.length ? location.ancestorOrigins[0] :
          (document.referrer ? new URL(document.referrer).origin : '');
        var parentFrame = null, waiting = [];
        function sendAuthEvent(authEvent) {
          parentFrame.send('authEvent', {type: 'authEvent',
            authEvent: authEvent || {type: 'unknown', error: {code: 'auth/no-auth-event'}}}, function () {},
            gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
        }
        window.addEventListener('message', function (e) {
          // Only the handler, on this origin, posts events here, each for the app that started it.
          if (e.origin !== location.origin || !e.data || e.data.eventType !== 'sendAuthEvent') { return; }
          var data = e.data.data || {};
          if (data.storageKey !== storageKey || data.appOrigin !== parentOrigin) { return; }
          if (parentFrame) { sendAuthEvent(data.authEvent); } else { waiting.push(data.authEvent); }
        });
        window.hearthGapiLoaded = function () {
          gapi.load('gapi.iframes', {callback: function () {
            parentFrame = gapi.iframes.getContext().getParentIframe();
            parentFrame.register('webStorageSupport', function () {
              return {status: 'ACK', webStorageSupport: true};
            }, gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER);
            var stored = sessionStorage.getItem(eventKey), event = null;
            sessionStorage.removeItem(eventKey);
            try { stored = stored ? JSON.parse(stored) : null; } catch (e) { stored = null; }
            if (stored && stored.appOrigin === parentOrigin) { event = stored.authEvent; }
            sendAuthEvent(event);
            waiting.splice(0).forEach(sendAuthEvent);
          }});
        };
        """
}
