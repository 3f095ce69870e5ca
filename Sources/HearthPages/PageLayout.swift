import HTTPTypes
import HearthCore
import Hummingbird

/// The one layout of the action pages: a small inline stylesheet, no scripts, no external assets, and headers
/// that keep the page (and the code in its URL) to itself.
enum PageLayout {
    static let stylesheet = """
        body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f4f5;color:#18181b}
        main{max-width:26rem;margin:10vh auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.12)}
        h1{font-size:1.4rem;margin:0 0 1rem}p{line-height:1.5}label{display:block;font-weight:600;margin:1rem 0 .3rem}
        input[type=password]{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid #a1a1aa;border-radius:6px}
        button,.button{display:inline-block;margin-top:1.2rem;padding:.6rem 1.2rem;font-size:1rem;border:0;border-radius:6px;
        background:#c2410c;color:#fff;text-decoration:none;cursor:pointer}.error{color:#b91c1c}
        """

    static func html(language: String, title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="\(HTMLEscaping.escape(language))"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="same-origin">
        <title>\(HTMLEscaping.escape(title))</title><style>\(stylesheet)</style></head>
        <body><main><h1>\(HTMLEscaping.escape(title))</h1>
        \(body)
        </main></body></html>
        """
    }

    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// An HTML page with the pages' security headers. `framed` is for the pages the web SDK embeds (its auth
    /// iframes), which must not refuse framing; every other page does.
    static func response(
        _ status: HTTPResponse.Status, _ html: String, setCookie: String? = nil,
        contentSecurityPolicy: String = PageLayout.contentSecurityPolicy,
        // Not no-referrer by default: browsers then send `Origin: null` on the form POST. same-origin still keeps
        // the code in the URL from every other site (the continue link).
        referrerPolicy: String? = "same-origin", framed: Bool = false
    ) -> Response {
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-store",
        ]
        headers[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy
        if !framed { headers[HTTPField.Name("X-Frame-Options")!] = "DENY" }
        if let referrerPolicy { headers[HTTPField.Name("Referrer-Policy")!] = referrerPolicy }
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if let setCookie { headers[.setCookie] = setCookie }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
