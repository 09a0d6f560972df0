"""Passkeys in a real browser: headless Chromium with a virtual authenticator (the DevTools
protocol's WebAuthn domain) on a page of its own origin (http://localhost, a secure context),
and phoneauthd checking what the browser made. A user who signed in by SMS registers a passkey
with navigator.credentials.create, then signs in with navigator.credentials.get and is the same
uid, with no code; then the refusals: another origin, a replayed assertion, a counter gone back,
another user's credential and another tenant's.
The page only runs WebAuthn; the test carries its JSON to phoneauthd, as the app's own code
would (so no cross-origin request is needed)."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from browser import EXECUTABLE, Browser
from conftest import SECOND_CODE, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, start_server
from sms_servers import Answer, FakeServer

pytestmark = pytest.mark.skipif(EXECUTABLE is None, reason="chromium is not installed")

PAGE = "<!doctype html><title>passkeys</title><p>A page of the relying party.</p>"
# WebAuthn's JSON forms, as the browser parses and writes them.
CREATE = """(async () => {
  const options = PublicKeyCredential.parseCreationOptionsFromJSON(%s);
  return JSON.stringify((await navigator.credentials.create({publicKey: options})).toJSON());
})()"""
GET = """(async () => {
  const options = PublicKeyCredential.parseRequestOptionsFromJSON(%s);
  return JSON.stringify((await navigator.credentials.get({publicKey: options})).toJSON());
})()"""


def page_server() -> FakeServer:
    return FakeServer(default=Answer(200, PAGE, headers={"Content-Type": "text/html; charset=utf-8"}))


def run(tab, script: str, options: Dict[str, Any]) -> Dict[str, Any]:
    """The credential JSON the page's WebAuthn call gave, for `options`."""
    result = tab.call("Runtime.evaluate", {"expression": script % json.dumps(options), "awaitPromise": True,
                                           "returnByValue": True})
    assert "exceptionDetails" not in result, result
    return json.loads(result["result"]["value"])


def call(server, method: str, params: Dict[str, Any]):
    return server.post(f"/phoneauth/v1/{method}", params)


