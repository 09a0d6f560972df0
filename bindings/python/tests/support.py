"""Helpers shared by the tests (fixtures are in conftest.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional

import phoneauth

REAL_NUMBER = "+16505553434"
TEST_NUMBER = "+16505551234"
TEST_CODE = "123456"
WAIT = 15.0  # seconds to wait for an SMS before failing


# Test defaults: no resend window (a second verification of a number is a new one, so a user can
# sign in twice in a row) and a short delivery backoff. Tests that need other values override them.
DEFAULTS: Dict[str, Any] = {
    "resendAfterSeconds": 0,
    "sms": {"provider": "callback", "retryBackoffMs": 50},
}


def engine_config(database: str, **overrides: Any) -> Dict[str, Any]:
    """DEFAULTS with `overrides` merged in (dicts one level deep), for the database at `database`."""
    config = json.loads(json.dumps(DEFAULTS))
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key].update(value)
        else:
            config[key] = value
    config["database"] = str(database)
    return config


class SmsCapture:
    """An SMS sender that records every message and lets tests wait for one."""

    def __init__(self) -> None:
        self.messages: List[Dict[str, Any]] = []
        self._cond = threading.Condition()

    def __call__(self, message: Dict[str, Any]) -> None:
        with self._cond:
            self.messages.append(message)
            self._cond.notify_all()

    def matching(self, to: Optional[str] = None, verification_id: Optional[str] = None) -> List[Dict[str, Any]]:
        with self._cond:
            return [m for m in self.messages
                    if (to is None or m.get("to") == to)
                    and (verification_id is None or m.get("verificationId") == verification_id)]

    def wait_for(self, to: Optional[str] = None, verification_id: Optional[str] = None,
                 count: int = 1, timeout: float = WAIT) -> Dict[str, Any]:
        """Waits until `count` messages match; returns the last of them."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = self.matching(to, verification_id)
                if len(found) >= count:
                    return found[count - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no SMS for to={to!r} verificationId={verification_id!r} within {timeout}s "
                        f"({len(self.messages)} messages captured in all)")
                self._cond.wait(left)


def code_in(body: str, length: int = 6) -> str:
    """The one run of exactly `length` ASCII digits in an SMS body."""
    runs = re.findall(r"(?<![0-9])[0-9]{%d}(?![0-9])" % length, body)
    assert len(runs) == 1, f"expected one {length}-digit code in the SMS body, found {len(runs)}"
    return runs[0]


def start(engine: phoneauth.Engine, sms: SmsCapture, number: str, **kwargs: Any):
    """verifyPhoneNumber, then waits for its SMS. Returns (verification result, message, code)."""
    started = engine.verify_phone_number(number, **kwargs)
    message = sms.wait_for(verification_id=started["verificationId"])
    return started, message, code_in(message["body"], started["codeLength"])


def credential_for(engine: phoneauth.Engine, verification_id: str, code: str) -> Dict[str, Any]:
    return engine.credential(verification_id=verification_id, verification_code=code)["credential"]


def sign_in_with_code(engine: phoneauth.Engine, verification_id: str, code: str) -> Dict[str, Any]:
    return engine.sign_in_with_credential(credential=credential_for(engine, verification_id, code))


def sign_in(engine: phoneauth.Engine, sms: SmsCapture, number: str = REAL_NUMBER, **kwargs: Any) -> Dict[str, Any]:
    """The whole flow: verifyPhoneNumber, the code from the SMS, credential, signInWithCredential."""
    started, _message, code = start(engine, sms, number, **kwargs)
    return sign_in_with_code(engine, started["verificationId"], code)


def parse_time(text: str) -> datetime:
    """An RFC 3339 time of the library ("2026-11-21T09:30:00Z") as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def wait_until(predicate: Callable[[], Any], timeout: float = WAIT, interval: float = 0.05, what: str = "condition"):
    """Polls predicate() until it returns something true; returns that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def run_python(script: str, *args: str, env: Optional[Dict[str, str]] = None,
               timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs a Python script in a new process with this interpreter (and so this binding)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


# Run in a child process: opens an engine with the configuration in argv[1], verifies the number
# in argv[2], waits for its SMS, prints {"verificationId", "code", "to", "jwks"} as JSON, closes.
VERIFY_IN_CHILD = """
import json, re, sys, threading
import phoneauth
config, number = json.loads(sys.argv[1]), sys.argv[2]
got = threading.Event()
box = {}
def sender(message):
    box.update(message)
    got.set()
with phoneauth.Engine(config) as engine:
    engine.set_sms_sender(sender)
    started = engine.verify_phone_number(number)
    if not got.wait(15):
        sys.exit("no SMS within 15 s")
    code = re.findall(r"(?<![0-9])[0-9]{%d}(?![0-9])" % started["codeLength"], box["body"])[0]
    print(json.dumps({"verificationId": started["verificationId"], "code": code,
                      "to": box["to"], "jwks": engine.get_jwks()}))
"""


def verify_in_child(config: Dict[str, Any], number: str, env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    done = run_python(VERIFY_IN_CHILD, json.dumps(config), number, env=env)
    assert done.returncode == 0, f"child failed ({done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- second factors and linking ------------------------------------------------------------------

# Ten fictional numbers (the most testPhoneNumbers takes) with the fixed code TEST_CODE: for tests
# that need several users or factors without waiting for SMS.
FIXED_NUMBERS = {"+1650555%04d" % n: TEST_CODE for n in range(1230, 1240)}


def fixed_credential(engine: phoneauth.Engine, number: str) -> Dict[str, Any]:
    """A sign-in credential for one of FIXED_NUMBERS."""
    return credential_for(engine, engine.verify_phone_number(number)["verificationId"], TEST_CODE)


def custom_sign_in(engine: phoneauth.Engine, uid: str) -> Dict[str, Any]:
    return engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid=uid)["customToken"])


def enrol_fixed(engine: phoneauth.Engine, id_token: str, number: str, **kwargs: Any) -> Dict[str, Any]:
    """Enrols one of FIXED_NUMBERS as an SMS second factor; returns mfaEnrollFinalize's result."""
    started = engine.mfa_enroll_start(id_token, number)
    return engine.mfa_enroll_finalize(
        id_token, credential=credential_for(engine, started["verificationId"], TEST_CODE), **kwargs)


def resolver_of(engine: phoneauth.Engine, attempt: Callable[[], Any]) -> "phoneauth.MultiFactorResolver":
    """Runs attempt(), a sign-in that must fail with secondFactorRequired; returns its resolver."""
    try:
        attempt()
    except phoneauth.SecondFactorRequiredError as error:
        return engine.get_multi_factor_resolver(error)
    raise AssertionError("the sign-in did not ask for a second factor")


def resolve_fixed(engine: phoneauth.Engine, resolver: "phoneauth.MultiFactorResolver",
                  hint: Any) -> Dict[str, Any]:
    """Completes the sign-in with an SMS factor whose number is one of FIXED_NUMBERS."""
    challenge = resolver.verify_phone_number(hint)
    cred = credential_for(engine, challenge["verificationId"], TEST_CODE)
    return resolver.resolve_sign_in(phoneauth.PhoneMultiFactorGenerator.assertion(cred))
