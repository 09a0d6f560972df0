"""Codes by WhatsApp and voice, end to end through the binding: the engine's channels (asked for,
or `channels.preferred` by region), the requests each provider's API reference describes (Meta's
WhatsApp Cloud API, Twilio's calls with TwiML, Vonage's Voice API with an RS256 application JWT
checked with the public key, Vonage's Messages API), fallback to another channel (a receipt saying
failed, or no receipt within `channels.fallback.afterSeconds`), "call me instead" within the resend
window, the voice quotas, and delivery receipts through reportDelivery, signed as each provider
signs them (forged, replayed, unknown provider, no secret). Fake providers are real HTTP servers
on 127.0.0.1 (sms_servers.FakeServer); channel_servers.py checks their requests and signs their
callbacks. Codes and secrets never appear in events or errors.

The test of a fallback decided once by two engines on one database runs with
PHONEAUTH_TEST_DATABASE=postgres (make test's PostgreSQL pass)."""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
import urllib.parse
import uuid

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

import phoneauth
from channel_servers import (basic, check_meta_template, check_twilio_call, check_twilio_whatsapp, check_vonage_call,
                             check_vonage_whatsapp, meta_headers, meta_sent, meta_status_callback,
                             meta_statuses_callback, twilio_call_callback, twilio_callback, twilio_message_callback,
                             vonage_message_status, vonage_signed_headers)
from sms_servers import Answer, no_proxy, servers  # noqa: F401 (fixtures)
from support import Events, POSTGRES, REAL_NUMBER, WAIT, code_in, engine_config, sign_in_with_code, stored_values, wait_until

# libcurl honours proxy variables; the fake services are on this machine.
pytestmark = pytest.mark.usefixtures("no_proxy")

# Credentials of the fake services: random, so that finding one anywhere can only be a leak.
ACCOUNT_SID = "AC" + secrets.token_hex(16)
AUTH_TOKEN = "authtok" + secrets.token_hex(16)
TWILIO_FROM = "+15005550006"
VOICE_FROM = "+15005550007"
META_VERSION = "v22.0"
PHONE_NUMBER_ID = "106540352242922"
ACCESS_TOKEN = "EAAG" + secrets.token_hex(24)
APP_SECRET = "appsecret" + secrets.token_hex(16)
TEMPLATE = "verification_code"
VONAGE_KEY = "vkey" + secrets.token_hex(4)
VONAGE_SECRET = "vsecret" + secrets.token_hex(12)
SIGNATURE_SECRET = "sigsecret" + secrets.token_hex(24)
APPLICATION_ID = str(uuid.uuid4())
VONAGE_WHATSAPP_FROM = "447700900000"
TWILIO_WHATSAPP_FROM = "+14155238886"
CONTENT_SID = "HX" + secrets.token_hex(16)

# An RSA key of the Vonage application: the engine gets the private key, the test checks with the public one.
_RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PRIVATE_KEY_PEM = _RSA_KEY.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()).decode()
PUBLIC_KEY_PEM = _RSA_KEY.public_key().public_bytes(serialization.Encoding.PEM,
                                                    serialization.PublicFormat.SubjectPublicKeyInfo)

SECRETS = [AUTH_TOKEN, ACCESS_TOKEN, APP_SECRET, VONAGE_SECRET, SIGNATURE_SECRET,
           PRIVATE_KEY_PEM.splitlines()[1]]

IN_NUMBER = "+919876543210"  # region IN: WhatsApp where channels.preferred says so
IN_NUMBER_2 = "+919812345678"
US_NUMBER = REAL_NUMBER  # +16505553434
US_NUMBER_2 = "+16505553435"
TWILIO_AUTH = basic(ACCOUNT_SID, AUTH_TOKEN)
RECEIPT_BASE = "https://auth.example.com/phoneauth/v1/receipts"


# -- the fake services ------------------------------------------------------------------------------

def meta_answer(request):
    """Meta accepts every template message, each with its own wamid."""
    return Answer(200, meta_sent("wamid.HBgM" + secrets.token_urlsafe(24).replace("-", "A").replace("_", "B"),
                                 request.json()["to"]))


def twilio_answer(request):
    """Twilio accepts every message (SM…) and call (CA…)."""
    prefix = "CA" if request.path.endswith("/Calls.json") else "SM"
    return Answer(201, {"sid": prefix + secrets.token_hex(16), "status": "queued"})


def vonage_answer(request):
    """Vonage's Voice API answers a call with its uuid (201); the Messages API with a message_uuid (202)."""
    if request.path == "/v1/calls":
        return Answer(201, {"uuid": str(uuid.uuid4()), "status": "started", "direction": "outbound",
                            "conversation_uuid": "CON-" + str(uuid.uuid4())})
    return Answer(202, {"message_uuid": str(uuid.uuid4())})


# -- configuration ----------------------------------------------------------------------------------

def meta_entry(server, **extra):
    return {"type": "whatsapp", "baseUrl": server.url, "apiVersion": META_VERSION, "phoneNumberId": PHONE_NUMBER_ID,
            "accessToken": ACCESS_TOKEN, "appSecret": APP_SECRET,
            "templates": {"en": {"name": TEMPLATE, "language": "en_US"}}, **extra}


def twilio_entry(server, channels=("sms",), **extra):
    entry = {"type": "twilio", "baseUrl": server.url, "accountSid": ACCOUNT_SID, "authToken": AUTH_TOKEN,
             "channels": list(channels), **extra}
    if "sms" in channels:
        entry.setdefault("from", TWILIO_FROM)
    if "voice" in channels:
        entry.setdefault("voiceFrom", VOICE_FROM)
    return entry


def vonage_voice_entry(server, **extra):
    return {"type": "vonage", "apiBaseUrl": server.url, "channels": ["voice"], "voiceFrom": VOICE_FROM,
            "applicationId": APPLICATION_ID, "privateKey": PRIVATE_KEY_PEM, **extra}


def vonage_whatsapp_entry(server, **extra):
    return {"type": "vonage", "apiBaseUrl": server.url, "channels": ["whatsapp"], "apiKey": VONAGE_KEY,
            "apiSecret": VONAGE_SECRET, "whatsappFrom": VONAGE_WHATSAPP_FROM, "signatureSecret": SIGNATURE_SECRET,
            "whatsappTemplates": {"en": {"name": TEMPLATE, "language": "en"}}, **extra}


WHATSAPP_IN = {"preferred": {"IN": "whatsapp", "default": "sms"}}


def whatsapp_then_sms(after_seconds=0):
    return {**WHATSAPP_IN, "fallback": {"whatsapp": "sms", "afterSeconds": after_seconds}}


def channel_config(database, providers, channels=None, quotas=None, sms=None, **extra):
    """The test defaults with `providers` (so without sms.provider), room for many messages per
    number unless `quotas` says otherwise, and `channels`."""
    config = engine_config(database, sms={"providers": providers, **(sms or {})},
                           quotas={"smsPerNumberPerHour": 100, **(quotas or {})}, **extra)
    del config["sms"]["provider"]
    if channels is not None:
        config["channels"] = channels
    return config


@pytest.fixture
def open_engine(db_path, servers):
    """open_engine(providers, channels=None, quotas=None, sms=None, events=None, **config) ->
    (engine, events). Closed before the servers (this fixture depends on `servers`)."""
    opened = []

    def factory(providers, channels=None, quotas=None, sms=None, events=None, **extra):
        engine = phoneauth.Engine(channel_config(db_path, providers, channels, quotas, sms, **extra))
        opened.append(engine)
        events = events if events is not None else Events()
        engine.set_log_sink(events)
        return engine, events

    yield factory
    for engine in reversed(opened):
        engine.close()


# -- helpers ----------------------------------------------------------------------------------------

def status_of(engine, verification_id):
    return engine.get_verification_status(verification_id=verification_id)


def deliveries(status):
    """The status's deliveries without their message IDs (random): (channel, status, provider,
    error, errorCode) each."""
    return [(d["channel"], d["status"], d.get("provider"), d.get("error"), d.get("errorCode"))
            for d in status.get("deliveries", [])]


def settled(engine, verification_id, delivery, count=1):
    """The verification's status once its current delivery reads `delivery` with `count` deliveries
    listed (outcomes are written a moment before their events are told, the first state is pending)."""
    def check():
        status = status_of(engine, verification_id)
        return status if status["delivery"] == delivery and len(status.get("deliveries", [])) == count else None
    return wait_until(check, what=f"delivery {delivery} with {count} deliveries")


