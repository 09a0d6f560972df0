"""App verification from the client's side, in the order of docs/API.md ("App verification"):
a silent push first, the captcha when the push does not come.

    flow = phoneauth.AppVerificationFlow(engine, app_token=push_token, callback_scheme="com.example.app",
                                         solve_captcha=show_page_and_return_callback_url)
    # the app's notification handler:  if flow.notification_received(payload): return
    started = flow.verify_phone_number("+16505553434")

The engine needs a push sender (Engine.set_push_sender) for the push and a captcha verifier
(Engine.set_captcha_verifier) and captcha.pageUrl for the captcha.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Optional

from .errors import AppNotVerifiedError, OperationNotAllowedError


class AppVerificationFlow:
    """Gets the proof verify_phone_number needs as app_verification.

    engine           the Engine
    app_token        the app's push token (APNs, FCM); None skips the push and goes to the captcha
    token_type       "prod", "sandbox" or "unknown" (verify_client's default when None)
    callback_scheme  the URL scheme the captcha page reports back through
    solve_captcha    solve_captcha(url) shows the captcha page at url and returns the callback URL
                     it opened, or None if the user gave up; None means no captcha fallback
    language_code    the captcha page's language
    """

    def __init__(self, engine: Any, app_token: Optional[str] = None, token_type: Optional[str] = None,
                 callback_scheme: Optional[str] = None,
                 solve_captcha: Optional[Callable[[str], Optional[str]]] = None,
                 language_code: Optional[str] = None):
        self.engine = engine
        self.app_token = app_token
        self.token_type = token_type
        self.callback_scheme = callback_scheme
        self.solve_captcha = solve_captcha
        self.language_code = language_code
        self._secrets: Dict[str, str] = {}  # receipt -> secret, from pushes received so far
        self._arrived = threading.Condition()

    def notification_received(self, notification: Any) -> bool:
        """Give it every push payload the app receives, from any thread. Returns True when the
        payload was PhoneAuth's (the app should not handle it itself)."""
        found = self.engine.can_handle_notification(notification)
        if found.get("receipt"):
            with self._arrived:
                self._secrets[found["receipt"]] = found["secret"]
                self._arrived.notify_all()
        return bool(found.get("handled"))

    def run(self) -> Dict[str, str]:
        """Returns {"receipt", "secret"} when the push arrives within verify_client's
        suggestedTimeout, else {"captchaToken"} from the captcha page. Raises
        AppNotVerifiedError (details.reason "noCaptcha", "captchaCancelled",
        "captchaNotHandled" or "captchaError") when neither gives a proof."""
        if self.app_token is not None:
            try:
                sent = self.engine.verify_client(self.app_token, **_given(token_type=self.token_type))
            except (OperationNotAllowedError, AppNotVerifiedError):
                pass  # no push sender, or the push was not sent: the captcha instead
            else:
                receipt = sent["receipt"]
                with self._arrived:
                    if self._arrived.wait_for(lambda: receipt in self._secrets, sent["suggestedTimeout"]):
                        return {"receipt": receipt, "secret": self._secrets.pop(receipt)}
        return self._captcha()

    def verify_phone_number(self, phone_number: Any, **params: Any) -> Dict[str, Any]:
        """run(), then engine.verify_phone_number with its proof as app_verification."""
        return self.engine.verify_phone_number(phone_number, app_verification=self.run(), **params)

    def _captcha(self) -> Dict[str, str]:
        if self.solve_captcha is None or self.callback_scheme is None:
            raise _failed("noCaptcha", "the verification push did not arrive and there is no captcha fallback")
        challenge = self.engine.get_captcha_challenge(
            self.callback_scheme, **_given(language_code=self.language_code))
        callback_url = self.solve_captcha(challenge["url"])
        if callback_url is None:
            raise _failed("captchaCancelled", "the captcha was not solved")
        found = self.engine.can_handle_url(callback_url)
        if not found.get("handled"):
            raise _failed("captchaNotHandled", "the captcha page's callback URL was not accepted")
        if "captchaToken" not in found:
            raise _failed("captchaError", "the captcha page reported an error", error=found.get("error"))
        return {"captchaToken": found["captchaToken"]}


def _given(**named: Any) -> Dict[str, Any]:
    return {k: v for k, v in named.items() if v is not None}


def _failed(reason: str, message: str, **details: Any) -> AppNotVerifiedError:
    return AppNotVerifiedError(message, details=dict(details, reason=reason))
