"""Second-factor sign-in in Firebase's shape: a resolver built from SecondFactorRequiredError, and
the assertion objects mfa_resolve_sign_in takes.

    try:
        engine.sign_in_with_credential(credential)
    except phoneauth.SecondFactorRequiredError as error:
        resolver = engine.get_multi_factor_resolver(error)
        started = resolver.verify_phone_number(resolver.hints[0])
        credential = engine.credential(started["verificationId"], code_from_user)["credential"]
        result = resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(credential))
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .errors import PhoneAuthError, SecondFactorRequiredError


class MultiFactorResolver:
    """The sign-in a SecondFactorRequiredError left half done.

    hints       the user's factors as the error lists them: {"uid", "factorId", "displayName",
                "phoneNumber" (masked, phone factors only), "enrollmentTime"}
    session     the multi-factor session; completes one sign-in, until expires_at
    expires_at  RFC 3339 time
    """

    def __init__(self, engine: Any, error: PhoneAuthError):
        if not isinstance(error, PhoneAuthError):
            raise TypeError("error must be a phoneauth.SecondFactorRequiredError")
        if not isinstance(error, SecondFactorRequiredError):
            raise ValueError(f"not a secondFactorRequired error: {error.code}")
        self.engine = engine
        self.hints: List[Dict[str, Any]] = list(error.details.get("hints") or [])
        self.session: Optional[str] = error.details.get("session")
        self.expires_at: Optional[str] = error.details.get("expiresAt")

    def verify_phone_number(self, hint: Any, **params: Any) -> Dict[str, Any]:
        """Sends the SMS for a phone factor, given as a hint dict or its uid. Keywords:
        language_code, client_ip. Returns {"verificationId", ...} (never the number)."""
        uid = hint.get("uid") if isinstance(hint, Mapping) else hint
        return self.engine.verify_phone_number(multi_factor_hint=uid, multi_factor_session=self.session,
                                               **params)

    def resolve_sign_in(self, assertion: Mapping[str, Any], **params: Any) -> Dict[str, Any]:
        """Completes the sign-in with an assertion of PhoneMultiFactorGenerator or
        TotpMultiFactorGenerator. Keywords: client_ip, user_agent (the end user's User-Agent, told
        to blocking hooks). Returns a sign-in result."""
        return self.engine.mfa_resolve_sign_in(session=self.session, assertion=assertion, **params)


class PhoneMultiFactorGenerator:
    FACTOR_ID = "phone"

    @staticmethod
    def assertion(credential: Any) -> Dict[str, Any]:
        """credential: the "credential" of Engine.credential() for a second-factor verification."""
        return {"factorId": PhoneMultiFactorGenerator.FACTOR_ID, "credential": credential}


class TotpMultiFactorGenerator:
    FACTOR_ID = "totp"

    @staticmethod
    def assertion_for_sign_in(enrollment_id: Any, verification_code: Any) -> Dict[str, Any]:
        """enrollment_id: the TOTP hint's uid; verification_code: the code the app shows now."""
        return {"factorId": TotpMultiFactorGenerator.FACTOR_ID, "enrollmentId": enrollment_id,
                "verificationCode": verification_code}
