"""The Engine class: one libphoneauth engine handle, its methods and its callbacks (SMS sender,
log sink, push sender, captcha verifier)."""

from __future__ import annotations

import atexit
import collections
import ctypes
import functools
import json
import json.scanner
import sys
import threading
import time
import weakref
from ctypes import byref, c_void_p
from json.encoder import encode_basestring_ascii as _quote  # a str as a JSON string, in ASCII
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from . import _ffi
from .errors import PhoneAuthError, error_from_object
from .multifactor import MultiFactorResolver

SmsSender = Callable[[Dict[str, Any]], Any]
LogSink = Callable[[Dict[str, Any]], Any]
PushSender = Callable[[Dict[str, Any]], Any]
CaptchaVerifier = Callable[[Dict[str, Any]], Optional[Mapping[str, Any]]]

_UNSET: Any = object()  # "argument not given": distinct from None, which is sent as JSON null

# On the thread running a Python callback (SMS sender, log sink, push sender, captcha verifier):
# the token of the engine it belongs to.
_sender_state = threading.local()


@functools.lru_cache(maxsize=256)
def _camel(name: str) -> str:
    """phone_number -> phoneNumber; lowerCamel names pass through unchanged."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _params(extra: Mapping[str, Any], named: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A method's own arguments ({lowerCamel name: value}; unset ones left out), then its other
    keyword arguments renamed to lowerCamel: the parameter object."""
    if named and not extra:
        for value in named.values():
            if value is _UNSET:
                break
        else:
            return named  # the usual call: every argument given, nothing else
    out = {k: v for k, v in named.items() if v is not _UNSET} if named else {}
    if extra:
        out.update((_camel(k), v) for k, v in extra.items())
    return out


