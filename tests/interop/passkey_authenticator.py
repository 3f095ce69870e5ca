"""A software WebAuthn authenticator on python-fido2's data classes and `cryptography`: P-256 credentials with
`none` or `packed` self attestation, assertions with a counter, and knobs to craft what a broken or hostile
authenticator would send (flags, counters, origins, rpIdHash). What a browser would hand to the SDKs, as JSON."""
import base64
import hashlib
import json
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.webauthn import AttestationObject, AttestedCredentialData, AuthenticatorData

FLAG = AuthenticatorData.FLAG


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def unb64(text: str) -> bytes:
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def client_data(kind: str, challenge: bytes, origin: str, **extra) -> bytes:
    data = {"type": kind, "challenge": b64url(challenge), "origin": origin, "crossOrigin": False, **extra}
    return json.dumps(data, separators=(",", ":")).encode()


class Credential:
    def __init__(self, rp_id: str, user_handle: bytes, backup_eligible: bool = False, credential_id=None):
        self.rp_id = rp_id
        self.id = credential_id or os.urandom(20)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.user_handle = user_handle
        self.counter = 0
        self.flags = FLAG.UP | FLAG.UV | ((FLAG.BE | FLAG.BS) if backup_eligible else 0)

    def sign(self, auth_data: bytes, client_data_json: bytes) -> bytes:
        return self.key.sign(auth_data + hashlib.sha256(client_data_json).digest(), ec.ECDSA(hashes.SHA256()))


class SoftAuthenticator:
    def __init__(self, origin: str):
        self.origin = origin

    def create(self, options: dict, *, fmt: str = "none", flags=None, origin=None, rp_id=None, kind="webauthn.create",
               backup_eligible=False, credential_id=None) -> tuple[Credential, dict]:
        """navigator.credentials.create: a new credential for `options` (credentialCreationOptions)."""
        rp_id = rp_id or options["rp"]["id"]
        credential = Credential(rp_id, unb64(options["user"]["id"]), backup_eligible, credential_id)
        cdj = client_data(kind, unb64(options["challenge"]), origin or self.origin)
        attested = AttestedCredentialData.create(
            b"\0" * 16, credential.id, ES256.from_cryptography_key(credential.key.public_key()))
        auth_data = AuthenticatorData.create(
            hashlib.sha256(rp_id.encode()).digest(), (credential.flags if flags is None else flags) | FLAG.AT,
            credential.counter, bytes(attested))
        statement = {}
        if fmt == "packed":
            statement = {"alg": -7, "sig": credential.sign(bytes(auth_data), cdj)}
        attestation = AttestationObject.create(fmt, auth_data, statement)
        return credential, {
            "id": b64url(credential.id), "rawId": b64url(credential.id), "type": "public-key",
            "response": {"clientDataJSON": b64url(cdj), "attestationObject": b64url(bytes(attestation))},
        }

    def get(self, options: dict, credential: Credential, *, counter=None, flags=None, origin=None, rp_id=None,
            kind="webauthn.get", user_handle=None, tamper=False, alphabet="url") -> dict:
        """navigator.credentials.get: an assertion by `credential` for `options` (credentialRequestOptions)."""
        credential.counter = credential.counter + 1 if counter is None else counter
        cdj = client_data(kind, unb64(options["challenge"]), origin or self.origin)
        auth_data = bytes(AuthenticatorData.create(
            hashlib.sha256((rp_id or credential.rp_id).encode()).digest(),
            credential.flags if flags is None else flags, credential.counter))
        signature = credential.sign(auth_data, cdj)
        if tamper:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        enc = b64url if alphabet == "url" else b64
        return {
            "id": enc(credential.id), "rawId": enc(credential.id), "type": "public-key",
            "response": {"clientDataJSON": enc(cdj), "authenticatorData": enc(auth_data), "signature": enc(signature),
                         "userHandle": enc(credential.user_handle if user_handle is None else user_handle)},
        }