def nothing_queued(engine):
    """No message waits to be sent (none pending or being sent) in the whole store."""
    assert engine.get_status()["sms"]["queued"] == 0


def error_text(error):
    return json.dumps({"code": error.code, "status": error.status, "message": error.message,
                       "details": error.details, "str": str(error), "repr": repr(error)}, ensure_ascii=False)


def assert_nothing_leaked(what, text, codes=()):
    """Neither a secret nor a code (nor a whole phone number) appears in `text`."""
    for secret in SECRETS:
        assert secret not in text, f"a secret appears in {what}: {text}"
    for code in codes:
        assert code not in text, f"the code {code} appears in {what}: {text}"
    for number in (IN_NUMBER, IN_NUMBER_2, US_NUMBER, US_NUMBER_2):
        assert number not in text and number.lstrip("+") not in text, f"a whole number appears in {what}: {text}"


def assert_events_clean(events, codes):
    for event in events.all():
        assert_nothing_leaked(f"the {event['event']} event", json.dumps(event, ensure_ascii=False), codes)


def receipt_url(provider):
    return f"{RECEIPT_BASE}/{provider}"


def report_meta(engine, wamid, status, recipient, error_code=None, provider="whatsapp"):
    body = meta_status_callback(wamid, status, recipient=recipient, phone_number_id=PHONE_NUMBER_ID,
                                error_code=error_code)
    return engine.report_delivery(provider, receipt_url(provider), meta_headers(body, APP_SECRET), body)


def report_twilio(engine, message_sid, status, to, error_code=None, provider="twilio"):
    fields = twilio_message_callback(message_sid, status, account_sid=ACCOUNT_SID, to=to, sender=TWILIO_FROM,
                                     error_code=error_code)
    url = receipt_url(provider)
    headers, body = twilio_callback(url, fields, AUTH_TOKEN)
    return engine.report_delivery(provider, url, headers, body)


def sole_receipt(result):
    [receipt] = result["receipts"]
    return receipt


# -- 1. WhatsApp by region ------------------------------------------------------------------------

def test_whatsapp_to_a_preferred_region_and_sms_elsewhere(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=WHATSAPP_IN)

    started = engine.verify_phone_number(IN_NUMBER)
    assert started["channel"] == "whatsapp"
    sent = events.wait_for("codeSent", channel="whatsapp")
    [request] = meta.requests
    code = check_meta_template(request, version=META_VERSION, phone_number_id=PHONE_NUMBER_ID,
                               access_token=ACCESS_TOKEN, to=IN_NUMBER, template=TEMPLATE, language="en_US")
    assert (sent["provider"], sent["phoneNumber"]) == ("whatsapp", "+********3210")
    assert sent["messageId"].startswith("wamid.")
    status = settled(engine, started["verificationId"], "sent")
    assert (status["channel"], status["provider"], status["providerMessageId"]) == (
        "whatsapp", "whatsapp", sent["messageId"])
    assert deliveries(status) == [("whatsapp", "sent", "whatsapp", None, None)]

    # A number of another region goes by the default channel, SMS, through Twilio.
    other = engine.verify_phone_number(US_NUMBER)
    assert other["channel"] == "sms"
    events.wait_for("codeSent", channel="sms")
    [sms] = twilio.requests
    assert sms.path == f"/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json"
    form = sms.form()
    assert (form["To"], form["From"]) == (US_NUMBER, TWILIO_FROM)
    sms_code = code_in(form["Body"])
    assert settled(engine, other["verificationId"], "sent")["channel"] == "sms"
    assert meta.count() == 1

    # Each code is the verification's own.
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    assert "idToken" in sign_in_with_code(engine, other["verificationId"], sms_code)
    assert_events_clean(events, [code, sms_code])


def test_channel_asked_for_beats_the_preference(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=WHATSAPP_IN)
    # An Indian number by SMS when asked, a US one by WhatsApp when asked.
    by_sms = engine.verify_phone_number(IN_NUMBER, channel="sms")
    by_whatsapp = engine.verify_phone_number(US_NUMBER, channel="whatsapp")
    assert (by_sms["channel"], by_whatsapp["channel"]) == ("sms", "whatsapp")
    events.wait_for("codeSent", count=2)
    assert [r.form()["To"] for r in twilio.requests] == [IN_NUMBER]
    assert [r.json()["to"] for r in meta.requests] == [US_NUMBER.lstrip("+")]


PT_TEMPLATES = {"en": {"name": TEMPLATE, "language": "en_US"}, "pt-BR": "codigo_br", "pt": "codigo_pt"}
BR_TEMPLATES = {"en": {"name": TEMPLATE, "language": "en_US"}, "pt-BR": "codigo_br"}


@pytest.mark.parametrize("templates, language, template, meta_language", [
    (PT_TEMPLATES, "pt-BR", "codigo_br", "pt_BR"),  # the exact tag
    (BR_TEMPLATES, "pt-BR", "codigo_br", "pt_BR"),
    (PT_TEMPLATES, "pt-PT", "codigo_pt", "pt"),  # its primary language
    (BR_TEMPLATES, "pt-PT", TEMPLATE, "en_US"),  # then English (pt-BR is not pt-PT's)
    (PT_TEMPLATES, "fr", TEMPLATE, "en_US"),
], ids=["pt-BR exact", "pt-BR only", "pt-PT primary", "pt-PT english", "fr english"])
def test_whatsapp_template_by_language(open_engine, servers, templates, language, template, meta_language):
    # WhatsAppProvider.template: the exact tag, then its primary language, then English; Meta's
    # language code derived from the tag when the entry gives only a name ("pt-BR" → "pt_BR").
    meta = servers(meta_answer)
    engine, events = open_engine([meta_entry(meta, templates=templates)],
                                 channels={"preferred": {"default": "whatsapp"}})
    engine.verify_phone_number(IN_NUMBER, language_code=language)
    events.wait_for("codeSent")
    template_sent = meta.requests[0].json()["template"]
    assert (template_sent["name"], template_sent["language"]["code"]) == (template, meta_language)
    check_meta_template(meta.requests[0], version=META_VERSION, phone_number_id=PHONE_NUMBER_ID,
                        access_token=ACCESS_TOKEN, to=IN_NUMBER, template=template, language=meta_language)


def test_twilio_whatsapp_fails_by_receipt_and_falls_back_to_sms(open_engine, servers):
    # Twilio carries both: WhatsApp by its Content API, then the same code by SMS.
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "whatsapp"), whatsappFrom=TWILIO_WHATSAPP_FROM,
                                               whatsappContentSid=CONTENT_SID, receiptUrl=receipt_url("twilio"))],
                                 channels=whatsapp_then_sms())
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    code = check_twilio_whatsapp(twilio.requests[0], account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=IN_NUMBER,
                                 sender=TWILIO_WHATSAPP_FROM, content_sid=CONTENT_SID,
                                 status_callback=receipt_url("twilio"))
    # 63024: the recipient cannot receive this WhatsApp message.
    result = sole_receipt(report_twilio(engine, wa_sent["messageId"], "undelivered", f"whatsapp:{IN_NUMBER}",
                                        error_code="63024"))
    assert (result["applied"], result["fallback"]) == (True, "sms")
    events.wait_for("codeSent", channel="sms")
    sms = twilio.requests[1].form()
    assert (sms["To"], sms["From"], code_in(sms["Body"])) == (IN_NUMBER, TWILIO_FROM, code)
    assert sms["StatusCallback"] == receipt_url("twilio")
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert deliveries(status) == [("whatsapp", "failed", "twilio", "notDelivered", "63024"),
                                  ("sms", "sent", "twilio", None, None)]
    assert_events_clean(events, [code])


# -- 2. A Twilio call in French ---------------------------------------------------------------------

def test_twilio_voice_call_in_french(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"),
                                               receiptUrl=receipt_url("twilio"))])
    started = engine.verify_phone_number(US_NUMBER, channel="voice", language_code="fr")
    assert started["channel"] == "voice"
    sent = events.wait_for("codeSent")
    [request] = twilio.requests
    code, text = check_twilio_call(request, account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=US_NUMBER,
                                   voice_from=VOICE_FROM, locale="fr-FR", status_callback=receipt_url("twilio"))
    spoken = ", ".join(code)
    assert text == (f"Votre code de vérification est {spoken}. Je répète : "
                    f"Votre code de vérification est {spoken}."), text
    assert (sent["channel"], sent["provider"], sent["languageCode"]) == ("voice", "twilio", "fr")
    assert sent["messageId"].startswith("CA")
    assert "encoding" not in sent and "segments" not in sent  # SMS costs are an SMS's
    status = settled(engine, started["verificationId"], "sent")
    assert (status["channel"], status["providerMessageId"]) == ("voice", sent["messageId"])
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    assert_events_clean(events, [code])


