"""Blocking functions written with Firebase's own Python SDK (firebase-functions, its identity_fn
decorators), served by a small WSGI server in the SDK's emulator mode (FIREBASE_AUTH_EMULATOR_HOST
set: the token's signature is not checked, everything else is). phoneauthd calls them as its
hooks, so the wire format is judged by Firebase's decoder, not ours.

    python sdk_functions.py EVENTS_FILE      prints the port it listens on, then serves

What each function does is chosen by the phone number of the event (the numbers below); each one
appends what the SDK parsed out of the token to EVENTS_FILE, one JSON object a line.

beforeSendSms: firebase-functions 0.6.0 (the latest on PyPI) has no decorator for it, so it goes
through the SDK's own handler for every blocking event with the event type Firebase gives it.
"""

from __future__ import annotations

import json
import sys
import threading

import flask
from werkzeug.serving import make_server

from firebase_functions import https_fn, identity_fn
from firebase_functions.private import _identity_fn

DENY_CREATE = "+16505550101"  # beforeCreate refuses it
DISABLE = "+16505550102"  # beforeSignIn disables the user
DENY_SIGN_IN = "+16505550103"  # beforeSignIn refuses it
BLOCK_SMS = "+16505550104"  # beforeSendSms blocks its code
DENY_SMS = "+16505550105"  # beforeSendSms refuses it
BEFORE_SEND_SMS = "providers/cloud.auth/eventTypes/user.beforeSendSms"

_lock = threading.Lock()


def record(name: str, event: identity_fn.AuthBlockingEvent) -> None:
    user = event.data
    seen = {
        "function": name, "event_id": event.event_id, "ip_address": event.ip_address,
        "user_agent": event.user_agent, "locale": event.locale, "sms_type": event.sms_type,
        "is_new_user": event.additional_user_info.is_new_user if event.additional_user_info else None,
        "uid": user.uid if user else None, "phone_number": user.phone_number if user else None,
        "providers": [p.provider_id for p in user.provider_data] if user else None,
        "created": user.metadata.creation_time.isoformat() if user else None,
        "factors": [f.phone_number for f in user.multi_factor.enrolled_factors]
        if user and user.multi_factor else [],
    }
    with _lock, open(sys.argv[1], "a") as f:
        f.write(json.dumps(seen) + "\n")


@identity_fn.before_user_created()
def before_create(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeCreateResponse | None:
    record("beforeCreate", event)
    if event.data.phone_number == DENY_CREATE:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "Sign-up is by invitation.")
    return identity_fn.BeforeCreateResponse(display_name="Member", custom_claims={"role": "member"})


@identity_fn.before_user_signed_in()
def before_sign_in(event: identity_fn.AuthBlockingEvent) -> identity_fn.BeforeSignInResponse | None:
    record("beforeSignIn", event)
    if event.data.phone_number == DISABLE:
        return identity_fn.BeforeSignInResponse(disabled=True)
    if event.data.phone_number == DENY_SIGN_IN:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "Closed for maintenance.")
    return identity_fn.BeforeSignInResponse(session_claims={"device": "sdk"})


def before_send_sms(event: identity_fn.AuthBlockingEvent) -> dict | None:
    record("beforeSendSms", event)
    factors = [f.phone_number for f in event.data.multi_factor.enrolled_factors] \
        if event.data and event.data.multi_factor else []
    if DENY_SMS in factors:
        raise https_fn.HttpsError(https_fn.FunctionsErrorCode.PERMISSION_DENIED, "No codes for this factor.")
    if BLOCK_SMS in factors:
        return {"recaptcha_action_override": "BLOCK"}
    return None


def app() -> flask.Flask:
    made = flask.Flask("sdk_functions")
    made.add_url_rule("/beforeCreate", "beforeCreate", lambda: before_create(flask.request), methods=["POST"])
    made.add_url_rule("/beforeSignIn", "beforeSignIn", lambda: before_sign_in(flask.request), methods=["POST"])
    made.add_url_rule(
        "/beforeSendSms", "beforeSendSms",
        lambda: _identity_fn.before_operation_handler(before_send_sms, BEFORE_SEND_SMS, flask.request),
        methods=["POST"])
    return made


if __name__ == "__main__":
    server = make_server("127.0.0.1", 0, app(), threaded=True)
    print(server.server_port, flush=True)
    server.serve_forever()
