"""The operator's console in a real browser (headless Chromium over the DevTools protocol): an
operator signs in with an admin token, finds a user by number, disables them and sees their
sign-in refused; the page's security is checked as a browser and as a client see it (the
Content-Security-Policy, the session cookie's flags, no script, a forged cross-site POST
refused). Screenshots are saved in the test's folder under screenshots/."""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from typing import Dict, Tuple

import pytest

from browser import EXECUTABLE, Browser
from console_client import raw
from conftest import ADMIN_TOKEN, SECOND_CODE, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, start_server
from sms_servers import Answer, FakeServer
from test_console_sections import US_PREFIX, send_the_codes, start_sections_server, twilios  # noqa: F401 (a fixture)

pytestmark = pytest.mark.skipif(EXECUTABLE is None, reason="chromium is not installed")


def sign_in_by_sms(server) -> Tuple[int, Dict]:
    status, sent, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    assert status == 200, sent
    status, signed, _ = server.post("/phoneauth/v1/signInWithCredential", {
        "credential": {"verificationId": sent["verificationId"], "verificationCode": TEST_CODE}})
    return status, signed


def load(tab, url: str) -> None:
    tab.call("Page.navigate", {"url": url})
    tab.wait_for(lambda e: e.get("method") == "Page.loadEventFired", url)


def submit(tab, selector: str) -> None:
    """Clicks the button `selector` and waits for the page it leads to."""
    tab.click(selector)
    tab.wait_for(lambda e: e.get("method") == "Page.loadEventFired", f"the page after {selector}")


@pytest.fixture
def server(tmp_path):
    server = start_server(tmp_path, engine={"sms": {"provider": "console"}}, server={"console": {}})
    yield server
    server.stop()


def test_an_operator_finds_a_user_by_number_and_disables_them(server, tmp_path):
    status, signed = sign_in_by_sms(server)
    assert status == 200, signed
    uid = signed["user"]["uid"]
    shots = tmp_path / "screenshots"
    with Browser(tmp_path) as browser:
        # Not signed in: the console sends the browser to its sign-in page.
        tab = browser.open(server.url + "/console")
        tab.wait_for(lambda e: e.get("method") == "Page.loadEventFired", "the console")
        tab.call("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 900, "deviceScaleFactor": 1,
                                                        "mobile": False})
        assert tab.evaluate("location.pathname") == "/console/login"
        tab.evaluate(f"document.getElementById('token').value = {json.dumps(ADMIN_TOKEN)}")
        submit(tab, "form button")
        assert tab.evaluate("document.querySelector('h1').textContent") == "Overview"
        [cookie] = [c for c in tab.call("Network.getCookies")["cookies"] if c["name"] == "phoneauth_console"]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/console"

        # Found by the number as a person types it, shown masked until asked.
        national = "+1 (650) 555-" + TEST_NUMBER[-4:]
        load(tab, server.url + "/console/users?q=" + urllib.parse.quote(national))
        assert uid in tab.evaluate("document.querySelector('table').textContent")
        assert TEST_NUMBER not in tab.evaluate("document.body.textContent")
        submit(tab, f"a[href='/console/users/{uid}']")
        tab.screenshot(shots / "console-user.png")
        submit(tab, "form[action$='/disable'] button")
        assert "disabled" in tab.evaluate("document.querySelector('[role=status]').textContent")
        tab.screenshot(shots / "console-user-disabled.png")
        status, refused = sign_in_by_sms(server)
        assert status == 403 and refused["error"]["code"] == "userDisabled", refused

        # The page ran no script and broke no rule of its policy.
        assert tab.evaluate("document.scripts.length") == 0
        assert not [line for line in tab.console() if "Content Security Policy" in line], tab.console()

        # A page of another site posting to the console: the browser sends no cookie
        # (SameSite=Strict) and says where the form came from; nothing is deleted.
        evil = FakeServer(default=Answer(200, (
            f"<!doctype html><form method=post action='{server.url}/console/users/{uid}/delete'>"
            f"<input name=csrf value=guess><input name=confirm value='{uid}'><button>Win a prize</button></form>"),
            headers={"Content-Type": "text/html"}))
        try:
            other = browser.open(f"http://localhost:{evil.port}/")
            other.wait_for(lambda e: e.get("method") == "Page.loadEventFired", "the other site")
            submit(other, "button")
            assert "posted from another site" in other.evaluate("document.querySelector('main').textContent")
        finally:
            evil.close()
    status, _, _ = server.admin("getUser", {"uid": uid})
    assert status == 200
    actions = [json.loads(line) for line in server.stdout().splitlines() if '"consoleAction"' in line]
    assert any(a["action"] == "disableUser" and a["target"] == uid and a["outcome"] == "done" for a in actions)
    assert all(a["actor"].startswith("admin:") and ADMIN_TOKEN not in json.dumps(a) for a in actions)


