"""A GitHub-shaped OAuth 2.0 provider on 127.0.0.1 for the browser tests: a consent page (its button `#approve`),
a token endpoint checking the client secret and PKCE S256 and using each code once, /user and /user/emails, and
an app page at /app."""
import base64
import hashlib
import html
import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CLIENT_ID = "gh-browser-client"
CLIENT_SECRET = "gh-browser-secret"


class Provider:
    """GitHub's OAuth endpoints, enough of them: codes bound to the PKCE challenge, used once."""

    def __init__(self):
        self.codes = {}
        self.tokens = {}
        self.authorize_queries = []
        # Who signs in next (tests may change it).
        self.user = {"id": 4242, "name": "Octo Browser", "email": "octo@example.com"}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.port = self.server.server_address[1]
        # The app's page lives on "localhost", a domain the project authorizes by default.
        self.app_page = f"http://localhost:{self.port}/app"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send(self, status, body, content_type="application/json", headers=()):
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/login/oauth/authorize":
                    provider.authorize_queries.append(query)
                    fields = "".join(
                        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                        for k, v in query.items())
                    page = (f"<!doctype html><title>Authorize</title><form method=get action=/approve>{fields}"
                            f'<button id="approve" type="submit">Authorize Hearth</button></form>')
                    return self.send(200, page, "text/html")
                if url.path == "/approve":
                    code = secrets.token_urlsafe(16)
                    provider.codes[code] = query
                    target = query["redirect_uri"] + "?" + urllib.parse.urlencode(
                        {"code": code, "state": query["state"]})
                    return self.send(302, "", "text/plain", [("Location", target)])
                if url.path in ("/user", "/user/emails"):
                    token = self.headers.get("Authorization", "").removeprefix("Bearer ")
                    if token not in provider.tokens:
                        return self.send(401, {"message": "Bad credentials"})
                    user = provider.tokens[token]
                    if url.path == "/user":
                        return self.send(200, {"id": user["id"], "login": "octo", "name": user["name"], "email": None,
                                               "avatar_url": f"https://avatars.example/{user['id']}"})
                    return self.send(200, [{"email": user["email"], "primary": True, "verified": True}])
                if url.path == "/app":
                    return self.send(200, "<!doctype html><title>App</title><p id=done>Signed in</p>", "text/html")
                self.send(404, {"error": "not_found"})

            def do_POST(self):
                form = dict(urllib.parse.parse_qsl(self.rfile.read(int(self.headers["Content-Length"])).decode()))
                if self.path != "/login/oauth/access_token":
                    return self.send(404, {"error": "not_found"})
                grant = provider.codes.pop(form.get("code"), None)
                if form.get("client_secret") != CLIENT_SECRET:
                    return self.send(401, {"error": "invalid_client"})
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if (grant is None or grant["client_id"] != form.get("client_id")
                        or grant["redirect_uri"] != form.get("redirect_uri") or grant["code_challenge"] != challenge):
                    # GitHub answers a bad code with 200 and an error.
                    return self.send(200, {"error": "bad_verification_code"})
                token = secrets.token_urlsafe(16)
                provider.tokens[token] = dict(provider.user)
                self.send(200, {"access_token": token, "token_type": "bearer", "scope": grant["scope"]})

        return Handler

    def stop(self):
        self.server.shutdown()
