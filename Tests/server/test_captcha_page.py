"""The captcha page phoneauthd serves (captcha.provider with a siteKey, no captcha.pageUrl), in a
real browser: headless Chromium opens the URL getCaptchaChallenge returned; the provider's script
is a loopback stand-in (`scriptUrl`) that draws a box and, in `solve` mode, solves at once with a
token that says what the widget was asked; the test follows the page's redirect to the app's
scheme and hands it to canHandleURL. The same stand-in answers as the provider's verification
endpoint, so the whole of Firebase's order runs: getRecaptchaParams → page → token →
sendVerificationCode → SMS → sign-in. A screenshot of the page is kept in out/artifacts."""

from __future__ import annotations

import base64
import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

import pytest

from browser import Browser
from conftest import ROOT, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, Server, run_server, start_server
from sms_servers import Answer, FakeServer

ARTIFACTS = Path(os.environ.get("PHONEAUTH_ARTIFACTS") or ROOT / "out" / "artifacts")
API_KEY = "captcha-page-api-key"
KEY = f"?key={API_KEY}"
SEND = "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode" + KEY
SCHEME = "com.example.app"
SITE_KEY = "6Lc-stand-in_site-key"
SECRET = "stand-in-secret-never-shown"
REAL_NUMBER = "+16502530000"
WEBHOOK_SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
APIS = {"recaptcha": "grecaptcha", "recaptchaEnterprise": "grecaptcha.enterprise", "hcaptcha": "hcaptcha",
        "turnstile": "turnstile"}

# The provider's script as the page sees it: defines the API object the page calls (render, or
# ready + execute), draws a box, and answers with a token that records what it was asked. Before
# calling the page back it tries to load a script from another origin: the page's policy must
# stop it ("probe": "blocked").
STAND_IN = r"""
(function () {
  var source = new URL(document.currentScript.src);
  var seen = { path: source.pathname, render: source.searchParams.get("render"), hl: source.searchParams.get("hl") };
  function token(extra) {
    var all = Object.assign({}, seen, extra);
    return "standin." + btoa(JSON.stringify(all)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  var api = {
    render: function (id, options) {
      var box = document.getElementById(id);
      box.textContent = "\u2713 Stand-in captcha";
      box.style.cssText = "width:300px;height:74px;border:1px solid #d3d3d3;border-radius:3px;" +
        "display:flex;align-items:center;justify-content:center;background:#f9f9f9";
      window.standIn = { expire: options["expired-callback"], fail: options["error-callback"] };
      console.log("phoneauth-standin: drawn");
      if (__MODE__ === "solve") {
        options.callback(token({ via: "render", sitekey: options.sitekey, action: options.action || null,
                                 language: options.language || null, retry: options.retry || null,
                                 callbacks: Object.keys(options).filter(function (k) { return /-callback$/.test(k); })
                                   .sort() }));
      }
    },
    ready: function (then) { then(); },
    execute: function (key, options) {
      return Promise.resolve(token({ via: "execute", sitekey: key, action: options.action }));
    }
  };
  var target = window;
  var names = __API__.split(".");
  names.slice(0, -1).forEach(function (name) { target = target[name] = target[name] || {}; });
  target[names[names.length - 1]] = Object.assign(target[names[names.length - 1]] || {}, api);
  var probe = document.createElement("script");
  probe.src = __PROBE__;
  probe.onload = function () { seen.probe = "loaded"; window[source.searchParams.get("onload")](); };
  probe.onerror = function () { seen.probe = "blocked"; window[source.searchParams.get("onload")](); };
  document.head.appendChild(probe);
})();
"""