POSTED = {"Content-Type": "application/x-www-form-urlencoded"}


def console_session(server, **headers: str) -> Tuple[str, str]:
    """A signed-in session's cookie and its CSRF token (read from a page, as a browser would)."""
    status, answer, _ = raw(server, "POST", "/console/login", urllib.parse.urlencode({"token": ADMIN_TOKEN}),
                            {**POSTED, **headers})
    assert status == 303, answer
    cookie = answer["set-cookie"].split(";")[0]
    _, _, page = raw(server, "GET", "/console", headers={"Cookie": cookie})
    return cookie, re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def test_the_pages_headers_and_cookie_as_a_client_sees_them(server):
    status, headers, body = raw(server, "GET", "/console/login")
    assert status == 200
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy and "unsafe" not in policy
    assert "frame-ancestors 'none'" in policy and headers["x-frame-options"] == "DENY"
    assert headers["cache-control"] == "no-store" and "<script" not in body
    form = urllib.parse.urlencode({"token": ADMIN_TOKEN})
    # On the browser's own machine (http://localhost) the cookie cannot be Secure; elsewhere an
    # admin token never goes over plain HTTP.
    status, headers, _ = raw(server, "POST", "/console/login", form, POSTED)
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    status, _, body = raw(server, "POST", "/console/login", form, {**POSTED, "Host": "console.example.com"})
    assert status == 403 and "Sign in over HTTPS" in body
    session, csrf = console_session(server)
    # The right CSRF token, but the browser says another site sent the form: refused, and the
    # session goes on. A wrong token from this site: refused too.
    for elsewhere in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://evil.example"}):
        status, _, body = raw(server, "POST", "/console/logout", f"csrf={csrf}",
                              {**POSTED, "Cookie": session, **elsewhere})
        assert status == 403 and "posted from another site" in body, elsewhere
    status, _, body = raw(server, "POST", "/console/logout", "csrf=wrong", {**POSTED, "Cookie": session})
    assert status == 403 and "CSRF" in body
    status, _, body = raw(server, "GET", "/console", headers={"Cookie": session})
    assert status == 200 and "Overview" in body
    # Signing out ends the session; signing in again ends the earlier one.
    again, _ = console_session(server, Cookie=session)
    assert raw(server, "GET", "/console", headers={"Cookie": session})[0] == 303
    _, again_csrf = console_session(server)  # another, unrelated session
    status, _, _ = raw(server, "POST", "/console/logout", f"csrf={again_csrf}", {**POSTED, "Cookie": again})
    assert status == 403, "a CSRF token of another session is no token of this one"
    _, _, page = raw(server, "GET", "/console", headers={"Cookie": again})
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert raw(server, "POST", "/console/logout", f"csrf={csrf}", {**POSTED, "Cookie": again})[0] == 303
    assert raw(server, "GET", "/console", headers={"Cookie": again})[0] == 303
    # Wrong tokens are refused, logged while few, and an address that keeps trying is throttled.
    for _ in range(10):
        status, _, body = raw(server, "POST", "/console/login", "token=not-the-token-000000", POSTED)
        assert status == 401 and "not an admin token" in body
    status, _, body = raw(server, "POST", "/console/login", form, POSTED)
    assert status == 429 and "Too many wrong tokens" in body
    refused = [line for line in server.stdout().splitlines() if '"consoleAction"' in line and '"refused"' in line]
    assert len(refused) == 10


