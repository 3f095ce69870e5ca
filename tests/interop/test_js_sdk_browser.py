"""The flows a web app runs with Firebase's JavaScript SDK (built from firebase-js-sdk's source, js_sdk_harness.py), in
headless Chromium, each in both modes: `hearth serve --emulator` through `connectAuthEmulator`, and a production-mode
server whose host-prefixed paths the SDK's `auth.config.apiHost`/`tokenApiHost` name. E-mails are read from the
emulator's outbox, or from a real SMTP server (aiosmtpd) in production; second-factor codes come from pyotp."""
import base64
import glob
import json
import os
import re
import tempfile
import time
import urllib.parse

import pyotp
import pytest
import requests

from conftest import browser, free_port, needs_chromium, run_smtp_sink, start
from js_sdk_harness import AppServer, GapiServer, WebApp, build_sdk
from oauth_provider import CLIENT_ID, CLIENT_SECRET, GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET, Provider

pytestmark = needs_chromium

API_KEY = "js-sdk-web-key"
TEST_PHONE, TEST_CODE = "+16505553434", "654321"
MFA = {"state": "ENABLED", "enabledProviders": [],
       "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]}
OWNER = {"Authorization": "Bearer owner"}
# Production: Hearth serves HTTPS on the auth domain, and the popup/redirect app is on the same site (a redirect's
# event is kept in the auth domain's sessionStorage, which Chromium partitions by top-level site). Chromium's
# --host-resolver-rules send these names to local ports; the foreign app is not an authorized domain.
AUTH_DOMAIN, APP_HOST, FOREIGN_HOST = "auth.hearth.test", "app.hearth.test", "evil.hearth.test"


@pytest.fixture(scope="module")
def app_server():
    server = AppServer(build_sdk())
    yield server
    server.stop()


class OutboxMail:
    """The emulator's outbox, as firebase-tools' REST API lists it."""

    def __init__(self, hearth):
        self.hearth = hearth

    def link(self, email: str) -> str:
        codes = requests.get(f"{self.hearth.base}/emulator/v1/projects/{self.hearth.project}/oobCodes",
                             timeout=10).json()["oobCodes"]
        mine = [c for c in codes if c["email"] == email]
        assert mine, f"no e-mail to {email} in the outbox"
        return mine[-1]["oobLink"]


class SMTPMail:
    """Messages that reached the SMTP sink; the link is the one in the text body."""

    def __init__(self, directory):
        self.directory = directory

    def link(self, email: str) -> str:
        deadline = time.time() + 10
        while time.time() < deadline:
            for path in sorted(glob.glob(os.path.join(self.directory, "[0-9]*.json")), reverse=True):
                with open(path) as f:
                    message = json.load(f)
                if email in message["rcptTos"]:
                    return re.search(r"https?://\S+oobCode=\S+", message["text"]).group(0)
            time.sleep(0.1)
        raise AssertionError(f"no e-mail to {email} arrived")


def emulator_mode():
    """`hearth serve --emulator` with TOTP second factors and a test phone number set through the config API."""
    for hearth in start("js-sdk-emu", "--emulator"):
        reply = requests.patch(
            f"{hearth.base}/v2/projects/{hearth.project}/config",
            params={"updateMask": "mfa,signIn.phoneNumber.testPhoneNumbers"}, headers=OWNER, timeout=10,
            json={"mfa": MFA, "signIn": {"phoneNumber": {"testPhoneNumbers": {TEST_PHONE: TEST_CODE}}}})
        assert reply.status_code == 200, reply.text
        settings = {"apiKey": API_KEY, "projectId": hearth.project, "authDomain": hearth.host,
                    "emulator": hearth.base}
        yield hearth, settings, OutboxMail(hearth)


def production_mode(provider):
    """A production-mode server over TLS (a throwaway certificate) on AUTH_DOMAIN, mailing through aiosmtpd, signing
    in through `provider` (GitHub-shaped); the SDK reaches it through its host-prefixed paths."""
    from smtp_sink import make_certificates

    tls = tempfile.mkdtemp(prefix="hearth-js-tls-")
    make_certificates(tls)
    idp = f"http://127.0.0.1:{provider.port}"
    with run_smtp_sink("plain") as (smtp_port, directory):
        yield from production_server(idp, tls, smtp_port, directory)


def production_server(idp, tls, smtp_port, directory):
    """`production_mode`'s server, mailing through the sink on `smtp_port`."""
    port = free_port()
    config = {
        "publicURL": f"https://{AUTH_DOMAIN}",
        "email": {"provider": "smtp", "smtp": {"host": "127.0.0.1", "port": smtp_port, "security": "none",
                                               "from": "noreply@hearth.test"}},
        "projects": [{
            "projectId": "js-sdk-prod", "apiKeys": [API_KEY], "rateLimits": {"signUpsPerIPPerHour": 0},
            "mfa": MFA, "phone": {"testPhoneNumbers": {TEST_PHONE: TEST_CODE}},
            "authorizedDomains": ["localhost", APP_HOST],
            "federation": {
                "oauth": {"github.com": {
                    "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
                    "authorizationUrl": idp + "/login/oauth/authorize", "tokenUrl": idp + "/login/oauth/access_token",
                    "userInfoUrl": idp + "/user", "emailsUrl": idp + "/user/emails"}},
                # Google's issuer and token shape; its endpoints and keys on the local provider.
                "google": {"clientIds": [GOOGLE_CLIENT_ID], "clientSecret": GOOGLE_CLIENT_SECRET,
                           "authorizationUrl": idp + "/google/authorize", "tokenUrl": idp + "/google/token",
                           "keysUrl": idp + "/google/certs"}},
        }],
    }
    for hearth in start("js-sdk-prod", "--tls-cert", os.path.join(tls, "server.pem"), "--tls-key",
                        os.path.join(tls, "server.key"), config=config, port=port):
        hearth.ca = os.path.join(tls, "ca.pem")  # what a Python client trusts the server's certificate by
        settings = {"apiKey": API_KEY, "projectId": hearth.project, "authDomain": AUTH_DOMAIN,
                    "apiScheme": "https", "apiHost": f"{AUTH_DOMAIN}/identitytoolkit.googleapis.com",
                    "tokenApiHost": f"{AUTH_DOMAIN}/securetoken.googleapis.com"}
        yield hearth, settings, SMTPMail(directory)


@pytest.fixture(scope="module")
def gapi_server():
    server = GapiServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def provider():
    p = Provider()
    yield p
    p.stop()


@pytest.fixture(scope="module", params=["emulator", "production"])
def web(request, app_server, gapi_server, provider):
    """(WebApp on a fresh page, Hearth, mailbox) for one mode; one server and one browser per mode."""
    mode = emulator_mode() if request.param == "emulator" else production_mode(provider)
    hearth, settings, mail = next(mode)
    mapped = dict(gapi_server.mapped_hosts)
    if request.param == "production":
        mapped.update({AUTH_DOMAIN: hearth.port, APP_HOST: app_server.tls_port, FOREIGN_HOST: app_server.tls_port})
    driver = browser(mapped_hosts=mapped)
    try:
        app = WebApp(driver, app_server, settings)
        app.mode, app.hearth, app.mail, app.provider = request.param, hearth, mail, provider
        yield app
    finally:
        driver.quit()
        mode.close()


@pytest.fixture
def app(web):
    """The app page freshly loaded, nobody signed in."""
    web.open()
    web.run("await fb.signOut(auth);")
    return web


def unique_email(tag: str) -> str:
    return f"{tag}-{time.time_ns()}@example.com"


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


SIGN_UP = "const c = await fb.createUserWithEmailAndPassword(auth, args[0], args[1]); return c.user.uid;"
SIGN_IN = "const c = await fb.signInWithEmailAndPassword(auth, args[0], args[1]); return c.user.uid;"


def test_sign_up_and_sign_in_with_email_and_password(app):
    email = unique_email("ada")
    uid = app.run(SIGN_UP, email, "correct horse")
    token = app.run("return await auth.currentUser.getIdToken();")
    assert claims(token)["user_id"] == uid and claims(token)["email"] == email
    assert claims(token)["firebase"]["sign_in_provider"] == "password"
    app.run("await fb.signOut(auth);")
    assert app.run(SIGN_IN, email, "correct horse") == uid
    assert app.run("return auth.currentUser.email;") == email


def wrong_password(app) -> str:
    """Enumeration protection (on in production by default, as in Firebase; off in Firebase's emulator) hides
    whether the address or the password was wrong."""
    return "auth/wrong-password" if app.mode == "emulator" else "auth/invalid-credential"


def unknown_user(app) -> str:
    return "auth/user-not-found" if app.mode == "emulator" else "auth/invalid-credential"


def test_a_wrong_password_is_refused(app):
    email = unique_email("wrong")
    app.run(SIGN_UP, email, "correct horse")
    app.run("await fb.signOut(auth);")
    assert app.error_of(SIGN_IN, email, "wrong horse") == wrong_password(app)
    assert app.error_of(SIGN_IN, unique_email("nobody"), "any password") == unknown_user(app)
    assert app.run("return auth.currentUser;") is None


def test_sign_up_errors(app):
    email = unique_email("taken")
    app.run(SIGN_UP, email, "correct horse")
    app.run("await fb.signOut(auth);")
    assert app.error_of(SIGN_UP, email, "another password") == "auth/email-already-in-use"
    assert app.error_of(SIGN_UP, unique_email("weak"), "123") == "auth/weak-password"
    assert app.error_of(SIGN_UP, "not-an-address", "correct horse") == "auth/invalid-email"


def test_a_disabled_user_cannot_sign_in(app):
    email = unique_email("disabled")
    uid = app.run(SIGN_UP, email, "correct horse")
    app.run("await fb.signOut(auth);")
    app.hearth.cli("users", "disable", uid)
    assert app.error_of(SIGN_IN, email, "correct horse") == "auth/user-disabled"


def test_anonymous_sign_in_then_linking_an_email_password(app):
    uid = app.run("const c = await fb.signInAnonymously(auth); return c.user.uid;")
    assert app.run("return auth.currentUser.isAnonymous;") is True
    email = unique_email("linked")
    linked = app.run("const c = await fb.linkWithCredential(auth.currentUser, "
                     "fb.EmailAuthProvider.credential(args[0], args[1])); return c.user.uid;", email, "correct horse")
    assert linked == uid
    assert app.run("return auth.currentUser.isAnonymous;") is False
    app.run("await fb.signOut(auth);")
    assert app.run(SIGN_IN, email, "correct horse") == uid


def test_update_profile(app):
    app.run(SIGN_UP, unique_email("profile"), "correct horse")
    app.run("await fb.updateProfile(auth.currentUser, {displayName: 'Ada Lovelace', "
            "photoURL: 'https://example.com/ada.png'});")
    app.run("await auth.currentUser.reload();")
    assert app.run("return [auth.currentUser.displayName, auth.currentUser.photoURL];") == [
        "Ada Lovelace", "https://example.com/ada.png"]
    token = app.run("return await auth.currentUser.getIdToken(true);")
    assert claims(token)["name"] == "Ada Lovelace"


def oob_code(link: str) -> str:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))["oobCode"]