class CaptchaService:
    """Both ends of a captcha provider on one loopback server: the widget's script (the stand-in)
    and the verification endpoint (siteverify or assessments), which accepts the stand-in's
    tokens while `accepting`."""

    def __init__(self, kind: str, mode: str = "solve"):
        self.kind, self.mode, self.accepting = kind, mode, True
        self.checked = []
        self.risk = None  # reCAPTCHA Enterprise's smsTollFraudVerdict.risk, when set
        self.rated = []  # the numbers an assessment was asked to rate
        self.probe = FakeServer()  # another origin: nothing may load from it
        self.probe.answer(Answer(200, "window.probed = true;", headers={"Content-Type": "text/javascript"}))

        def respond(request) -> Answer:
            path = request.path.split("?")[0]
            if request.method == "GET" and not path.endswith(".js"):
                return Answer(404, "not found")
            if request.method == "GET":
                script = (STAND_IN.replace("__MODE__", json.dumps(self.mode)).replace("__API__", json.dumps(APIS[kind]))
                          .replace("__PROBE__", json.dumps(self.probe.url + "/probe.js")))
                return Answer(200, script, headers={"Content-Type": "text/javascript; charset=utf-8"})
            if kind == "recaptchaEnterprise":
                event = request.json()["event"]
                self.checked.append(event["token"])
                self.rated += [user["phoneNumber"] for user in event.get("userInfo", {}).get("userIds", [])]
                good = self.accepting and event["token"].startswith("standin.")
                rating = {} if self.risk is None else {
                    "phoneFraudAssessment": {"smsTollFraudVerdict": {"risk": self.risk, "reasons": []}}}
                return Answer(200, {"name": "projects/1/assessments/a", "riskAnalysis": {"score": 0.9},
                                    "tokenProperties": {"valid": good, "action": "login",
                                                        **({} if good else {"invalidReason": "MALFORMED"})},
                                    **rating})
            form = request.form()
            self.checked.append(form.get("response", ""))
            assert form.get("secret") == SECRET, form
            if self.accepting and form.get("response", "").startswith("standin."):
                return Answer(200, {"success": True, "hostname": "127.0.0.1", "challenge_ts": "2026-11-27T10:00:00Z"})
            return Answer(200, {"success": False, "error-codes": ["invalid-input-response"]})

        self.server = FakeServer(default=respond)
        self.url = self.server.url

    def provider(self, script: str = "/widget/api.js", **extra: Any) -> Dict[str, Any]:
        settings = {"type": self.kind, "secret": SECRET, "siteKey": SITE_KEY, "baseUrl": self.url,
                    "scriptUrl": self.url + script, **extra}
        if self.kind == "recaptchaEnterprise":
            settings.setdefault("projectId", "acme-auth")
        return settings

    def close(self) -> None:
        self.server.close()
        self.probe.close()


def decoded(token: str) -> Dict[str, Any]:
    assert token.startswith("standin."), token
    body = token.split(".", 1)[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


@contextmanager
def served(tmp_path, kind: str = "recaptcha", sms: Optional[FakeServer] = None, mode: str = "solve",
           engine: Optional[Dict[str, Any]] = None, server: Optional[Dict[str, Any]] = None,
           script: str = "/widget/api.js", **provider: Any) -> Iterator[Tuple[Server, CaptchaService]]:
    """A CaptchaService and a phoneauthd whose captcha.provider it plays (a provider key given as
    None is left out); SMS to `sms` when given, else to the console. Both stop afterwards."""
    service = CaptchaService(kind, mode)
    try:
        settings = service.provider(script, **provider)
        engine = {"captcha": {"provider": {k: v for k, v in settings.items() if v is not None}},
                  "sms": ({"providers": [{"type": "webhook", "url": sms.url, "secret": WEBHOOK_SECRET}]}
                          if sms else {"provider": "console"}),
                  **(engine or {})}
        running = start_server(tmp_path, engine=engine, server={"apiKeys": [API_KEY], **(server or {})})
        try:
            yield running, service
        finally:
            running.stop()
    finally:
        service.close()


def challenge(server, language: str = "fr") -> str:
    status, body, _ = server.post("/phoneauth/v1/getCaptchaChallenge" + KEY,
                                  {"callbackScheme": SCHEME, "languageCode": language})
    assert status == 200, body
    assert body["url"].startswith(server.url + "/phoneauth/captcha?"), body
    return body["url"]


def page_answer(tab) -> str:
    """The URL the page sends the app to."""
    return tab.wait_for_navigation(lambda url: url.startswith(SCHEME + "://"))


def handled(server, url: str) -> Dict[str, Any]:
    status, body, _ = server.post("/phoneauth/v1/canHandleURL" + KEY, {"url": url})
    assert status == 200, body
    return body


@pytest.fixture
def sms():
    receiver = FakeServer()
    receiver.answer(Answer(200, {"messageId": "m1"}))
    yield receiver
    receiver.close()


def test_firebase_order_without_push_page_token_sms_sign_in(tmp_path, sms):
    with served(tmp_path, sms=sms) as (server, service):
        # No push, no proof: the SMS is refused until the captcha is solved.
        status, body, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER})
        assert status == 400 and body["error"]["message"].startswith("MISSING_APP_CREDENTIAL"), body
        status, params, _ = server.get("/identitytoolkit.googleapis.com/v1/recaptchaParams" + KEY)
        assert status == 200 and params["recaptchaSiteKey"] == SITE_KEY, params

        url = challenge(server)
        with Browser(tmp_path) as browser:
            answer = page_answer(browser.open(url))
        found = handled(server, answer)
        assert found["handled"] is True and "error" not in found, found
        widget = decoded(found["captchaToken"])
        assert widget == {"path": "/widget/api.js", "render": "explicit", "hl": "fr", "via": "render",
                          "sitekey": SITE_KEY, "action": None, "language": None, "retry": None,
                          "callbacks": ["error-callback", "expired-callback"], "probe": "blocked"}, widget
        assert service.probe.count() == 0, "the page's policy let another origin's script load"
        assert handled(server, answer) == {"handled": False}, "a page answer is used once"

        status, sent, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER, "recaptchaToken": found["captchaToken"]})
        assert status == 200, sent
        assert service.checked == [found["captchaToken"]]
        message = sms.wait_for_requests(1, timeout=60)[0].json()
        code = re.findall(r"\d{6}", message["body"])[0]
        status, signed, _ = server.post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber" + KEY,
                                        {"sessionInfo": sent["sessionInfo"], "code": code})
        assert status == 200 and signed["idToken"] and signed["isNewUser"] is True, signed
        assert SECRET not in server.stdout() + server.stderr()