def test_twilio_call_receipts(open_engine, servers):
    # A call answered is delivered; one nobody answered fails, and its code goes by SMS.
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"), receiptUrl=receipt_url("twilio"))],
                                 channels={"fallback": {"voice": "sms"}})
    answered = engine.verify_phone_number(US_NUMBER, channel="voice")
    unanswered = engine.verify_phone_number(US_NUMBER_2, channel="voice")
    events.wait_for("codeSent", count=2)
    calls = {e["phoneNumber"]: e["messageId"] for e in events.named("codeSent")}
    by_number = {dict(urllib.parse.parse_qsl(r.body.decode("ascii")))["To"]: r for r in twilio.requests}
    unanswered_code, _ = check_twilio_call(by_number[US_NUMBER_2], account_sid=ACCOUNT_SID, auth=TWILIO_AUTH,
                                           to=US_NUMBER_2, voice_from=VOICE_FROM, locale="en-US",
                                           status_callback=receipt_url("twilio"))

    def report_call(call_sid, status, to):
        fields = twilio_call_callback(call_sid, status, account_sid=ACCOUNT_SID, to=to, sender=VOICE_FROM)
        headers, body = twilio_callback(receipt_url("twilio"), fields, AUTH_TOKEN)
        return sole_receipt(engine.report_delivery("twilio", receipt_url("twilio"), headers, body))

    assert report_call(calls["+*******3434"], "ringing", US_NUMBER)["reason"] == "noChange"
    assert report_call(calls["+*******3434"], "completed", US_NUMBER)["applied"]
    assert events.named("codeDelivered")[0]["channel"] == "voice"
    assert status_of(engine, answered["verificationId"])["delivery"] == "delivered"
    missed = report_call(calls["+*******3435"], "no-answer", US_NUMBER_2)
    assert (missed["applied"], missed["fallback"]) == (True, "sms")
    failed = events.wait_for("deliveryFailed")
    assert (failed["channel"], failed["providerCode"], failed["fallback"]) == ("voice", "no-answer", "sms")
    events.wait_for("codeSent", channel="sms")
    [sms] = [r for r in twilio.requests if r.path.endswith("/Messages.json")]
    assert (sms.form()["To"], code_in(sms.form()["Body"])) == (US_NUMBER_2, unanswered_code)
    status = settled(engine, unanswered["verificationId"], "sent", count=2)
    assert deliveries(status) == [("voice", "failed", "twilio", "notDelivered", "no-answer"),
                                  ("sms", "sent", "twilio", None, None)]
    assert_events_clean(events, [unanswered_code])


@pytest.mark.parametrize("language, locale, words", [
    ("fr-CA", "fr-CA", "Votre code québécois est"),  # voice.templates' regional tag
    ("sw", "sw", "Nambari yako ya uthibitisho ni"),  # a language of voice.templates alone
    ("fr", "fr-FR", "Votre code de vérification est"),  # the built-in text
], ids=["fr-CA", "sw", "fr"])
def test_voice_templates_of_the_host(open_engine, servers, language, locale, words):
    # voice.templates adds and overrides what calls say; a call in that language says it.
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))],
                                 voice={"templates": {"fr-CA": "Votre code québécois est {code}.",
                                                      "sw": "Nambari yako ya uthibitisho ni {code}."}})
    engine.verify_phone_number(US_NUMBER, channel="voice", language_code=language)
    events.wait_for("codeSent")
    code, text = check_twilio_call(twilio.requests[0], account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=US_NUMBER,
                                   voice_from=VOICE_FROM, locale=locale)
    assert text.startswith(f"{words} {', '.join(code)}."), text


# -- 3. A Vonage call: the application's JWT, checked with the public key ---------------------------

def test_vonage_voice_call_jwt_and_ncco(open_engine, servers):
    vonage, twilio = servers(vonage_answer), servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio), vonage_voice_entry(
        vonage, name="vonage-voice", receiptUrl=receipt_url("vonage-voice"), signatureSecret=SIGNATURE_SECRET)])
    first = engine.verify_phone_number(US_NUMBER, channel="voice", language_code="de")
    second = engine.verify_phone_number(US_NUMBER_2, channel="voice")
    events.wait_for("codeSent", count=2)
    assert twilio.count() == 0  # Twilio carries SMS only here
    by_number = {r.json()["to"][0]["number"]: r for r in vonage.requests}
    assert set(by_number) == {US_NUMBER.lstrip("+"), US_NUMBER_2.lstrip("+")}
    code, claims = check_vonage_call(by_number[US_NUMBER.lstrip("+")], public_key_pem=PUBLIC_KEY_PEM,
                                     application_id=APPLICATION_ID, to=US_NUMBER, voice_from=VOICE_FROM,
                                     locale="de-DE", event_url=receipt_url("vonage-voice"))
    code2, claims2 = check_vonage_call(by_number[US_NUMBER_2.lstrip("+")], public_key_pem=PUBLIC_KEY_PEM,
                                       application_id=APPLICATION_ID, to=US_NUMBER_2, voice_from=VOICE_FROM,
                                       locale="en-US", event_url=receipt_url("vonage-voice"))
    assert "Ihr Bestätigungscode lautet" in by_number[US_NUMBER.lstrip("+")].json()["ncco"][0]["text"]
    assert claims["jti"] != claims2["jti"]  # a new token for each call
    for started in (first, second):
        status = settled(engine, started["verificationId"], "sent")
        assert (status["channel"], status["provider"]) == ("voice", "vonage-voice")
    assert "idToken" in sign_in_with_code(engine, first["verificationId"], code)
    assert "idToken" in sign_in_with_code(engine, second["verificationId"], code2)
    assert_events_clean(events, [code, code2])


# -- 4. WhatsApp fails by receipt: the same code by SMS ------------------------------------------------

def test_whatsapp_failed_receipt_falls_back_to_sms(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    whatsapp_code = check_meta_template(meta.requests[0], version=META_VERSION, phone_number_id=PHONE_NUMBER_ID,
                                        access_token=ACCESS_TOKEN, to=IN_NUMBER, template=TEMPLATE,
                                        language="en_US")
    assert twilio.count() == 0

    # Meta: failed, 131026 (the number is not on WhatsApp).
    result = report_meta(engine, wa_sent["messageId"], "failed", IN_NUMBER, error_code=131026)
    assert sole_receipt(result) == {"messageId": wa_sent["messageId"], "status": "failed", "applied": True,
                                    "verificationId": started["verificationId"], "fallback": "sms"}
    failed = events.wait_for("deliveryFailed")
    assert {k: v for k, v in failed.items() if k != "time"} == {
        "event": "deliveryFailed", "phoneNumber": "+********3210", "channel": "whatsapp", "provider": "whatsapp",
        "messageId": wa_sent["messageId"], "reason": "notDelivered", "providerCode": "131026", "willRetry": False,
        "fallback": "sms"}

    sms_sent = events.wait_for("codeSent", channel="sms")
    [sms] = twilio.requests
    assert sms.form()["To"] == IN_NUMBER
    assert code_in(sms.form()["Body"]) == whatsapp_code  # the same code, by SMS
    assert meta.count() == 1
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert status["channel"] == "sms"
    assert deliveries(status) == [("whatsapp", "failed", "whatsapp", "notDelivered", "131026"),
                                  ("sms", "sent", "twilio", None, None)]
    assert [d.get("messageId") for d in status["deliveries"]] == [wa_sent["messageId"], sms_sent["messageId"]]
    nothing_queued(engine)
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], whatsapp_code)
    assert_events_clean(events, [whatsapp_code])


