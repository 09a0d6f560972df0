#!/usr/bin/env python3
"""PhoneAuth from Python, start to end (run by `make demo`).

Opens an engine on a fresh SQLite file with one fictional test number, captures the SMS the
engine sends, signs in a real number with the code read from its SMS, signs in the test number
with its fixed code, refreshes the session, verifies the ID token, signs out, and shows that the
signed-out refresh token no longer works.
"""

import os
import re
import sys
import tempfile
import threading

try:
    import phoneauth
except ImportError:  # run from a checkout without `pip install -e bindings/python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import phoneauth

REAL_NUMBER = "+16505553434"
TEST_NUMBER = "+16505551234"
TEST_CODE = "123456"


def mask(token):
    """Only a prefix of a token is printed."""
    return token[:12] + "..." if len(token) > 12 else "***"


class Outbox:
    """Stands in for an SMS provider: keeps the messages and lets the demo wait for one."""

    def __init__(self):
        self.messages = []
        self.arrived = threading.Condition()

    def send(self, message):  # runs on the engine's delivery thread
        with self.arrived:
            self.messages.append(message)
            self.arrived.notify_all()
        return True  # delivered

    def wait_for(self, verification_id, timeout=15):
        with self.arrived:
            found = self.arrived.wait_for(
                lambda: [m for m in self.messages if m["verificationId"] == verification_id], timeout)
        if not found:
            sys.exit(f"no SMS arrived within {timeout} s")
        return found[0]


def step(text):
    print(f"\n== {text}")


def main():
    print(f"libphoneauth {phoneauth.version()} (ABI {phoneauth.abi_version()})")
    with tempfile.TemporaryDirectory(prefix="phoneauth-demo-") as folder:
        config = {
            "database": os.path.join(folder, "auth.db"),
            "testPhoneNumbers": {TEST_NUMBER: TEST_CODE},
        }
        with phoneauth.Engine(config) as engine:
            outbox = Outbox()
            engine.set_sms_sender(outbox.send)

            step(f"verifyPhoneNumber {REAL_NUMBER}")
            started = engine.verify_phone_number(REAL_NUMBER, language_code="en")
            print(f"verificationId {mask(started['verificationId'])}, "
                  f"{started['codeLength']}-digit code, expires {started['expiresAt']}")
            sms = outbox.wait_for(started["verificationId"])
            code = max(re.findall(r"[0-9]+", sms["body"]), key=len)
            print(f"SMS to {sms['to']} ({sms['languageCode']}): {sms['body'].replace(code, '*' * len(code))!r}")

            step("signInWithCredential with the code from the SMS")
            cred = engine.credential(verification_id=started["verificationId"], verification_code=code)
            signed_in = engine.sign_in_with_credential(credential=cred["credential"])
            user = signed_in["user"]
            print(f"uid {user['uid']}, phone {user['phoneNumber']}, "
                  f"new user: {signed_in['additionalUserInfo']['isNewUser']}")
            print(f"idToken {mask(signed_in['idToken'])}, refreshToken {mask(signed_in['refreshToken'])}")

            step(f"test number {TEST_NUMBER}: no SMS, fixed code")
            test_started = engine.verify_phone_number(TEST_NUMBER)
            status = engine.get_verification_status(verification_id=test_started["verificationId"])
            print(f"delivery: {status['delivery']}")
            test_cred = engine.credential(verification_id=test_started["verificationId"],
                                          verification_code=TEST_CODE)
            test_user = engine.sign_in_with_credential(credential=test_cred["credential"])["user"]
            print(f"uid {test_user['uid']}, phone {test_user['phoneNumber']}")

            step("refreshIdToken (the refresh token rotates)")
            refreshed = engine.refresh_id_token(refresh_token=signed_in["refreshToken"])
            print(f"new idToken {mask(refreshed['idToken'])}, "
                  f"new refreshToken {mask(refreshed['refreshToken'])}, expires in {refreshed['expiresIn']} s")

            step("verifyIdToken")
            claims = engine.verify_id_token(id_token=refreshed["idToken"], check_revoked=True)["claims"]
            print(f"sub {claims['sub']}, phone_number {claims['phone_number']}, "
                  f"aud {claims['aud']}, iss {claims['iss']}")

            step("signOut")
            engine.sign_out(refresh_token=refreshed["refreshToken"])
            try:
                engine.refresh_id_token(refresh_token=refreshed["refreshToken"])
            except phoneauth.InvalidUserTokenError as exc:
                print(f"the signed-out refresh token is refused: {exc.code} "
                      f"(reason: {exc.details.get('reason')})")
            else:
                sys.exit("the signed-out refresh token still works")
    print("\ndone")


if __name__ == "__main__":
    main()