def test_a_token_the_provider_refuses_sends_no_sms(tmp_path, sms):
    with served(tmp_path, sms=sms) as (server, service):
        service.accepting = False
        with Browser(tmp_path) as browser:
            token = handled(server, page_answer(browser.open(challenge(server, "en"))))["captchaToken"]
        status, body, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER, "recaptchaToken": token})
        assert status == 400 and body["error"]["message"].startswith("CAPTCHA_CHECK_FAILED"), body
        assert service.checked == [token]
        assert sms.count() == 0


def test_cancel_and_expiry_answer_errors_and_the_page_is_kept_as_a_screenshot(tmp_path):
    with served(tmp_path, mode="wait") as (server, _), Browser(tmp_path) as browser:
        tab = browser.open(challenge(server, "de"))
        tab.wait_for_console("phoneauth-standin: drawn")
        assert tab.evaluate("document.documentElement.lang") == "de"
        assert tab.evaluate("document.querySelector('h1').textContent") == "Sicherheitsprüfung"
        tab.screenshot(ARTIFACTS / "captcha-page.png")
        tab.click("#cancel")
        assert handled(server, page_answer(tab)) == {"handled": True, "error": "cancelled"}

        for call, error in (("standIn.expire()", "expired"), ("standIn.fail()", "failed")):
            tab = browser.open(challenge(server))
            tab.wait_for_console("phoneauth-standin: drawn")
            tab.evaluate(call)
            assert handled(server, page_answer(tab)) == {"handled": True, "error": error}
    assert (ARTIFACTS / "captcha-page.png").stat().st_size > 1000


def test_a_widget_script_that_does_not_load_answers_unavailable(tmp_path):
    with served(tmp_path, script="/missing") as (server, _):  # the stand-in answers 404
        with Browser(tmp_path) as browser:
            answer = page_answer(browser.open(challenge(server)))
        assert handled(server, answer) == {"handled": True, "error": "unavailable"}