def test_email_verification(app):
    email = unique_email("verify")
    app.run(SIGN_UP, email, "correct horse")
    app.run("await fb.sendEmailVerification(auth.currentUser);")
    code = oob_code(app.mail.link(email))
    assert app.run("return (await fb.checkActionCode(auth, args[0])).operation;", code) == "VERIFY_EMAIL"
    app.run("await fb.applyActionCode(auth, args[0]);", code)
    app.run("await auth.currentUser.reload();")
    assert app.run("return auth.currentUser.emailVerified;") is True
    assert app.error_of("await fb.applyActionCode(auth, args[0]);", code) == "auth/invalid-action-code"


def test_password_reset(app):
    email = unique_email("reset")
    uid = app.run(SIGN_UP, email, "correct horse")
    app.run("await fb.signOut(auth);")
    app.run("await fb.sendPasswordResetEmail(auth, args[0]);", email)
    code = oob_code(app.mail.link(email))
    assert app.run("return await fb.verifyPasswordResetCode(auth, args[0]);", code) == email
    app.run("await fb.confirmPasswordReset(auth, args[0], args[1]);", code, "battery staple")
    assert app.error_of(SIGN_IN, email, "correct horse") == wrong_password(app)
    assert app.run(SIGN_IN, email, "battery staple") == uid


