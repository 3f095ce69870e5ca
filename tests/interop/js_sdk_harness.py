"""Firebase's JavaScript SDK, built from firebase-js-sdk's own source, in headless Chromium against Hearth.

The SDK is not in this repository and is not fetched by the tests: they read a firebase-js-sdk checkout or git
directory named by FIREBASE_JS_SDK (default: the mirror this machine keeps, /work/.mirror/firebase+firebase-js-sdk/repo),
copy packages/{auth,app,util,component,logger} into a temporary folder and bundle them with Debian's esbuild into one
script exposing the modular API as `window.firebase`. The only third-party import, `idb` (@firebase/app's heartbeat
store), is our own stand-in (js_sdk/idb.js). Without the source or esbuild the tests skip and say why.

An app page is served from http://localhost:<port>/ (an authorized domain by default) and runs the SDK either against
`hearth serve --emulator` through `connectAuthEmulator`, or against a production-mode server with the SDK's
`auth.config.apiHost`/`tokenApiHost` pointed at Hearth's host-prefixed paths."""
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SDK_SOURCE = os.environ.get("FIREBASE_JS_SDK", "/work/.mirror/firebase+firebase-js-sdk/repo")
ESBUILD = shutil.which("esbuild")
PACKAGES = ["auth", "app", "util", "component", "logger"]


def _extract(source: str, into: str):
    """The SDK's packages (and every package.json, which @firebase/app reads names and versions from) from a
    checkout or a bare git directory."""
    if os.path.isdir(os.path.join(source, "packages", "auth")):
        for name in os.listdir(os.path.join(source, "packages")):
            src = os.path.join(source, "packages", name)
            if name in PACKAGES:
                shutil.copytree(src, os.path.join(into, "packages", name))
            elif os.path.isfile(os.path.join(src, "package.json")):
                os.makedirs(os.path.join(into, "packages", name))
                shutil.copy(os.path.join(src, "package.json"), os.path.join(into, "packages", name))
        return
    git = ["git", "--git-dir", source]
    listing = subprocess.run([*git, "ls-tree", "-r", "--name-only", "HEAD", "packages/"], capture_output=True,
                             text=True, check=True).stdout.split()
    manifests = [p for p in listing if p.count("/") == 2 and p.endswith("/package.json")]
    archive = subprocess.run([*git, "archive", "HEAD", *[f"packages/{p}" for p in PACKAGES], *manifests],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)


def build_sdk() -> str:
    """Builds the bundle into a temporary folder; returns its path. Skips when the source or esbuild is absent."""
    if not ESBUILD:
        pytest.skip("needs Debian's esbuild (apt-get install esbuild) to bundle the Firebase JS SDK")
    is_git = os.path.isfile(os.path.join(SDK_SOURCE, "HEAD"))
    if not (is_git or os.path.isdir(os.path.join(SDK_SOURCE, "packages", "auth"))):
        pytest.skip(f"no firebase-js-sdk source at {SDK_SOURCE} (set FIREBASE_JS_SDK to a checkout or git directory)")
    folder = tempfile.mkdtemp(prefix="hearth-js-sdk-")
    _extract(SDK_SOURCE, folder)
    packages = os.path.join(folder, "packages")
    out = os.path.join(folder, "firebase.js")
    aliases = {
        "@firebase/app": "app/src/index.ts", "@firebase/auth": "auth/index.ts", "@firebase/util": "util/index.ts",
        "@firebase/component": "component/index.ts", "@firebase/logger": "logger/index.ts",
    }
    args = [ESBUILD, os.path.join(HERE, "js_sdk", "entry.js"), "--bundle", "--format=iife", "--target=es2020",
            f"--outfile={out}", "--log-level=error", f"--alias:idb={os.path.join(HERE, 'js_sdk', 'idb.js')}",
            # What the SDK's rollup build substitutes.
            "--define:__BUILD_TARGET__=\"esm2020\"", "--define:__RUNTIME_ENV__=\"\""]
    args += [f"--alias:{name}={os.path.join(packages, path)}" for name, path in aliases.items()]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0, "esbuild could not bundle the Firebase JS SDK:\n" + done.stderr[-4000:]
    return out


