import Foundation
import HearthCore
import HearthEngine
import Hummingbird

/// Signing in (e-mail and password, then a code), signing out, and the setup page a CLI-made link opens.
struct ConsoleSignInPages: Sendable {
    let console: Console
    var engine: AuthEngine { console.engine }

    func hidden(_ name: String, _ value: String) -> HTML { "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">" }

    func error(_ message: String?) -> HTML {
        message.map { "<p class=\"error\" role=\"alert\" id=\"error\">\($0)</p>" } ?? ""
    }

    func show(_ visit: ConsoleVisit) async throws -> Console.Answer {
        if visit.admin != nil { return .redirect("/console/users") }
        return passwordForm(visit, email: "", message: nil, status: .ok)
    }

    func passwordForm(_ visit: ConsoleVisit, email: String, message: String?, status: HTTPResponse.Status)
        -> Console.Answer
    {
        .page(
            status, title: "Sign in",
            """
            \(error(message))
            <form method="post" action="/console/sign-in">\(hidden("csrf", visit.csrf))
            <label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required value="\(email)">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit" id="submit">Continue</button></form>
            """)
    }

    func password(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let email = visit.field("email")
        do {
            let proof = try await engine.consolePasswordStep(
                email: email, password: visit.field("password"), binding: visit.browserCookie)
            return codeForm(visit, email: email, proof: proof, message: nil, status: .ok)
        } catch let error as AuthError {
            await record(visit, email, error)
            return passwordForm(visit, email: email, message: error.message, status: status(error))
        }
    }

    /// A console sign-in or its refusal, in the audit log.
    func record(_ visit: ConsoleVisit, _ email: String, _ failure: AuthError?) async {
        await engine.recordConsoleSignIn(
            email: String(email.prefix(320)), clientAddress: visit.clientIP,
            projectID: (try? console.origin(visit).project.projectID) ?? console.settings.projectID, failure: failure)
    }

    func codeForm(_ visit: ConsoleVisit, email: String, proof: String, message: String?, status: HTTPResponse.Status)
        -> Console.Answer
    {
        .page(
            status, title: "Enter your code",
            """
            \(error(message))
            <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
            <form method="post" action="/console/sign-in/code">\(hidden("csrf", visit.csrf))\(hidden("email", email))\(hidden("proof", proof))
            <label for="code">Code</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="off" required>
            <button type="submit" id="submit">Sign in</button></form>
            """)
    }

    func code(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let email = visit.field("email")
        let proof = visit.field("proof")
        do {
            let (cookie, admin) = try await engine.consoleCodeStep(
                email: email, proof: proof, code: visit.field("code"), binding: visit.browserCookie)
            await record(visit, admin.email, nil)
            var visit = visit
            visit.setCookies.append(
                ConsoleVisit.cookie(
                    ConsoleVisit.sessionCookieName, cookie, secure: visit.secure,
                    maxAge: Int(AuthEngine.consoleSessionAbsolute)))
            return .response(ConsoleLayout.redirect("/console/users", setCookies: visit.setCookies))
        } catch let error as AuthError where error.code == .invalidMFAPendingCredential {
            await record(visit, email, error)
            return passwordForm(visit, email: email, message: error.message, status: .badRequest)
        } catch let error as AuthError {
            await record(visit, email, error)
            return codeForm(visit, email: email, proof: proof, message: error.message, status: status(error))
        }
    }

    func signOut(_ visit: ConsoleVisit) async throws -> Console.Answer {
        if let session = visit.sessionCookie { try await engine.consoleSignOut(cookie: session) }
        var visit = visit
        visit.setCookies.append(ConsoleVisit.cookie(ConsoleVisit.sessionCookieName, "", secure: visit.secure, maxAge: 0))
        return .response(ConsoleLayout.redirect("/console/sign-in", setCookies: visit.setCookies))
    }

    // MARK: Setup

    func setup(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let token = visit.field("token")
        let (email, secret, uri) = try await engine.beginConsoleSetup(token: token)
        return setupForm(visit, token: token, email: email, secret: secret, uri: uri, message: nil, status: .ok)
    }

    func setupForm(
        _ visit: ConsoleVisit, token: String, email: String, secret: String, uri: String, message: String?,
        status: HTTPResponse.Status
    ) -> Console.Answer {
        .page(
            status, title: "Set up your console sign-in",
            """
            \(error(message))
            <p>You are setting up <strong>\(email)</strong>. This link works once, for 15 minutes.</p>
            <h2>1. Add the key to your authenticator app</h2>
            <p>Enter this key in the app (time-based, 6 digits, 30 seconds):</p>
            <p class="secret" id="totp-secret">\(secret)</p>
            <p class="muted">or as a link: <code>\(uri)</code></p>
            <h2>2. Choose a password and confirm a code</h2>
            <form method="post" action="/console/setup">\(hidden("csrf", visit.csrf))\(hidden("token", token))
            <input type="email" name="username" autocomplete="username" value="\(email)" hidden>
            <label for="password">Password (at least 12 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
            <label for="confirm">Password again</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
            <label for="code">Code from the app</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="off" required>
            <button type="submit" id="submit">Finish setup</button></form>
            """)
    }

    func completeSetup(_ visit: ConsoleVisit) async throws -> Console.Answer {
        let token = visit.field("token")
        let (email, secret, uri) = try await engine.beginConsoleSetup(token: token)
        guard visit.field("password") == visit.field("confirm") else {
            return setupForm(
                visit, token: token, email: email, secret: secret, uri: uri, message: "The passwords differ.",
                status: .badRequest)
        }
        do {
            let codes = try await engine.completeConsoleSetup(
                token: token, password: visit.field("password"), code: visit.field("code"))
            let items: [HTML] = codes.map { "<li><code>\($0)</code></li>" }
            return .page(
                .ok, title: "Setup complete",
                """
                <p class="notice">\(email) can now sign in.</p>
                <h2>Recovery codes</h2>
                <p>Each code signs you in once instead of an authenticator code. Keep them somewhere safe: they are not shown again.</p>
                <ul id="recovery-codes">\(items)</ul>
                <p><a href="/console/sign-in">Sign in</a></p>
                """)
        } catch let error as AuthError where error.code != .invalidOobCode {
            return setupForm(
                visit, token: token, email: email, secret: secret, uri: uri, message: error.message,
                status: status(error))
        }
    }

    func status(_ error: AuthError) -> HTTPResponse.Status {
        error.code == .tooManyAttemptsTryLater ? .tooManyRequests : HTTPResponse.Status(code: error.code.httpStatus)
    }
}
