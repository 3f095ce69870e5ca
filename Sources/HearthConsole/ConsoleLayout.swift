import HTTPTypes
import HearthCore
import Hummingbird

/// The console's one frame: a linked stylesheet (the only asset), no script, and headers that keep every page out
/// of caches, frames and other origins.
enum ConsoleLayout {
    /// Colours chosen for ≥ 4.5:1 contrast on their backgrounds (body text #18181b on #fff is 17:1, links #1d4ed8
    /// on #fff 6.7:1, white on the #b91c1c and #1d4ed8 buttons 6.5:1 and 6.7:1, muted #52525b on #fff 7.7:1; the
    /// charts' axis text is the muted colour, and their bar colours are each ≥ 4.5:1 on white).
    static let stylesheet = """
        *{box-sizing:border-box}
        body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f4f5;color:#18181b;line-height:1.5}
        header{background:#18181b;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.2rem;align-items:center}
        header a{color:#fff}header form{margin:0 0 0 auto}header .who{color:#e4e4e7}
        main{max-width:70rem;margin:1rem auto;padding:1rem;background:#fff;border-radius:8px}
        h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
        a{color:#1d4ed8}label{display:block;font-weight:600;margin:.8rem 0 .2rem}
        input,select,textarea{font:inherit;padding:.45rem;border:1px solid #71717a;border-radius:6px;max-width:100%;color:#18181b;background:#fff}
        input[type=text],input[type=email],input[type=password],input[type=search],input[type=url],textarea{width:100%}
        input[type=checkbox]{width:auto}.check{display:inline-flex;gap:.3rem;align-items:center;font-weight:400;margin-right:1rem}
        textarea{min-height:8rem;font-family:ui-monospace,monospace}
        button{font:inherit;margin-top:.8rem;padding:.5rem 1rem;border:0;border-radius:6px;background:#1d4ed8;color:#fff;cursor:pointer}
        button.danger{background:#b91c1c}header button{margin:0;background:#3f3f46}
        :focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
        .table{overflow-x:auto}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem;border-bottom:1px solid #e4e4e7;vertical-align:top}
        .muted{color:#52525b}.error{color:#b91c1c;font-weight:600}.notice{color:#166534;font-weight:600}
        code,.secret{font-family:ui-monospace,monospace;word-break:break-all}td code{display:inline-block;min-width:14rem}
        .actions{display:flex;flex-wrap:wrap;gap:0 1rem}.actions form{margin:0}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0;word-break:break-all}
        fieldset{border:1px solid #d4d4d8;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}
        @media (max-width:40rem){main{margin:0;border-radius:0}dl{grid-template-columns:1fr}}
        h3{font-size:1rem;margin:1rem 0 .3rem}pre.preview{white-space:pre-wrap;word-break:break-word;background:#f4f4f5;padding:.5rem;border-radius:6px}
        fieldset[disabled] input,fieldset[disabled] select,fieldset[disabled] textarea{background:#f4f4f5}
        .chart{display:block;width:100%;height:auto;max-width:36rem}.chart .axis{fill:#52525b;font-size:14px}.chart .axis-line{stroke:#71717a}
        .s0{fill:#1d4ed8;background:#1d4ed8}.s1{fill:#b91c1c;background:#b91c1c}.s2{fill:#166534;background:#166534}
        .s3{fill:#7e22ce;background:#7e22ce}.s4{fill:#b45309;background:#b45309}.s5{fill:#0f766e;background:#0f766e}
        .legend{display:flex;flex-wrap:wrap;gap:.2rem 1rem;list-style:none;padding:0;margin:.3rem 0}.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:2px;margin-right:.3rem;vertical-align:middle}
        caption{text-align:left;padding:.3rem 0}
        """

    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// A page: `admin` signed in adds the navigation and the sign-out form (which carries `csrf`).
    /// `development`: the Development page exists (emulator mode, or a development outbox for SMS or e-mail).
    static func page(title: String, admin: String?, csrf: String, body: HTML, development: Bool = false) -> HTML {
        let developmentLink: HTML = development ? "<a href=\"/console/development\">Development</a>" : ""
        let navigation: HTML =
            admin.map { email in
                """
                <header><nav aria-label="Console" class="actions"><a href="/console/users">Users</a><a href="/console/audit">Audit log</a><a href="/console/settings">Settings</a><a href="/console/activity">Activity</a>\(developmentLink)</nav>
                <span class="who">\(email)</span>
                <form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="\(csrf)">
                <button type="submit">Sign out</button></form></header>
                """
            } ?? "<header><span>Hearth console</span></header>"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · Hearth console</title><link rel="stylesheet" href="/console/style.css"></head>
            <body>\(navigation)<main><h1>\(title)</h1>
            \(body)
            </main></body></html>
            """
    }

    static func headers(setCookies: [String]) -> HTTPFields {
        var headers: HTTPFields = [.cacheControl: "no-store"]
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        for cookie in setCookies { headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return headers
    }

    static func response(_ status: HTTPResponse.Status, _ html: HTML, setCookies: [String] = []) -> Response {
        var headers = headers(setCookies: setCookies)
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html.text)))
    }

    /// A 303 to a console path (after a POST, so a reload does not post again).
    static func redirect(_ path: String, setCookies: [String] = []) -> Response {
        var headers = headers(setCookies: setCookies)
        headers[.location] = path
        return Response(status: .seeOther, headers: headers)
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = headers(setCookies: [])
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
