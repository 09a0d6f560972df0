"""Passkeys through the C ABI's JSON methods: a user who signed in by SMS registers a passkey made
by a software authenticator (P-256, as a browser's virtual one) and signs in with it, with no
code; the browser's PublicKeyCredential JSON is what the methods take."""

import base64
import hashlib
import json
import os
import struct

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

import phoneauth

RP_ID = "login.example.com"
ORIGIN = "https://login.example.com"
NUMBER, CODE = "+16505551234", "123456"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def cbor_head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    if n < 256:
        return bytes([major << 5 | 24, n])
    return bytes([major << 5 | 25]) + struct.pack(">H", n)


def cbor(value) -> bytes:
    """Enough CBOR for an attestation object and a COSE key (ints, bytes, text, maps)."""
    if isinstance(value, int):
        return cbor_head(0, value) if value >= 0 else cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return cbor_head(2, len(value)) + value
    if isinstance(value, str):
        return cbor_head(3, len(value.encode())) + value.encode()
    return cbor_head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())


class Authenticator:
    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0

    def _data(self, attested: bool) -> bytes:
        flags = 0x01 | 0x04 | (0x40 if attested else 0)
        data = hashlib.sha256(RP_ID.encode()).digest() + bytes([flags]) + struct.pack(">I", self.counter)
        if attested:
            numbers = self.key.public_key().public_numbers()
            cose = cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
            data += bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + cose
        return data

    @staticmethod
    def _client(kind: str, options: dict, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": origin}).encode()

    def create(self, options: dict) -> dict:
        client = self._client("webauthn.create", options, ORIGIN)
        attestation = cbor({"fmt": "none", "attStmt": {}, "authData": self._data(True)})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client), "attestationObject": b64url(attestation)}}

    def get(self, options: dict, origin: str = ORIGIN) -> dict:
        self.counter += 1
        client = self._client("webauthn.get", options, origin)
        data = self._data(False)
        signature = self.key.sign(data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client), "authenticatorData": b64url(data),
                             "signature": b64url(signature)}}


@pytest.fixture
def engine(make_engine, sms):
    return make_engine(sender=sms, testPhoneNumbers={NUMBER: CODE},
                       passkeys={"rpId": RP_ID, "rpName": "Example", "origins": [ORIGIN]})


def phone_sign_in(engine) -> dict:
    started = engine.verify_phone_number(NUMBER)
    credential = engine.credential(started["verificationId"], CODE)["credential"]
    return engine.sign_in_with_credential(credential)


def test_a_user_who_signed_in_by_sms_signs_in_again_with_a_passkey(engine):
    signed_in = phone_sign_in(engine)
    authenticator = Authenticator()
    options = engine.call("startPasskeyEnrollment", {"idToken": signed_in["idToken"]})["options"]
    assert options["rp"] == {"id": RP_ID, "name": "Example"}
    handle = unb64url(options["user"]["id"])  # made with a server key: not the uid itself
    assert len(handle) == 32 and signed_in["user"]["uid"].encode() not in handle
    assert options["authenticatorSelection"]["residentKey"] == "required"
    made = engine.call("finishPasskeyEnrollment", {"idToken": signed_in["idToken"],
                                                   "credential": authenticator.create(options), "name": "Phone"})
    assert made["passkey"]["credentialId"] == b64url(authenticator.credential_id)
    options = engine.call("startPasskeySignIn", {"phoneNumber": NUMBER})["options"]
    assert [c["id"] for c in options["allowCredentials"]] == [b64url(authenticator.credential_id)]
    again = engine.call("finishPasskeySignIn", {"credential": authenticator.get(options)})
    assert again["user"]["uid"] == signed_in["user"]["uid"]
    claims = engine.verify_id_token(again["idToken"])["claims"]
    assert claims["firebase"]["sign_in_provider"] == "passkey"
    listed = engine.call("listPasskeys", {"idToken": again["idToken"]})["passkeys"]
    assert [p["name"] for p in listed] == ["Phone"] and listed[0]["lastUsedAt"]


def test_refusals_name_their_reason_and_bad_input_its_field(engine):
    signed_in = phone_sign_in(engine)
    authenticator = Authenticator()
    options = engine.call("startPasskeyEnrollment", {"idToken": signed_in["idToken"]})["options"]
    engine.call("finishPasskeyEnrollment", {"idToken": signed_in["idToken"], "credential": authenticator.create(options)})
    options = engine.call("startPasskeySignIn", {})["options"]
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.call("finishPasskeySignIn", {"credential": authenticator.get(options, origin="https://evil.example")})
    assert info.value.code == "invalidCredential" and info.value.details["reason"] == "wrongOrigin", info.value
    for credential, field in (({"id": "!"}, "credential.id"), ({"id": "AAAA", "rawId": "AAAB"}, "credential.rawId"),
                              ({"id": "AAAA", "response": {"clientDataJSON": "AA"}}, "credential.response.authenticatorData"),
                              ("not an object", "credential"), (None, "credential")):
        with pytest.raises(phoneauth.PhoneAuthError) as info:
            engine.call("finishPasskeySignIn", {} if credential is None else {"credential": credential})
        assert info.value.code == "invalidArgument" and info.value.details.get("field") == field, (field, info.value)


def test_off_unless_configured(make_engine, sms):
    engine = make_engine(sender=sms)
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.call("startPasskeySignIn", {})
    assert info.value.code == "operationNotAllowed", info.value
