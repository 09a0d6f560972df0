"""What test_channels.py needs to stand in for the channel providers and to be their callbacks:
the requests each provider's API reference describes, checked field by field (Meta's WhatsApp
Cloud API, Twilio's Calls resource with TwiML, Vonage's Voice and Messages APIs), and their
delivery callbacks signed as each provider signs them (Twilio's X-Twilio-Signature, Meta's
X-Hub-Signature-256, Vonage's HS256 bearer JWT), written here from the providers' documentation.

Each check returns the code the request carries, so that a test can compare it with the code
that another channel carried, and sign in with it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from urllib.parse import parse_qsl
import re
import secrets
import time
import urllib.parse
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple

import jwt  # PyJWT

from sms_servers import Request


def media_type(request: Request) -> str:
    return (request.header("Content-Type") or "").split(";")[0].strip().lower()


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


# -- Meta's WhatsApp Cloud API ------------------------------------------------------------------

def meta_sent(wamid: str, to_digits: str) -> Dict[str, Any]:
    """Meta's answer to a template message it accepted (200)."""
    return {"messaging_product": "whatsapp", "contacts": [{"input": to_digits, "wa_id": to_digits}],
            "messages": [{"id": wamid, "message_status": "accepted"}]}


def check_meta_template(request: Request, *, version: str, phone_number_id: str, access_token: str,
                        to: str, template: str, language: str) -> str:
    """A template message as the Cloud API reference has it: POST /{version}/{phone-number-id}/messages,
    a bearer token, JSON with `to` in digits (no '+'), and an authentication template whose body
    parameter and copy-code (URL) button parameter both carry the code. Returns the code."""
    assert (request.method, request.path) == ("POST", f"/{version}/{phone_number_id}/messages")
    assert request.header("Authorization") == f"Bearer {access_token}"
    assert media_type(request) == "application/json"
    payload = request.json()
    assert set(payload) == {"messaging_product", "recipient_type", "to", "type", "template"}, payload
    assert (payload["messaging_product"], payload["recipient_type"], payload["type"]) == (
        "whatsapp", "individual", "template")
    assert payload["to"] == to.lstrip("+") and not payload["to"].startswith("+")
    return check_template_object(payload["template"], template=template, language=language)


def check_template_object(obj: Dict[str, Any], *, template: str, language: str,
                          policy: Optional[str] = None) -> str:
    """An authentication template: {name, language {code[, policy]}, components [body with the
    code, button sub_type url index 0 with the code]}. Returns the code."""
    assert obj["name"] == template
    expected_language = {"code": language, **({"policy": policy} if policy else {})}
    assert obj["language"] == expected_language, obj["language"]
    body, button = obj["components"]
    assert body["type"] == "body"
    [body_parameter] = body["parameters"]
    assert body_parameter["type"] == "text"
    code = body_parameter["text"]
    assert re.fullmatch(r"[0-9]{4,10}", code), code
    assert (button["type"], button["sub_type"], str(button["index"])) == ("button", "url", "0")
    assert button["parameters"] == [{"type": "text", "text": code}]
    return code


def meta_status_callback(wamid: str, status: str, *, recipient: str, phone_number_id: str,
                         error_code: Optional[int] = None) -> str:
    """A status webhook of the Cloud API (object whatsapp_business_account, entry[].changes[].value
    .statuses[]), as raw JSON text."""
    entry: Dict[str, Any] = {"id": wamid, "status": status, "timestamp": str(int(time.time())),
                             "recipient_id": recipient.lstrip("+")}
    if status != "failed":
        entry["conversation"] = {"id": "c" + secrets.token_hex(8), "origin": {"type": "authentication"}}
        entry["pricing"] = {"billable": True, "pricing_model": "CBP", "category": "authentication"}
    if error_code is not None:
        entry["errors"] = [{"code": error_code, "title": "Message undeliverable",
                            "message": "Message undeliverable",
                            "error_data": {"details": "Message Undeliverable."}}]
    payload = {"object": "whatsapp_business_account", "entry": [{
        "id": "1029384756", "changes": [{"field": "messages", "value": {
            "messaging_product": "whatsapp",
            "metadata": {"display_phone_number": "15550001234", "phone_number_id": phone_number_id},
            "statuses": [entry]}}]}]}
    return json.dumps(payload)


