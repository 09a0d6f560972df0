"""The engine's catalogue of operations, as phoneauthd serves it: every method answers no token, an
API key and an admin token as its declared access says, and the documents list what it lists."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ADMIN_TOKEN, ROOT, start_server

KEY = "client-key"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
# The answers that refuse a caller for who it is, by code.
ACCESS_REFUSALS = {"invalidApiKey", "insufficientPermission"}
LIBRARY_REFUSAL = "not offered over HTTP"
CONSOLE = {"sms": {"provider": "console"}}


def catalogue(server) -> list:
    status, body, _ = server.post(f"/phoneauth/v1/listMethods?key={KEY}", {})
    assert status == 200, body
    return body["methods"]


def refusal(answer) -> str:
    """The access refusal an answer carries: its code, or "" when the call got past access."""
    status, body, _ = answer
    error = (body or {}).get("error", {}) if isinstance(body, dict) else {}
    code = error.get("code", "")
    if code in ACCESS_REFUSALS:
        return code
    if code == "operationNotAllowed" and LIBRARY_REFUSAL in error.get("message", ""):
        return "library"
    return ""


def test_every_method_answers_as_its_access_says(tmp_path: Path):
    server = start_server(tmp_path, engine=CONSOLE, server={"apiKeys": [KEY]})
    try:
        methods = catalogue(server)
        assert len(methods) > 40
        seen = set()
        for method in methods:
            name, access = method["name"], method["access"]
            seen.add(access)
            path = f"/phoneauth/v1/{name}"
            nothing = refusal(server.post(path, {}))
            key = refusal(server.post(f"{path}?key={KEY}", {}))
            admin = refusal(server.post(path, {}, headers=ADMIN))
            admin_and_key = refusal(server.post(f"{path}?key={KEY}", {}, headers=ADMIN))
            if access == "client":
                assert (nothing, key, admin, admin_and_key) == ("invalidApiKey", "", "invalidApiKey", ""), name
            elif access == "admin":
                assert (nothing, key, admin, admin_and_key) == ("insufficientPermission",) * 2 + ("", ""), name
            else:
                assert access == "library", name
                assert (nothing, key, admin, admin_and_key) == ("library",) * 4, name
        assert seen == {"client", "admin", "library"}
    finally:
        server.stop()


def test_the_server_sets_the_address_of_the_methods_that_say_so(tmp_path: Path):
    """A client's own clientIp is replaced: a made-up one is no error where the server sets it."""
    server = start_server(tmp_path, engine=CONSOLE)
    try:
        status, body, _ = server.post("/phoneauth/v1/listMethods", {})
        setters = {m["name"] for m in body["methods"] if m["setsClientIp"]}
        assert "verifyPhoneNumber" in setters and "getUser" not in setters
        status, body, _ = server.post("/phoneauth/v1/verifyPhoneNumber",
                                      {"phoneNumber": "+16505551234", "clientIp": "not-an-address"})
        assert status == 200, body
    finally:
        server.stop()


def test_the_documents_list_the_catalogue(tmp_path: Path):
    server = start_server(tmp_path, engine=CONSOLE)
    try:
        status, body, _ = server.post("/phoneauth/v1/listMethods", {})
        methods = {m["name"]: m for m in body["methods"]}
    finally:
        server.stop()
    document = (ROOT / "docs/openapi.yaml").read_text()
    documented = dict(re.findall(r"^  /phoneauth/v1/(\w+):\n    post:\n      operationId: \w+\n      tags: \[(\w+)\]",
                                 document, re.M))
    assert set(documented) == set(methods), "docs/openapi.yaml's methods are the catalogue's"
    for name, tag in documented.items():
        assert tag == methods[name]["access"], f"{name}: tagged {tag} in docs/openapi.yaml"
    api = (ROOT / "docs/API.md").read_text()
    section = api.split("\n## Methods\n", 1)[1].split("\n## ", 1)[0]
    headed = {name for heading in re.findall(r"^### (.+)$", section, re.M) for name in re.findall(r"\w+", heading)}
    assert headed == set(methods), "docs/API.md's Methods headings are the catalogue's"