def ok(server, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    status, body, _ = call(server, method, params)
    assert status == 200, (method, body)
    return body


def refused(server, method: str, params: Dict[str, Any]) -> str:
    """The reason of the passkey refusal `method` answers."""
    status, body, _ = call(server, method, params)
    assert status == 400 and body["error"]["code"] == "invalidCredential", body
    return body["error"]["details"]["reason"]


def open_page(browser, url: str):
    """A tab on `url` with a virtual platform authenticator (resident keys, user verification)."""
    tab = browser.open(url)
    tab.wait_for(lambda e: e.get("method") == "Page.loadEventFired", url)
    tab.call("WebAuthn.enable")
    authenticator = tab.call("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True}})["authenticatorId"]
    return tab, authenticator


def phone_sign_in(server, number=TEST_NUMBER, code=TEST_CODE, **tenant: str) -> Dict[str, Any]:
    sent = ok(server, "verifyPhoneNumber", {"phoneNumber": number, **tenant})
    return ok(server, "signInWithCredential", {
        "credential": {"verificationId": sent["verificationId"], "verificationCode": code}, **tenant})


def enrol(server, tab, id_token: str, **tenant: str) -> Dict[str, Any]:
    """The credential JSON the page made for the user of `id_token`, once phoneauthd kept it."""
    started = ok(server, "startPasskeyEnrollment", {"idToken": id_token, **tenant})
    made = run(tab, CREATE, started["options"])
    ok(server, "finishPasskeyEnrollment", {"idToken": id_token, "credential": made, "name": "Chromium", **tenant})
    return made


def passkey_server(tmp_path, origin: str):
    return start_server(tmp_path, engine={
        "testPhoneNumbers": {TEST_NUMBER: TEST_CODE, SECOND_NUMBER: SECOND_CODE}, "sms": {"provider": "console"},
        "passkeys": {"rpId": "localhost", "rpName": "PhoneAuth test", "origins": [origin]}})


def test_a_passkey_made_in_the_browser_signs_the_user_in_again_without_a_code(tmp_path):
    page, elsewhere = page_server(), page_server()
    origin = f"http://localhost:{page.port}"
    server = passkey_server(tmp_path, origin)
    try:
        with Browser(tmp_path) as browser:
            tab, authenticator = open_page(browser, origin + "/")

            # Signed in once by SMS (a test number), the user registers a passkey.
            signed = phone_sign_in(server)
            enrol(server, tab, signed["idToken"])

            # Signed out, the user signs in with the passkey: the same uid, no code sent.
            started = ok(server, "startPasskeySignIn", {})
            used = run(tab, GET, started["options"])
            again = ok(server, "finishPasskeySignIn", {"credential": used})
            assert again["user"]["uid"] == signed["user"]["uid"]
            tab.screenshot(tmp_path / "screenshots" / "passkey-signed-in.png")

            # The same assertion again: its challenge is used up.
            assert refused(server, "finishPasskeySignIn", {"credential": used}) == "wrongChallenge"

            # A counter gone back, as a cloned authenticator's would be.
            [stored] = tab.call("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
            tab.call("WebAuthn.removeCredential", {"authenticatorId": authenticator,
                                                   "credentialId": stored["credentialId"]})
            tab.call("WebAuthn.addCredential", {"authenticatorId": authenticator,
                                                "credential": dict(stored, signCount=0)})
            started = ok(server, "startPasskeySignIn", {})
            assert refused(server, "finishPasskeySignIn",
                           {"credential": run(tab, GET, started["options"])}) == "counterWentBack"

            # A page of another origin (the relying party's domain, but not a configured origin).
            other, _ = open_page(browser, f"http://localhost:{elsewhere.port}/")
            started = ok(server, "startPasskeyEnrollment", {"idToken": again["idToken"]})
            assert refused(server, "finishPasskeyEnrollment", {
                "idToken": again["idToken"], "credential": run(other, CREATE, started["options"])}) == "wrongOrigin"
    finally:
        server.stop()
        page.close()
        elsewhere.close()


def test_another_users_or_another_tenants_passkey_is_refused_as_an_unknown_one(tmp_path):
    page = page_server()
    origin = f"http://localhost:{page.port}"
    server = passkey_server(tmp_path, origin)
    try:
        status, created, _ = server.admin("createTenant", {
            "tenantId": "shop", "displayName": "Shop", "testPhoneNumbers": {TEST_NUMBER: TEST_CODE}})
        assert status == 200, created
        with Browser(tmp_path) as browser:
            tab, _ = open_page(browser, origin + "/")
            alice, bob = phone_sign_in(server), phone_sign_in(server, SECOND_NUMBER, SECOND_CODE)
            alices = enrol(server, tab, alice["idToken"])
            bobs = enrol(server, tab, bob["idToken"])

            def assertion(credential: Dict[str, Any], started: Dict[str, Any]) -> Dict[str, Any]:
                """The browser's assertion with `credential` over the challenge of `started` (the
                page chooses which of the authenticator's passkeys answers)."""
                options = dict(started["options"], allowCredentials=[{"type": "public-key", "id": credential["id"]}])
                return run(tab, GET, options)

            # A challenge given for Alice, answered with Bob's passkey (his own, genuinely signed).
            started = ok(server, "startPasskeySignIn", {"uid": alice["user"]["uid"]})
            assert refused(server, "finishPasskeySignIn", {"credential": assertion(bobs, started)}) == "unknownCredential"
            # Alice's passkey in the tenant "shop", where the same number is another user.
            shop = phone_sign_in(server, tenantId="shop")
            assert shop["user"]["uid"] != alice["user"]["uid"]
            started = ok(server, "startPasskeySignIn", {"tenantId": "shop"})
            assert refused(server, "finishPasskeySignIn",
                           {"credential": assertion(alices, started), "tenantId": "shop"}) == "unknownCredential"
            # Each passkey still signs its own user in, in its own pool.
            for made, user in ((alices, alice), (bobs, bob)):
                started = ok(server, "startPasskeySignIn", {})
                signed = ok(server, "finishPasskeySignIn", {"credential": assertion(made, started)})
                assert signed["user"]["uid"] == user["user"]["uid"]
    finally:
        server.stop()
        page.close()
