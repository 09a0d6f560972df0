"""The operator console's Delivery and Fraud sections, as a client reads their HTML: codes sent to
real-looking numbers through a fake Twilio show per country and per channel in the charts (inline
SVG) and in the tables under them, delivered once a receipt says so and verified once entered; a
provider whose breaker opened shows as skipped; a pumping block shows as a decision, and lifting it
from the page ends it and is recorded as a consoleAction line."""

from __future__ import annotations

import json
import re
import time
import urllib.parse
from html.parser import HTMLParser
from typing import Dict, List, Optional, Tuple

import pytest

from console_client import send as console_send
from conftest import ADMIN_TOKEN, TEST_NUMBER, Server, start_server
from sms_servers import Answer, FakeServer
from test_receipts_route import ACCOUNT_SID, AUTH_TOKEN, signature

US_PREFIX = "+1650253"
US_NUMBERS = [f"{US_PREFIX}{i:04d}" for i in range(5)]
GB_NUMBERS = ["+447400123456", "+447400123457"]


def twilio(name: str, fake: FakeServer) -> Dict[str, object]:
    return {"type": "twilio", "name": name, "baseUrl": fake.url, "accountSid": ACCOUNT_SID, "authToken": AUTH_TOKEN,
            "from": "+15017122661", "channels": ["sms"]}


def message_sid(number: str) -> str:
    """The SID the fake Twilio gives a message to `number`: one per number, as a receipt names it."""
    return "SM" + re.sub(r"\D", "", number).rjust(32, "0")


class Tables(HTMLParser):
    """Every table of a page by its caption: rows of cells' text (header row first)."""

    def __init__(self, html: str):
        super().__init__()
        self.tables: Dict[str, List[List[str]]] = {}
        self._rows: Optional[List[List[str]]] = None
        self._caption: Optional[str] = None
        self._cell: Optional[str] = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self._rows, self._caption = [], ""
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._rows:
            self._rows[-1].append(" ".join(self._cell.split()))
            self._cell = None
        elif tag == "table" and self._rows is not None:
            self.tables[self._caption.strip()] = self._rows
            self._rows = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        elif self._rows is not None and not self._rows:
            self._caption += data


class Operator:
    """A signed-in console session over plain HTTP (no redirects followed)."""

    def __init__(self, server: Server):
        self.server = server
        status, headers, _ = self.request("POST", "/console/login", {"token": ADMIN_TOKEN})
        assert status == 303, status
        self.cookie = headers["set-cookie"].split(";")[0]

    def request(self, method: str, path: str, form: Optional[Dict[str, str]] = None) -> Tuple[int, Dict, str]:
        return console_send(self.server, method, path, getattr(self, "cookie", None), form)

    def page(self, path: str) -> str:
        status, headers, html = self.request("GET", path)
        assert status == 200, (status, html)
        assert "script-src" not in headers["content-security-policy"]
        # The page's policy allows no script and no style attribute: it has neither.
        assert "<script" not in html and " style=" not in html
        return html

    def post(self, path: str, form: Dict[str, str], csrf_from: str) -> str:
        csrf = re.search(r'name="csrf" value="([^"]+)"', self.page(csrf_from)).group(1)
        status, headers, html = self.request("POST", path, {"csrf": csrf, **form})
        assert status == 303, (status, html)
        return headers["location"]


def send(server: Server, number: str) -> Tuple[int, Dict]:
    status, body, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": number})
    return status, body


