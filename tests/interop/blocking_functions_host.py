"""Blocking functions written with Firebase's Python functions SDK (`firebase_functions.identity_fn`), served on
127.0.0.1 as a self-hosted function would be: the functions below are ordinary SDK functions; only this host's
setup points the SDK at Hearth.

How a self-hosted function trusts Hearth instead of Google (docs/COMPATIBILITY.md says the same):
  * FIREBASE_CONFIG='{"projectId": "<project>"}': the project the event's `iss` must name
    (`https://securetoken.google.com/<project>`), without looking for Google credentials;
  * `firebase_admin._token_gen.ID_TOKEN_CERT_URI` set to Hearth's x509 key URL
    (`<hearth>/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com`), which the SDK's verifier reads
    each time it checks an event, so the signature is checked against Hearth's keys;
  * the SDK requires the event's audience (the function's URL, as registered in Hearth) to contain `run.app`, as a
    Cloud Run URL does: register the function under such a URL (here a path segment).

Usage: blocking_functions_host.py --project P --certs URL; prints `READY <port>`, serves until stdin closes.
GET /events lists what the functions saw."""
import argparse
import json
import os
import sys
import threading

from werkzeug.serving import make_server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--project", required=True)
    parser.add_argument("--certs", required=True)
    args = parser.parse_args()

    os.environ["FIREBASE_CONFIG"] = json.dumps({"projectId": args.project})
    os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)  # never the emulator's unverified path
    import firebase_admin._token_gen
    firebase_admin._token_gen.ID_TOKEN_CERT_URI = args.certs

    import flask
    from firebase_functions import https_fn, identity_fn

    seen = []

    def record(event):
        info = event.additional_user_info
        seen.append({
            "event_type": event.event_type, "uid": event.data.uid, "email": event.data.email,
            "ip_address": event.ip_address, "user_agent": event.user_agent, "locale": event.locale,
            "event_id": event.event_id, "provider_id": info.provider_id, "is_new_user": info.is_new_user,
            "profile": info.profile, "username": info.username,
            "providers": [p.provider_id for p in event.data.provider_data],
            "tokens_valid_after_time": event.data.tokens_valid_after_time is not None,
            "creation_time": event.data.metadata.creation_time.isoformat(),
            "credential": None if event.credential is None else {
                "provider_id": event.credential.provider_id, "id_token": event.credential.id_token,
                "access_token": event.credential.access_token},
        })

    @identity_fn.before_user_created()
    def before_create(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
        record(event)
        if (event.data.email or "").endswith("@blocked.example"):
            raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "Blocked by policy")
        return identity_fn.BeforeCreateResponse(
            display_name="Named in Python", photo_url="https://img.example/py.png", custom_claims={"role": "member"})

    @identity_fn.before_user_signed_in()
    def before_sign_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
        record(event)
        return identity_fn.BeforeSignInResponse(session_claims={"signed_in_by": "python"})

    app = flask.Flask("blocking-functions")
    app.add_url_rule("/fn.run.app/beforeCreate", "before_create", lambda: before_create(flask.request),
                     methods=["POST"])
    app.add_url_rule("/fn.run.app/beforeSignIn", "before_sign_in", lambda: before_sign_in(flask.request),
                     methods=["POST"])
    app.add_url_rule("/events", "events", lambda: flask.jsonify(seen))

    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"READY {server.server_port}", flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