def test_email_link_sign_in(app):
    """The user opens the e-mail's link in the browser; the handler (the emulator's /emulator/action, or Hearth's
    action page and its Continue button) brings them back to the app with the link's parameters in the URL."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    email = unique_email("link")
    app.run("await fb.sendSignInLinkToEmail(auth, args[0], {url: args[1], handleCodeInApp: true});",
            email, app.app_server.origin + "/app/finish")
    link = app.mail.link(email)
    assert app.run("return fb.isSignInWithEmailLink(auth, args[0]);", link) is True
    app.driver.get(link)
    if app.mode == "production":
        WebDriverWait(app.driver, 10).until(expected_conditions.element_to_be_clickable((By.ID, "continue"))).click()
    WebDriverWait(app.driver, 10).until(lambda d: d.current_url.startswith(app.app_server.origin + "/app/finish"))
    app.start()
    assert app.run("return fb.isSignInWithEmailLink(auth, location.href);") is True
    uid = app.run("const c = await fb.signInWithEmailLink(auth, args[0], location.href); return c.user.uid;", email)
    assert app.run("return [auth.currentUser.uid, auth.currentUser.email, auth.currentUser.emailVerified];") == [
        uid, email, True]
    # The link is used up.
    assert app.error_of("await fb.signInWithEmailLink(auth, args[0], location.href);", email) == \
        "auth/invalid-action-code"


def custom_token(app, uid: str, extra: dict) -> str:
    """A custom token as a backend makes it: unsigned for the emulator (as firebase-admin does there), else signed
    with a service-account key created by `hearth service-accounts create`."""
    now = int(time.time())
    aud = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    if app.mode == "emulator":
        def part(o):
            return base64.urlsafe_b64encode(json.dumps(o).encode()).rstrip(b"=").decode()
        body = {"iss": "firebase-auth-emulator@example.com", "sub": "firebase-auth-emulator@example.com",
                "aud": aud, "iat": now, "exp": now + 3600, "uid": uid, "claims": extra}
        return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(body)}."
    from google.auth import crypt, jwt
    path = app.hearth.service_account(f"backend-{time.time_ns()}")
    with open(path) as f:
        key = json.load(f)
    signer = crypt.RSASigner.from_service_account_info(key)
    body = {"iss": key["client_email"], "sub": key["client_email"], "aud": aud, "iat": now, "exp": now + 3600,
            "uid": uid, "claims": extra}
    return jwt.encode(signer, body).decode()


def test_custom_token_sign_in_carries_its_claims(app):
    token = custom_token(app, f"custom-{time.time_ns()}", {"plan": "gold"})
    uid = app.run("const c = await fb.signInWithCustomToken(auth, args[0]); return c.user.uid;", token)
    assert uid.startswith("custom-")
    result = app.run("const r = await auth.currentUser.getIdTokenResult(); return r.claims;")
    assert result["plan"] == "gold" and result["firebase"]["sign_in_provider"] == "custom"
    assert app.error_of("await fb.signInWithCustomToken(auth, 'not.a.token');") == "auth/invalid-custom-token"


def test_forced_refresh_brings_new_custom_claims(app):
    uid = app.run(SIGN_UP, unique_email("claims"), "correct horse")
    assert "role" not in app.run("return (await auth.currentUser.getIdTokenResult()).claims;")
    app.hearth.cli("users", "set-claims", uid, '{"role": "admin"}')
    # The cached token still lacks it; a forced refresh fetches a new one through the token endpoint.
    assert "role" not in app.run("return (await auth.currentUser.getIdTokenResult()).claims;")
    assert app.run("return (await auth.currentUser.getIdTokenResult(true)).claims.role;") == "admin"


def test_the_user_survives_a_reload(app):
    email = unique_email("persist")
    uid = app.run(SIGN_UP, email, "correct horse")
    app.open()
    assert app.run("return auth.currentUser && [auth.currentUser.uid, auth.currentUser.email];") == [uid, email]
    # The restored session still refreshes.
    assert claims(app.run("return await auth.currentUser.getIdToken(true);"))["user_id"] == uid
    app.run("await fb.signOut(auth);")
    app.open()
    assert app.run("return auth.currentUser;") is None


def test_a_deleted_user_is_gone(app):
    email = unique_email("delete")
    app.run(SIGN_UP, email, "correct horse")
    app.run("await fb.deleteUser(auth.currentUser);")
    assert app.run("return auth.currentUser;") is None
    assert app.error_of(SIGN_IN, email, "correct horse") == unknown_user(app)


def test_reauthentication_and_password_change(app):
    email = unique_email("change")
    app.run(SIGN_UP, email, "correct horse")
    assert app.error_of("await fb.reauthenticateWithCredential(auth.currentUser, "
                        "fb.EmailAuthProvider.credential(args[0], 'wrong horse'));", email) in (
        "auth/invalid-credential", "auth/wrong-password")
    app.run("await fb.reauthenticateWithCredential(auth.currentUser, "
            "fb.EmailAuthProvider.credential(args[0], 'correct horse'));", email)
    app.run("await fb.updatePassword(auth.currentUser, 'battery staple');")
    app.run("await fb.signOut(auth);")
    app.run(SIGN_IN, email, "battery staple")


def test_totp_second_factor(app):
    email = unique_email("totp")
    uid = app.run(SIGN_UP, email, "correct horse")
    # Firebase enrolls second factors only for verified addresses.
    app.run("await fb.sendEmailVerification(auth.currentUser);")
    app.run("await fb.applyActionCode(auth, args[0]); await auth.currentUser.reload();",
            oob_code(app.mail.link(email)))
    secret = app.run("const session = await fb.multiFactor(auth.currentUser).getSession();"
                     "window.totpSecret = await fb.TotpMultiFactorGenerator.generateSecret(session);"
                     "return window.totpSecret.secretKey;")
    totp = pyotp.TOTP(secret)
    app.run("await fb.multiFactor(auth.currentUser).enroll("
            "fb.TotpMultiFactorGenerator.assertionForEnrollment(window.totpSecret, args[0]), 'Phone app');",
            totp.now())
    assert app.run("return fb.multiFactor(auth.currentUser).enrolledFactors.map(f => f.factorId);") == ["totp"]
    app.run("await fb.signOut(auth);")
    assert app.error_of(
        "try { await fb.signInWithEmailAndPassword(auth, args[0], args[1]); }"
        "catch (e) { window.mfaError = e; throw e; }", email, "correct horse") == "auth/multi-factor-auth-required"
    # The next time step's code: the enrolment's step is spent for this factor.
    signed_in = app.run(
        "const resolver = fb.getMultiFactorResolver(auth, window.mfaError);"
        "const hint = resolver.hints[0];"
        "const c = await resolver.resolveSignIn(fb.TotpMultiFactorGenerator.assertionForSignIn(hint.uid, args[0]));"
        "return [c.user.uid, hint.factorId, hint.displayName];", totp.at(time.time() + 30))
    assert signed_in == [uid, "totp", "Phone app"]
    token = app.run("return await auth.currentUser.getIdToken();")
    assert claims(token)["firebase"]["sign_in_second_factor"] == "totp"


def test_phone_sign_in_with_a_test_number(app):
    app.run("auth.settings.appVerificationDisabledForTesting = true;")
    app.run("const verifier = new fb.RecaptchaVerifier(auth, 'app', {size: 'invisible'});"
            "window.confirmation = await fb.signInWithPhoneNumber(auth, args[0], verifier);", TEST_PHONE)
    assert app.error_of("await window.confirmation.confirm('000000');") == "auth/invalid-verification-code"
    phone = app.run("const c = await window.confirmation.confirm(args[0]); return c.user.phoneNumber;", TEST_CODE)
    assert phone == TEST_PHONE


def test_validate_password_reads_the_project_policy(app):
    weak = app.run("const s = await fb.validatePassword(auth, 'abc'); return [s.isValid, s.meetsMinPasswordLength];")
    assert weak == [False, False]
    assert app.run("return (await fb.validatePassword(auth, 'correct horse')).isValid;") is True


def sign_in_on_the_emulators_picker(app, email: str, name: str):
    """On /emulator/auth/handler: the account already there, or a new one made up."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(app.driver, 15)
    wait.until(expected_conditions.presence_of_element_located((By.ID, "new-account")))
    existing = [b for b in app.driver.find_elements(By.CSS_SELECTOR, "button.account") if email in b.text]
    if existing:
        existing[0].click()
    else:
        app.driver.find_element(By.ID, "email-input").send_keys(email)
        app.driver.find_element(By.ID, "display-name-input").send_keys(name)
        app.driver.find_element(By.ID, "sign-in").click()