def test_whatsapp_refused_at_send_falls_back_to_sms(open_engine, servers):
    # Meta refuses the message itself (131026 in its answer): given up at once, the code goes by SMS.
    meta = servers(Answer(400, {"error": {"message": "(#131026) Message undeliverable", "type": "OAuthException",
                                          "code": 131026, "fbtrace_id": "A1b2C3"}}))
    twilio = servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    started = engine.verify_phone_number(IN_NUMBER)
    failed = events.wait_for("deliveryFailed")
    assert (failed["channel"], failed["reason"], failed["providerCode"], failed["willRetry"], failed["fallback"]) == (
        "whatsapp", "invalidNumber", "131026", False, "sms")
    events.wait_for("codeSent", channel="sms")
    whatsapp_code = check_meta_template(meta.requests[0], version=META_VERSION, phone_number_id=PHONE_NUMBER_ID,
                                        access_token=ACCESS_TOKEN, to=IN_NUMBER, template=TEMPLATE,
                                        language="en_US")
    [sms] = twilio.requests
    assert code_in(sms.form()["Body"]) == whatsapp_code
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert [d[:3] for d in deliveries(status)] == [("whatsapp", "failed", "whatsapp"), ("sms", "sent", "twilio")]
    assert meta.count() == 1
    assert_events_clean(events, [whatsapp_code])


def test_an_outage_of_every_whatsapp_provider_falls_back_to_sms_at_once(open_engine, servers):
    # Meta fails once (503: later) and its breaker opens for an hour: its retry finds every
    # WhatsApp provider skipped, and the code goes by SMS rather than wait until it expires.
    meta = servers(Answer(503, {"error": {"message": "Service unavailable", "code": 2}}))
    twilio = servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms(),
                                 sms={"breaker": {"failures": 1, "seconds": 3600}, "retryBackoffMs": 10})
    started = engine.verify_phone_number(IN_NUMBER)
    skipped = events.wait_for("providerSkipped")
    assert (skipped["provider"], skipped["channel"]) == ("whatsapp", "whatsapp")
    outage = events.wait_for("deliveryFailed", reason="providersSkipped")
    assert (outage["channel"], outage["willRetry"], outage["fallback"]) == ("whatsapp", False, "sms")
    events.wait_for("codeSent", channel="sms")
    [sms] = twilio.requests
    assert sign_in_with_code(engine, started["verificationId"], code_in(sms.form()["Body"]))["user"]
    assert meta.count() == 1, "the skipped provider is not called again"
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert [d[:2] + d[3:4] for d in deliveries(status)] == [("whatsapp", "replaced", "providersSkipped"),
                                                            ("sms", "sent", None)]


def test_a_fallback_happens_once(open_engine, servers):
    # WhatsApp → SMS, and SMS → voice configured too: the SMS that replaced the WhatsApp message
    # failing as well sends nothing more (a verification falls back once).
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio, channels=("sms", "voice"))],
                                 channels={**WHATSAPP_IN, "fallback": {"whatsapp": "sms", "sms": "voice"}})
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    assert sole_receipt(report_meta(engine, wa_sent["messageId"], "failed", IN_NUMBER, 131026))["fallback"] == "sms"
    sms_sent = events.wait_for("codeSent", channel="sms")
    settled(engine, started["verificationId"], "sent", count=2)
    result = sole_receipt(report_twilio(engine, sms_sent["messageId"], "undelivered", IN_NUMBER, error_code="30005"))
    assert (result["applied"], result.get("fallback")) == (True, None)
    status = status_of(engine, started["verificationId"])
    assert deliveries(status) == [("whatsapp", "failed", "whatsapp", "notDelivered", "131026"),
                                  ("sms", "failed", "twilio", "notDelivered", "30005")]
    nothing_queued(engine)
    assert twilio.count() == 1 and meta.count() == 1
    assert [e.get("fallback") for e in events.named("deliveryFailed")] == ["sms", None]


def test_a_used_code_does_not_fall_back(open_engine, servers):
    # The code came by WhatsApp and was used: a failed receipt afterwards sends nothing.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    result = sole_receipt(report_meta(engine, wa_sent["messageId"], "failed", IN_NUMBER, 131026))
    assert (result["applied"], result.get("fallback")) == (True, None)
    assert events.wait_for("deliveryFailed").get("fallback") is None
    status = status_of(engine, started["verificationId"])
    assert (status["state"], status["delivery"], status["channel"]) == ("used", "failed", "whatsapp")
    nothing_queued(engine)
    assert twilio.count() == 0


def test_a_replaced_verification_does_not_fall_back(open_engine, servers):
    # A newer verification of the number replaced the first: the first's failure sends nothing.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    first = engine.verify_phone_number(IN_NUMBER)
    events.wait_for("codeSent", channel="whatsapp")
    second = engine.verify_phone_number(IN_NUMBER)
    events.wait_for("codeSent", channel="whatsapp", count=2)
    first_id = status_of(engine, first["verificationId"])["providerMessageId"]
    result = sole_receipt(report_meta(engine, first_id, "failed", IN_NUMBER, 131026))
    assert (result["applied"], result.get("fallback"), result["verificationId"]) == (
        True, None, first["verificationId"])
    assert status_of(engine, first["verificationId"])["state"] == "replaced"
    assert status_of(engine, second["verificationId"])["delivery"] == "sent"
    nothing_queued(engine)
    assert twilio.count() == 0


def test_meta_statuses_in_one_callback(open_engine, servers):
    # Meta batches statuses: one delivered, one failed (→ SMS), one of a message it never sent here.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    ok = engine.verify_phone_number(IN_NUMBER)
    bad = engine.verify_phone_number(IN_NUMBER_2)
    events.wait_for("codeSent", channel="whatsapp", count=2)
    ids = {v["verificationId"]: status_of(engine, v["verificationId"])["providerMessageId"] for v in (ok, bad)}
    body = meta_statuses_callback([(ids[ok["verificationId"]], "read", IN_NUMBER, None),
                                   (ids[bad["verificationId"]], "failed", IN_NUMBER_2, 131026),
                                   ("wamid.unknown", "delivered", IN_NUMBER, None)], phone_number_id=PHONE_NUMBER_ID)
    result = engine.report_delivery("whatsapp", receipt_url("whatsapp"), meta_headers(body, APP_SECRET), body)
    assert [(r["messageId"], r["status"], r["applied"], r.get("fallback"), r.get("reason"))
            for r in result["receipts"]] == [
        (ids[ok["verificationId"]], "delivered", True, None, None),
        (ids[bad["verificationId"]], "failed", True, "sms", None),
        ("wamid.unknown", "delivered", False, None, "unknownMessage")]
    events.wait_for("codeSent", channel="sms")
    assert [r.form()["To"] for r in twilio.requests] == [IN_NUMBER_2]
    assert status_of(engine, ok["verificationId"])["delivery"] == "delivered"
    assert settled(engine, bad["verificationId"], "sent", count=2)["channel"] == "sms"


def test_call_me_instead_while_whatsapp_awaits_its_receipt(open_engine, servers):
    # WhatsApp sent and awaiting its receipt (fallback after 30 s); the user asks for an SMS: the
    # same code by SMS at once, and the WhatsApp message's later failure sends nothing more.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms(30),
                                 resendAfterSeconds=60)
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
    again = engine.verify_phone_number(IN_NUMBER, channel="sms")
    assert (again["verificationId"], again["channel"]) == (started["verificationId"], "sms")
    events.wait_for("codeSent", channel="sms")
    assert code_in(twilio.requests[0].form()["Body"]) == code
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert [d[:2] for d in deliveries(status)] == [("whatsapp", "sent"), ("sms", "sent")]
    result = sole_receipt(report_meta(engine, wa_sent["messageId"], "failed", IN_NUMBER, 131026))
    assert (result["applied"], result.get("fallback")) == (True, None)
    status = status_of(engine, started["verificationId"])
    assert deliveries(status) == [("whatsapp", "failed", "whatsapp", None, "131026"),
                                  ("sms", "sent", "twilio", None, None)]
    nothing_queued(engine)
    assert twilio.count() == 1


# -- 5. No receipt in time: fallback; a receipt in time: none ------------------------------------------