@pytest.mark.parametrize("kind, provider, expected", [
    ("hcaptcha", {}, {"via": "render", "render": "explicit", "hl": "ja", "language": None, "retry": None,
                      "callbacks": ["chalexpired-callback", "error-callback", "expired-callback"]}),
    ("turnstile", {"action": "login"}, {"via": "render", "render": "explicit", "hl": None, "language": "ja",
                                        "action": "login", "retry": "never",
                                        "callbacks": ["error-callback", "expired-callback", "timeout-callback"]}),
    ("recaptchaEnterprise", {"widget": "score", "action": "login"},
     {"via": "execute", "render": SITE_KEY, "hl": "ja", "action": "login"}),
])
def test_each_provider_is_asked_its_own_way_and_its_token_is_verified(tmp_path, kind, provider, expected):
    with served(tmp_path, kind, **provider) as (server, service):
        with Browser(tmp_path) as browser:
            token = handled(server, page_answer(browser.open(challenge(server, "ja"))))["captchaToken"]
        widget = decoded(token)
        assert {k: widget.get(k) for k in expected} == expected, widget
        assert widget["sitekey"] == SITE_KEY and widget["probe"] == "blocked", widget
        body = {"phoneNumber": TEST_NUMBER}
        if kind == "recaptchaEnterprise":  # as Firebase's SDKs send an Enterprise token
            body.update(captchaResponse=token, clientType="CLIENT_TYPE_IOS", recaptchaVersion="RECAPTCHA_ENTERPRISE")
        else:
            body["recaptchaToken"] = token
        status, sent, _ = server.post(SEND, body)
        assert status == 200, sent
        assert service.checked == [token]


# The page over plain HTTP: its headers, and what it refuses.

def test_the_page_allows_only_the_providers_script_and_is_never_cached(tmp_path):
    with served(tmp_path, "hcaptcha") as (server, service):
        status, html, headers = server.get(challenge(server)[len(server.url):])
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8", headers
        policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
        nonce = re.search(r"<script nonce=\"([^\"]+)\">", html).group(1)
        assert policy["default-src"] == "'none'" and policy["base-uri"] == "'none'", policy
        assert policy["script-src"].split() == [f"'nonce-{nonce}'", "https://hcaptcha.com", "https://*.hcaptcha.com",
                                                service.url], policy
        assert policy["frame-ancestors"] == "'none'" and policy["form-action"] == "'none'", policy
        assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer", headers
        assert html.count("<script") == 1, "one script of its own; the widget's is added by it"
        _, _, again = server.get(challenge(server)[len(server.url):])
        assert again["Content-Security-Policy"] != headers["Content-Security-Policy"], "a new nonce each time"


GOOGLE = ("https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/",
          "https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/", "https://www.google.com/recaptcha/",
          "'unsafe-inline'")


@pytest.mark.parametrize("kind, script, frame, connect, style", [
    ("recaptcha", *GOOGLE),
    ("recaptchaEnterprise", *GOOGLE),
    ("hcaptcha", "https://hcaptcha.com https://*.hcaptcha.com", "https://hcaptcha.com https://*.hcaptcha.com",
     "https://hcaptcha.com https://*.hcaptcha.com", "'unsafe-inline' https://hcaptcha.com https://*.hcaptcha.com"),
    ("turnstile", "https://challenges.cloudflare.com", "https://challenges.cloudflare.com", "'none'", "'unsafe-inline'"),
])
def test_the_policy_allows_each_providers_own_origins(tmp_path, kind, script, frame, connect, style):
    with served(tmp_path, kind, scriptUrl=None) as (server, _):
        status, html, headers = server.get(challenge(server)[len(server.url):])
        policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
        nonce = re.search(r"<script nonce=\"([^\"]+)\">", html).group(1)
        assert policy["script-src"] == f"'nonce-{nonce}' {script}", policy
        assert (policy["frame-src"], policy["connect-src"], policy["style-src"]) == (frame, connect, style), policy


@pytest.mark.parametrize("query", [
    "",
    "?eventId=not-an-id&callbackScheme=com.example.app",
    "?eventId={id}&callbackScheme=javascript",
    "?eventId={id}&callbackScheme=https",
    "?eventId={id}&callbackScheme=com.example.app&hl=%3Cscript%3E",
    "?eventId={id}&eventId={id}&callbackScheme=com.example.app",
    "?eventId={id}&callbackScheme=com.example.app&hl=fr&hl=de",
])
def test_the_page_refuses_a_query_getCaptchaChallenge_did_not_make(tmp_path, query):
    with served(tmp_path) as (server, _):
        event_id = parse_qs(urlsplit(challenge(server)).query)["eventId"][0]
        status, html, headers = server.get("/phoneauth/captcha" + query.replace("{id}", event_id))
        assert status == 400 and "not valid" in html, html
        assert "<script" not in html and headers["Content-Security-Policy"].startswith("default-src 'none'")


