"""Loading libphoneauth and declaring its C functions (include/phoneauth.h).

Where the library comes from, in order:
  1. the environment variable PHONEAUTH_LIBRARY, a full path (nothing else is tried when it is set);
  2. a libphoneauth.so* next to these package files;
  3. the system: ctypes.util.find_library("phoneauth"), then "libphoneauth.so.1".
The library's ABI version is checked at once, so a wrong library fails here, at import time.

Strings the library allocates come back through char ** out-parameters typed POINTER(c_void_p),
are read (through OutText's c_char_p field, or with string_at in take_string) and released
with phoneauth_free (a c_char_p restype would leak them). Only phoneauth_version and
phoneauth_strerror return static text, typed c_char_p.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from ctypes import CFUNCTYPE, POINTER, c_char_p, c_int, c_size_t, c_void_p
from typing import List, Optional

ABI_VERSION = 1  # PHONEAUTH_ABI_VERSION of the header this binding was written against
ENV_VAR = "PHONEAUTH_LIBRARY"


class LibraryLoadError(ImportError):
    """libphoneauth could not be found or loaded, or it is of another ABI version."""


def _candidates() -> List[str]:
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return [explicit]
    here = os.path.dirname(os.path.abspath(__file__))
    names = sorted(glob.glob(os.path.join(here, "libphoneauth.so*")))
    found = ctypes.util.find_library("phoneauth")
    if found:
        names.append(found)
    names.append("libphoneauth.so.1")
    return names


def _load() -> ctypes.CDLL:
    failures = []
    for name in _candidates():
        try:
            # CDLL, not PyDLL: calls release the GIL, so the library's own thread can call back.
            return ctypes.CDLL(name)
        except OSError as exc:
            failures.append(f"  {name}: {exc}")
    hint = (f"set {ENV_VAR} to the full path of libphoneauth.so.1"
            if not os.environ.get(ENV_VAR) else f"check {ENV_VAR}")
    raise LibraryLoadError("phoneauth: cannot load libphoneauth (" + hint + "); tried:\n"
                           + "\n".join(failures))


# The callbacks' JSON arguments are typed c_char_p: ctypes hands the callback a copy as bytes
# (None for NULL) while the library still owns the text, which costs less than a string_at.
# int (*)(void *ctx, const char *message_json): the SMS sender callback type.
SMS_SENDER = CFUNCTYPE(c_int, c_void_p, c_char_p)
# void (*)(void *ctx, const char *event_json): the log sink callback type.
LOG_SINK = CFUNCTYPE(None, c_void_p, c_char_p)
# int (*)(void *ctx, const char *message_json): the push sender callback type.
PUSH_SENDER = CFUNCTYPE(c_int, c_void_p, c_char_p)
# int (*)(void *ctx, const char *request_json, char *response_json, size_t response_size):
# the captcha verifier callback type (response_json is a buffer the library owns).
CAPTCHA_VERIFIER = CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p, c_size_t)
HOOK = CFUNCTYPE(c_int, c_void_p, c_char_p, c_void_p, c_size_t)
# int (*)(void *ctx, const char *event_json): the event handler callback type.
EVENT_HANDLER = CFUNCTYPE(c_int, c_void_p, c_char_p)

_OUT = POINTER(c_void_p)  # char **out_json


class _OutPointer(c_void_p):
    """c_void_p, subclassed: a Union field of this type reads as a c_void_p object sharing the
    Union's memory (a field of c_void_p itself reads as an int)."""


class OutText(ctypes.Union):
    """What a char ** out-parameter points to: `pointer` goes to the call (byref: _OUT accepts a
    c_void_p subclass) and to phoneauth_free; `text` reads the string as bytes through c_char_p,
    without string_at's second call through libffi."""
    _fields_ = [("pointer", _OutPointer), ("text", c_char_p)]


def _declare(lib: ctypes.CDLL) -> None:
    def fn(name, restype, *argtypes):
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise LibraryLoadError(f"phoneauth: {lib._name} has no function {name}") from None
        f.restype = restype
        f.argtypes = list(argtypes)

    fn("phoneauth_abi_version", c_int)
    fn("phoneauth_version", c_char_p)
    fn("phoneauth_strerror", c_char_p, c_int)
    fn("phoneauth_free", None, c_void_p)
    fn("phoneauth_open", c_void_p, c_char_p, _OUT)
    fn("phoneauth_close", None, c_void_p)
    fn("phoneauth_call", c_int, c_void_p, c_char_p, c_char_p, _OUT)
    fn("phoneauth_verify_phone_number", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_credential", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_sign_in_with_credential", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_sign_out", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_mfa_resolve_sign_in", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_start_passkey_enrollment", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_finish_passkey_enrollment", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_start_passkey_sign_in", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_finish_passkey_sign_in", c_int, c_void_p, c_char_p, _OUT)
    fn("phoneauth_set_sms_sender", c_int, c_void_p, SMS_SENDER, c_void_p)
    fn("phoneauth_set_log_sink", c_int, c_void_p, LOG_SINK, c_void_p)
    fn("phoneauth_set_push_sender", c_int, c_void_p, PUSH_SENDER, c_void_p)
    fn("phoneauth_set_captcha_verifier", c_int, c_void_p, CAPTCHA_VERIFIER, c_void_p)
    fn("phoneauth_set_hook", c_int, c_void_p, c_char_p, HOOK, c_void_p)
    fn("phoneauth_set_event_handler", c_int, c_void_p, EVENT_HANDLER, c_void_p)


def _open_library() -> ctypes.CDLL:
    lib = _load()
    try:
        abi = lib.phoneauth_abi_version
    except AttributeError:
        raise LibraryLoadError(f"phoneauth: {lib._name} is not libphoneauth "
                               "(no phoneauth_abi_version)") from None
    abi.restype, abi.argtypes = c_int, []
    found = abi()
    if found != ABI_VERSION:
        raise LibraryLoadError(f"phoneauth: {lib._name} has ABI version {found}, this binding "
                               f"needs {ABI_VERSION}; install a matching libphoneauth")
    _declare(lib)
    return lib


lib = _open_library()


def take_string(ptr: c_void_p) -> Optional[str]:
    """Reads a string the library allocated, frees it, and returns it (None for NULL)."""
    if not ptr.value:
        return None
    try:
        return ctypes.string_at(ptr.value).decode("utf-8", errors="replace")
    finally:
        lib.phoneauth_free(ptr.value)
        ptr.value = None


def version() -> str:
    """The library's version, e.g. "0.1.0"."""
    return lib.phoneauth_version().decode("utf-8")


def abi_version() -> int:
    """The library's ABI version (1)."""
    return lib.phoneauth_abi_version()


def strerror(status: int) -> str:
    """Static English text for a status number, e.g. "invalidVerificationCode: ..."."""
    return lib.phoneauth_strerror(int(status)).decode("utf-8", errors="replace")