def test_no_receipt_within_after_seconds_falls_back(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms(1))
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    # No receipt comes: a second later the same code goes by SMS, and the fallback is told.
    events.wait_for("codeSent", channel="sms")
    unconfirmed = events.wait_for("deliveryFailed", channel="whatsapp")
    assert {k: v for k, v in unconfirmed.items() if k != "time"} == {
        "event": "deliveryFailed", "phoneNumber": "+********3210", "channel": "whatsapp", "provider": "whatsapp",
        "messageId": wa_sent["messageId"], "reason": "noReceipt", "willRetry": False, "fallback": "sms"}
    [whatsapp], [sms] = meta.requests, twilio.requests
    whatsapp_code = check_meta_template(whatsapp, version=META_VERSION, phone_number_id=PHONE_NUMBER_ID,
                                        access_token=ACCESS_TOKEN, to=IN_NUMBER, template=TEMPLATE,
                                        language="en_US")
    assert code_in(sms.form()["Body"]) == whatsapp_code
    assert sms.arrived - whatsapp.arrived >= 0.9  # not before afterSeconds
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert deliveries(status) == [("whatsapp", "sent", "whatsapp", None, None), ("sms", "sent", "twilio", None, None)]
    assert status["deliveries"][0]["messageId"] == wa_sent["messageId"]
    # A late receipt of the replaced WhatsApp message is recorded on it, and changes nothing else.
    late = sole_receipt(report_meta(engine, wa_sent["messageId"], "delivered", IN_NUMBER))
    assert (late["applied"], late.get("fallback")) == (True, None)
    status = status_of(engine, started["verificationId"])
    assert deliveries(status) == [("whatsapp", "delivered", "whatsapp", None, None),
                                  ("sms", "sent", "twilio", None, None)]
    assert status["delivery"] == "sent" and status["channel"] == "sms"
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], whatsapp_code)


def test_delivered_receipt_in_time_cancels_the_fallback(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    # One sender thread: messages go in the order they are taken from the store.
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms(3),
                                 sms={"concurrency": 1})
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    result = report_meta(engine, wa_sent["messageId"], "delivered", IN_NUMBER)
    assert sole_receipt(result) == {"messageId": wa_sent["messageId"], "status": "delivered", "applied": True,
                                    "verificationId": started["verificationId"]}
    delivered = events.wait_for("codeDelivered")
    assert {k: v for k, v in delivered.items() if k != "time"} == {
        "event": "codeDelivered", "phoneNumber": "+********3210", "channel": "whatsapp", "provider": "whatsapp",
        "messageId": wa_sent["messageId"]}
    # Delivered, and so no longer waiting for a receipt: nothing can fall back any more.
    status = status_of(engine, started["verificationId"])
    assert (status["delivery"], status["channel"]) == ("delivered", "whatsapp")
    assert deliveries(status) == [("whatsapp", "delivered", "whatsapp", None, None)]
    # A marker: another number's WhatsApp, with no receipt, falls back when its time is up, which
    # is after the first one's would have been (it was sent later); one sender takes them in order.
    marker = engine.verify_phone_number(IN_NUMBER_2)
    events.wait_for("codeSent", channel="sms")
    assert [r.form()["To"] for r in twilio.requests] == [IN_NUMBER_2]
    assert status_of(engine, started["verificationId"])["delivery"] == "delivered"
    assert settled(engine, marker["verificationId"], "sent", count=2)["channel"] == "sms"
    nothing_queued(engine)


def test_a_code_used_before_its_time_does_not_fall_back(open_engine, servers):
    # afterSeconds 3, and the WhatsApp code is used at once: when its time comes, nothing goes.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms(3),
                                 sms={"concurrency": 1})
    started = engine.verify_phone_number(IN_NUMBER)
    events.wait_for("codeSent", channel="whatsapp")
    code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    # A marker sent later, with no receipt either, falls back after the first one's time.
    marker = engine.verify_phone_number(IN_NUMBER_2)
    events.wait_for("codeSent", channel="sms")
    assert [r.form()["To"] for r in twilio.requests] == [IN_NUMBER_2]
    status = status_of(engine, started["verificationId"])
    assert (status["state"], status["delivery"], status["channel"]) == ("used", "sent", "whatsapp")
    assert len(status["deliveries"]) == 1
    assert settled(engine, marker["verificationId"], "sent", count=2)["channel"] == "sms"
    nothing_queued(engine)


def test_codes_are_never_stored_in_clear(open_engine, servers, db_path):
    # The code is kept sealed while it may be sent again (a fallback, a resend by another channel):
    # no table holds it in clear, before or after it is used. Eight digits: no chance match.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio, channels=("sms", "voice"))],
                                 channels=whatsapp_then_sms(), codeLength=8, resendAfterSeconds=60)
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    report_meta(engine, wa_sent["messageId"], "failed", IN_NUMBER, 131026)
    events.wait_for("codeSent", channel="sms")
    engine.verify_phone_number(IN_NUMBER, channel="voice")
    events.wait_for("codeSent", channel="voice")
    code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
    assert len(code) == 8
    assert code_in(twilio.requests[0].form()["Body"], 8) == code
    assert check_twilio_call(twilio.requests[1], account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=IN_NUMBER,
                             voice_from=VOICE_FROM, locale="en-US")[0] == code

    def tables_holding_the_code():
        values = list(stored_values(db_path))
        assert values, "nothing stored at all: the scan would prove nothing"
        return sorted({table for table, value in values
                       if (code if isinstance(value, str) else code.encode()) in value})

    assert tables_holding_the_code() == [], "the active code is stored in clear"
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    assert tables_holding_the_code() == [], "the used code is stored in clear"
    assert_events_clean(events, [code])
    if not POSTGRES:  # the files too (the server's files on PostgreSQL are not ours to read)
        for suffix in ("", "-wal"):
            if os.path.exists(db_path + suffix):
                with open(db_path + suffix, "rb") as f:
                    assert code.encode() not in f.read(), f"the code is in {db_path + suffix}"


# -- 6. Forged and replayed receipts ---------------------------------------------------------------------

def test_forged_receipts_are_refused(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio), vonage_whatsapp_entry(
        servers(vonage_answer), name="vonage")], channels=whatsapp_then_sms())
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
    body = meta_status_callback(wa_sent["messageId"], "failed", recipient=IN_NUMBER, phone_number_id=PHONE_NUMBER_ID,
                                error_code=131026)
    headers = meta_headers(body, APP_SECRET)
    # One byte of the body changed after signing (the error code 131026 becomes 131027).
    forged = body.replace("131026", "131027")
    assert len(forged) == len(body) and sum(a != b for a, b in zip(forged, body)) == 1

    def refused(provider, headers, body, reason, url=None):
        with pytest.raises(phoneauth.InvalidArgumentError) as info:
            engine.report_delivery(provider, url or receipt_url(provider), headers, body)
        assert info.value.details.get("reason") == reason, repr(info.value)
        assert_nothing_leaked("the error", error_text(info.value), [code])
        return info.value

    assert refused("whatsapp", headers, forged, "badSignature").details["field"] == "X-Hub-Signature-256"
    # Signed with another secret; the signature's last hex digit changed; no signature at all.
    refused("whatsapp", meta_headers(body, APP_SECRET + "x"), body, "badSignature")
    last = headers["X-Hub-Signature-256"][-1]
    refused("whatsapp", {**headers, "X-Hub-Signature-256": headers["X-Hub-Signature-256"][:-1] +
                         ("0" if last != "0" else "1")}, body, "badSignature")
    refused("whatsapp", {"Content-Type": "application/json"}, body, "missingSignature")

    # Twilio: the form altered after signing, the URL not the one signed, no signature.
    fields = twilio_message_callback("SM" + "0" * 32, "delivered", account_sid=ACCOUNT_SID, to=US_NUMBER,
                                     sender=TWILIO_FROM)
    twilio_headers, twilio_body = twilio_callback(receipt_url("twilio"), fields, AUTH_TOKEN)
    refused("twilio", twilio_headers, twilio_body.replace("delivered", "delivereD"), "badSignature")
    refused("twilio", twilio_headers, twilio_body, "badSignature", url=receipt_url("twilio") + "x")
    refused("twilio", {"Content-Type": "application/x-www-form-urlencoded"}, twilio_body, "missingSignature")

    # Vonage: the body altered after signing (its payload_hash no longer matches), signed with
    # another secret, signed over an hour ago, no Authorization.
    vonage_body = vonage_message_status(str(uuid.uuid4()), "delivered", to=IN_NUMBER, sender=VONAGE_WHATSAPP_FROM)
    vonage_headers = vonage_signed_headers(vonage_body, SIGNATURE_SECRET)
    refused("vonage", vonage_headers, vonage_body.replace("delivered", "deliverex"), "badSignature")
    refused("vonage", vonage_signed_headers(vonage_body, SIGNATURE_SECRET + "x"), vonage_body, "badSignature")
    refused("vonage", vonage_signed_headers(vonage_body, SIGNATURE_SECRET, iat=int(time.time()) - 3600), vonage_body,
            "stale")
    refused("vonage", {"Content-Type": "application/json"}, vonage_body, "missingSignature")

    # Nothing was applied: the WhatsApp message is still sent, nothing fell back.
    status = status_of(engine, started["verificationId"])
    assert (status["delivery"], status["channel"]) == ("sent", "whatsapp")
    assert "deliveries" not in status or len(status["deliveries"]) == 1
    assert twilio.count() == 0 and not events.named("deliveryFailed") and not events.named("codeDelivered")
    nothing_queued(engine)
    # The genuine one is then accepted.
    assert sole_receipt(engine.report_delivery("whatsapp", receipt_url("whatsapp"), headers, body))["applied"]
    events.wait_for("codeSent", channel="sms")
    assert_events_clean(events, [code])