def test_the_app_scheme_cannot_be_a_web_scheme(tmp_path):
    with served(tmp_path) as (server, _):
        for scheme in ("javascript", "HTTPS", "data"):
            status, body, _ = server.post("/phoneauth/v1/getCaptchaChallenge" + KEY, {"callbackScheme": scheme})
            assert status == 400 and body["error"]["code"] == "invalidArgument", body
            assert body["error"]["details"]["field"] == "callbackScheme", body


def test_public_url_names_the_page_and_a_server_on_every_address_needs_it(tmp_path):
    with served(tmp_path, server={"publicUrl": "https://auth.example.com/"}) as (server, service):
        status, body, _ = server.post("/phoneauth/v1/getCaptchaChallenge" + KEY, {"callbackScheme": SCHEME})
        assert status == 200 and body["url"].startswith("https://auth.example.com/phoneauth/captcha?"), body
        refused = run_server(tmp_path, engine={"sms": {"provider": "console"},
                                               "captcha": {"provider": service.provider()}},
                             server={"host": "0.0.0.0"})
        assert refused.returncode == 1 and "server.publicUrl" in refused.stderr, refused.stderr
        for url in ("https://user@auth.example.com", "http://auth.example.com", "https://auth.example.com/?a=1"):
            refused = run_server(tmp_path, server={"publicUrl": url})
            assert refused.returncode == 1 and "server.publicUrl" in refused.stderr, (url, refused.stderr)


def test_without_a_site_key_there_is_no_page(tmp_path):
    with served(tmp_path, siteKey=None, scriptUrl=None) as (server, _):
        status, body, _ = server.post("/phoneauth/v1/getCaptchaChallenge" + KEY, {"callbackScheme": SCHEME})
        assert status == 403 and body["error"]["details"]["reason"] == "noCaptchaPage", body
        status, body, _ = server.get("/phoneauth/captcha?eventId=x&callbackScheme=y")
        assert status == 404, body
        status, body, _ = server.get("/identitytoolkit.googleapis.com/v1/recaptchaParams" + KEY)
        assert status == 400 and body["error"]["message"].startswith("OPERATION_NOT_ALLOWED"), body


@pytest.mark.parametrize("kind, app, state", [
    ("recaptchaEnterprise", {}, "ENFORCE"),
    ("recaptchaEnterprise", {"enforce": False}, "OFF"),  # no token would be checked
    ("recaptcha", {}, "OFF"),
])
def test_recaptcha_config_tells_the_sdks_whether_phone_sign_in_wants_an_enterprise_token(tmp_path, kind, app, state):
    with served(tmp_path, kind, engine={"appVerification": app}) as (server, _):
        status, body, _ = server.get("/identitytoolkit.googleapis.com/v2/recaptchaConfig" + KEY
                                     + "&clientType=CLIENT_TYPE_IOS&version=RECAPTCHA_ENTERPRISE")
        assert status == 200, body
        assert body["recaptchaEnforcementState"] == [{"provider": "PHONE_PROVIDER", "enforcementState": state}], body
        if state == "OFF":
            assert "recaptchaKey" not in body, body
        else:
            assert body["recaptchaKey"] == f"projects/acme-auth/keys/{SITE_KEY}", body


TOLL_FRAUD = {"pumping": {"tollFraud": {"phoneEnforcementState": "ENFORCE", "useSmsTollFraudProtection": True,
                                       "tollFraudManagedRules": [{"startScore": 0.8, "action": "BLOCK"}]}},
              "appVerification": {"enforce": False}}