def sign_in_at_the_provider(app, email: str, name: str, user_id: int):
    """The emulator's account picker, or in production the provider's consent page (as the user `user_id`)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    if app.mode == "emulator":
        return sign_in_on_the_emulators_picker(app, email, name)
    app.provider.user = {"id": user_id, "name": name, "email": email}
    try:
        WebDriverWait(app.driver, 15).until(expected_conditions.element_to_be_clickable((By.ID, "approve"))).click()
    except Exception:
        raise AssertionError(f"no consent page at {app.driver.current_url}: {app.driver.page_source[:800]}")


def app_origin(app, host: str = APP_HOST) -> str:
    """Where the popup/redirect app runs: 127.0.0.1 beside the emulator, else a named host on the auth domain's
    site over HTTPS."""
    return f"http://127.0.0.1:{app.app_server.port}" if app.mode == "emulator" else f"https://{host}"


def test_redirect_sign_in_with_google(app):
    """signInWithRedirect to Google's page and back, then getRedirectResult, as a web app does it. The app is
    on the auth domain's site: Chromium partitions the auth iframe's storage by the top-level site, so the
    redirect's event is found only when app and auth domain are one site (Firebase's own advice)."""
    from selenium.webdriver.support.ui import WebDriverWait

    origin = app_origin(app)
    app.open(origin=origin)
    email = unique_email("redirect")
    user_id = time.time_ns() % 10**9
    uids = []
    for _ in range(2):
        app.driver.execute_script(
            "setTimeout(() => firebase.signInWithRedirect(auth, new firebase.GoogleAuthProvider()), 0);")
        WebDriverWait(app.driver, 15).until(lambda d: not d.current_url.startswith(origin))
        sign_in_at_the_provider(app, email, "Grace Hopper", user_id)
        WebDriverWait(app.driver, 15).until(lambda d: d.current_url.startswith(origin + "/app"))
        app.start()
        result = app.run("const r = await fb.getRedirectResult(auth);"
                         "return r && [r.user.uid, r.user.email, r.user.displayName, r.providerId, r.operationType,"
                         "  fb.getAdditionalUserInfo(r).isNewUser];")
        assert result is not None, "getRedirectResult found no sign-in"
        assert result[1:] == [email, "Grace Hopper", "google.com", "signIn", not uids]
        uids.append(result[0])
        # The event was handed over once: a reload finds none.
        app.start()
        assert app.run("const r = await fb.getRedirectResult(auth); return r && r.user.uid;") is None
        app.run("await fb.signOut(auth);")
    # The second time the same account signed in.
    assert uids[0] == uids[1]


def start_popup(app, provider: str = "GithubAuthProvider"):
    app.driver.execute_script(
        "window.popupResult = null;"
        f"firebase.signInWithPopup(auth, new firebase.{provider}()).then("
        "  r => window.popupResult = [r.user.email, r.providerId, r.operationType],"
        "  e => window.popupResult = [e.code]);")


def test_popup_sign_in_with_github(app):
    """signInWithPopup: the provider's page in a window of its own, the result back in the app's page."""
    from selenium.webdriver.support.ui import WebDriverWait

    app.open(origin=app_origin(app))
    main = app.driver.current_window_handle
    start_popup(app)
    wait = WebDriverWait(app.driver, 15)
    wait.until(lambda d: len(d.window_handles) == 2)
    app.driver.switch_to.window(next(h for h in app.driver.window_handles if h != main))
    email = unique_email("popup")
    try:
        sign_in_at_the_provider(app, email, "Octo Cat", time.time_ns() % 10**9)
    finally:
        app.driver.switch_to.window(main)
    result = wait.until(lambda d: d.execute_script("return window.popupResult;"))
    assert result == [email, "github.com", "signIn"]
    assert app.run("return auth.currentUser.email;") == email


def test_popup_from_an_unauthorized_domain_gets_no_sign_in(app):
    """An app page on a domain the project does not authorize: the SDK refuses before any window opens (it reads
    the project's authorized domains), as it does against Firebase."""
    from selenium.webdriver.support.ui import WebDriverWait

    if app.mode == "emulator":
        pytest.skip("the emulator, like Firebase's, authorizes every origin")
    app.open(origin=app_origin(app, FOREIGN_HOST))
    start_popup(app)
    result = WebDriverWait(app.driver, 15).until(lambda d: d.execute_script("return window.popupResult;"))
    assert result == ["auth/unauthorized-domain"]
    assert len(app.driver.window_handles) == 1


def test_the_handler_sends_no_event_to_a_forged_app(app):
    """Attacks on the handler itself: a redirectUrl on another host is a page, never a redirect or an event; a
    replayed provider return is refused; a return this tab did not start delivers nothing to the web SDK."""
    if app.mode == "emulator":
        pytest.skip("production's /__/auth/handler")
    handler = f"{app.hearth.base}/__/auth/handler"
    query = {"apiKey": API_KEY, "appName": "[DEFAULT]", "authType": "signInViaPopup", "providerId": "github.com",
             "eventId": "e1", "v": "test"}
    for forged in [f"https://{FOREIGN_HOST}/app", f"https://{APP_HOST}.{FOREIGN_HOST}/", "javascript:alert(1)",
                   f"https://{APP_HOST}@{FOREIGN_HOST}/", "hearth-js-sdk-prod://firebaseauth/link"]:
        answer = requests.get(handler, params={**query, "redirectUrl": forged}, allow_redirects=False,
                              verify=app.hearth.ca, timeout=10)
        assert answer.status_code == 400, forged
        assert "location" not in answer.headers and "hearth-data" not in answer.text, forged
    # A real start: a page keeping the start in the tab, then the provider; the session id is never in a URL.
    started = requests.get(handler, params={**query, "redirectUrl": f"https://{APP_HOST}/app"},
                           allow_redirects=False, verify=app.hearth.ca, timeout=10)
    assert started.status_code == 200, started.text
    data = json.loads(re.search(r'id="hearth-data">(.*?)</script>', started.text).group(1))
    assert data["providerUrl"].startswith(f"http://127.0.0.1:{app.provider.port}/login/oauth/authorize?")
    assert data["start"]["sessionId"] not in data["providerUrl"]
    assert "'nonce-" in started.headers["Content-Security-Policy"]
    approved = requests.get(data["providerUrl"].replace("/login/oauth/authorize", "/approve"),
                            allow_redirects=False, timeout=10)
    # Python resolves no test names: the auth domain's return reaches the server directly.
    back = approved.headers["Location"].replace(f"https://{AUTH_DOMAIN}", app.hearth.base)
    returned = requests.get(back, allow_redirects=False, verify=app.hearth.ca, timeout=10)
    assert returned.status_code == 200
    # The return page carries the link but not the session id: only the tab that started holds that.
    assert data["start"]["sessionId"] not in returned.text
    replayed = requests.get(back, allow_redirects=False, verify=app.hearth.ca, timeout=10)
    assert replayed.status_code == 400 and "hearth-data" not in replayed.text
    link = json.loads(re.search(r'id="hearth-data">(.*?)</script>', returned.text).group(1))["urlResponse"]
    sign_in = f"{app.hearth.base}/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp"
    stolen = requests.post(sign_in, params={"key": API_KEY}, verify=app.hearth.ca, timeout=10,
                           json={"requestUri": link, "sessionId": "guessed", "returnSecureToken": True})
    assert stolen.status_code == 400 and "INVALID_IDP_RESPONSE" in stolen.text


def test_a_redirect_event_goes_only_to_the_app_that_started_it(app):
    """The redirect's event waits in the auth domain's storage, shared by every page of the site. Another page there
    (not an authorized domain) that loads the auth iframe and asks for a redirect result, with the SDK's pending
    flag set by its own script, gets nothing: the iframe hands an event only to the origin that started it."""
    from selenium.webdriver.support.ui import WebDriverWait

    if app.mode == "emulator":
        pytest.skip("production's /__/auth/iframe")
    origin = app_origin(app)
    app.open(origin=origin)
    app.driver.execute_script(
        "setTimeout(() => firebase.signInWithRedirect(auth, new firebase.GithubAuthProvider()), 0);")
    WebDriverWait(app.driver, 15).until(lambda d: not d.current_url.startswith(origin))
    sign_in_at_the_provider(app, unique_email("stolen"), "Eve Target", time.time_ns() % 10**9)
    WebDriverWait(app.driver, 15).until(lambda d: d.current_url.startswith(origin + "/app"))
    # The app has not read its event yet; the tab moves on to the other page.
    app.driver.get(f"https://{FOREIGN_HOST}/app")
    # The SDK's own "a redirect is pending" flag (its session persistence stores JSON), as the page's script can set.
    app.driver.execute_script(
        f"sessionStorage.setItem('firebase:pendingRedirect:{API_KEY}:[DEFAULT]', JSON.stringify('true'));")
    app.start()
    assert app.run("const r = await fb.getRedirectResult(auth); return r && r.user.email;") is None
    assert app.run("return auth.currentUser && auth.currentUser.uid;") is None