def test_replayed_receipts_are_applied_once(open_engine, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    started = engine.verify_phone_number(IN_NUMBER)
    wa_sent = events.wait_for("codeSent", channel="whatsapp")
    body = meta_status_callback(wa_sent["messageId"], "failed", recipient=IN_NUMBER, phone_number_id=PHONE_NUMBER_ID,
                                error_code=131026)
    headers = meta_headers(body, APP_SECRET)
    first = sole_receipt(engine.report_delivery("whatsapp", receipt_url("whatsapp"), headers, body))
    again = sole_receipt(engine.report_delivery("whatsapp", receipt_url("whatsapp"), headers, body))
    assert (first["applied"], first.get("fallback")) == (True, "sms")
    assert again == {"messageId": wa_sent["messageId"], "status": "failed", "applied": False, "reason": "duplicate",
                     "verificationId": started["verificationId"]}
    sms_sent = events.wait_for("codeSent", channel="sms")
    # Once the SMS is sent, nothing else is due: one fallback, one SMS.
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert [d[:2] for d in deliveries(status)] == [("whatsapp", "failed"), ("sms", "sent")]
    nothing_queued(engine)
    assert twilio.count() == 1 and len(events.named("deliveryFailed")) == 1
    # The same again after the fallback: still nothing.
    third = sole_receipt(engine.report_delivery("whatsapp", receipt_url("whatsapp"), headers, body))
    assert (third["applied"], third["reason"]) == (False, "duplicate")

    # The SMS's "delivered", twice: one codeDelivered.
    fields = twilio_message_callback(sms_sent["messageId"], "delivered", account_sid=ACCOUNT_SID, to=IN_NUMBER,
                                     sender=TWILIO_FROM)
    twilio_headers, twilio_body = twilio_callback(receipt_url("twilio"), fields, AUTH_TOKEN)
    once = sole_receipt(engine.report_delivery("twilio", receipt_url("twilio"), twilio_headers, twilio_body))
    twice = sole_receipt(engine.report_delivery("twilio", receipt_url("twilio"), twilio_headers, twilio_body))
    assert (once["applied"], twice["applied"], twice["reason"]) == (True, False, "duplicate")
    # reportDelivery tells its events before it returns.
    assert len(events.named("codeDelivered")) == 1
    assert len(events.named("deliveryFailed")) == 1
    assert status_of(engine, started["verificationId"])["delivery"] == "delivered"
    assert twilio.count() == 1 and meta.count() == 1
    nothing_queued(engine)


# -- 7. "Call me instead" ---------------------------------------------------------------------------

def test_call_me_instead_within_the_resend_window(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))], resendAfterSeconds=60)
    started = engine.verify_phone_number(US_NUMBER)
    assert started["channel"] == "sms"
    sms_sent = events.wait_for("codeSent", channel="sms")
    sms_code = code_in(twilio.requests[0].form()["Body"])

    again = engine.verify_phone_number(US_NUMBER, channel="voice")
    assert again["verificationId"] == started["verificationId"]
    assert (again["channel"], again["resendAt"], again["expiresAt"]) == (
        "voice", started["resendAt"], started["expiresAt"])
    call_sent = events.wait_for("codeSent", channel="voice")
    [_, call] = twilio.requests
    voice_code, _ = check_twilio_call(call, account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=US_NUMBER,
                                      voice_from=VOICE_FROM, locale="en-US")
    assert voice_code == sms_code  # the same code, said
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert status["channel"] == "voice"
    assert deliveries(status) == [("sms", "sent", "twilio", None, None), ("voice", "sent", "twilio", None, None)]
    assert [d["messageId"] for d in status["deliveries"]] == [sms_sent["messageId"], call_sent["messageId"]]

    # The same channel again, or none named: the same verification, nothing sent.
    for asked in ({"channel": "voice"}, {}):
        same = engine.verify_phone_number(US_NUMBER, **asked)
        assert (same["verificationId"], same["channel"]) == (started["verificationId"], "voice")
    assert len(status_of(engine, started["verificationId"])["deliveries"]) == 2
    nothing_queued(engine)
    # SMS again (another channel than the current one): the same code by SMS once more.
    back = engine.verify_phone_number(US_NUMBER, channel="sms")
    assert (back["verificationId"], back["channel"]) == (started["verificationId"], "sms")
    events.wait_for("codeSent", channel="sms", count=2)
    assert code_in(twilio.requests[2].form()["Body"]) == sms_code
    assert [d[:2] for d in deliveries(settled(engine, started["verificationId"], "sent", count=3))] == [
        ("sms", "sent"), ("voice", "sent"), ("sms", "sent")]
    assert twilio.count() == 3
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], sms_code)
    assert_events_clean(events, [sms_code])


def test_sms_instead_after_whatsapp_was_refused(open_engine, servers):
    # No fallback configured: WhatsApp refused the message, the delivery failed; the user asks for
    # an SMS within the resend window and gets the same code by SMS.
    meta = servers(Answer(400, {"error": {"message": "(#131026) Message undeliverable", "code": 131026}}))
    twilio = servers(twilio_answer)
    engine, events = open_engine([meta_entry(meta), twilio_entry(twilio)], channels=WHATSAPP_IN, resendAfterSeconds=60)
    started = engine.verify_phone_number(IN_NUMBER)
    events.wait_for("deliveryFailed")
    assert settled(engine, started["verificationId"], "failed")["deliveryError"] == "invalidNumber"
    code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
    again = engine.verify_phone_number(IN_NUMBER, channel="sms")
    assert (again["verificationId"], again["channel"]) == (started["verificationId"], "sms")
    events.wait_for("codeSent", channel="sms")
    assert code_in(twilio.requests[0].form()["Body"]) == code
    status = settled(engine, started["verificationId"], "sent", count=2)
    assert [d[:4] for d in deliveries(status)] == [("whatsapp", "failed", "whatsapp", "invalidNumber"),
                                                   ("sms", "sent", "twilio", None)]
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)


def test_resend_by_another_channel_counts_for_the_number(open_engine, servers):
    # smsPerNumberPerHour counts every delivery: the SMS and the call make two.
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))], resendAfterSeconds=60,
                                 quotas={"smsPerNumberPerHour": 1})
    started = engine.verify_phone_number(US_NUMBER)
    events.wait_for("codeSent")
    with pytest.raises(phoneauth.TooManyRequestsError) as info:
        engine.verify_phone_number(US_NUMBER, channel="voice")
    assert info.value.details["limit"] == "smsPerNumberPerHour"
    assert len(status_of(engine, started["verificationId"]).get("deliveries", [])) == 1
    nothing_queued(engine)
    assert twilio.count() == 1


# -- 8. Voice quotas ----------------------------------------------------------------------------------

