"""A software WebAuthn authenticator for the passkey tests: what a browser's navigator.credentials
gives a page, as PublicKeyCredential JSON, from a key made here with `cryptography`.

Authenticator(algorithm, attestation): algorithm "ES256" (P-256, as a browser's virtual
authenticator), "EdDSA" (Ed25519) or "RS256" (RSA 2048, exponent 65537); attestation "none" or
"packed" (self attestation: the credential's own key signs; with x5c=(key, [certificate DER, ...]),
that key signs and the statement carries the certificates). create(options) answers
startPasskeyEnrollment's options, get(options) startPasskeySignIn's; both take origin= and rp_id=
to answer as another page or relying party would, and get() counts up its signature counter
(set .counter to make it go back)."""

import base64
import hashlib
import json
import os
import struct
from typing import Optional

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

RP_ID = "login.example.com"
ORIGIN = "https://login.example.com"

# COSE algorithm numbers (RFC 9053), as WebAuthn's pubKeyCredParams name them.
COSE_ALGORITHMS = {"ES256": -7, "EdDSA": -8, "RS256": -257}

FLAG_USER_PRESENT, FLAG_USER_VERIFIED, FLAG_ATTESTED = 0x01, 0x04, 0x40


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
    """Enough CBOR for an attestation object and a COSE key (ints, bytes, text, lists, maps)."""
    if isinstance(value, list):
        return cbor_head(4, len(value)) + b"".join(cbor(item) for item in value)
    if isinstance(value, int):
        return cbor_head(0, value) if value >= 0 else cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return cbor_head(2, len(value)) + value
    if isinstance(value, str):
        return cbor_head(3, len(value.encode())) + value.encode()
    return cbor_head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())


class Authenticator:
    def __init__(self, algorithm: str = "ES256", attestation: str = "none", x5c=None):
        self.algorithm, self.attestation, self.x5c = algorithm, attestation, x5c
        self.extra_statement: dict = {}  # entries added to the attestation statement, to spoil it
        self.cose_algorithm = COSE_ALGORITHMS.get(algorithm)
        if algorithm == "ES256":
            self.key = ec.generate_private_key(ec.SECP256R1())
        elif algorithm == "EdDSA":
            self.key = ed25519.Ed25519PrivateKey.generate()
        elif algorithm == "RS256":
            self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        else:
            raise ValueError(f"no such algorithm: {algorithm}")
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.user_handle: Optional[bytes] = None  # the user.id of the creation options, once created

    def cose_key(self) -> bytes:
        public = self.key.public_key()
        if self.algorithm == "ES256":
            numbers = public.public_numbers()
            return cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
        if self.algorithm == "EdDSA":
            return cbor({1: 1, 3: -8, -1: 6, -2: public.public_bytes_raw()})
        numbers = public.public_numbers()
        return cbor({1: 3, 3: -257, -1: numbers.n.to_bytes(256, "big"), -2: numbers.e.to_bytes(3, "big")})

    def sign(self, message: bytes) -> bytes:
        if self.algorithm == "ES256":
            return self.key.sign(message, ec.ECDSA(hashes.SHA256()))  # DER, as WebAuthn sends it
        if self.algorithm == "EdDSA":
            return self.key.sign(message)
        return self.key.sign(message, padding.PKCS1v15(), hashes.SHA256())

    def authenticator_data(self, attested: bool, rp_id: str = RP_ID) -> bytes:
        flags = FLAG_USER_PRESENT | FLAG_USER_VERIFIED | (FLAG_ATTESTED if attested else 0)
        data = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.counter)
        if attested:  # AAGUID (zeros), credential ID, public key
            data += bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose_key()
        return data

    @staticmethod
    def client_data(kind: str, options: dict, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": origin}).encode()

    def create(self, options: dict, origin: str = ORIGIN, rp_id: str = RP_ID) -> dict:
        """navigator.credentials.create's answer to the creation options."""
        self.user_handle = unb64url(options["user"]["id"]) if "user" in options else None
        client = self.client_data("webauthn.create", options, origin)
        data = self.authenticator_data(True, rp_id)
        statement = {}
        if self.attestation == "packed" and self.x5c:
            key, chain = self.x5c  # an attestation key (P-256) and its certificates, leaf first
            statement = {"alg": -7, "sig": key.sign(data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256())),
                         "x5c": chain}
        elif self.attestation == "packed":
            statement = {"alg": self.cose_algorithm,
                         "sig": self.sign(data + hashlib.sha256(client).digest())}
        attestation = cbor({"fmt": self.attestation, "attStmt": {**statement, **self.extra_statement},
                            "authData": data})
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": {"clientDataJSON": b64url(client), "attestationObject": b64url(attestation)}}

    def get(self, options: dict, origin: str = ORIGIN, rp_id: str = RP_ID) -> dict:
        """navigator.credentials.get's answer to the request options; the counter goes up first."""
        self.counter += 1
        client = self.client_data("webauthn.get", options, origin)
        data = self.authenticator_data(False, rp_id)
        response = {"clientDataJSON": b64url(client), "authenticatorData": b64url(data),
                    "signature": b64url(self.sign(data + hashlib.sha256(client).digest()))}
        if self.user_handle is not None:
            response["userHandle"] = b64url(self.user_handle)
        return {"id": b64url(self.credential_id), "rawId": b64url(self.credential_id), "type": "public-key",
                "response": response}
