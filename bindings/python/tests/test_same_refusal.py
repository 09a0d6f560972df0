"""The same bad input gets the same refusal through the Python binding as through every other
door (Tests/refusals.json holds the cases and the answers; the C, server and PhoneAuthKit tests
read it too)."""

import json
from pathlib import Path

import pytest

import phoneauth
from support import TEST_NUMBER, custom_sign_in

CASES = json.loads((Path(__file__).resolve().parents[3] / "Tests/refusals.json").read_text())["cases"]


def refused(case, call):
    expected = CASES[case]
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        call()
    error = info.value
    assert (error.code, error.status, error.message, error.details.get("field")) == \
        (expected["code"], expected["status"], expected["message"], expected["field"])


def test_a_long_display_name(engine):
    name = "x" * CASES["longDisplayName"]["value"]
    uid = engine.create_user()["user"]["uid"]
    refused("longDisplayName", lambda: engine.update_user(uid, display_name=name))
    refused("longDisplayName", lambda: engine.create_user(display_name=name))
    assert engine.get_user(uid)["user"].get("displayName") is None


def test_a_long_totp_account_name(engine):
    id_token = custom_sign_in(engine, "totp-user")["idToken"]
    refused("longTotpAccountName", lambda: engine.mfa_totp_start(id_token, account_name="x" * 300))


def test_app_verification_proofs_addresses_and_languages(engine):
    token = "t" * CASES["longCaptchaToken"]["value"]
    refused("longCaptchaToken", lambda: engine.verify_phone_number(TEST_NUMBER, app_verification={"captchaToken": token}))
    refused("receiptWithoutSecret", lambda: engine.verify_phone_number(TEST_NUMBER, app_verification={"receipt": "r"}))
    refused("notAnAddress", lambda: engine.verify_phone_number(TEST_NUMBER, client_ip=CASES["notAnAddress"]["value"]))
    refused("longLanguageCode", lambda: engine.verify_phone_number(TEST_NUMBER, language_code="a" * 256))