def test_behind_a_proxy_the_public_url_is_the_origin_and_the_cookie_is_secure(tmp_path):
    server = start_server(tmp_path, engine={"sms": {"provider": "console"}},
                          server={"console": {}, "publicUrl": "https://auth.example.com"})
    try:
        # The proxy's Host is phoneauthd's own address; the browser's Origin is the public one.
        session, csrf = console_session(server, Origin="https://auth.example.com")
        status, headers, _ = raw(server, "POST", "/console/login", urllib.parse.urlencode({"token": ADMIN_TOKEN}),
                                 {**POSTED, "Origin": "https://auth.example.com"})
        assert status == 303 and re.search(r"; Secure\b", headers["set-cookie"]), headers
        status, _, _ = raw(server, "POST", "/console/logout", f"csrf={csrf}",
                           {**POSTED, "Cookie": session, "Origin": "https://auth.example.com"})
        assert status == 303
    finally:
        server.stop()


def test_what_users_wrote_is_shown_as_text_and_each_action_is_recorded(server):
    status, signed = sign_in_by_sms(server)
    uid = signed["user"]["uid"]
    hostile = '"><svg onload=alert(1)><script>alert(2)</script>'
    assert server.admin("updateUser", {"uid": uid, "displayName": hostile})[0] == 200
    session, csrf = console_session(server)
    for path in ("/console/users?q=" + urllib.parse.quote("+1 650 555 " + TEST_NUMBER[-4:]), f"/console/users/{uid}"):
        _, _, page = raw(server, "GET", path, headers={"Cookie": session})
        assert hostile not in page and "&quot;&gt;&lt;svg onload=alert(1)&gt;" in page, path
        assert TEST_NUMBER not in page
    _, _, page = raw(server, "GET", f"/console/users/{uid}?reveal=1", headers={"Cookie": session})
    assert TEST_NUMBER in page
    # Deleting needs the uid typed; then the user is gone.
    status, headers, _ = raw(server, "POST", f"/console/users/{uid}/delete", f"csrf={csrf}&confirm=nope",
                             {**POSTED, "Cookie": session})
    assert status == 303 and server.admin("getUser", {"uid": uid})[0] == 200
    status, headers, _ = raw(server, "POST", f"/console/users/{uid}/delete",
                             urllib.parse.urlencode({"csrf": csrf, "confirm": uid}), {**POSTED, "Cookie": session})
    assert status == 303 and headers["location"].startswith("/console/users?notice=")
    assert server.admin("getUser", {"uid": uid})[0] == 404
    actions = [(a["action"], a["target"], a["outcome"])
               for a in (json.loads(line) for line in server.stdout().splitlines() if '"consoleAction"' in line)]
    assert ("revealNumber", uid, "done") in actions
    assert ("deleteUser", uid, "unconfirmed") in actions and ("deleteUser", uid, "done") in actions


def sign_in_to_console(browser, server):
    tab = browser.open(server.url + "/console/login")
    tab.wait_for(lambda e: e.get("method") == "Page.loadEventFired", "the sign-in page")
    tab.call("Emulation.setDeviceMetricsOverride", {"width": 1200, "height": 900, "deviceScaleFactor": 1,
                                                    "mobile": False})
    tab.evaluate(f"document.getElementById('token').value = {json.dumps(ADMIN_TOKEN)}")
    submit(tab, "form button")
    return tab


