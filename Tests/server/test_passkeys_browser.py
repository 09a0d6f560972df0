"""Passkeys in a real browser: headless Chromium with a virtual authenticator (the DevTools
protocol's WebAuthn domain) on a page of its own origin (http://localhost, a secure context),
and phoneauthd checking what the browser made. A user who signed in by SMS registers a passkey
with navigator.credentials.create, then signs in with navigator.credentials.get and is the same
uid, with no code; then the refusals: another origin, a replayed assertion, a counter gone back.
The page only runs WebAuthn; the test carries its JSON to phoneauthd, as the app's own code
would (so no cross-origin request is needed)."""

from __future__ import annotations

import json
from typing import Any, Dict

import pytest

from browser import EXECUTABLE, Browser
from conftest import TEST_CODE, TEST_NUMBER, start_server
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


def test_a_passkey_made_in_the_browser_signs_the_user_in_again_without_a_code(tmp_path):
    page, elsewhere = page_server(), page_server()
    origin = f"http://localhost:{page.port}"
    server = start_server(tmp_path, engine={
        "testPhoneNumbers": {TEST_NUMBER: TEST_CODE}, "sms": {"provider": "console"},
        "passkeys": {"rpId": "localhost", "rpName": "PhoneAuth test", "origins": [origin]}})
    try:
        with Browser(tmp_path) as browser:
            tab = browser.open(origin + "/")
            tab.wait_for(lambda e: e.get("method") == "Page.loadEventFired", "the page")
            tab.call("WebAuthn.enable")
            authenticator = tab.call("WebAuthn.addVirtualAuthenticator", {"options": {
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                "hasUserVerification": True, "isUserVerified": True}})["authenticatorId"]

            # Signed in once by SMS (a test number), the user registers a passkey.
            status, sent, _ = call(server, "verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
            assert status == 200, sent
            status, signed, _ = call(server, "signInWithCredential", {"credential": {
                "verificationId": sent["verificationId"], "verificationCode": TEST_CODE}})
            assert status == 200, signed
            status, started, _ = call(server, "startPasskeyEnrollment", {"idToken": signed["idToken"]})
            assert status == 200, started
            made = run(tab, CREATE, started["options"])
            status, enrolled, _ = call(server, "finishPasskeyEnrollment",
                                       {"idToken": signed["idToken"], "credential": made, "name": "Chromium"})
            assert status == 200, enrolled

            # Signed out, the user signs in with the passkey: the same uid, no code sent.
            status, started, _ = call(server, "startPasskeySignIn", {})
            assert status == 200, started
            used = run(tab, GET, started["options"])
            status, again, _ = call(server, "finishPasskeySignIn", {"credential": used})
            assert status == 200, again
            assert again["user"]["uid"] == signed["user"]["uid"]
            tab.screenshot(tmp_path / "screenshots" / "passkey-signed-in.png")

            # The same assertion again: its challenge is used up.
            status, body, _ = call(server, "finishPasskeySignIn", {"credential": used})
            assert status == 400 and body["error"]["details"]["reason"] == "wrongChallenge", body

            # A counter gone back, as a cloned authenticator's would be.
            [stored] = tab.call("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
            tab.call("WebAuthn.removeCredential", {"authenticatorId": authenticator,
                                                   "credentialId": stored["credentialId"]})
            tab.call("WebAuthn.addCredential", {"authenticatorId": authenticator,
                                                "credential": dict(stored, signCount=0)})
            status, started, _ = call(server, "startPasskeySignIn", {})
            status, body, _ = call(server, "finishPasskeySignIn", {"credential": run(tab, GET, started["options"])})
            assert status == 400 and body["error"]["details"]["reason"] == "counterWentBack", body

            # A page of another origin (the relying party's domain, but not a configured origin).
            other = browser.open(f"http://localhost:{elsewhere.port}/")
            other.wait_for(lambda e: e.get("method") == "Page.loadEventFired", "the other page")
            other.call("WebAuthn.enable")
            other.call("WebAuthn.addVirtualAuthenticator", {"options": {
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                "hasUserVerification": True, "isUserVerified": True}})
            status, started, _ = call(server, "startPasskeyEnrollment", {"idToken": again["idToken"]})
            status, body, _ = call(server, "finishPasskeyEnrollment",
                                   {"idToken": again["idToken"], "credential": run(other, CREATE, started["options"])})
            assert status == 400 and body["error"]["details"]["reason"] == "wrongOrigin", body
    finally:
        server.stop()
        page.close()
        elsewhere.close()
