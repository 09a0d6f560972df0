"""The operator's console (server.console), its Tenants and Operations sections, driven as a browser
without script would: sign in with an admin token (a cookie), read each form's CSRF token from the
page, post forms, follow the redirect to the page that says what happened. What the console did is
checked through the admin API too, and each action must be a consoleAction line in phoneauthd's log.

Events are configured with a receiver that answers 503 and a retry an hour away, so the event a
createUser records stays pending until the console drops it."""

from __future__ import annotations

import base64
import html
import json
import re
import secrets
from typing import Dict, List, Optional, Tuple

import pytest

from console_client import send
from conftest import ADMIN_TOKEN, start_server
from sms_servers import Answer, FakeServer

SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


class Console:
    """A signed-in operator: one cookie, forms posted with the CSRF token of the last page read."""

    def __init__(self, server):
        self.server = server
        self.cookie: Optional[str] = None
        self.csrf: Optional[str] = None

    def request(self, method: str, path: str, form: Optional[List[Tuple[str, str]]] = None
                ) -> Tuple[int, str, Dict[str, str]]:
        status, headers, text = send(self.server, method, path, self.cookie, form)
        return status, text, headers

    def sign_in(self) -> None:
        status, _, headers = self.request("POST", "/console/login", [("token", ADMIN_TOKEN)])
        assert status == 303, status
        self.cookie = headers["set-cookie"].split(";", 1)[0]

    def page(self, path: str, expect: int = 200) -> str:
        """The page's HTML; remembers its CSRF token (every signed-in page has the sign-out form)."""
        status, text, _ = self.request("GET", path)
        assert status == expect, (status, text)
        found = re.search(r'name="csrf" value="([^"]+)"', text)
        assert found, text
        self.csrf = html.unescape(found.group(1))
        return text

    def post(self, path: str, fields: List[Tuple[str, str]]) -> str:
        """Posts the form and follows the console's redirect: the page that shows the outcome."""
        assert self.csrf, "read a page first"
        status, text, headers = self.request("POST", path, [("csrf", self.csrf)] + fields)
        assert status == 303, (status, text)
        return self.page(headers["location"])


def notice(page: str) -> str:
    """What the page says the last action did (its role=status paragraph), as text."""
    found = re.search(r'<p role="status" class="notice">(.*?)</p>', page, re.S)
    assert found, page
    return html.unescape(found.group(1))


def actions(server) -> List[Tuple[str, str, str]]:
    lines = [json.loads(line) for line in server.stdout().splitlines() if '"consoleAction"' in line]
    return [(line["action"], line["target"], line["outcome"]) for line in lines]


def admin(server, method: str, params: dict) -> dict:
    status, body, _ = server.admin(method, params)
    assert status == 200, body
    return body


@pytest.fixture
def server(tmp_path):
    receiver = FakeServer(default=Answer(503, {"error": "down"}))
    server = start_server(
        tmp_path,
        engine={"sms": {"provider": "console"},
                "events": {"url": receiver.url + "/events", "secret": SECRET,
                           "retryMs": 3600000, "maxRetryMs": 3600000}},
        server={"console": {}})
    yield server
    server.stop()
    receiver.close()


@pytest.fixture
def console(server):
    operator = Console(server)
    operator.sign_in()
    return operator


def settings_form(**changes: object) -> List[Tuple[str, str]]:
    """The tenant settings form's fields: a display name, no test numbers, the engine's region
    policy, every second factor and no app name, unless `changes` says otherwise."""
    fields = {"displayName": "Acme-Shop", "testPhoneNumbers": "", "regionPolicy": "engine", "regions": "",
              "secondFactorsEvery": "1", "smsAppName": "", **changes}
    form = [(name, value) for name, value in fields.items() if name != "secondFactor" and value is not None]
    return form + [("secondFactor", kind) for kind in changes.get("secondFactor", [])]  # type: ignore[union-attr]


