"""The Python suite's software authenticator (bindings/python/tests/softauth.py, P-256,
attestation "none"), answering as the test's page and relying party, with the raw bytes of its
last answer kept in `last` (clientData, attestationObject or authenticatorData, signature and
userHandle) for Google's v2 request shape."""

from __future__ import annotations

from typing import Any, Dict

import softauth
from softauth import b64url, unb64url

__all__ = ["Authenticator", "b64url", "unb64url"]


class Authenticator(softauth.Authenticator):
    def __init__(self, rp_id: str, origin: str):
        super().__init__()
        self.rp_id, self.origin = rp_id, origin
        self.user_handle = b"handle-" + self.credential_id  # until create() takes the options' user.id
        self.last: Dict[str, bytes] = {}

    @property
    def id(self) -> str:
        return b64url(self.credential_id)

    def create(self, options: Dict[str, Any], **_: Any) -> Dict[str, Any]:
        made = super().create(options, origin=self.origin, rp_id=self.rp_id)
        self._keep(made["response"], "clientDataJSON", "attestationObject")
        return made

    def get(self, options: Dict[str, Any], **_: Any) -> Dict[str, Any]:
        made = super().get(options, origin=self.origin, rp_id=self.rp_id)
        self._keep(made["response"], "clientDataJSON", "authenticatorData", "signature", "userHandle")
        return made

    def _keep(self, response: Dict[str, str], *fields: str) -> None:
        self.last = {"clientData" if f == "clientDataJSON" else f: unb64url(response[f]) for f in fields}