def test_an_operator_sees_the_deliveries_charted_and_the_pumping_decision(tmp_path, twilios):
    """Codes to a US prefix (five, none entered: the sixth is refused, the prefix blocked) and two
    to GB numbers (one delivered, one entered), through a fake Twilio: the Delivery page draws
    them (screenshot console-delivery.png), the Fraud page shows the block and lifts it
    (console-fraud.png)."""
    server = start_sections_server(tmp_path, twilios)
    try:
        send_the_codes(server, twilios[1])
        shots = tmp_path / "screenshots"
        with Browser(tmp_path) as browser:
            tab = sign_in_to_console(browser, server)
            submit(tab, "nav a[href='/console/delivery']")
            # The countries' chart: a bar per count, labelled with its country, drawn by the server.
            chart = tab.evaluate("document.querySelector('svg[role=img]').textContent")
            assert "US" in chart and "GB" in chart, chart
            assert tab.evaluate("document.querySelectorAll('svg[role=img] rect').length") >= 6
            tab.screenshot(shots / "console-delivery.png")
            submit(tab, "nav a[href='/console/fraud']")
            table = tab.evaluate("document.querySelector('table').textContent")
            assert "refused" in table and US_PREFIX in table, table
            tab.screenshot(shots / "console-fraud.png")
            submit(tab, "form[action='/console/fraud/lift'] button")
            assert "is lifted" in tab.evaluate("document.querySelector('[role=status]').textContent")
            assert tab.evaluate("document.scripts.length") == 0
            assert not [line for line in tab.console() if "Content Security Policy" in line], tab.console()
    finally:
        server.stop()


def test_a_users_page_lists_its_events_not_yet_delivered(tmp_path):
    receiver = FakeServer(default=Answer(503, {"error": "down"}))
    server = start_server(tmp_path, engine={
        "sms": {"provider": "console"},
        "events": {"url": receiver.url + "/events", "secret": "whsec_" + base64.b64encode(bytes(32)).decode(),
                   "retryMs": 3600000, "maxRetryMs": 3600000}}, server={"console": {}})
    try:
        status, signed = sign_in_by_sms(server)
        assert status == 200, signed
        uid = signed["user"]["uid"]
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        _, headers, _ = raw(server, "POST", "/console/login", urllib.parse.urlencode({"token": ADMIN_TOKEN}), form)
        status, _, page = raw(server, "GET", f"/console/users/{uid}", headers={"Cookie": headers["set-cookie"]})
        assert status == 200
        table = page.split("<caption>Events not yet delivered</caption>", 1)[1].split("</table>", 1)[0]
        assert "userCreated" in table and "userSignedIn" in table, table
        # Read by subject: another user's events are not among them.
        status, sent, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": SECOND_NUMBER})
        status, other, _ = server.post("/phoneauth/v1/signInWithCredential", {
            "credential": {"verificationId": sent["verificationId"], "verificationCode": SECOND_CODE}})
        assert status == 200, other
        _, everything, _ = server.admin("listPendingEvents", {})
        _, mine, _ = server.admin("listPendingEvents", {"subject": uid})
        assert {e["subject"] for e in everything["events"]} == {uid, other["user"]["uid"]}
        assert {e["subject"] for e in mine["events"]} == {uid} and len(mine["events"]) == table.count("<tr>") - 1  # the header row
    finally:
        server.stop()
        receiver.close()


def type_into(tab, selector: str, text: str) -> None:
    tab.evaluate(f"document.querySelector({json.dumps(selector)}).value = {json.dumps(text)}")


