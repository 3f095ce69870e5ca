"""firebase-tools src/emulator/auth/oob.spec.ts, translated: accounts:sendOobCode and resetPassword."""
import time

from conftest import expect_error, expect_ok, not_applicable, xfail

ALICE = ("alice@example.com", "notasecret")


def send(api, body, admin=False):
    return api.admin("sendOobCode", body) if admin else api.v1("sendOobCode", body)


def _no_link(body):
    assert "oobCode" not in body and "oobLink" not in body


def _link(body, email):
    assert body.get("email") == email
    assert isinstance(body.get("oobCode"), str) and isinstance(body.get("oobLink"), str)


def test_verify_email_code(api):
    user = api.register_user(*ALICE)
    body = expect_ok(send(api, {"idToken": user["idToken"], "requestType": "VERIFY_EMAIL"}))
    assert body.get("email") == ALICE[0]
    _no_link(body)
    oobs = api.oob_codes()
    assert len(oobs) == 1
    assert oobs[0]["email"] == ALICE[0] and oobs[0]["requestType"] == "VERIFY_EMAIL"
    body = expect_ok(api.v1("update", {"oobCode": oobs[0]["oobCode"]}))
    assert body["localId"] == user["localId"] and body["email"] == ALICE[0] and body.get("emailVerified") is True
    assert api.oob_codes() == []


def test_admin_gets_codes(api):
    api.register_user(*ALICE)
    _link(expect_ok(send(api, {"email": ALICE[0], "requestType": "PASSWORD_RESET", "returnOobLink": True}, True)),
          ALICE[0])
    _link(expect_ok(send(api, {"email": ALICE[0], "requestType": "VERIFY_EMAIL", "returnOobLink": True}, True)),
          ALICE[0])
    _link(expect_ok(send(api, {"email": ALICE[0], "newEmail": "bob@example.com",
                               "requestType": "VERIFY_AND_CHANGE_EMAIL", "returnOobLink": True}, True)), ALICE[0])


def test_admin_codes_by_id_token(api):
    id_token = api.register_user(*ALICE)["idToken"]
    _link(expect_ok(send(api, {"idToken": id_token, "requestType": "VERIFY_EMAIL", "returnOobLink": True}, True)),
          ALICE[0])
    _link(expect_ok(send(api, {"email": ALICE[0], "newEmail": "bob@example.com", "idToken": id_token,
                               "requestType": "VERIFY_AND_CHANGE_EMAIL", "returnOobLink": True}, True)), ALICE[0])


def test_verify_email_without_id_token_or_email(api):
    api.register_user(*ALICE)
    expect_error(send(api, {"idToken": "hoge", "requestType": "VERIFY_EMAIL"}), 400, "INVALID_ID_TOKEN")
    expect_error(send(api, {"returnOobLink": True, "requestType": "VERIFY_EMAIL"}, True), 400, "MISSING_EMAIL")
    assert api.oob_codes() == []


def test_verify_email_needs_id_token_without_return_link(api):
    api.register_user(*ALICE)
    expect_error(send(api, {"email": ALICE[0], "requestType": "VERIFY_EMAIL"}), 400, "INVALID_ID_TOKEN")
    assert api.oob_codes() == []


def test_verify_email_unknown_user(api):
    expect_error(send(api, {"email": "nosuchuser@example.com", "returnOobLink": True,
                            "requestType": "VERIFY_EMAIL"}, True), 400, "USER_NOT_FOUND")
    assert api.oob_codes() == []


def test_verify_email_account_without_email(api):
    id_token = api.register_anon()["idToken"]
    expect_error(send(api, {"idToken": id_token, "requestType": "VERIFY_EMAIL"}), 400, "MISSING_EMAIL")
    assert api.oob_codes() == []


def test_user_disabled(api):
    user = api.register_user("foo@example.com", "foobar")
    api.update_account(user["localId"], disableUser=True)
    expect_error(send(api, {"email": user["email"], "idToken": user["idToken"], "requestType": "VERIFY_EMAIL"}),
                 400, "USER_DISABLED")


def test_invalid_continue_url(api):
    id_token = api.register_user(*ALICE)["idToken"]
    expect_error(send(api, {"idToken": id_token, "requestType": "VERIFY_EMAIL", "continueUrl": "noSchemeOrHost"}),
                 400, "INVALID_CONTINUE_URI", contains=True)
    assert api.oob_codes() == []