def meta_signature(body: str, app_secret: str) -> str:
    """X-Hub-Signature-256: "sha256=" and the hex HMAC-SHA256 of the raw body under the app secret."""
    return "sha256=" + hmac.new(app_secret.encode(), body.encode(), hashlib.sha256).hexdigest()


def meta_headers(body: str, app_secret: str) -> Dict[str, str]:
    return {"Content-Type": "application/json", "User-Agent": "facebookexternalua",
            "X-Hub-Signature-256": meta_signature(body, app_secret)}


# -- Twilio -------------------------------------------------------------------------------------

def twilio_signature(url: str, fields: List[Tuple[str, str]], auth_token: str) -> str:
    """X-Twilio-Signature: base64 HMAC-SHA1 under the auth token of the URL followed by each POST
    field's name and value, sorted by name."""
    text = url + "".join(name + value for name, value in sorted(fields))
    return base64.b64encode(hmac.new(auth_token.encode(), text.encode(), hashlib.sha1).digest()).decode()


def twilio_message_callback(message_sid: str, status: str, *, account_sid: str, to: str, sender: str,
                            error_code: Optional[str] = None) -> List[Tuple[str, str]]:
    """The fields of a message status callback (StatusCallback)."""
    fields = [("AccountSid", account_sid), ("ApiVersion", "2010-04-01"), ("From", sender),
              ("MessageSid", message_sid), ("MessageStatus", status), ("SmsSid", message_sid),
              ("SmsStatus", status), ("To", to)]
    if error_code:
        fields.append(("ErrorCode", error_code))
    return fields


def twilio_callback(url: str, fields: List[Tuple[str, str]], auth_token: str) -> Tuple[Dict[str, str], str]:
    """(headers, body) of a signed form callback to `url`."""
    headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
               "I-Twilio-Idempotency-Token": secrets.token_hex(16),
               "X-Twilio-Signature": twilio_signature(url, fields, auth_token)}
    return headers, urllib.parse.urlencode(fields)


def check_twilio_call(request: Request, *, account_sid: str, auth: str, to: str, voice_from: str,
                      locale: str, status_callback: Optional[str] = None) -> Tuple[str, str]:
    """A call as Twilio's Calls resource takes it: POST /2010-04-01/Accounts/{sid}/Calls.json, form
    fields To, From and Twiml (and StatusCallback when one is configured), whose <Say> in
    `locale` says the code digit by digit, twice. Returns (the code, the spoken text)."""
    assert (request.method, request.path) == ("POST", f"/2010-04-01/Accounts/{account_sid}/Calls.json")
    assert request.header("Authorization") == auth
    assert media_type(request) == "application/x-www-form-urlencoded"
    # ASCII only: an accented TwiML text must come percent-encoded. StatusCallbackEvent is the
    # one field Twilio takes more than once: the events to be told of, answered among them.
    pairs = parse_qsl(request.body.decode("ascii"), keep_blank_values=True, strict_parsing=True)
    events = [v for k, v in pairs if k == "StatusCallbackEvent"]
    form = {k: v for k, v in pairs if k != "StatusCallbackEvent"}
    assert len(form) + len(events) == len(pairs), f"a form field repeats: {pairs}"
    assert set(form) == {"To", "From", "Twiml"} | ({"StatusCallback"} if status_callback else set()), form
    assert (form["To"], form["From"]) == (to, voice_from)
    if status_callback:
        assert form["StatusCallback"] == status_callback
        assert events == ["answered", "completed"], events
    else:
        assert events == [], events
    root = ET.fromstring(form["Twiml"])
    assert root.tag == "Response"
    says = root.findall("Say")
    assert len(says) == 1, form["Twiml"]
    assert says[0].get("language") == locale, form["Twiml"]
    assert all(child.tag in ("Say", "Pause") for child in root)
    text = says[0].text or ""
    return spoken_code(text), text


