"""A GitHub-shaped OAuth 2.0 provider on 127.0.0.1 for the browser tests: a consent page (its button `#approve`),
a token endpoint checking the client secret and PKCE S256 and using each code once, /user and /user/emails, and
an app page at /app. Google's shape beside it under /google: the same consent page, a token endpoint answering
an RS256 ID token (issuer Google's, audience the client, the request's nonce) and its keys at /google/certs."""
import base64
import hashlib
import html
import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CLIENT_ID = "gh-browser-client"
CLIENT_SECRET = "gh-browser-secret"
GOOGLE_CLIENT_ID = "google-web-client.apps.googleusercontent.com"
GOOGLE_CLIENT_SECRET = "google-web-secret"
GOOGLE_ISSUER = "https://accounts.google.com"


class Provider:
    """GitHub's and Google's OAuth endpoints, enough of them: codes bound to the PKCE challenge, used once."""

    def __init__(self):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from google.auth import crypt

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        self.signer = crypt.RSASigner.from_string(pem, key_id="google-test-1")
        numbers = key.public_key().public_numbers()

        def b64(n: int) -> str:
            return base64.urlsafe_b64encode(n.to_bytes((n.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()

        self.jwks = {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "google-test-1",
                               "n": b64(numbers.n), "e": b64(numbers.e)}]}
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
                if url.path == "/google/certs":
                    return self.send(200, provider.jwks)
                if url.path in ("/login/oauth/authorize", "/google/authorize"):
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
                google = self.path == "/google/token"
                if self.path != "/login/oauth/access_token" and not google:
                    return self.send(404, {"error": "not_found"})
                grant = provider.codes.pop(form.get("code"), None)
                if form.get("client_secret") != (GOOGLE_CLIENT_SECRET if google else CLIENT_SECRET):
                    return self.send(401, {"error": "invalid_client"})
                verifier = form.get("code_verifier", "")
                challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if (grant is None or grant["client_id"] != form.get("client_id")
                        or grant["redirect_uri"] != form.get("redirect_uri") or grant["code_challenge"] != challenge):
                    # GitHub answers a bad code with 200 and an error.
                    return self.send(200, {"error": "bad_verification_code"})
                token = secrets.token_urlsafe(16)
                provider.tokens[token] = dict(provider.user)
                if not google:
                    return self.send(200, {"access_token": token, "token_type": "bearer", "scope": grant["scope"]})
                from google.auth import jwt

                now = int(time.time())
                claims = {"iss": GOOGLE_ISSUER, "aud": grant["client_id"], "azp": grant["client_id"],
                          "sub": str(provider.user["id"]), "email": provider.user["email"], "email_verified": True,
                          "name": provider.user["name"], "iat": now, "exp": now + 3600}
                if "nonce" in grant:
                    claims["nonce"] = grant["nonce"]
                if provider.user.get("hd"):
                    claims["hd"] = provider.user["hd"]
                self.send(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600,
                                "id_token": jwt.encode(provider.signer, claims).decode()})

        return Handler

    def stop(self):
        self.server.shutdown()
