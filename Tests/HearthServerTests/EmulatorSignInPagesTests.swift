import Foundation
import HTTPTypes
import HearthCore
import Hummingbird
import Testing

/// `/emulator/auth/handler` and `/emulator/auth/iframe`, the emulator's browser sign-in pages (the JS SDK's flows
/// through them run in tests/interop/test_js_sdk_browser.py): served only with `--emulator`, picking accounts that
/// signed in with the provider, never taking the page's script from an account's fields or a redirect elsewhere.
@Suite("Emulator sign-in pages")
struct EmulatorSignInPagesTests {
    func page(_ c: Client, _ query: String) async throws -> Client.Reply {
        try await c.send("/emulator/auth/handler?" + query, method: .get, key: nil)
    }

    @Test func theHandlerListsTheProvidersAccountsAsDataNeverAsMarkup() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            let claims = #"{"sub":"4242","email":"grace@example.com","name":"</script><script>alert(1)</script>"}"#
            let requestURI =
                "http://localhost/emulator/auth/handler?providerId=google.com&id_token="
                + claims.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let signedIn = try await c.post(
                "/v1/accounts:signInWithIdp",
                ["requestUri": .string(requestURI), "returnSecureToken": true, "sessionId": "x"])
            #expect(signedIn.status == 200, "\(signedIn.json)")

            let reply = try await page(
                c,
                "apiKey=\(Harness.apiKey)&appName=%5BDEFAULT%5D&authType=signInViaRedirect&providerId=google.com&redirectUrl=http%3A%2F%2Flocalhost%2Fapp"
            )
            let html = reply.json.stringValue ?? ""
            #expect(reply.status == 200)
            #expect(html.contains(#""sub":"4242""#) && html.contains("grace@example.com"))
            #expect(!html.contains("</script><script>alert(1)"), "the name stays inside the data block")
            let policy = try #require(reply.headers[HTTPField.Name("Content-Security-Policy")!])
            #expect(policy.contains("script-src 'nonce-") && policy.contains("frame-ancestors 'none'"))
            #expect(
                try await page(c, "apiKey=\(Harness.apiKey)&providerId=github.com").json.stringValue?.contains("4242")
                    == false)
        }
    }

    @Test func theHandlerRefusesMissingParametersAndScriptRedirects() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            #expect(try await page(c, "providerId=google.com").status == 400)
            #expect(try await page(c, "apiKey=\(Harness.apiKey)").status == 400)
            let script = try await page(
                c, "apiKey=\(Harness.apiKey)&providerId=google.com&redirectUrl=javascript%3Aalert(1)")
            #expect(script.status == 400)
        }
    }

    @Test func theIframeLoadsGapiUnderANonce() async throws {
        let h = try await Harness(emulator: true)
        try await h.run { (c: Client) async throws in
            let reply = try await c.send("/emulator/auth/iframe?apiKey=k&appName=a", method: .get, key: nil)
            #expect(reply.status == 200)
            #expect(
                (reply.json.stringValue ?? "").contains("https://apis.google.com/js/api.js?onload=hearthGapiLoaded"))
            #expect(reply.headers[HTTPField.Name("X-Frame-Options")!] == nil, "the app's page embeds it")
        }
    }

    @Test func productionServesNeither() async throws {
        let h = try await Harness()
        try await h.run { (c: Client) async throws in
            #expect(try await page(c, "apiKey=\(Harness.apiKey)&providerId=google.com").status == 404)
            #expect(try await c.send("/emulator/auth/iframe?apiKey=k&appName=a", method: .get, key: nil).status == 404)
        }
    }
}