def spoken_code(text: str) -> str:
    """The code a voice text says: its digits one by one ("1, 2, 3, 4, 5, 6"), said exactly twice,
    with no other digits in the text."""
    runs = re.findall(r"(?<![0-9])[0-9](?:, [0-9]){3,9}(?![0-9])", text)
    assert len(runs) == 2 and runs[0] == runs[1], f"the code is not said twice digit by digit: {text!r}"
    code = runs[0].replace(", ", "")
    assert len(re.findall(r"[0-9]", text)) == 2 * len(code), text
    return code


# -- Vonage -------------------------------------------------------------------------------------

def check_vonage_call(request: Request, *, public_key_pem: bytes, application_id: str, to: str,
                      voice_from: str, locale: str, event_url: Optional[str] = None) -> Tuple[str, Dict[str, Any]]:
    """A call as the Voice API reference has it: POST /v1/calls with `Authorization: Bearer` and a
    JWT the application's private key signed (RS256, verified here with the PUBLIC key), claiming
    application_id, iat, exp and jti; JSON to [{type phone, number}], from {type phone, number},
    ncco [{action talk, text, language}] (and event_url when configured). Returns (the code, the
    token's claims)."""
    assert (request.method, request.path) == ("POST", "/v1/calls")
    assert media_type(request) == "application/json"
    authorization = request.header("Authorization") or ""
    assert authorization.startswith("Bearer "), authorization
    token = authorization[len("Bearer "):]
    assert jwt.get_unverified_header(token) == {"alg": "RS256", "typ": "JWT"}
    claims = jwt.decode(token, public_key_pem, algorithms=["RS256"],
                        options={"require": ["iat", "exp", "jti", "application_id"]})
    assert claims["application_id"] == application_id
    now = time.time()
    assert now - 60 <= claims["iat"] <= now + 5, claims
    assert 0 < claims["exp"] - claims["iat"] <= 3600, claims
    assert isinstance(claims["jti"], str) and len(claims["jti"]) >= 16
    payload = request.json()
    expected_keys = {"to", "from", "ncco"} | ({"event_url"} if event_url else set())
    assert set(payload) == expected_keys, payload
    assert payload["to"] == [{"type": "phone", "number": to.lstrip("+")}]
    assert payload["from"] == {"type": "phone", "number": voice_from.lstrip("+")}
    if event_url:
        assert payload["event_url"] == [event_url]
    [talk] = payload["ncco"]
    assert set(talk) == {"action", "text", "language"}, talk
    assert (talk["action"], talk["language"]) == ("talk", locale)
    return spoken_code(talk["text"]), claims


def check_vonage_whatsapp(request: Request, *, api_key: str, api_secret: str, to: str, sender: str,
                          template: str, language: str) -> str:
    """A WhatsApp authentication template by the Messages API: POST /v1/messages, Basic
    authentication with the API key and secret, message_type custom with the template (its
    language with policy deterministic). Returns the code."""
    assert (request.method, request.path) == ("POST", "/v1/messages")
    assert request.header("Authorization") == basic(api_key, api_secret)
    assert media_type(request) == "application/json"
    payload = request.json()
    assert set(payload) == {"message_type", "channel", "from", "to", "custom"}, payload
    assert (payload["message_type"], payload["channel"]) == ("custom", "whatsapp")
    assert (payload["from"], payload["to"]) == (sender.lstrip("+"), to.lstrip("+"))
    assert payload["custom"]["type"] == "template"
    return check_template_object(payload["custom"]["template"], template=template, language=language,
                                 policy="deterministic")


