"""phoneauthd's hooks as blocking functions written with Firebase's own Python SDK
(sdk_functions.py: firebase-functions' identity_fn, in its emulator mode), driven as an iOS client
would: the SDK decodes every event phoneauthd sends (a token missing a key it reads makes it answer
500 before the function runs, and the sign-in fails), and its answers (allow, deny with a message,
claims, disable, block) take effect.

beforeSendSms: the SDK (0.6.0) reads `user_record` as a required key, and an SMS to a number that is
no one's yet has none (as in Firebase, whose newer SDKs take SMS events without one), so its
function is installed on a second server over the same store, which sends only second-factor
codes: the first factor is met on the first server, whose challenge the second continues."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from conftest import PROJECT, Server, start_server
from test_ios_replay import IOSClient, verify_id_token

sys.path.insert(0, str(Path(__file__).parent))
from sdk_functions import BLOCK_SMS, DENY_CREATE, DENY_SIGN_IN, DENY_SMS, DISABLE  # noqa: E402

ALLOW = "+16505550106"
OWNER_OF_FACTORS = ("+16505550107", "+16505550108", "+16505550109")
SECOND = "+16505550110"
NUMBERS = [ALLOW, DENY_CREATE, DISABLE, DENY_SIGN_IN, BLOCK_SMS, DENY_SMS, SECOND, *OWNER_OF_FACTORS]
CODE = "246810"
AGENT = "FirebaseAuth.iOS/11.5.0 com.example.phoneauth/1.0 iPhone/18.1"


class Functions:
    """sdk_functions.py in a process of its own, and the events its functions saw."""

    def __init__(self, folder: Path):
        self.events_file = folder / "sdk-events.jsonl"
        self.events_file.touch()
        env = {**os.environ, "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:9", "GCLOUD_PROJECT": PROJECT,
               "FIREBASE_CONFIG": json.dumps({"projectId": PROJECT})}
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).parent / "sdk_functions.py"),
                                         str(self.events_file)], stdout=subprocess.PIPE,
                                        stderr=open(folder / "sdk-functions.log", "wb"), env=env, text=True)
        line = self.process.stdout.readline()
        assert line.strip().isdigit(), f"sdk_functions.py did not start: {(folder / 'sdk-functions.log').read_text()}"
        self.url = f"http://127.0.0.1:{int(line)}"

    def events(self) -> List[Dict[str, Any]]:
        return [json.loads(line) for line in self.events_file.read_text().splitlines()]

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


class Client(IOSClient):
    """An iOS client whose requests carry its User-Agent."""

    def _headers(self) -> Dict[str, str]:
        return {**super()._headers(), "User-Agent": AGENT}


@pytest.fixture
def functions(tmp_path):
    made = Functions(tmp_path)
    yield made
    made.close()


def engine(functions: Functions, *hooks: str) -> Dict[str, Any]:
    return {"testPhoneNumbers": {n: CODE for n in NUMBERS}, "resendAfterSeconds": 0, "sms": {"provider": "console"},
            "hooks": {name: {"url": f"{functions.url}/{name}"} for name in hooks}}


@pytest.fixture
def server(tmp_path, functions):
    made = start_server(tmp_path, engine=engine(functions, "beforeCreate", "beforeSignIn"))
    yield made
    made.stop()


def refusal(body: Dict[str, Any]) -> Dict[str, Any]:
    """The function's error inside BLOCKING_FUNCTION_ERROR_RESPONSE, as the iOS SDK reads it."""
    code, detail = body["error"]["message"].split(" : ", 1)
    assert code == "BLOCKING_FUNCTION_ERROR_RESPONSE", body
    return json.loads(detail[detail.index("{"):])


def test_a_new_user_meets_before_create_then_before_sign_in_with_what_they_set(server, functions):
    client = Client(server)
    signed = client.sign_in(ALLOW, CODE)
    claims = verify_id_token(server, signed["idToken"])
    assert claims["role"] == "member", claims  # beforeCreate's custom claims, stored
    assert claims["device"] == "sdk", claims  # beforeSignIn's session claims
    status, account, _ = client.get_account_info(signed["idToken"])
    assert status == 200 and account["users"][0]["displayName"] == "Member", account
    created, signed_in = functions.events()
    assert (created["function"], signed_in["function"]) == ("beforeCreate", "beforeSignIn")
    for event in (created, signed_in):
        assert event["uid"] == signed["localId"] and event["phone_number"] == ALLOW, event
        assert event["ip_address"] == "127.0.0.1" and event["user_agent"] == AGENT, event
        assert event["providers"] == ["phone"] and event["created"], event
    assert created["is_new_user"] is True and signed_in["is_new_user"] is False
    # Signing in again: beforeSignIn alone.
    again = client.sign_in(ALLOW, CODE)
    assert again["localId"] == signed["localId"]
    assert [e["function"] for e in functions.events()] == ["beforeCreate", "beforeSignIn", "beforeSignIn"]


