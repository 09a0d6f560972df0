"""Exceptions: one hierarchy, PhoneAuthError, with one subclass per error code of docs/API.md.

A subclass is named after its code in CapWords followed by "Error" (``invalidVerificationCode``
becomes ``InvalidVerificationCodeError``; ``storageError`` stays ``StorageError``). A code this
version does not know maps to PhoneAuthError itself, so new codes never break a caller.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type


class PhoneAuthError(Exception):
    """A failure reported by the library.

    code     the stable lowerCamel name ("invalidVerificationCode"), or None if unknown
    status   the number the C function returned (17044)
    message  English text for developers; never holds codes, tokens or full phone numbers
    details  a dict (maybe empty) with structured facts, e.g. {"attemptsLeft": 4}
    """

    code: Optional[str] = None
    status: Optional[int] = None

    def __init__(self, message: str = "", code: Optional[str] = None,
                 status: Optional[int] = None, details: Optional[Dict[str, Any]] = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.details = dict(details) if isinstance(details, dict) else {}

    def __str__(self) -> str:
        return f"{self.code}: {self.message}" if self.code else self.message

    # Details that are secrets (a temporary proof, a second-factor session) or a whole number:
    # kept in .details for the caller, left out of repr, which ends up in logs.
    _UNLOGGED_DETAILS = frozenset({"temporaryProof", "session", "phoneNumber"})

    def __repr__(self) -> str:
        shown = {k: ("<redacted>" if k in self._UNLOGGED_DETAILS else v) for k, v in self.details.items()}
        return (f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, "
                f"message={self.message!r}, details={shown!r})")

    def __reduce__(self):
        # Keeps the attributes when the exception crosses a process boundary (pickle).
        return (type(self), (self.message, self.code, self.status, self.details))


# One class per code of docs/API.md (code, status). Numbers never change meaning.

class InvalidCustomTokenError(PhoneAuthError):
    code, status = "invalidCustomToken", 17000


class CustomTokenMismatchError(PhoneAuthError):
    code, status = "customTokenMismatch", 17002


class InvalidCredentialError(PhoneAuthError):
    code, status = "invalidCredential", 17004


class UserDisabledError(PhoneAuthError):
    code, status = "userDisabled", 17005


class OperationNotAllowedError(PhoneAuthError):
    code, status = "operationNotAllowed", 17006


class TooManyRequestsError(PhoneAuthError):
    code, status = "tooManyRequests", 17010


class UserNotFoundError(PhoneAuthError):
    code, status = "userNotFound", 17011


class RequiresRecentLoginError(PhoneAuthError):
    code, status = "requiresRecentLogin", 17014


class ProviderAlreadyLinkedError(PhoneAuthError):
    code, status = "providerAlreadyLinked", 17015


class NoSuchProviderError(PhoneAuthError):
    code, status = "noSuchProvider", 17016


class InvalidUserTokenError(PhoneAuthError):
    code, status = "invalidUserToken", 17017


class UserTokenExpiredError(PhoneAuthError):
    code, status = "userTokenExpired", 17021


class UserMismatchError(PhoneAuthError):
    code, status = "userMismatch", 17024


class CredentialAlreadyInUseError(PhoneAuthError):
    code, status = "credentialAlreadyInUse", 17025


class MissingPhoneNumberError(PhoneAuthError):
    code, status = "missingPhoneNumber", 17041


class InvalidPhoneNumberError(PhoneAuthError):
    code, status = "invalidPhoneNumber", 17042


class MissingVerificationCodeError(PhoneAuthError):
    code, status = "missingVerificationCode", 17043


class InvalidVerificationCodeError(PhoneAuthError):
    code, status = "invalidVerificationCode", 17044


class MissingVerificationIDError(PhoneAuthError):
    code, status = "missingVerificationID", 17045


class InvalidVerificationIDError(PhoneAuthError):
    code, status = "invalidVerificationID", 17046


class MissingAppCredentialError(PhoneAuthError):
    code, status = "missingAppCredential", 17047


class InvalidAppCredentialError(PhoneAuthError):
    code, status = "invalidAppCredential", 17048


class SessionExpiredError(PhoneAuthError):
    code, status = "sessionExpired", 17051


class QuotaExceededError(PhoneAuthError):
    code, status = "quotaExceeded", 17052


class MissingAppTokenError(PhoneAuthError):
    code, status = "missingAppToken", 17053


class AppNotVerifiedError(PhoneAuthError):
    code, status = "appNotVerified", 17055


class CaptchaCheckFailedError(PhoneAuthError):
    code, status = "captchaCheckFailed", 17056


class SecondFactorRequiredError(PhoneAuthError):
    code, status = "secondFactorRequired", 17078


class MissingMultiFactorSessionError(PhoneAuthError):
    code, status = "missingMultiFactorSession", 17081


class MissingMultiFactorInfoError(PhoneAuthError):
    code, status = "missingMultiFactorInfo", 17082


class InvalidMultiFactorSessionError(PhoneAuthError):
    code, status = "invalidMultiFactorSession", 17083


class MultiFactorInfoNotFoundError(PhoneAuthError):
    code, status = "multiFactorInfoNotFound", 17084


class SecondFactorAlreadyEnrolledError(PhoneAuthError):
    code, status = "secondFactorAlreadyEnrolled", 17087


class MaximumSecondFactorCountExceededError(PhoneAuthError):
    code, status = "maximumSecondFactorCountExceeded", 17088


class UnsupportedFirstFactorError(PhoneAuthError):
    code, status = "unsupportedFirstFactor", 17089


class BlockingFunctionError(PhoneAuthError):
    code, status = "blockingFunctionError", 17105


class InternalError(PhoneAuthError):
    code, status = "internalError", 17999


class InvalidArgumentError(PhoneAuthError):
    code, status = "invalidArgument", 18000


class InvalidConfigurationError(PhoneAuthError):
    code, status = "invalidConfiguration", 18001


class UnknownMethodError(PhoneAuthError):
    code, status = "unknownMethod", 18002


class StorageError(PhoneAuthError):
    """The database could not be used; ``details["retryable"]`` is True when trying again later
    may succeed (PostgreSQL unreachable, a broken connection, repeated conflicts)."""
    code, status = "storageError", 18003

    @property
    def retryable(self) -> bool:
        return bool(self.details.get("retryable", False))


class InvalidIdTokenError(PhoneAuthError):
    code, status = "invalidIdToken", 18004


class IdTokenRevokedError(PhoneAuthError):
    code, status = "idTokenRevoked", 18005


class PhoneNumberAlreadyExistsError(PhoneAuthError):
    code, status = "phoneNumberAlreadyExists", 18006


class UidAlreadyExistsError(PhoneAuthError):
    code, status = "uidAlreadyExists", 18007


class InsufficientPermissionError(PhoneAuthError):
    """phoneauthd only: an admin method without a valid admin token."""
    code, status = "insufficientPermission", 18008


class InvalidApiKeyError(PhoneAuthError):
    """phoneauthd only: a client method without a valid API key."""
    code, status = "invalidApiKey", 18009


class TenantNotFoundError(PhoneAuthError):
    """tenantId names no tenant."""
    code, status = "tenantNotFound", 18010


class TenantNotEmptyError(PhoneAuthError):
    """deleteTenant: the tenant still has users."""
    code, status = "tenantNotEmpty", 18011


class TenantIdMismatchError(PhoneAuthError):
    """A custom token or an imported user is of another tenant than the call names."""
    code, status = "tenantIdMismatch", 18012


_BY_CODE: Dict[str, Type[PhoneAuthError]] = {cls.code: cls for cls in PhoneAuthError.__subclasses__()}
_BY_STATUS: Dict[int, Type[PhoneAuthError]] = {cls.status: cls for cls in _BY_CODE.values()}

# code -> exception class, and code -> status number.
ERROR_CLASSES: Dict[str, Type[PhoneAuthError]] = dict(_BY_CODE)
ERROR_CODES: Dict[str, int] = {code: cls.status for code, cls in _BY_CODE.items()}


def error_from_object(obj: Any, status: Optional[int] = None) -> PhoneAuthError:
    """Builds the exception for a decoded error object {"error": {...}} and a C status number."""
    err = obj.get("error") if isinstance(obj, dict) else None
    if not isinstance(err, dict):
        err = {}
    code = err.get("code") if isinstance(err.get("code"), str) else None
    err_status = err.get("status") if isinstance(err.get("status"), int) else status
    message = err.get("message") if isinstance(err.get("message"), str) else ""
    details = err.get("details") if isinstance(err.get("details"), dict) else {}
    if code is not None:
        cls = _BY_CODE.get(code, PhoneAuthError)
    else:  # no code in the object: go by the status number
        cls = _BY_STATUS.get(err_status, PhoneAuthError)
    return cls(message, code=code, status=err_status, details=details)


__all__ = ["PhoneAuthError", "ERROR_CODES", "ERROR_CLASSES", "error_from_object"] + [
    cls.__name__ for cls in _BY_CODE.values()
]