def test_a_tenant_is_created_and_its_settings_edited(server, console):
    console.page("/console/tenants")
    page = console.post("/console/tenants/create", [("displayName", "Acme-Shop"), ("tenantId", "acme")])
    assert notice(page) == "Tenant acme created."
    assert 'href="/console/users?tenant=acme"' in page

    page = console.post("/console/tenants/acme/update", settings_form(
        testPhoneNumbers="+1 650-555-0100 111111\r\n\r\n+16505550101   222222\r\n",
        regionPolicy="allowByDefault", regions="ru, by", secondFactorsEvery=None, secondFactor=["totp"],
        smsAppName="Acme"))
    assert notice(page) == "Settings saved."
    assert "+16505550100 111111\n+16505550101 222222</textarea>" in page
    assert 'name="secondFactor" value="totp" checked>' in page
    assert 'name="secondFactor" value="phone">' in page
    assert 'name="secondFactorsEvery" value="1">' in page
    assert '<option value="allowByDefault" selected>' in page
    tenant = admin(server, "getTenant", {"tenantId": "acme"})["tenant"]
    assert tenant["testPhoneNumbers"] == {"+16505550100": "111111", "+16505550101": "222222"}
    assert tenant["secondFactors"] == ["totp"]
    assert sorted(tenant["smsRegionPolicy"]["allowByDefault"]["disallowedRegions"]) == ["BY", "RU"]
    assert tenant["smsAppName"] == "Acme"

    # Every kind of second factor is null (the default pool's rule); an empty app name, the engine's.
    page = console.post("/console/tenants/acme/update", settings_form(regionPolicy="allowlistOnly", regions="GB"))
    tenant = admin(server, "getTenant", {"tenantId": "acme"})["tenant"]
    assert (tenant["secondFactors"], tenant["smsAppName"], tenant["testPhoneNumbers"]) == (None, None, {})
    assert tenant["smsRegionPolicy"] == {"allowlistOnly": {"allowedRegions": ["GB"]}}
    assert 'name="secondFactorsEvery" value="1" checked>' in page

    listing = console.page("/console/tenants")
    assert 'href="/console/tenants/acme">acme</a>' in listing and "only GB" in listing

    assert ("createTenant", "acme", "done") in actions(server)
    assert actions(server).count(("updateTenant", "acme", "done")) == 2


def test_refusals_are_shown_as_the_engine_words_them(server, console):
    console.page("/console/tenants")
    console.post("/console/tenants/create", [("displayName", "Acme-Shop"), ("tenantId", "acme")])

    page = console.post("/console/tenants/acme/update", settings_form(regionPolicy="allowlistOnly", regions="GB, XX"))
    said = notice(page)
    assert said.startswith("Refused: The field 'smsRegionPolicy.allowlistOnly.allowedRegions' has unknown region"), said
    assert "'XX'" in said
    page = console.post("/console/tenants/acme/update", settings_form(testPhoneNumbers="+16505550100 12"))
    assert "testPhoneNumbers" in notice(page) and notice(page).startswith("Refused: "), notice(page)
    # A line the form cannot read is the console's refusal, naming the field and the line.
    page = console.post("/console/tenants/acme/update", settings_form(testPhoneNumbers="+16505550100 111111\n42"))
    assert notice(page) == ("Refused: The field 'testPhoneNumbers': line 2 must be a number, a space and its "
                            "6-digit code.")
    page = console.post("/console/tenants/create", [("displayName", "x")])
    assert notice(page).startswith("Refused: The field 'displayName'"), notice(page)
    page = console.post("/console/tenants/create", [("displayName", "Acme-Shop"), ("tenantId", "acme")])
    assert notice(page).startswith("Refused: "), notice(page)

    # Nothing refused was written.
    tenant = admin(server, "getTenant", {"tenantId": "acme"})["tenant"]
    assert (tenant["smsRegionPolicy"], tenant["testPhoneNumbers"]) == (None, {})
    assert actions(server).count(("updateTenant", "acme", "refused")) == 3
    assert ("createTenant", "x", "refused") in actions(server)
    assert ("createTenant", "acme", "refused") in actions(server)


def test_deleting_a_tenant_is_confirmed_and_refused_while_it_has_users(server, console):
    console.page("/console/tenants")
    console.post("/console/tenants/create", [("displayName", "Acme-Shop"), ("tenantId", "acme")])
    admin(server, "createUser", {"uid": "u1", "tenantId": "acme"})
    page = console.post("/console/tenants/acme/delete", [("confirm", "acm")])
    assert notice(page) == "Not deleted: type the tenant ID to confirm."
    page = console.post("/console/tenants/acme/delete", [("confirm", "acme")])
    assert notice(page).startswith("Refused: "), notice(page)
    admin(server, "deleteUser", {"uid": "u1", "tenantId": "acme"})
    page = console.post("/console/tenants/acme/delete", [("confirm", "acme")])
    assert notice(page) == "Tenant acme deleted."
    assert server.admin("getTenant", {"tenantId": "acme"})[0] != 200
    assert [a for a in actions(server) if a[0] == "deleteTenant"] == [
        ("deleteTenant", "acme", "unconfirmed"), ("deleteTenant", "acme", "refused"),
        ("deleteTenant", "acme", "done")]