def test_before_create_refuses_with_its_message_and_no_user_is_made(server, functions):
    client = Client(server)
    status, body, _ = client.verify_phone_number(client.start(DENY_CREATE), CODE)
    assert status == 400, body
    assert refusal(body) == {"error": {"status": "PERMISSION_DENIED", "message": "Sign-up is by invitation."}}
    status, body, _ = server.admin("getUserByPhoneNumber", {"phoneNumber": DENY_CREATE})
    assert body["error"]["code"] == "userNotFound", (status, body)
    assert [e["function"] for e in functions.events()] == ["beforeCreate"]


def test_before_sign_in_refuses_with_its_message(server, functions):
    client = Client(server)
    status, body, _ = client.verify_phone_number(client.start(DENY_SIGN_IN), CODE)
    assert status == 400, body
    assert refusal(body) == {"error": {"status": "PERMISSION_DENIED", "message": "Closed for maintenance."}}


def test_before_sign_in_disables_the_user(server, functions):
    client = Client(server)
    status, body, _ = client.verify_phone_number(client.start(DISABLE), CODE)
    assert status == 400 and body["error"]["message"].startswith("USER_DISABLED"), body
    status, body, _ = server.admin("getUserByPhoneNumber", {"phoneNumber": DISABLE})
    assert status == 200 and body["user"]["disabled"] is True, body


def test_a_request_without_user_agent_gives_the_sdk_an_empty_one(server, functions):
    """Firebase's SDKs read user_agent as a required key: a request with no User-Agent header
    (http.client sends none) still reaches the functions, which see the empty string."""
    def post(path: str, body: Dict[str, Any]) -> Dict[str, Any]:
        host, port = server.host_port.rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
            answer = connection.getresponse()
            parsed = json.loads(answer.read())
            assert answer.status == 200, parsed
            return parsed
        finally:
            connection.close()

    sent = post("/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k", {"phoneNumber": SECOND})
    signed = post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k",
                  {"sessionInfo": sent["sessionInfo"], "code": CODE})
    assert signed["localId"]
    events = functions.events()
    assert [e["function"] for e in events] == ["beforeCreate", "beforeSignIn"]
    assert all(e["user_agent"] == "" and e["ip_address"] == "127.0.0.1" for e in events), events


def test_before_send_sms_allows_blocks_and_refuses_second_factor_codes(tmp_path, server, functions):
    # The second server sends second-factor codes through the SDK's beforeSendSms function.
    sms_server = start_server(tmp_path, engine=engine(functions, "beforeSendSms"))
    try:
        first, sms = Client(server), Client(sms_server)
        outcomes = {}
        for owner, factor in zip(OWNER_OF_FACTORS, (SECOND, BLOCK_SMS, DENY_SMS)):
            signed = first.sign_in(owner, CODE)
            status, started, _ = first.mfa_enrollment_start(signed["idToken"], factor)
            assert status == 200, started
            status, done, _ = first.mfa_enrollment_finalize(
                signed["idToken"], started["phoneSessionInfo"]["sessionInfo"], CODE, "phone")
            assert status == 200, done
            # The first factor on the first server; the second factor's code from the second.
            status, challenge, _ = first.verify_phone_number(first.start(owner), CODE)
            assert status == 200 and challenge.get("mfaPendingCredential"), challenge
            hint = challenge["mfaInfo"][0]
            outcomes[factor] = sms.mfa_sign_in_start(challenge["mfaPendingCredential"], hint["mfaEnrollmentId"],
                                                     hint["phoneInfo"])
        status, body, _ = outcomes[SECOND]
        assert status == 200 and body["phoneResponseInfo"]["sessionInfo"], body
        status, body, _ = outcomes[BLOCK_SMS]
        assert status == 400 and body["error"]["message"].startswith("BLOCKING_FUNCTION_ERROR_RESPONSE"), body
        status, body, _ = outcomes[DENY_SMS]
        assert status == 400, body
        assert refusal(body) == {"error": {"status": "PERMISSION_DENIED", "message": "No codes for this factor."}}
        sms_events = [e for e in functions.events() if e["function"] == "beforeSendSms"]
        assert [e["sms_type"] for e in sms_events] == ["MULTI_FACTOR_SIGN_IN"] * 3, sms_events
        assert [e["factors"] for e in sms_events] == [[SECOND], [BLOCK_SMS], [DENY_SMS]], sms_events
        assert all(e["user_agent"] == AGENT and e["ip_address"] == "127.0.0.1" for e in sms_events), sms_events
    finally:
        sms_server.stop()