class AppServer:
    """The web app's origin: its page and the SDK bundle, plus whatever extra paths a test adds. Served over HTTP on
    `port` and over HTTPS on `tls_port` (a throwaway certificate), for an app on a named host that a browser reaches
    through `mapped_hosts` (`https://<host>/` on the auth domain's site)."""

    def __init__(self, bundle: str):
        import ssl
        from smtp_sink import make_certificates

        with open(bundle, "rb") as f:
            self.files = {"/firebase.js": (f.read(), "text/javascript")}
        with open(os.path.join(HERE, "js_sdk", "app.html"), "rb") as f:
            self.files["/"] = (f.read(), "text/html")
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.server.server_address[1]
        self.origin = f"http://localhost:{self.port}"
        self.directory = tempfile.mkdtemp(prefix="hearth-app-tls-")
        make_certificates(self.directory)
        self.tls_server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.path.join(self.directory, "server.pem"), os.path.join(self.directory, "server.key"))
        self.tls_server.socket = context.wrap_socket(self.tls_server.socket, server_side=True)
        self.tls_port = self.tls_server.server_address[1]
        for server in (self.server, self.tls_server):
            threading.Thread(target=server.serve_forever, daemon=True).start()

    def _handler(self):
        files = self.files

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                path = urllib.parse.urlsplit(self.path).path
                body, kind = files.get(path, files["/"] if path.startswith("/app") else (b"not found", None))
                self.send_response(200 if kind else 404)
                self.send_header("Content-Type", kind or "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def stop(self):
        self.server.shutdown()
        self.tls_server.shutdown()
        shutil.rmtree(self.directory, ignore_errors=True)


class GapiServer:
    """https://apis.google.com/js/api.js on a local TLS port (js_sdk/gapi.js, our stand-in for gapi.iframes);
    `browser(mapped_hosts=gapi.mapped_hosts)` sends Chromium there."""

    def __init__(self):
        import ssl
        from smtp_sink import make_certificates

        self.directory = tempfile.mkdtemp(prefix="hearth-gapi-")
        make_certificates(self.directory)
        with open(os.path.join(HERE, "js_sdk", "gapi.js"), "rb") as f:
            script = f.read()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                found = urllib.parse.urlsplit(self.path).path == "/js/api.js"
                body = script if found else b"not found"
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "text/javascript" if found else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.path.join(self.directory, "server.pem"), os.path.join(self.directory, "server.key"))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.mapped_hosts = {"apis.google.com": self.server.server_address[1]}
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        shutil.rmtree(self.directory, ignore_errors=True)


class JSError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code


class WebApp:
    """One browser on the app's page, with the SDK configured for one Hearth server in one mode."""

    def __init__(self, driver, app_server: AppServer, settings: dict):
        self.driver = driver
        self.app_server = app_server
        self.settings = settings
        driver.set_script_timeout(30)

    def open(self, path: str = "/app", origin: str | None = None):
        """Loads the app page (on `origin`, else http://localhost:<port>) and starts the SDK as the app does on every
        load; waits for the persisted user."""
        self.driver.get((origin or self.app_server.origin) + path)
        self.start()

    def start(self):
        """Starts the SDK on the page the browser is on."""
        self.run("await window.startAuth(args[0]);", self.settings)

    def run(self, body: str, *args):
        """Runs `body` as an async function of (fb, auth, args) in the page; returns its value or raises JSError
        with the SDK's error code (auth/…)."""
        script = (
            "const done = arguments[arguments.length - 1];"
            "const args = Array.from(arguments).slice(0, -1);"
            f"(async (fb, auth, args) => {{ {body} }})(window.firebase, window.auth, args).then("
            "  value => done({value: value === undefined ? null : value}),"
            "  e => done({error: (e && e.code) || String(e), message: (e && e.message) || String(e)}));"
        )
        result = self.driver.execute_async_script(script, *args)
        if "error" in result:
            raise JSError(result["error"], result["message"])
        return result["value"]

    def error_of(self, body: str, *args) -> str:
        """The SDK error code `body` fails with."""
        try:
            self.run(body, *args)
        except JSError as e:
            return e.code
        raise AssertionError("expected the SDK to fail")