def test_an_operator_runs_the_other_sections_in_the_browser(server, tmp_path):
    """The rest of the console by hand: a user enabled again, signed out everywhere and deleted; a
    tenant created and its settings edited; a signing key rotated (screenshots console-tenant.png,
    console-operations.png)."""
    status, signed = sign_in_by_sms(server)
    uid = signed["user"]["uid"]
    shots = tmp_path / "screenshots"
    with Browser(tmp_path) as browser:
        tab = sign_in_to_console(browser, server)
        load(tab, f"{server.url}/console/users/{uid}")
        for action, said in (("disable", "disabled"), ("enable", "enabled")):
            submit(tab, f"form[action$='/{action}'] button")
            assert said in tab.evaluate("document.querySelector('[role=status]').textContent"), action
        # Enabled again, the user signs in; ending every session ends that one too.
        status, signed = sign_in_by_sms(server)
        assert status == 200, signed
        submit(tab, "form[action$='/revoke'] button")
        assert "ended" in tab.evaluate("document.querySelector('[role=status]').textContent")
        status, refused, _ = server.post("/phoneauth/v1/refreshIdToken", {"refreshToken": signed["refreshToken"]})
        assert status == 401 and refused["error"]["code"] == "invalidUserToken", refused
        assert refused["error"]["details"]["reason"] == "revoked", refused
        type_into(tab, "#confirm", uid)
        submit(tab, "form[action$='/delete'] button")
        assert "deleted" in tab.evaluate("document.querySelector('[role=status]').textContent")
        assert server.admin("getUser", {"uid": uid})[0] == 404

        submit(tab, "nav a[href='/console/tenants']")
        type_into(tab, "#displayName", "Shop-Two")
        type_into(tab, "#tenantId", "shop-two")
        submit(tab, "form[action='/console/tenants/create'] button")
        load(tab, f"{server.url}/console/tenants/shop-two")
        type_into(tab, "#testPhoneNumbers", "+1 650-555-0177 177177")
        tab.evaluate("document.getElementById('factorsEvery').checked = false;"
                     " document.getElementById('factor-totp').checked = true")
        submit(tab, "form[action$='/update'] button")
        tab.screenshot(shots / "console-tenant.png")
        status, tenant, _ = server.admin("getTenant", {"tenantId": "shop-two"})
        assert tenant["tenant"]["testPhoneNumbers"] == {"+16505550177": "177177"}, tenant
        assert tenant["tenant"]["secondFactors"] == ["totp"], tenant

        submit(tab, "nav a[href='/console/operations']")
        before = len(server.admin("listSigningKeys", {})[1]["keys"])
        submit(tab, "form[action$='/rotate'] button")
        assert len(server.admin("listSigningKeys", {})[1]["keys"]) == before + 1
        tab.screenshot(shots / "console-operations.png")
        assert tab.evaluate("document.scripts.length") == 0
        assert not [line for line in tab.console() if "Content Security Policy" in line], tab.console()


def test_an_operator_unlocks_a_number_locked_by_wrong_codes(tmp_path):
    number = "+16505553434"  # a real number: a test number's fixed code locks nothing
    server = start_server(tmp_path, engine={"sms": {"provider": "console"}, "resendAfterSeconds": 0,
                                            "quotas": {"maxConsecutiveFailures": 2}}, server={"console": {}})
    try:
        status, created, _ = server.admin("createUser", {"phoneNumber": number})
        assert status == 200, created
        uid = created["user"]["uid"]

        def start() -> Tuple[int, Dict]:
            status, sent, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": number})
            return status, sent

        for _ in range(2):
            _, sent = start()
            server.post("/phoneauth/v1/signInWithCredential", {
                "credential": {"verificationId": sent["verificationId"], "verificationCode": "000000"}})
        status, locked = start()
        assert status == 429 and locked["error"]["details"]["reason"] == "numberLocked", locked
        session, csrf = console_session(server)
        status, headers, _ = raw(server, "POST", f"/console/users/{uid}/unlock", f"csrf={csrf}",
                                 {**POSTED, "Cookie": session})
        assert status == 303 and "unlocked" in urllib.parse.unquote(headers["location"]), headers
        status, sent = start()
        assert status == 200, sent
    finally:
        server.stop()