def test_voice_per_number_per_hour(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))],
                                 quotas={"voicePerNumberPerHour": 1})
    first = engine.verify_phone_number(US_NUMBER, channel="voice")
    events.wait_for("codeSent", channel="voice")
    code, _ = check_twilio_call(twilio.requests[0], account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=US_NUMBER,
                                voice_from=VOICE_FROM, locale="en-US")
    # resendAfterSeconds 0: a new verification, whose call the number's voice limit refuses.
    with pytest.raises(phoneauth.TooManyRequestsError) as info:
        engine.verify_phone_number(US_NUMBER, channel="voice")
    assert info.value.details["limit"] == "voicePerNumberPerHour"
    assert info.value.details["scope"] == "+*******3434"
    # A sliding window of counted hours: with room for one call, up to two hours.
    assert 0 < info.value.details["retryAfterSeconds"] <= 7200
    assert_nothing_leaked("the error", error_text(info.value), [code])
    limit = events.wait_for("limitTripped")
    assert (limit["limit"], limit["scope"]) == ("voicePerNumberPerHour", "+*******3434")
    # An SMS to the number, and a call to another number, are still allowed.
    engine.verify_phone_number(US_NUMBER, channel="sms")
    engine.verify_phone_number(US_NUMBER_2, channel="voice")
    events.wait_for("codeSent", count=3)
    # The last two go at once (on two of the engine's senders): in either order.
    sent = [(r.path.rsplit("/", 1)[1], dict(urllib.parse.parse_qsl(r.body.decode("ascii")))["To"])
            for r in twilio.requests]
    assert sent[0] == ("Calls.json", US_NUMBER)
    assert sorted(sent[1:]) == sorted([("Messages.json", US_NUMBER), ("Calls.json", US_NUMBER_2)]), sent
    # The refused verification was never made: the first is still the one with a call.
    assert status_of(engine, first["verificationId"])["channel"] == "voice"
    assert_events_clean(events, [code])


def test_voice_per_number_counts_a_call_me_instead(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))], resendAfterSeconds=60,
                                 quotas={"voicePerNumberPerHour": 1})
    started = engine.verify_phone_number(US_NUMBER, channel="voice")
    events.wait_for("codeSent", channel="voice")
    # SMS instead (allowed), then a call again: the second call of the hour is refused.
    assert engine.verify_phone_number(US_NUMBER, channel="sms")["verificationId"] == started["verificationId"]
    events.wait_for("codeSent", channel="sms")
    with pytest.raises(phoneauth.TooManyRequestsError) as info:
        engine.verify_phone_number(US_NUMBER, channel="voice")
    assert info.value.details["limit"] == "voicePerNumberPerHour"
    status = status_of(engine, started["verificationId"])
    assert (status["channel"], [d[:2] for d in deliveries(status)]) == ("sms", [("voice", "sent"), ("sms", "sent")])
    nothing_queued(engine)
    assert twilio.count() == 2


def test_voice_per_project_per_day(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))],
                                 quotas={"voicePerProjectPerDay": 1})
    engine.verify_phone_number(US_NUMBER, channel="voice")
    with pytest.raises(phoneauth.QuotaExceededError) as info:
        engine.verify_phone_number(US_NUMBER_2, channel="voice")
    assert (info.value.details["limit"], info.value.details["scope"]) == ("voicePerProjectPerDay", "project")
    assert_nothing_leaked("the error", error_text(info.value))
    # SMS are another count.
    engine.verify_phone_number(US_NUMBER_2)
    events.wait_for("codeSent", count=2)
    assert sorted(r.path.rsplit("/", 1)[1] for r in twilio.requests) == ["Calls.json", "Messages.json"]


def test_voice_fallback_is_counted_by_the_voice_quota(open_engine, servers):
    # SMS refused (invalid number) → voice; the project's one call a day is then spent, and a
    # second fallback to voice is refused by it: that delivery simply fails.
    twilio = servers(lambda request: Answer(400, {"code": 21614, "message": "not a mobile number", "status": 400})
                     if request.path.endswith("/Messages.json") else twilio_answer(request))
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))],
                                 channels={"fallback": {"sms": "voice"}}, quotas={"voicePerProjectPerDay": 1})
    first = engine.verify_phone_number(US_NUMBER)
    events.wait_for("codeSent", channel="voice")
    assert settled(engine, first["verificationId"], "sent", count=2)["channel"] == "voice"
    second = engine.verify_phone_number(US_NUMBER_2)
    wait_until(lambda: status_of(engine, second["verificationId"])["delivery"] == "failed",
               what="the second SMS given up")
    status = status_of(engine, second["verificationId"])
    assert (status["channel"], status["deliveryError"]) == ("sms", "invalidNumber")
    assert "deliveries" not in status or len(status["deliveries"]) == 1
    nothing_queued(engine)
    assert [r.path.rsplit("/", 1)[1] for r in twilio.requests].count("Calls.json") == 1


# -- 9. Receipts that say delivered: Twilio and Vonage ------------------------------------------------

def test_twilio_delivered_receipt(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, receiptUrl=receipt_url("twilio"))])
    started = engine.verify_phone_number(US_NUMBER)
    sent = events.wait_for("codeSent")
    form = twilio.requests[0].form()
    assert form["StatusCallback"] == receipt_url("twilio")
    code = code_in(form["Body"])
    # Twilio reports "sent" first: nothing changes.
    early = sole_receipt(report_twilio(engine, sent["messageId"], "sent", US_NUMBER))
    assert (early["status"], early["applied"], early["reason"]) == ("sent", False, "noChange")
    result = report_twilio(engine, sent["messageId"], "delivered", US_NUMBER)
    assert sole_receipt(result) == {"messageId": sent["messageId"], "status": "delivered", "applied": True,
                                    "verificationId": started["verificationId"]}
    delivered = events.wait_for("codeDelivered")
    assert {k: v for k, v in delivered.items() if k != "time"} == {
        "event": "codeDelivered", "phoneNumber": "+*******3434", "channel": "sms", "provider": "twilio",
        "messageId": sent["messageId"]}
    status = status_of(engine, started["verificationId"])
    assert (status["delivery"], status["channel"]) == ("delivered", "sms")
    assert deliveries(status) == [("sms", "delivered", "twilio", None, None)]
    # An unknown message: accepted, not applied.
    unknown = sole_receipt(report_twilio(engine, "SM" + "f" * 32, "delivered", US_NUMBER))
    assert (unknown["applied"], unknown["reason"]) == (False, "unknownMessage")
    assert "verificationId" not in unknown
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    assert_events_clean(events, [code])


def test_twilio_undelivered_sms_receipt_without_fallback(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio)])
    started = engine.verify_phone_number(US_NUMBER)
    sent = events.wait_for("codeSent")
    result = sole_receipt(report_twilio(engine, sent["messageId"], "undelivered", US_NUMBER, error_code="30003"))
    assert (result["applied"], result.get("fallback")) == (True, None)
    failed = events.wait_for("deliveryFailed")
    assert (failed["reason"], failed["providerCode"], failed["willRetry"], failed.get("fallback")) == (
        "notDelivered", "30003", False, None)
    status = status_of(engine, started["verificationId"])
    assert (status["delivery"], status["deliveryError"]) == ("failed", "notDelivered")
    assert deliveries(status) == [("sms", "failed", "twilio", "notDelivered", "30003")]
    nothing_queued(engine)


def test_vonage_whatsapp_and_its_delivered_receipt(open_engine, servers):
    vonage, twilio = servers(vonage_answer), servers(twilio_answer)
    engine, events = open_engine([vonage_whatsapp_entry(vonage), twilio_entry(twilio)],
                                 channels=whatsapp_then_sms(30))
    started = engine.verify_phone_number(IN_NUMBER)
    assert started["channel"] == "whatsapp"
    sent = events.wait_for("codeSent", channel="whatsapp")
    [request] = vonage.requests
    code = check_vonage_whatsapp(request, api_key=VONAGE_KEY, api_secret=VONAGE_SECRET, to=IN_NUMBER,
                                 sender=VONAGE_WHATSAPP_FROM, template=TEMPLATE, language="en")
    assert sent["provider"] == "vonage"
    uuid_text = sent["messageId"]
    body = vonage_message_status(uuid_text, "delivered", to=IN_NUMBER, sender=VONAGE_WHATSAPP_FROM)
    result = engine.report_delivery("vonage", receipt_url("vonage"), vonage_signed_headers(body, SIGNATURE_SECRET),
                                    body)
    assert sole_receipt(result) == {"messageId": uuid_text, "status": "delivered", "applied": True,
                                    "verificationId": started["verificationId"]}
    delivered = events.wait_for("codeDelivered")
    assert (delivered["channel"], delivered["provider"], delivered["messageId"]) == ("whatsapp", "vonage", uuid_text)
    status = status_of(engine, started["verificationId"])
    assert (status["delivery"], status["channel"]) == ("delivered", "whatsapp")
    assert deliveries(status) == [("whatsapp", "delivered", "vonage", None, None)]
    nothing_queued(engine)
    assert twilio.count() == 0
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)
    assert_events_clean(events, [code])