def vonage_message_status(message_uuid: str, status: str, *, to: str, sender: str,
                          error: Optional[Dict[str, Any]] = None) -> str:
    """A Messages API status webhook, as raw JSON text."""
    payload: Dict[str, Any] = {"message_uuid": message_uuid, "to": to.lstrip("+"), "from": sender.lstrip("+"),
                               "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                               "status": status, "channel": "whatsapp"}
    if error:
        payload["error"] = error
    return json.dumps(payload)


def vonage_signed_headers(body: str, signature_secret: str, *, iat: Optional[int] = None) -> Dict[str, str]:
    """`Authorization: Bearer` with the JWT Vonage signs its webhooks with: HS256 under the
    signature secret, claiming iat, jti and payload_hash (the hex SHA-256 of the body)."""
    claims = {"iat": int(time.time()) if iat is None else iat, "jti": secrets.token_hex(16),
              "iss": "Vonage", "payload_hash": hashlib.sha256(body.encode()).hexdigest(),
              "api_key": "abcd1234", "application_id": "aaaaaaaa-bbbb-cccc-dddd-0123456789ab"}
    token = jwt.encode(claims, signature_secret, algorithm="HS256")
    return {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}


def twilio_call_callback(call_sid: str, status: str, *, account_sid: str, to: str,
                         sender: str) -> List[Tuple[str, str]]:
    """The fields of a call status callback (StatusCallback of a call)."""
    return [("AccountSid", account_sid), ("ApiVersion", "2010-04-01"), ("CallSid", call_sid),
            ("CallStatus", status), ("CallbackSource", "call-progress-events"), ("Called", to), ("Caller", sender),
            ("Direction", "outbound-api"), ("From", sender), ("SequenceNumber", "0"),
            ("Timestamp", time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime())), ("To", to)]


def check_twilio_whatsapp(request: Request, *, account_sid: str, auth: str, to: str, sender: str, content_sid: str,
                          status_callback: Optional[str] = None) -> str:
    """A WhatsApp template by Twilio's Messages resource and Content API: To and From as
    whatsapp:+E164, ContentSid of the approved template and ContentVariables {"1": code}, no Body.
    Returns the code."""
    assert (request.method, request.path) == ("POST", f"/2010-04-01/Accounts/{account_sid}/Messages.json")
    assert request.header("Authorization") == auth
    form = request.form()
    expected = {"To", "From", "ContentSid", "ContentVariables"} | ({"StatusCallback"} if status_callback else set())
    assert set(form) == expected, form
    assert (form["To"], form["From"], form["ContentSid"]) == (f"whatsapp:{to}", f"whatsapp:{sender}", content_sid)
    if status_callback:
        assert form["StatusCallback"] == status_callback
    variables = json.loads(form["ContentVariables"])
    assert set(variables) == {"1"} and re.fullmatch(r"[0-9]{4,10}", variables["1"]), variables
    return variables["1"]


def meta_statuses_callback(statuses: List[Tuple[str, str, str, Optional[int]]], *, phone_number_id: str) -> str:
    """One Cloud API webhook carrying several statuses at once: (wamid, status, recipient, error code)."""
    entries = []
    for wamid, status, recipient, error_code in statuses:
        entry: Dict[str, Any] = {"id": wamid, "status": status, "timestamp": str(int(time.time())),
                                 "recipient_id": recipient.lstrip("+")}
        if error_code is not None:
            entry["errors"] = [{"code": error_code, "title": "Message undeliverable"}]
        entries.append(entry)
    return json.dumps({"object": "whatsapp_business_account", "entry": [{"id": "1029384756", "changes": [
        {"field": "messages", "value": {"messaging_product": "whatsapp",
                                        "metadata": {"display_phone_number": "15550001234",
                                                     "phone_number_id": phone_number_id},
                                        "statuses": entries}}]}]})
