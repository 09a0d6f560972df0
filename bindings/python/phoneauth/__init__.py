"""phoneauth: Python binding for libphoneauth, a self-hosted phone-number sign-in engine.

    import phoneauth
    with phoneauth.Engine({"database": "auth.db"}) as engine:
        engine.set_sms_sender(lambda message: send_somehow(message["to"], message["body"]))
        started = engine.verify_phone_number("+16505553434")

The shared library is found through PHONEAUTH_LIBRARY, next to this package, or on the system;
importing fails with an ImportError (LibraryLoadError) when it is missing or of another ABI.
"""

from ._ffi import ABI_VERSION, LibraryLoadError, abi_version, strerror, version
from .appverification import AppVerificationFlow
from .engine import Engine
from .multifactor import MultiFactorResolver, PhoneMultiFactorGenerator, TotpMultiFactorGenerator
from .errors import *  # noqa: F401,F403  (PhoneAuthError and one subclass per error code)
from .errors import __all__ as _error_names

__version__ = "0.1.0"

__all__ = ["Engine", "AppVerificationFlow", "MultiFactorResolver", "PhoneMultiFactorGenerator",
           "TotpMultiFactorGenerator", "version", "abi_version", "strerror", "ABI_VERSION", "LibraryLoadError"] + list(
    _error_names
)