def test_vonage_call_event_answered(open_engine, servers):
    vonage = servers(vonage_answer)
    # Voice alone: the default channel must be one an entry carries.
    engine, events = open_engine([vonage_voice_entry(vonage, name="vv", receiptUrl=receipt_url("vv"),
                                                     signatureSecret=SIGNATURE_SECRET)],
                                 channels={"preferred": {"default": "voice"}})
    started = engine.verify_phone_number(US_NUMBER)
    assert started["channel"] == "voice"
    sent = events.wait_for("codeSent")
    call_uuid = sent["messageId"]
    for status_name, applied in (("started", False), ("ringing", False), ("answered", True), ("completed", False)):
        body = json.dumps({"uuid": call_uuid, "conversation_uuid": "CON-" + str(uuid.uuid4()), "status": status_name,
                           "direction": "outbound", "from": VOICE_FROM.lstrip("+"), "to": US_NUMBER.lstrip("+"),
                           "timestamp": "2026-11-27T20:00:00.000Z", "duration": "12"})
        headers = vonage_signed_headers(body, SIGNATURE_SECRET)
        got = sole_receipt(engine.report_delivery("vv", receipt_url("vv"), headers, body))
        assert got["applied"] == applied, (status_name, got)
    assert len(events.named("codeDelivered")) == 1
    assert status_of(engine, started["verificationId"])["delivery"] == "delivered"


# -- 10. Two engines on one PostgreSQL database: one fallback ------------------------------------------

@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only (PHONEAUTH_TEST_DATABASE=postgres)")
def test_fallback_decided_once_by_two_engines(db_path, servers):
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    config = channel_config(db_path, [meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms())
    events = Events()
    engines = [phoneauth.Engine(config), phoneauth.Engine(config)]
    try:
        for engine in engines:
            engine.set_log_sink(events)
        started = engines[0].verify_phone_number(IN_NUMBER)
        wa_sent = events.wait_for("codeSent", channel="whatsapp")
        body = meta_status_callback(wa_sent["messageId"], "failed", recipient=IN_NUMBER,
                                    phone_number_id=PHONE_NUMBER_ID, error_code=131026)
        headers = meta_headers(body, APP_SECRET)
        gate = threading.Barrier(2)
        results = [None, None]

        def report(index):
            gate.wait(10)
            try:
                results[index] = sole_receipt(engines[index].report_delivery(
                    "whatsapp", receipt_url("whatsapp"), headers, body))
            except Exception as error:  # noqa: BLE001 (the assertion below shows it)
                results[index] = error

        threads = [threading.Thread(target=report, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert all(isinstance(r, dict) for r in results), results  # both accepted
        applied = sorted(results, key=lambda r: not r["applied"])
        assert [(r["applied"], r.get("reason"), r.get("fallback")) for r in applied] == [
            (True, None, "sms"), (False, "duplicate", None)], results
        events.wait_for("codeSent", channel="sms")
        assert len(events.named("deliveryFailed")) == 1
        for engine in engines:
            status = settled(engine, started["verificationId"], "sent", count=2)
            assert [d[:2] for d in deliveries(status)] == [("whatsapp", "failed"), ("sms", "sent")]
            nothing_queued(engine)
        assert twilio.count() == 1 and meta.count() == 1
        code = meta.requests[0].json()["template"]["components"][0]["parameters"][0]["text"]
        assert code_in(twilio.requests[0].form()["Body"]) == code
    finally:
        for engine in engines:
            engine.close()


@pytest.mark.skipif(not POSTGRES, reason="PostgreSQL only (PHONEAUTH_TEST_DATABASE=postgres)")
def test_timed_fallback_decided_once_by_two_engines(db_path, servers):
    # No receipt within a second: both engines' workers see the message due; one SMS goes.
    meta, twilio = servers(meta_answer), servers(twilio_answer)
    config = channel_config(db_path, [meta_entry(meta), twilio_entry(twilio)], channels=whatsapp_then_sms(1))
    events = Events()
    engines = [phoneauth.Engine(config), phoneauth.Engine(config)]
    try:
        for engine in engines:
            engine.set_log_sink(events)
        started = engines[1].verify_phone_number(IN_NUMBER)
        events.wait_for("codeSent", channel="whatsapp")
        events.wait_for("codeSent", channel="sms")
        for engine in engines:
            status = settled(engine, started["verificationId"], "sent", count=2)
            assert [d[:2] for d in deliveries(status)] == [("whatsapp", "sent"), ("sms", "sent")]
            nothing_queued(engine)
        assert twilio.count() == 1 and meta.count() == 1
        assert len(events.named("codeSent")) == 2
    finally:
        for engine in engines:
            engine.close()


# -- 11. Unknown providers, providers without the secret, channels nobody carries --------------------

def test_report_delivery_names_the_provider_field(open_engine, servers):
    meta, twilio, vonage = servers(meta_answer), servers(twilio_answer), servers(vonage_answer)
    providers = [meta_entry(meta, appSecret=None), twilio_entry(twilio, name="tw-key", authToken=None,
                                                                apiKeySid="SK" + secrets.token_hex(16),
                                                                apiKeySecret="keysecret" + secrets.token_hex(8)),
                 vonage_whatsapp_entry(vonage, name="vonage", signatureSecret=None)]
    for entry in providers:
        for key in [k for k, v in entry.items() if v is None]:
            del entry[key]
    engine, _ = open_engine(providers, channels=WHATSAPP_IN)
    body = meta_status_callback("wamid.X", "delivered", recipient=IN_NUMBER, phone_number_id=PHONE_NUMBER_ID)

    def error_of(params):
        with pytest.raises(phoneauth.InvalidArgumentError) as info:
            engine.call("reportDelivery", params)
        assert_nothing_leaked("the error", error_text(info.value))
        return info.value

    base = {"url": receipt_url("x"), "headers": meta_headers(body, APP_SECRET), "body": body}
    missing = error_of(base)
    assert missing.details == {"field": "provider"}
    unknown = error_of({**base, "provider": "sendgrid"})
    assert unknown.details == {"field": "provider", "reason": "unknownProvider"}
    assert "sendgrid" in unknown.message
    for name, key in (("whatsapp", "appSecret"), ("tw-key", "authToken"), ("vonage", "signatureSecret")):
        error = error_of({**base, "provider": name})
        assert error.details == {"field": "provider", "reason": "noReceipts"}, (name, error)
        assert name in error.message and key in error.message, error.message
    # The request's own fields.
    for field, value in (("url", "ftp://example.com/x"), ("body", 7), ("headers", {"X-Hub-Signature-256": 1})):
        error = error_of({**base, "provider": "whatsapp", field: value})
        assert error.details.get("field") == field, (field, error)
    # The binding's method passes its arguments the same way.
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.report_delivery("nobody", receipt_url("nobody"), {}, b"{}")
    assert info.value.details == {"field": "provider", "reason": "unknownProvider"}


def test_a_channel_no_provider_carries_is_refused(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio)])
    for channel in ("whatsapp", "voice"):
        with pytest.raises(phoneauth.InvalidArgumentError) as info:
            engine.verify_phone_number(US_NUMBER, channel=channel)
        assert info.value.details == {"field": "channel", "reason": "channelUnavailable"}
    for channel in ("fax", "SMS", 1):
        with pytest.raises(phoneauth.InvalidArgumentError) as info:
            engine.verify_phone_number(US_NUMBER, channel=channel)
        assert info.value.details.get("field") == "channel", repr(info.value)
    nothing_queued(engine)
    assert twilio.count() == 0


# -- second factors by another channel -----------------------------------------------------------------

def test_second_factor_enrolment_by_voice(open_engine, servers):
    twilio = servers(twilio_answer)
    engine, events = open_engine([twilio_entry(twilio, channels=("sms", "voice"))])
    user = engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid="alice")["customToken"])
    started = engine.mfa_enroll_start(user["idToken"], US_NUMBER, channel="voice")
    assert started.get("channel") == "voice"
    events.wait_for("codeSent", channel="voice")
    code, _ = check_twilio_call(twilio.requests[0], account_sid=ACCOUNT_SID, auth=TWILIO_AUTH, to=US_NUMBER,
                                voice_from=VOICE_FROM, locale="en-US")
    credential = engine.credential(verification_id=started["verificationId"], verification_code=code)["credential"]
    enrolled = engine.mfa_enroll_finalize(user["idToken"], credential=credential)
    assert "idToken" in enrolled
    assert_events_clean(events, [code])
