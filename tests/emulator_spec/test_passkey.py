"""firebase-tools src/emulator/auth/passkey.spec.ts: passkey (WebAuthn) cases, listed one to one and skipped.

Hearth does not model passkeys (no WebAuthn enrolment or sign-in routes, no passkeyInfo on accounts), so these are
not applicable, not failures. They are kept as named skips so the per-file count stays complete."""
from conftest import not_applicable

REASON = "Hearth does not model passkeys (WebAuthn enrolment / sign-in)"


@not_applicable(REASON)
def test_enrollment_start_returns_options():
    pass


@not_applicable(REASON)
def test_enrollment_finalize_returns_tokens():
    pass


@not_applicable(REASON)
def test_sign_in_start_options():
    pass


@not_applicable(REASON)
def test_sign_in_with_registered_passkey():
    pass


@not_applicable(REASON)
def test_sign_in_unregistered_passkey_fails():
    pass


@not_applicable(REASON)
def test_delete_passkey_via_update():
    pass


@not_applicable(REASON)
def test_name_falls_back_to_display_name():
    pass


@not_applicable(REASON)
def test_start_finalize_missing_fields():
    pass


@not_applicable(REASON)
def test_delete_passkey_when_none():
    pass