def test_toll_fraud_rules_make_tokens_optional_rated_and_a_risky_send_refused(tmp_path):
    with served(tmp_path, "recaptchaEnterprise", engine=TOLL_FRAUD) as (server, service):
        status, body, _ = server.get("/identitytoolkit.googleapis.com/v2/recaptchaConfig" + KEY)
        assert status == 200 and body["recaptchaEnforcementState"][0]["enforcementState"] == "AUDIT", body
        assert body["recaptchaKey"] == f"projects/acme-auth/keys/{SITE_KEY}", body
        enterprise = {"clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"}
        service.risk = 0.9
        status, body, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER, "captchaResponse": "standin.a",
                                             **enterprise})
        assert status == 400 and body["error"]["message"].startswith("CAPTCHA_CHECK_FAILED"), body
        assert service.rated == [REAL_NUMBER]
        service.risk = 0.1
        status, body, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER, "captchaResponse": "standin.b",
                                             **enterprise})
        assert status == 200, body
        # The web SDK's audit-mode retry: the placeholder beside a reCAPTCHA v2 token, checked and rated.
        status, body, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER, "captchaResponse": "NO_RECAPTCHA",
                                             "recaptchaToken": "standin.v2", **enterprise})
        assert status == 200, body
        assert service.checked == ["standin.a", "standin.b", "standin.v2"]
        assert service.rated == [REAL_NUMBER] * 3, "each token is rated with the number"
        # AUDIT for the SDKs: no token at all is no proof, and none is required.
        status, body, _ = server.post(SEND, {"phoneNumber": REAL_NUMBER})
        assert status == 200, body


def test_recaptcha_config_reads_the_tenants_toll_fraud_rules(tmp_path):
    # The tests' engines turn the pumping defense off; the tenant turns it back on with its rules.
    with served(tmp_path, "recaptchaEnterprise", engine={"appVerification": {"enforce": False}}) as (server, _):
        status, body, _ = server.admin("createTenant", {"tenantId": "shop", "displayName": "Shop",
                                                        "pumping": dict(TOLL_FRAUD["pumping"], mode="enforce")})
        assert status == 200, body
        config = "/identitytoolkit.googleapis.com/v2/recaptchaConfig" + KEY + "&clientType=CLIENT_TYPE_WEB"
        for tenant, state in (("", "OFF"), ("&tenantId=shop", "AUDIT")):
            status, body, _ = server.get(config + tenant)
            assert status == 200 and body["recaptchaEnforcementState"][0]["enforcementState"] == state, (tenant, body)
        status, body, _ = server.get(config + "&tenantId=nobody")
        assert status == 400 and body["error"]["message"].startswith("INVALID_TENANT_ID"), body


def test_the_sdks_placeholder_is_no_token_and_two_tokens_are_refused(tmp_path):
    with served(tmp_path) as (server, service):
        status, body, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "captchaResponse": "NO_RECAPTCHA",
                                             "clientType": "CLIENT_TYPE_WEB", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"})
        assert status == 400 and body["error"]["message"].startswith("MISSING_APP_CREDENTIAL"), body
        status, body, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "captchaResponse": "standin.a",
                                             "recaptchaToken": "standin.b"})
        assert status == 400 and body["error"]["message"].startswith("INVALID_APP_CREDENTIAL"), body
        # The web SDK's OFF mode: the placeholder beside a v2 token, which is checked.
        status, body, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "captchaResponse": "NO_RECAPTCHA",
                                             "recaptchaToken": "standin.e30"})
        assert status == 200, body
        assert service.checked == ["standin.e30"]


def test_a_second_factor_enrolment_takes_an_enterprise_token_as_the_ios_sdk_sends_it(tmp_path):
    with served(tmp_path, "recaptchaEnterprise") as (server, service):
        enterprise = {"clientType": "CLIENT_TYPE_IOS", "recaptchaVersion": "RECAPTCHA_ENTERPRISE"}
        status, sent, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "captchaResponse": "standin.first",
                                             **enterprise})
        assert status == 200, sent
        status, signed, _ = server.post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber" + KEY,
                                        {"sessionInfo": sent["sessionInfo"], "code": TEST_CODE})
        assert status == 200, signed
        status, started, _ = server.post(
            "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start" + KEY,
            {"idToken": signed["idToken"],
             "phoneEnrollmentInfo": {"phoneNumber": SECOND_NUMBER, "captchaResponse": "standin.second", **enterprise}})
        assert status == 200 and started["phoneSessionInfo"]["sessionInfo"], started
        assert service.checked == ["standin.first", "standin.second"]
