"""A WebAuthn authenticator in software (P-256, attestation "none"), as a browser's virtual one:
it answers the engine's options (WebAuthn's JSON, base64url) with the browser's
PublicKeyCredential JSON, and can hand its parts out raw for Google's v2 request shape."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from typing import Any, Dict

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _cbor_head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    if n < 256:
        return bytes([major << 5 | 24, n])
    return bytes([major << 5 | 25]) + struct.pack(">H", n)


def cbor(value: Any) -> bytes:
    """Enough CBOR for an attestation object and a COSE key: ints, bytes, text and maps."""
    if isinstance(value, int):
        return _cbor_head(0, value) if value >= 0 else _cbor_head(1, -1 - value)
    if isinstance(value, bytes):
        return _cbor_head(2, len(value)) + value
    if isinstance(value, str):
        return _cbor_head(3, len(value.encode())) + value.encode()
    return _cbor_head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())


class Authenticator:
    """One credential; `create` and `get` return the browser's JSON, with the raw bytes kept in
    `last` (clientData, attestationObject or authenticatorData and signature) for other shapes."""

    def __init__(self, rp_id: str, origin: str):
        self.rp_id, self.origin = rp_id, origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.counter = 0
        self.last: Dict[str, bytes] = {}

    @property
    def id(self) -> str:
        return b64url(self.credential_id)

    def _data(self, attested: bool) -> bytes:
        flags = 0x01 | 0x04 | (0x40 if attested else 0)  # present, verified, credential data
        data = hashlib.sha256(self.rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", self.counter)
        if attested:
            numbers = self.key.public_key().public_numbers()
            cose = cbor({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})
            data += bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id + cose
        return data

    def _client(self, kind: str, options: Dict[str, Any]) -> bytes:
        return json.dumps({"type": kind, "challenge": options["challenge"], "origin": self.origin,
                           "crossOrigin": False}).encode()

    def create(self, options: Dict[str, Any]) -> Dict[str, Any]:
        client = self._client("webauthn.create", options)
        attestation = cbor({"fmt": "none", "attStmt": {}, "authData": self._data(True)})
        self.last = {"clientData": client, "attestationObject": attestation}
        return {"id": self.id, "rawId": self.id, "type": "public-key",
                "response": {"clientDataJSON": b64url(client), "attestationObject": b64url(attestation),
                             "transports": ["internal"]},
                "authenticatorAttachment": "platform", "clientExtensionResults": {}}

    def get(self, options: Dict[str, Any]) -> Dict[str, Any]:
        self.counter += 1
        client = self._client("webauthn.get", options)
        data = self._data(False)
        signature = self.key.sign(data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        handle = b"handle-" + self.credential_id
        self.last = {"clientData": client, "authenticatorData": data, "signature": signature, "userHandle": handle}
        return {"id": self.id, "rawId": self.id, "type": "public-key",
                "response": {"clientDataJSON": b64url(client), "authenticatorData": b64url(data),
                             "signature": b64url(signature), "userHandle": b64url(handle)},
                "clientExtensionResults": {}}