def test_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(send(api, {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED")


def test_tenant_email_link_disabled(api):
    tenant = api.register_tenant({"disableAuth": False, "enableEmailLinkSignin": False})
    expect_error(send(api, {"tenantId": tenant["tenantId"], "email": "bob@example.com",
                            "requestType": "EMAIL_SIGNIN"}), 400, "OPERATION_NOT_ALLOWED")


def test_reset_password_code(api):
    id_token = api.register_user(*ALICE)["idToken"]
    time.sleep(2)  # the spec ticks 2 s so the ID token is issued before the reset
    body = expect_ok(send(api, {"requestType": "PASSWORD_RESET", "email": ALICE[0]}))
    assert body.get("email") == ALICE[0]
    _no_link(body)
    oobs = api.oob_codes()
    assert len(oobs) == 1
    assert oobs[0]["email"] == ALICE[0] and oobs[0]["requestType"] == "PASSWORD_RESET"
    body = expect_ok(api.v1("resetPassword", {"oobCode": oobs[0]["oobCode"], "newPassword": "notasecret2"}))
    assert body.get("requestType") == "PASSWORD_RESET" and body.get("email") == ALICE[0]
    expect_error(api.v1("lookup", {"idToken": id_token}), 400, "TOKEN_EXPIRED")


def test_reset_password_reports_purpose(api):
    id_token = api.register_user(*ALICE)["idToken"]
    new_email = "bob@example.com"
    expect_ok(send(api, {"requestType": "PASSWORD_RESET", "email": ALICE[0]}))
    expect_ok(send(api, {"requestType": "VERIFY_EMAIL", "idToken": id_token}))
    expect_ok(send(api, {"email": new_email, "requestType": "EMAIL_SIGNIN"}))
    expect_ok(send(api, {"email": ALICE[0], "newEmail": new_email, "requestType": "VERIFY_AND_CHANGE_EMAIL",
                         "idToken": id_token}))
    oobs = api.oob_codes()
    assert len(oobs) == 4
    for oob in oobs:
        body = expect_ok(api.v1("resetPassword", {"oobCode": oob["oobCode"]}))
        assert body.get("requestType") == oob["requestType"]
        if oob["requestType"] == "EMAIL_SIGNIN":
            assert "email" not in body
        else:
            assert body.get("email") == oob["email"]
        if oob["requestType"] == "VERIFY_AND_CHANGE_EMAIL":
            assert body.get("newEmail") == new_email
    assert len(api.oob_codes()) == 4


def test_reset_password_tenant_auth_disabled(api):
    tenant = api.register_tenant({"disableAuth": True})
    expect_error(api.v1("resetPassword", {"tenantId": tenant["tenantId"]}), 400, "PROJECT_DISABLED")


def test_reset_password_tenant_password_disabled(api):
    tenant = api.register_tenant({"disableAuth": False, "allowPasswordSignup": False})
    expect_error(api.v1("resetPassword", {"tenantId": tenant["tenantId"]}), 400, "PASSWORD_LOGIN_DISABLED")


def test_reset_unknown_user_privacy_off(api):
    expect_error(send(api, {"email": ALICE[0], "requestType": "PASSWORD_RESET", "returnOobLink": True}, True),
                 400, "EMAIL_NOT_FOUND")


def test_reset_unknown_user_privacy_on(api):
    api.update_config({"emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}, "emailPrivacyConfig")
    body = expect_ok(send(api, {"email": ALICE[0], "requestType": "PASSWORD_RESET", "returnOobLink": True}, True))
    assert body.get("kind") == "identitytoolkit#GetOobConfirmationCodeResponse"
    assert body.get("email") == ALICE[0]


def test_verify_and_change_email_code(api):
    user = api.register_user(*ALICE)
    body = expect_ok(send(api, {"email": ALICE[0], "newEmail": "bob@example.com", "idToken": user["idToken"],
                                "requestType": "VERIFY_AND_CHANGE_EMAIL"}))
    assert body.get("kind") == "identitytoolkit#GetOobConfirmationCodeResponse"
    assert body.get("email") == ALICE[0]
    _no_link(body)
    oobs = api.oob_codes()
    assert len(oobs) == 1
    assert oobs[0]["email"] == ALICE[0] and oobs[0]["requestType"] == "VERIFY_AND_CHANGE_EMAIL"
    body = expect_ok(api.v1("update", {"oobCode": oobs[0]["oobCode"]}))
    assert body["localId"] == user["localId"] and body["email"] == "bob@example.com"
    assert body.get("emailVerified") is True
    assert api.oob_codes() == []


def test_verify_and_change_missing_fields(api):
    api.register_user(*ALICE)
    expect_error(send(api, {"newEmail": "bob@example.com", "requestType": "VERIFY_AND_CHANGE_EMAIL"}), 400,
                 "MISSING_ID_TOKEN")
    expect_error(send(api, {"email": ALICE[0], "requestType": "VERIFY_AND_CHANGE_EMAIL"}), 400, "MISSING_NEW_EMAIL")
    expect_error(send(api, {"newEmail": "bob@example.com", "returnOobLink": True,
                            "requestType": "VERIFY_AND_CHANGE_EMAIL"}, True), 400, "MISSING_EMAIL")
    expect_error(send(api, {"email": ALICE[0], "returnOobLink": True, "requestType": "VERIFY_AND_CHANGE_EMAIL"}, True),
                 400, "MISSING_NEW_EMAIL")
    assert api.oob_codes() == []


def test_verify_and_change_needs_id_token_without_return_link(api):
    api.register_user(*ALICE)
    expect_error(send(api, {"email": ALICE[0], "newEmail": "bob@example.com",
                            "requestType": "VERIFY_AND_CHANGE_EMAIL"}), 400, "MISSING_ID_TOKEN")
    assert api.oob_codes() == []


def test_verify_and_change_unknown_user(api):
    expect_error(send(api, {"email": "nosuchuser@example.com", "newEmail": "bob@example.com", "returnOobLink": True,
                            "requestType": "VERIFY_AND_CHANGE_EMAIL"}, True), 400, "USER_NOT_FOUND")
    assert api.oob_codes() == []


def test_verify_and_change_email_taken(api):
    id_token = api.register_user(*ALICE)["idToken"]
    api.register_user("bob@example.com", "notasecret")
    expect_error(send(api, {"idToken": id_token, "email": ALICE[0], "newEmail": "bob@example.com",
                            "requestType": "VERIFY_AND_CHANGE_EMAIL"}), 400, "EMAIL_EXISTS")
    expect_error(send(api, {"email": ALICE[0], "newEmail": "bob@example.com", "returnOobLink": True,
                            "requestType": "VERIFY_AND_CHANGE_EMAIL"}, True), 400, "EMAIL_EXISTS")
    assert api.oob_codes() == []