def _json_default(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# The JSON encoder and decoder are made once: json.dumps and json.loads check their keywords and
# make an encoder on every call, which is half of what a small call costs in Python.
try:
    from json.encoder import c_make_encoder, encode_basestring_ascii

    _encode_chunks = c_make_encoder(None, _json_default, encode_basestring_ascii, None, ":", ",",
                                    False, False, True) if c_make_encoder else None
except ImportError:  # an interpreter without the C accelerator
    _encode_chunks = None
_ENCODER = json.JSONEncoder(separators=(",", ":"))
_DECODER = json.JSONDecoder()
_scan_value = json.scanner.make_scanner(_DECODER)  # what raw_decode calls, without its frame


def _encode(value: Any) -> bytes:
    if _encode_chunks is not None and isinstance(value, dict):
        try:
            return "".join(_encode_chunks(value, 0)).encode("ascii")
        except RecursionError:
            # The fast encoder keeps no markers; the json module's names the problem.
            raise ValueError("Circular reference detected") from None
    return _ENCODER.encode(value).encode("ascii")


_NOT_SCANNED = object()  # what _scan gives for text that is not one compact JSON value


def _scan(text: str) -> Any:
    """The library's JSON (compact, nothing around it) read by the scanner alone, without
    JSONDecoder.decode's whitespace regexes and frames; _NOT_SCANNED for anything else."""
    try:
        value, end = _scan_value(text, 0)
    except (StopIteration, ValueError):
        return _NOT_SCANNED
    return value if end == len(text) else _NOT_SCANNED


def _decode(text: Optional[str]) -> Any:
    """The library's JSON; None when there is none or it is not JSON."""
    value = _scan(text) if text else None
    return None if value is _NOT_SCANNED else value


def _plain_object(**fields: Any) -> Optional[bytes]:
    """The text _encode makes for an object whose values are all plain str, written directly (the
    usual call's parameters); None when one is not."""
    if any(type(value) is not str for value in fields.values()):
        return None
    return ("{" + ",".join(_quote(name) + ":" + _quote(value) for name, value in fields.items()) + "}").encode("ascii")


def _error(status: Optional[int], obj: Any) -> PhoneAuthError:
    """The exception for an error object (obj may be None when the library gave none)."""
    exc = error_from_object(obj, status)
    if not exc.message:
        exc.message = _ffi.strerror(exc.status) if exc.status else "the library gave no error object"
        exc.args = (exc.message,)
    return exc


def _result(status: int, text: Optional[str]) -> Dict[str, Any]:
    """Decodes what a call returned: the result object, or raises the error it describes."""
    obj = _decode(text)
    if status != 0:
        raise _error(status, obj)
    if not isinstance(obj, dict):
        raise PhoneAuthError("the library returned something that is not a JSON object",
                             code="internalError", status=17999)
    return obj


def _report(what: str, exc: BaseException, outcome: str) -> None:
    """One short line on stderr for an exception stopped at the C boundary (never the data)."""
    try:
        sys.stderr.write(f"phoneauth: {what} raised {type(exc).__name__}; {outcome}\n")
    except BaseException:
        pass


def _keep_thread_state() -> None:
    """Keeps this native thread's Python thread state for its next callbacks. ctypes makes a
    fresh one for every callback on a thread Python did not start, and frees it afterwards (tens
    of microseconds each time); holding the GIL state once more, never released, keeps it.
    Called on a thread's first callback (_call_host tells it by _sender_state, which is
    thread-local: a new thread, even one reusing an old id, is kept too). The cost: a delivery
    thread's state, and its thread-local data, stay until the interpreter exits, even after its
    engine is closed (one per engine opened with a Python callback)."""
    if not isinstance(threading.current_thread(), threading._DummyThread):
        return  # a thread Python started: its state lives as long as it does
    ensure = getattr(getattr(ctypes, "pythonapi", None), "PyGILState_Ensure", None)
    if ensure is not None:  # CPython
        ensure()


_FIRST_CALLBACK: Any = object()  # _sender_state.engine on a thread that has run no callback yet


def _parse(text: str) -> Any:
    """The library's JSON as a value; what the scanner alone cannot read goes through
    JSONDecoder.decode, which reads it or raises as json.loads would."""
    value = _scan(text)
    return _DECODER.decode(text) if value is _NOT_SCANNED else value


def _call_host(host: Callable[[Any], Any], engine_token: object, argument_json: bytes, what: str, outcome: str,
               reported: Optional[List[bool]] = None) -> Tuple[bool, Any]:
    """Runs a host callable on the JSON a C callback received, marking the thread as inside this
    engine's callback (so close() from it raises instead of deadlocking). Returns (True, result),
    or (False, None) after an exception, which stops here: nothing may unwind into the library.
    With `reported`, only the first exception is reported."""
    outer = getattr(_sender_state, "engine", _FIRST_CALLBACK)
    if outer is _FIRST_CALLBACK:
        _keep_thread_state()
        outer = None
    _sender_state.engine = engine_token
    try:
        return True, host(_parse(argument_json.decode("utf-8")))
    except BaseException as exc:
        if reported is None or not reported:
            _report(what, exc, outcome)
            if reported is not None:
                reported.append(True)
        return False, None
    finally:
        _sender_state.engine = outer


def _sender_trampoline(sender: Callable[[Any], Any], engine_token: object, what: str = "SMS sender",
                       outcome_told: str = "the engine will retry"):
    """Wraps a Python SMS sender (or event handler) as the C callback: 0 = delivered (it returned
    anything but False), 1 = failed (retry later: False, or an exception)."""

    def callback(ctx, message_json):
        if not message_json:
            return 1
        ok, outcome = _call_host(sender, engine_token, message_json, what, outcome_told)
        return 0 if ok and outcome is not False else 1

    return callback


def _log_sink_trampoline(sink: LogSink, engine_token: object):
    """Wraps a Python log sink as the C callback. Its exceptions stop here; the first one is
    reported on stderr in one line (never the event), later ones silently."""
    reported: List[bool] = []

    def callback(ctx, event_json):
        if event_json:
            _call_host(sink, engine_token, event_json, "log sink", "further errors of this sink are not reported",
                       reported)

    return callback


def _push_sender_trampoline(sender: PushSender, engine_token: object):
    """Wraps a Python push sender as the C callback: 0 = sent (a true result), 1 = not sent."""

    def callback(ctx, message_json):
        if not message_json:
            return 1
        ok, outcome = _call_host(sender, engine_token, message_json, "push sender", "the push counts as not sent")
        return 0 if ok and outcome else 1

    return callback


def _answering_trampoline(host: Callable[[Any], Any], engine_token: object, what: str, outcome: str):
    """Wraps a Python callable that answers (a captcha verifier, a hook) as the C callback: writes
    its answer as NUL-terminated JSON into the library's buffer and returns 0; returns 1 (a
    failure) for None, an exception or an answer that does not fit."""

    def callback(ctx, request_json, response_json, response_size):
        if not request_json or not response_json:
            return 1
        ok, answer = _call_host(host, engine_token, request_json, what, outcome)
        if not ok or answer is None:
            return 1
        try:
            data = json.dumps(answer).encode("utf-8") + b"\0"
        except (TypeError, ValueError) as exc:
            _report(what, exc, outcome)
            return 1
        if len(data) > response_size:
            return 1
        ctypes.memmove(response_json, data, len(data))
        return 0

    return callback


_live_engines: "weakref.WeakSet[Engine]" = weakref.WeakSet()


@atexit.register
def _close_live_engines() -> None:
    # Closed before the interpreter finalizes, while the delivery thread can still take the GIL
    # to finish a running callback (phoneauth_close waits for it).
    for engine in list(_live_engines):
        try:
            engine.close()
        except Exception:
            pass


class Engine:
    """A phone sign-in engine over one database (see docs/API.md).

    ``Engine(config)`` opens it from a configuration dict (``{"database": "auth.db", ...}``);
    ``close()`` or a ``with`` block ends it. Methods take snake_case keyword arguments, sent as the
    lowerCamel parameters of docs/API.md, and return the decoded result object. Failures raise
    PhoneAuthError subclasses. An engine may be used from many threads at once.
    """

    def __init__(self, config: Mapping[str, Any]):
        self._handle: Optional[int] = None  # first, so that __del__ works if opening fails
        self._token = object()  # tells this engine's sender thread apart in close()
        self._lib = _ffi.lib  # kept on the instance: module globals may be gone at shutdown
        self._sleep = time.sleep
        # One entry per call in flight. A call adds its entry before it reads the handle, and
        # close() clears the handle before it waits for the entries to go, so no call can use a
        # freed handle. deque.append and pop are atomic: a lock here cost a tenth of a small call.
        self._in_flight: "collections.deque[None]" = collections.deque()
        self._closing = threading.Lock()  # two close() calls must not both free the handle
        # Every CFUNCTYPE object ever installed (SMS senders, log sinks, push senders, captcha
        # verifiers), kept until close: the library may still be running one when it is replaced.
        self._callbacks: List[Any] = []
        if not isinstance(config, Mapping):
            raise TypeError("config must be a dict")
        error = c_void_p()
        handle = self._lib.phoneauth_open(_encode(dict(config)), byref(error))
        text = _ffi.take_string(error)
        if not handle:
            raise _error(None, _decode(text))
        self._handle = handle
        _live_engines.add(self)

    # -- lifetime ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._handle is None

    def close(self) -> None:
        """Stops the delivery threads and frees the engine. Calling it again does nothing.
        Undelivered messages stay in the database's outbox for the next engine."""
        if getattr(_sender_state, "engine", None) is self._token:
            # phoneauth_close waits for the running callback: from inside it, that never ends.
            raise RuntimeError("phoneauth: an engine cannot be closed from its own callback "
                               "(SMS sender, log sink, push sender, captcha verifier)")
        with self._closing:
            handle, self._handle = self._handle, None
        if handle is None:
            return
        while self._in_flight:  # calls running on other threads finish first
            self._sleep(0.001)
        self._lib.phoneauth_close(handle)
        self._callbacks = []

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except BaseException:
            pass

    def __repr__(self) -> str:
        return f"<phoneauth.Engine {'closed' if self._handle is None else 'open'}>"

    def _enter(self) -> int:
        self._in_flight.append(None)
        handle = self._handle
        if handle is None:
            self._in_flight.pop()
            raise ValueError("phoneauth: operation on a closed engine")
        return handle

    def _leave(self) -> None:
        self._in_flight.pop()

    def _invoke(self, function, *args: Any) -> Dict[str, Any]:
        out = _ffi.OutText()
        pointer = out.pointer
        self._in_flight.append(None)  # _enter, inline: this is every call's path
        handle = self._handle
        if handle is None:
            self._in_flight.pop()
            raise ValueError("phoneauth: operation on a closed engine")
        try:
            status = function(handle, *args, byref(pointer))
        finally:
            self._in_flight.pop()
        text = None
        if pointer:
            try:
                text = out.text.decode("utf-8", "replace")
            finally:
                self._lib.phoneauth_free(pointer)
        return _result(status, text)

    def _install(self, setter, function) -> None:
        """Installs a CFUNCTYPE object (or a NULL one) through one of the C setters."""
        handle = self._enter()
        try:
            self._callbacks.append(function)  # referenced before the library can call it
            status = setter(handle, function, None)
        finally:
            self._leave()
        if status != 0:
            raise _error(status, None)

    # -- generic calls ---------------------------------------------------------------------------

    def call(self, method: str, params: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Runs any method of docs/API.md by its name, with a dict of lowerCamel parameters."""
        if params is not None and not isinstance(params, dict):
            params = dict(params)
        return self.call_json(method, None if params is None else _encode(params))

    def call_json(self, method: str, params_json: Optional[Any] = None) -> Dict[str, Any]:
        """Like call(), with the parameters given as JSON text (str or bytes) sent unchanged."""
        if isinstance(params_json, str):
            params_json = params_json.encode("utf-8")
        return self._invoke(self._lib.phoneauth_call, method.encode("utf-8"), params_json)

    # -- methods with a typed C wrapper ------------------------------------------------------------

    def verify_phone_number(self, phone_number: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Starts a verification and sends the code. Keywords: language_code, client_ip, user_agent,
        app_verification ({"receipt", "secret"} or {"captchaToken"}, see AppVerificationFlow),
        channel ("sms", "whatsapp" or "voice"; by default the one channels.preferred gives the
        number's region); for a second factor, multi_factor_hint and multi_factor_session instead
        of phone_number (or use MultiFactorResolver.verify_phone_number). Within the resend window
        (resendAfterSeconds) another channel sends the same code again by that channel, under the
        same verificationId ("call me instead"); the same channel sends nothing. Returns
        {"verificationId", "codeLength", "expiresAt", "resendAt", "channel"}."""
        data = None if params else _plain_object(phoneNumber=phone_number)
        if data is None:
            data = _encode(_params(params, {"phoneNumber": phone_number}))
        return self._invoke(self._lib.phoneauth_verify_phone_number, data)

    def credential(self, verification_id: Any = _UNSET, verification_code: Any = _UNSET,
                   **params: Any) -> Dict[str, Any]:
        """Returns {"credential": {...}}; pass its "credential" to sign_in_with_credential."""
        data = None if params else _plain_object(verificationId=verification_id, verificationCode=verification_code)
        if data is None:
            data = _encode(_params(params, {"verificationId": verification_id, "verificationCode": verification_code}))
        return self._invoke(self._lib.phoneauth_credential, data)

    def sign_in_with_credential(self, credential: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Signs in with a credential object. Keywords: client_ip, user_agent (the end user's
        User-Agent, told to blocking hooks). Returns {"user", "idToken",
        "refreshToken", "expiresIn", "additionalUserInfo"}."""
        return self._invoke(self._lib.phoneauth_sign_in_with_credential,
                            _encode(_params(params, {"credential": credential})))

    def sign_out(self, refresh_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Ends the session of that refresh token. Returns {}."""
        return self._invoke(self._lib.phoneauth_sign_out,
                            _encode(_params(params, {"refreshToken": refresh_token})))

    # -- methods through phoneauth_call ------------------------------------------------------------

    def create_custom_token(self, uid: Any = _UNSET, claims: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """A token the host gives its user to sign in as uid. Returns {"customToken"}."""
        return self.call("createCustomToken", _params(params, {"uid": uid, "claims": claims}))

    def sign_in_with_custom_token(self, custom_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Signs in with a custom token; the same result as sign_in_with_credential."""
        return self.call("signInWithCustomToken", _params(params, {"customToken": custom_token}))

    def refresh_id_token(self, refresh_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Rotates the refresh token. Returns {"idToken", "refreshToken", "expiresIn"}."""
        return self.call("refreshIdToken", _params(params, {"refreshToken": refresh_token}))

    def verify_id_token(self, id_token: Any = _UNSET, check_revoked: Any = _UNSET,
                        **params: Any) -> Dict[str, Any]:
        """Checks an ID token. Returns {"claims": {...}}."""
        return self.call("verifyIdToken",
                         _params(params, {"idToken": id_token, "checkRevoked": check_revoked}))

    def get_user(self, uid: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        return self.call("getUser", _params(params, {"uid": uid}))

    def get_user_by_phone_number(self, phone_number: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        return self.call("getUserByPhoneNumber", _params(params, {"phoneNumber": phone_number}))

    def delete_user(self, uid: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        return self.call("deleteUser", _params(params, {"uid": uid}))

    def create_user(self, **params: Any) -> Dict[str, Any]:
        """Keywords: uid, phone_number, display_name, disabled. Returns {"user": {...}}."""
        return self.call("createUser", _params(params))

    def update_user(self, uid: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Keywords: disabled (bool), display_name (str or None), phone_number (str or None)."""
        return self.call("updateUser", _params(params, {"uid": uid}))

    def set_custom_user_claims(self, uid: Any = _UNSET, claims: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Claims every later ID token of the user carries; None or {} removes them. Returns {}."""
        return self.call("setCustomUserClaims", _params(params, {"uid": uid, "claims": claims}))

    def list_users(self, max_results: Any = _UNSET, page_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """One page of users by uid: {"users": [...], "pageToken"?}; pass pageToken for the next."""
        return self.call("listUsers", _params(params, {"maxResults": max_results, "pageToken": page_token}))

    def list_pending_events(self, max_results: Any = _UNSET, page_token: Any = _UNSET,
                            **params: Any) -> Dict[str, Any]:
        """Undelivered events in the order they will go: {"events": [{id, type, subject, attempts,
        lastError, createdAt, dueAt}], "pageToken"?}; never their payloads."""
        return self.call("listPendingEvents", _params(params, {"maxResults": max_results, "pageToken": page_token}))

    def drop_pending_event(self, event_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Deletes an undelivered event without delivering it (one its receiver will never take,
        which holds back that user's later events). Returns {}."""
        return self.call("dropPendingEvent", _params(params, {"eventId": event_id}))

    def list_signing_keys(self, **params: Any) -> Dict[str, Any]:
        """The signing keys that verify now: {"keys": [{kid, algorithm, createdAt, ageDays, active, retiresAt?}]}."""
        return self.call("listSigningKeys", _params(params))

    def rotate_signing_key(self, algorithm: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """A new key signs from now on; the others verify until their tokens expire. Returns {"keys"}."""
        return self.call("rotateSigningKey", _params(params, {"algorithm": algorithm}))

    def retire_signing_key(self, kid: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Ends a key at once (a leaked key): its tokens stop verifying. Returns {"keys"}."""
        return self.call("retireSigningKey", _params(params, {"kid": kid}))

    def rekey(self, new_master_key: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Seals every secret under a new master key: {"rekeyed": true, "keyFile"?}."""
        return self.call("rekey", _params(params, {"newMasterKey": new_master_key}))

    def export_users(self, max_results: Any = _UNSET, page_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """One page of users as Firebase's auth:export writes them: {"users": [...], "pageToken"?}."""
        return self.call("exportUsers", _params(params, {"maxResults": max_results, "pageToken": page_token}))

    def import_users(self, users: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Up to 1000 users in auth:export's format: {"imported": n, "errors": [{"index", "message"}]}."""
        return self.call("importUsers", _params(params, {"users": users}))

    def revoke_refresh_tokens(self, uid: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        return self.call("revokeRefreshTokens", _params(params, {"uid": uid}))

    def get_jwks(self, **params: Any) -> Dict[str, Any]:
        """Returns {"keys": [JWK, ...]}, the public keys that verify ID tokens."""
        return self.call("getJwks", _params(params))

    def unlock_phone_number(self, phone_number: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Ends the number's lockout and its run of wrong codes; returns {"unlocked": bool},
        whether it had any."""
        return self.call("unlockPhoneNumber", _params(params, {"phoneNumber": phone_number}))

    def get_status(self, **params: Any) -> Dict[str, Any]:
        """Schema version, users, live sessions, recent SMS and signing keys (phoneauth status)."""
        return self.call("getStatus", _params(params))

    def get_storage_statistics(self, **params: Any) -> Dict[str, Any]:
        """Returns {driver, poolSize, transactions, retries, roundTrips, busyMicroseconds, waits}:
        what the store has done since the engine opened (retries: transactions run again after a
        conflict with another engine's, or a broken connection; busyMicroseconds: the time its
        connections were in use, summed; waits: calls that found every connection in use)."""
        return self.call("getStorageStatistics", _params(params))

    def get_verification_status(self, verification_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Where a verification and its code stand: {"verificationId", "phoneNumber" (masked),
        "state", "expiresAt", "delivery" (pending, sent, delivered, failed or none), "attempts",
        "channel", "provider", "providerMessageId", "deliveryError", "deliveries"}; "deliveries"
        lists each delivery of the code ({channel, status, provider, messageId, error,
        errorCode}), earlier ones (replaced by a resend or a fallback) first."""
        return self.call("getVerificationStatus", _params(params, {"verificationId": verification_id}))

    def report_delivery(self, provider: Any = _UNSET, url: Any = _UNSET, headers: Any = _UNSET,
                        body: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Hands the engine a provider's delivery callback as the host received it: `provider`,
        the name of the sms.providers entry that sent the message; `url`, the whole URL the
        provider called (Twilio signs it); `headers`, a dict (or pairs) of the request's headers;
        `body`, the raw body (str, or bytes in UTF-8). The engine checks the provider's signature
        with the entry's secret (Twilio's authToken, Meta's appSecret, Vonage's signatureSecret)
        and applies each status: a message delivered, or failed (its verification then falls back
        to channels.fallback's channel, once). Returns {"receipts": [{"messageId", "status",
        "applied", "reason"?, "verificationId"?, "fallback"?}]}; a receipt already applied comes
        back with applied false and reason "duplicate". A missing or bad signature raises
        InvalidArgumentError (details reason missingSignature or badSignature), as does an
        unknown provider or one without the secret (details field "provider")."""
        if isinstance(body, (bytes, bytearray)):
            body = bytes(body).decode("utf-8")
        if headers is not _UNSET and headers is not None and not isinstance(headers, Mapping):
            headers = dict(headers)
        return self.call("reportDelivery",
                         _params(params, {"provider": provider, "url": url, "headers": headers, "body": body}))

    # -- tenants (docs/API.md, "Tenants"); every other method takes tenant_id= ----------------------

    def create_tenant(self, display_name: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """A user pool of its own: {"tenant": {tenantId, displayName, testPhoneNumbers, smsRegionPolicy,
        secondFactors, smsAppName, pumping, createdAt, updatedAt}}; tenant_id= is generated when not given."""
        return self.call("createTenant", _params(params, {"displayName": display_name}))

    def get_tenant(self, tenant_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        return self.call("getTenant", _params(params, {"tenantId": tenant_id}))

    def update_tenant(self, tenant_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Changes the keys given (display_name=, sms_app_name=, ...); None clears a setting."""
        return self.call("updateTenant", _params(params, {"tenantId": tenant_id}))

    def delete_tenant(self, tenant_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Refused (TenantNotEmptyError) while the tenant has users. Returns {}."""
        return self.call("deleteTenant", _params(params, {"tenantId": tenant_id}))

    def list_tenants(self, max_results: Any = _UNSET, page_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """One page of tenants by ID: {"tenants": [...], "pageToken"?}."""
        return self.call("listTenants", _params(params, {"maxResults": max_results, "pageToken": page_token}))

    # -- linking, re-authentication and second factors --------------------------------------------

    def link_with_credential(self, id_token: Any = _UNSET, credential: Any = _UNSET,
                             **params: Any) -> Dict[str, Any]:
        """Adds a verified phone number to the signed-in account. Returns a sign-in result."""
        return self.call("linkWithCredential", _params(params, {"idToken": id_token, "credential": credential}))

    def update_phone_number(self, id_token: Any = _UNSET, credential: Any = _UNSET,
                            **params: Any) -> Dict[str, Any]:
        """Replaces the account's phone number (needs a recent sign-in). Returns a sign-in result."""
        return self.call("updatePhoneNumber", _params(params, {"idToken": id_token, "credential": credential}))

    def reauthenticate_with_credential(self, id_token: Any = _UNSET, credential: Any = _UNSET,
                                       **params: Any) -> Dict[str, Any]:
        """Proves the user again with their own number; the new ID token has a fresh auth_time."""
        return self.call("reauthenticateWithCredential",
                         _params(params, {"idToken": id_token, "credential": credential}))

    def unlink(self, id_token: Any = _UNSET, provider_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Removes the account's phone number (provider_id "phone"). Returns {"user"}."""
        return self.call("unlink", _params(params, {"idToken": id_token, "providerId": provider_id}))

    def mfa_enroll_start(self, id_token: Any = _UNSET, phone_number: Any = _UNSET,
                         **params: Any) -> Dict[str, Any]:
        """Sends a code to a number to enrol as a second factor. Keywords: language_code, client_ip, user_agent,
        app_verification, channel ("sms", "whatsapp" or "voice"). Returns {"verificationId",
        "channel", ...}; finish with mfa_enroll_finalize."""
        return self.call("mfaEnrollStart", _params(params, {"idToken": id_token, "phoneNumber": phone_number}))

    def mfa_enroll_finalize(self, id_token: Any = _UNSET, credential: Any = _UNSET,
                            display_name: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Enrols the factor. SMS: credential=. TOTP: factor_id="totp", session_info=,
        verification_code=. Returns a sign-in result of a new session."""
        return self.call("mfaEnrollFinalize", _params(params, {"idToken": id_token, "credential": credential, "displayName": display_name}))

    def mfa_totp_start(self, id_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """A new TOTP secret. Keywords: account_name, issuer. Returns {"sessionInfo", "secretKey",
        "otpauthUri", ...}."""
        return self.call("mfaTotpStart", _params(params, {"idToken": id_token}))

    def mfa_unenroll(self, id_token: Any = _UNSET, enrollment_id: Any = _UNSET,
                     **params: Any) -> Dict[str, Any]:
        """Removes a second factor by its uid. Returns {"user", "idToken", "refreshToken", ...}."""
        return self.call("mfaUnenroll", _params(params, {"idToken": id_token, "enrollmentId": enrollment_id}))

    def mfa_resolve_sign_in(self, session: Any = _UNSET, assertion: Any = _UNSET,
                            **params: Any) -> Dict[str, Any]:
        """Completes a sign-in that raised SecondFactorRequiredError. Returns a sign-in result."""
        return self.call("mfaResolveSignIn", _params(params, {"session": session, "assertion": assertion}))

    def get_multi_factor_resolver(self, error: PhoneAuthError) -> "MultiFactorResolver":
        """The resolver of a SecondFactorRequiredError (see phoneauth.multifactor)."""
        return MultiFactorResolver(self, error)

    # -- passkeys (docs/API.md, "Passkeys"; the starts and finishes have typed C wrappers) ---------

    def start_passkey_enrollment(self, id_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """WebAuthn's creation options for the signed-in user (a recent sign-in): {"options"}, to
        hand to navigator.credentials.create; finish with finish_passkey_enrollment."""
        return self._invoke(self._lib.phoneauth_start_passkey_enrollment,
                            _encode(_params(params, {"idToken": id_token})))

    def finish_passkey_enrollment(self, id_token: Any = _UNSET, credential: Any = _UNSET, name: Any = _UNSET,
                                  **params: Any) -> Dict[str, Any]:
        """Registers the passkey navigator.credentials.create made (its PublicKeyCredential JSON).
        Returns {"passkey": {...}} beside the sign-in result of a new session ("idToken",
        "refreshToken", "expiresIn", "user"); a refusal is InvalidCredentialError with details["reason"]."""
        return self._invoke(self._lib.phoneauth_finish_passkey_enrollment,
                            _encode(_params(params, {"idToken": id_token, "credential": credential, "name": name})))

    def start_passkey_sign_in(self, uid: Any = _UNSET, phone_number: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """WebAuthn's request options: {"options"}, for navigator.credentials.get. Without uid or
        phone_number, any discoverable passkey of the pool answers. Keywords: client_ip, user_agent."""
        return self._invoke(self._lib.phoneauth_start_passkey_sign_in,
                            _encode(_params(params, {"uid": uid, "phoneNumber": phone_number})))

    def finish_passkey_sign_in(self, credential: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Signs in with navigator.credentials.get's PublicKeyCredential JSON; the same result as
        sign_in_with_credential (sign_in_provider "passkey"). Keywords: client_ip, user_agent."""
        return self._invoke(self._lib.phoneauth_finish_passkey_sign_in,
                            _encode(_params(params, {"credential": credential})))

    def list_passkeys(self, id_token: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """The signed-in user's passkeys, oldest first: {"passkeys": [{credentialId, name, algorithm,
        format, backupEligible, createdAt, lastUsedAt}]}."""
        return self.call("listPasskeys", _params(params, {"idToken": id_token}))

    def delete_passkey(self, id_token: Any = _UNSET, credential_id: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Removes one of the signed-in user's passkeys (a recent sign-in). Returns {}."""
        return self.call("deletePasskey", _params(params, {"idToken": id_token, "credentialId": credential_id}))

    # -- SMS sender --------------------------------------------------------------------------------

    def set_sms_sender(self, sender: Optional[SmsSender]) -> None:
        """Installs the SMS sender of the "callback" provider, or removes it with None.

        ``sender(message)`` gets {"to", "body", "languageCode", "verificationId", "purpose",
        "encoding", "segments"} and runs on one of the engine's delivery threads: one message at a
        time, unless the configuration's sms.concurrency is above 1 (then up to that many at once,
        so the sender must be thread-safe). Returning None or a true value means delivered; returning False or raising
        means failed, and the engine retries later. With sms.providers (Twilio, Vonage, webhooks)
        the engine sends the SMS itself and no sender is needed."""
        if sender is None:
            function = _ffi.SMS_SENDER()  # a NULL function pointer
        elif callable(sender):
            function = _ffi.SMS_SENDER(_sender_trampoline(sender, self._token))
        else:
            raise TypeError("sender must be callable or None")
        self._install(self._lib.phoneauth_set_sms_sender, function)

    # -- log sink ----------------------------------------------------------------------------------

    def set_log_sink(self, sink: Optional[LogSink]) -> None:
        """Installs a sink for the engine's security events, or removes it with None.

        ``sink(event)`` gets each event as a dict {"event", "time" (RFC 3339), ...fields}:
          codeSent        phoneNumber, languageCode, attempt, provider, messageId?, failedOver?
          deliveryFailed  phoneNumber, languageCode, attempt, provider, reason, providerCode?,
                          httpStatus?, detail?, retryAfterSeconds?, willRetry
          providerSkipped provider, failures, reason, seconds
          providerRestored provider
          signInSucceeded uid, phoneNumber?, provider, secondFactor?, isNewUser, clientIp?
          signInFailed    code, reason?, clientIp?
          limitTripped    limit, scope, retryAfterSeconds
          lockout         phoneNumber, until, lockoutSeconds, clientIp?
          numberUnlocked  phoneNumber, hadFailures
          hookCalled      hook, outcome (answered, blocked, refused, failed), ms
        Phone numbers are masked ("+*******3434"); codes, secrets and tokens never appear.
        The sink runs on the thread that made the call, on one of the engine's delivery threads,
        or in close() for the last sends, possibly on several at once: it must be thread-safe and
        quick, and must not call the engine (queue the event and handle it elsewhere if you need
        to). codeSent and deliveryFailed come once the store has the outcome, so
        get_verification_status made afterwards agrees with them. Its return value is
        ignored; an exception it raises is swallowed (the first one is reported on stderr), so it
        never reaches the library or the caller. A sink being called when it is replaced or
        removed may still finish that call afterwards."""
        if sink is None:
            function = _ffi.LOG_SINK()  # a NULL function pointer
        elif callable(sink):
            function = _ffi.LOG_SINK(_log_sink_trampoline(sink, self._token))
        else:
            raise TypeError("sink must be callable or None")
        self._install(self._lib.phoneauth_set_log_sink, function)

    # -- app verification (docs/API.md, "App verification"; AppVerificationFlow runs the steps) ------

    def verify_client(self, app_token: Any = _UNSET, token_type: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Sends the app a silent push with a receipt and its secret, through the push sender.
        token_type: "prod", "sandbox" or "unknown". Returns {"receipt", "suggestedTimeout"}."""
        return self.call("verifyClient", _params(params, {"appToken": app_token, "tokenType": token_type}))

    def can_handle_notification(self, notification: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Reads a push payload: {"handled": True, "receipt", "secret"} for the verification push,
        {"handled": True} for the forwarding probe, {"handled": False} for anything else."""
        return self.call("canHandleNotification", _params(params, {"notification": notification}))

    def get_captcha_challenge(self, callback_scheme: Any = _UNSET, language_code: Any = _UNSET,
                              **params: Any) -> Dict[str, Any]:
        """A new captcha challenge on the page of captcha.pageUrl. Returns {"url", "eventId"}."""
        return self.call("getCaptchaChallenge",
                         _params(params, {"callbackScheme": callback_scheme, "languageCode": language_code}))

    def can_handle_url(self, url: Any = _UNSET, **params: Any) -> Dict[str, Any]:
        """Reads the captcha page's callback URL: {"handled": True, "captchaToken"} (or "error"),
        {"handled": False} for anything else. Each challenge is handled once."""
        return self.call("canHandleURL", _params(params, {"url": url}))

    def set_push_sender(self, sender: Optional[PushSender]) -> None:
        """Installs the sender of verify_client's silent pushes, or removes it with None.

        ``sender(message)`` gets {"appToken", "tokenType", "payload"} and delivers "payload" to the
        app (APNs, FCM) on the thread calling verify_client. A true result means the push service
        accepted it; a false one (None included) or an exception means not sent (verify_client
        then fails with AppNotVerifiedError, reason "pushFailed"). The message holds a secret:
        do not log it. Installing a push sender turns app verification on unless the
        configuration sets appVerification.enforce."""
        if sender is None:
            function = _ffi.PUSH_SENDER()  # a NULL function pointer
        elif callable(sender):
            function = _ffi.PUSH_SENDER(_push_sender_trampoline(sender, self._token))
        else:
            raise TypeError("sender must be callable or None")
        self._install(self._lib.phoneauth_set_push_sender, function)

    def set_hook(self, name: str, hook: Optional[Callable[[Dict[str, Any]], Any]]) -> None:
        """Installs the blocking hook `name` ("beforeCreate", "beforeSignIn" or "beforeSendSms"),
        or removes it with None; it replaces the configuration's HTTP hook of that name.

        ``hook(event)`` gets the event (docs/API.md, "Hooks") on the thread of the call that
        reaches it, outside any database transaction, and returns the response: {} to go on,
        {"userRecord": {"updateMask": "displayName,disabled,customClaims,sessionClaims", ...}}
        to change the user (sessionClaims: beforeSignIn only),
        {"recaptchaActionOverride": "BLOCK"} to stop an SMS, or {"error": {"status":
        "PERMISSION_DENIED", "message": "..."}} to refuse (BlockingFunctionError with that
        message). None, an exception or an answer of 8192 bytes or more as JSON is a failure,
        which hooks.<name>.onError decides (deny by default)."""
        if not isinstance(name, str):
            raise TypeError("name must be a hook's name, a str")
        if hook is None:
            function = _ffi.HOOK()  # a NULL function pointer
        elif callable(hook):
            function = _ffi.HOOK(_answering_trampoline(hook, self._token, f"{name} hook", "the hook counts as failed"))
        else:
            raise TypeError("hook must be callable or None")
        self._install(lambda handle, fn, ctx: self._lib.phoneauth_set_hook(handle, name.encode("utf-8"), fn, ctx),
                      function)

    def set_event_handler(self, handler: Optional[Callable[[Dict[str, Any]], Any]]) -> None:
        """Installs the receiver of recorded events (docs/API.md, "Events"), or removes it with
        None; it replaces the configuration's events webhook and also takes the events recorded
        while none was installed. Needs an "events" object in the configuration.

        ``handler(event)`` gets {"id", "type", "timestamp", "data"} on the engine's event thread,
        one event at a time, a user's events in order, each at least once (drop repeats by
        "id"). Returning False or raising offers the event again later."""
        if handler is None:
            function = _ffi.EVENT_HANDLER()  # a NULL function pointer
        elif callable(handler):
            function = _ffi.EVENT_HANDLER(
                _sender_trampoline(handler, self._token, "event handler", "the event is offered again later"))
        else:
            raise TypeError("handler must be callable or None")
        self._install(self._lib.phoneauth_set_event_handler, function)

    def set_captcha_verifier(self, verifier: Optional[CaptchaVerifier]) -> None:
        """Installs the checker of captcha tokens, or removes it with None.

        ``verifier(request)`` gets {"token", "clientIp"?, "phoneNumber"?} on the thread calling
        verify_phone_number (phoneNumber when pumping.tollFraud wants the send rated), asks the
        captcha provider, and returns {"success": bool, "score": float (optional),
        "tollFraudRisk": float from 0 to 1 (optional)}; None, an exception or an answer longer than the library's buffer
        (1024 bytes as JSON) means it could not check (CaptchaCheckFailedError, reason
        "verifierFailed"). Installing a verifier turns app verification on unless the
        configuration sets appVerification.enforce."""
        if verifier is None:
            function = _ffi.CAPTCHA_VERIFIER()  # a NULL function pointer
        elif callable(verifier):
            function = _ffi.CAPTCHA_VERIFIER(
                _answering_trampoline(verifier, self._token, "captcha verifier", "the token counts as not checked"))
        else:
            raise TypeError("verifier must be callable or None")
        self._install(self._lib.phoneauth_set_captcha_verifier, function)