def test_signing_keys_rotate_and_retire(server, console):
    page = console.page("/console/operations")
    (old,) = [key["kid"] for key in admin(server, "listSigningKeys", {})["keys"]]
    assert html.escape(old) in page
    assert "<h2>Engine status</h2><dl>" in page and "schemaVersion" in page
    assert "<h2>Storage statistics</h2><dl>" in page and "sqlite" in page

    page = console.post("/console/operations/rotate", [("algorithm", "RS256")])
    keys = admin(server, "listSigningKeys", {})["keys"]
    assert [key["kid"] for key in keys][0] == old and len(keys) == 2
    new = keys[1]
    assert (new["algorithm"], new["active"]) == ("RS256", True)
    assert notice(page).startswith(f"Rotated: key {new['kid']} signs from now on")
    assert html.escape(old) in page and html.escape(new["kid"]) in page

    page = console.post("/console/operations/retire", [("kid", "no-such-kid")])
    assert notice(page).startswith("Refused: "), notice(page)
    page = console.post("/console/operations/retire", [("kid", old)])
    assert notice(page) == f"Key {old} retired: the tokens it signed no longer verify."
    assert [key["kid"] for key in admin(server, "listSigningKeys", {})["keys"]] == [new["kid"]]
    assert html.escape(old) not in page.split("<h2>Signing keys</h2>")[1].split("<h2>Events")[0]

    assert [a for a in actions(server) if a[0] in ("rotateSigningKey", "retireSigningKey")] == [
        ("rotateSigningKey", new["kid"], "done"), ("retireSigningKey", "no-such-kid", "refused"),
        ("retireSigningKey", old, "done")]


def test_a_pending_event_is_shown_and_dropped(server, console):
    admin(server, "createUser", {"uid": "u1"})
    (event,) = admin(server, "listPendingEvents", {})["events"]
    page = console.page("/console/operations")
    assert html.escape(event["id"]) in page and "userCreated" in page and ">u1<" in page

    page = console.post("/console/operations/drop", [("eventId", event["id"])])
    assert notice(page) == "Not dropped: tick the box to confirm."
    assert admin(server, "listPendingEvents", {})["events"] != []
    page = console.post("/console/operations/drop", [("eventId", event["id"]), ("confirm", "1")])
    assert notice(page) == f"Event {event['id']} dropped: it will not be delivered."
    assert admin(server, "listPendingEvents", {})["events"] == []
    assert "userCreated" not in page
    page = console.post("/console/operations/drop", [("eventId", event["id"]), ("confirm", "1")])
    assert notice(page).startswith("Refused: "), notice(page)

    assert [a for a in actions(server) if a[0] == "dropPendingEvent"] == [
        ("dropPendingEvent", event["id"], "unconfirmed"), ("dropPendingEvent", event["id"], "done"),
        ("dropPendingEvent", event["id"], "refused")]


def test_a_forged_post_changes_nothing(server, console):
    console.page("/console/operations")
    status, _, _ = console.request("POST", "/console/operations/rotate", [("csrf", "forged"), ("algorithm", "ES256")])
    assert status == 403
    assert len(admin(server, "listSigningKeys", {})["keys"]) == 1
    assert ("post", "/console/operations/rotate", "forged") in actions(server)


def next_link(page: str, text: str) -> str:
    found = re.search(r'<a href="([^"]+)">' + re.escape(text) + "</a>", page)
    assert found, page
    return html.unescape(found.group(1))


def test_tenants_and_pending_events_are_paged(server, console):
    for index in range(51):
        admin(server, "createTenant", {"displayName": f"Tenant-{index:02}", "tenantId": f"t{index:02}"})
        admin(server, "createUser", {"uid": f"u{index:02}"})
    first = console.page("/console/tenants")
    assert 'href="/console/tenants/t49"' in first and 'href="/console/tenants/t50"' not in first
    second = console.page(next_link(first, "Next page"))
    assert 'href="/console/tenants/t50"' in second and 'href="/console/tenants/t00"' not in second
    assert "Next page" not in second

    first = console.page("/console/operations")
    assert first.count('action="/console/operations/drop"') == 50
    second = console.page(next_link(first, "More events"))
    assert second.count('action="/console/operations/drop"') == 1 and ">u50<" in second