def wait_until(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.fixture
def twilios():
    flaky, good = FakeServer(default=Answer(500, {"code": 20500, "message": "Internal error"})), FakeServer()
    good.answer(lambda request: Answer(201, {"sid": message_sid(request.form()["To"]), "status": "queued"}))
    yield flaky, good
    flaky.close()
    good.close()


def start_sections_server(tmp_path, twilios) -> Server:
    """phoneauthd with the console, two fake Twilios (the first failing) and the defense on."""
    flaky, good = twilios
    return start_server(tmp_path, engine={
        "sms": {"providers": [twilio("flaky", flaky), twilio("twilio", good)],
                "breaker": {"failures": 1, "seconds": 3600}, "retryBackoffMs": 10},
        "pumping": {"mode": "enforce"}, "resendAfterSeconds": 0}, server={"console": {}})


@pytest.fixture
def server(tmp_path, twilios):
    started = start_sections_server(tmp_path, twilios)
    yield started
    started.stop()


def send_the_codes(server: Server, good: FakeServer) -> None:
    """Five codes to one US prefix, none entered (the sixth is refused: the prefix is blocked);
    two to GB numbers, one delivered (a receipt says so), the other entered."""
    verifications = {}
    for number in US_NUMBERS + GB_NUMBERS:
        status, body = send(server, number)
        assert status == 200, body
        verifications[number] = body["verificationId"]
    status, refused = send(server, US_PREFIX + "0005")
    assert status == 429 and refused["error"]["code"] == "quotaExceeded", refused
    requests = good.wait_for_requests(len(verifications))
    delivered, entered = GB_NUMBERS
    wait_until(lambda: server.admin("getVerificationStatus", {"verificationId": verifications[delivered]})[1].get(
        "providerMessageId") == message_sid(delivered), "the engine recorded Twilio's answer")
    fields = [("AccountSid", ACCOUNT_SID), ("MessageSid", message_sid(delivered)), ("MessageStatus", "delivered"),
              ("SmsSid", message_sid(delivered)), ("SmsStatus", "delivered"), ("To", delivered)]
    path = "/phoneauth/v1/receipts/twilio?attempt=1&tenant=default"
    status, body, _ = server.request("POST", path, raw=urllib.parse.urlencode(fields).encode(), headers={
        "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": signature(server.url + path, fields)})
    assert status == 200 and body["receipts"][0]["applied"], body
    [text] = [r.form()["Body"] for r in requests if r.form()["To"] == entered]
    code = re.search(r"\d{6}", text).group(0)
    status, signed, _ = server.post("/phoneauth/v1/signInWithCredential", {
        "credential": {"verificationId": verifications[entered], "verificationCode": code}})
    assert status == 200, signed


def test_delivery_shows_codes_per_country_and_channel_and_the_skipped_provider(server, twilios):
    send_the_codes(server, twilios[1])
    operator = Operator(server)
    html = operator.page("/console/delivery")
    tables = Tables(html).tables
    header = ["Sent", "Delivered", "Verified", "Conversion"]
    assert tables["Codes per country, last day"] == [
        ["Country"] + header, ["US", "5", "0", "0", "0.0 %"], ["GB", "2", "1", "1", "50.0 %"]], tables
    assert tables["Codes per channel, last day"] == [["Channel"] + header, ["sms", "7", "1", "1", "14.2 %"]]
    assert tables["Codes per country and channel, last day"][1:] == [
        ["GB", "sms", "2", "1", "1", "50.0 %"], ["US", "sms", "5", "0", "0", "0.0 %"]]
    # The charts: one image each to a screen reader, titled, a bar per series and group.
    charts = re.findall(r"<svg [^>]*>.*?</svg>", html, re.S)
    assert len(charts) == 2, html
    by_country = charts[0]
    assert 'role="img"' in by_country and 'aria-label="Codes per country, last day: sent, delivered and verified"' \
        in by_country and "<title>Codes per country, last day" in by_country
    for label in ("US, Sent: 5", "US, Verified: 0", "GB, Sent: 2", "GB, Delivered: 1", "GB, Verified: 1"):
        assert f"<title>{label}</title>" in by_country, label
    assert re.search(r">US</text>", by_country) and re.search(r">GB</text>", by_country)
    assert "<title>sms, Sent: 7</title>" in charts[1]
    # The bars' heights follow the values: US's sent bar is the tallest, 5 of a scale of 5.
    heights = {title: int(height) for height, title in
               re.findall(r'height="(\d+)" fill="[^"]+"><title>([^<]+)</title>', by_country)}
    assert heights["US, Sent: 5"] == 160 and heights["GB, Sent: 2"] == 64, heights

    # The last hour holds the same codes; the pumping defense's own counts, and the breaker.
    hour = Tables(operator.page("/console/delivery?window=hour")).tables
    assert hour["Codes per channel, last hour"][1] == ["sms", "7", "1", "1", "14.2 %"]
    estimates = tables["Codes per country (estimated, every channel)"]
    assert [row[:5] for row in estimates[1:]] == [["GB", "2", "1", "2", "1"], ["US", "5", "0", "5", "0"]] or \
        [row[:5] for row in estimates[1:]] == [["US", "5", "0", "5", "0"], ["GB", "2", "1", "2", "1"]], estimates
    [flaky] = tables["SMS providers skipped or restored since this server started"][1:]
    assert flaky[:3] == ["flaky", "sms", "skipped"] and flaky[3].startswith("until ") and flaky[4] == "1", flaky


def test_fraud_lists_the_block_and_lifting_it_ends_it(server, twilios):
    send_the_codes(server, twilios[1])
    operator = Operator(server)
    html = operator.page("/console/fraud")
    rows = Tables(html).tables["Pumping decisions"]
    assert rows[0][:13] == ["Time", "Action", "Scope kind", "Scope", "Rule", "Sent", "Verified", "Allowance", "Until",
                            "Region", "Tenant", "Channel", "Risk"], rows[0]
    [decision] = rows[1:]
    assert decision[1:5] == ["refused", "prefix", US_PREFIX, "hour"] and decision[5:7] == ["5", "0"], decision
    assert decision[9:12] == ["US", "default pool", "sms"], decision
    assert all(number not in html for number in US_NUMBERS + GB_NUMBERS)
    assert f'name="scope" value="{US_PREFIX}"' in html and 'action="/console/fraud/lift"' in html

    location = operator.post("/console/fraud/lift", {"scopeKind": "prefix", "scope": US_PREFIX}, "/console/fraud")
    assert location.startswith("/console/fraud?notice="), location
    html = operator.page(location)
    assert f"The block on prefix {US_PREFIX} is lifted." in html
    rows = Tables(html).tables["Pumping decisions"]
    assert [row[1] for row in rows[1:]] == ["lifted", "refused"], rows
    assert 'action="/console/fraud/lift"' not in html, "no block left to lift"
    status, body = send(server, US_PREFIX + "0005")
    assert status == 200, body

    # Nothing in force, and a scope kind the engine does not know: said, and recorded too.
    html = operator.page(operator.post("/console/fraud/lift", {"scopeKind": "prefix", "scope": "+4474"},
                                       "/console/fraud"))
    assert "Nothing lifted: prefix +4474 has no block in force." in html
    html = operator.page(operator.post("/console/fraud/lift", {"scopeKind": "planet", "scope": "Mars"},
                                       "/console/fraud"))
    assert "Refused: " in html
    actions = [json.loads(line) for line in server.stdout().splitlines() if '"consoleAction"' in line]
    lifts = [(a["target"], a["outcome"]) for a in actions if a["action"] == "liftPumpingBlock"]
    assert lifts == [(f"prefix:{US_PREFIX}", "done"), ("prefix:+4474", "notBlocked"), ("planet:Mars", "refused")]
    assert all(a["actor"].startswith("admin:") for a in actions)

    # A lift without the session's CSRF token changes nothing.
    status, _, _ = operator.request("POST", "/console/fraud/lift", {"scopeKind": "prefix", "scope": US_PREFIX})
    assert status == 403


def test_before_any_code_the_pages_say_there_is_nothing(tmp_path):
    server = start_server(tmp_path, engine={"sms": {"provider": "console"}}, server={"console": {}})
    try:
        operator = Operator(server)
        html = operator.page("/console/delivery?window=hour")
        assert "<svg" not in html and "Codes per country, last hour: sent, delivered and verified: nothing to show." \
            in html, html
        tables = Tables(html).tables
        assert tables["Codes per channel, last hour"][1:] == [["None."]]
        assert tables["SMS providers skipped or restored since this server started"][1:] == [["None."]]
        assert Tables(operator.page("/console/fraud")).tables["Pumping decisions"][1:] == [["None."]]
        # A code to a test number sends nothing, so it counts nowhere.
        assert send(server, TEST_NUMBER)[0] == 200
        assert Tables(operator.page("/console/delivery")).tables["Codes per country, last day"][1:] == [["None."]]
        status, _, _ = operator.request("GET", "/console/delivery/elsewhere")
        assert status == 404
    finally:
        server.stop()


def test_a_provider_whose_probe_works_shows_as_restored(tmp_path):
    flaky = FakeServer()
    flaky.script(Answer(503, {"code": 20503, "message": "Service unavailable"}))
    flaky.answer(lambda request: Answer(201, {"sid": message_sid(request.form()["To"]), "status": "queued"}))
    good = FakeServer(default=Answer(201, {"sid": message_sid("+1"), "status": "queued"}))
    server = start_server(tmp_path, engine={
        "sms": {"providers": [twilio("flaky", flaky), twilio("twilio", good)],
                "breaker": {"failures": 1, "seconds": 1}, "retryBackoffMs": 10}}, server={"console": {}})
    try:
        operator = Operator(server)
        assert send(server, US_NUMBERS[0])[0] == 200
        good.wait_for_requests(1)
        caption = "SMS providers skipped or restored since this server started"
        [row] = Tables(operator.page("/console/delivery")).tables[caption][1:]
        assert row[:3] == ["flaky", "sms", "skipped"] and row[5] != "—", row
        # After its second, the next message probes it; it works, and it is back.
        time.sleep(1.2)
        assert send(server, US_NUMBERS[1])[0] == 200
        flaky.wait_for_requests(2)

        def health() -> List[str]:
            [row] = Tables(operator.page("/console/delivery")).tables[caption][1:]
            return row

        wait_until(lambda: health()[2] == "restored", "the probe's providerRestored")
        row = health()
        assert row[:2] == ["flaky", "sms"] and row[3].startswith("at ") and row[4:] == ["—", "—"], row
    finally:
        server.stop()
        flaky.close()
        good.close()
