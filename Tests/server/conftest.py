"""Fixtures that run the real phoneauthd (the binary PHONEAUTHD names, else the debug build) on a
loopback port with a configuration the test writes, and talk to it over HTTP.

    server = start_server(tmp_path, {"testPhoneNumbers": {...}}, server={"emulatorCompat": True})
    status, body, headers = server.post("/phoneauth/v1/verifyPhoneNumber", {...})
    server.stop()               # SIGTERM; returns the exit status

`emulator` and `production` are ready-made servers for the common cases.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = os.environ.get("PHONEAUTHD") or str(ROOT / ".build" / "debug" / "phoneauthd")
# make test's phoneauthd is built without the TLS trait (SwiftNIO SSL's BoringSSL costs minutes of
# CPU); make test-tls builds one with it and sets PHONEAUTHD_TLS=1, which the HTTPS tests then need.
HAS_TLS = os.environ.get("PHONEAUTHD_TLS") == "1"
needs_tls = pytest.mark.skipif(not HAS_TLS, reason="phoneauthd without the TLS trait: make test-tls runs this")
PROJECT = "demo-phoneauth"
ISSUER = f"https://securetoken.google.com/{PROJECT}"
ADMIN_TOKEN = "admin-token-0123456789abcdef"
TEST_NUMBER, TEST_CODE = "+16505551234", "123456"
SECOND_NUMBER, SECOND_CODE = "+16505554321", "654321"
sys.path.insert(0, str(ROOT / "bindings" / "python" / "tests"))


def pytest_configure(config):
    config.addinivalue_line("markers", "long_running: a test of a minute or more, started first")


def pytest_collection_modifyitems(items):
    """The long tests first: xdist hands them to a worker at once, and the other workers run the
    rest meanwhile, instead of one long test starting last and running alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("long_running") is None)


class Server:
    def __init__(self, process: subprocess.Popen, url: str, log_dir: Path):
        self.process, self.url, self.log_dir = process, url, log_dir

    @property
    def host_port(self) -> str:
        return self.url.split("://", 1)[1]

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
                raw: Optional[bytes] = None) -> Tuple[int, Any, Dict[str, str]]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        all_headers = {"Content-Type": "application/json"} if data is not None else {}
        all_headers.update(headers or {})
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                status, text, answer_headers = answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as error:
            status, text, answer_headers = error.code, error.read(), dict(error.headers)
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text.decode()
        return status, parsed, answer_headers

    def post(self, path: str, body: Any = None, **kw: Any) -> Tuple[int, Any, Dict[str, str]]:
        return self.request("POST", path, body if body is not None else {}, **kw)

    def get(self, path: str, **kw: Any) -> Tuple[int, Any, Dict[str, str]]:
        return self.request("GET", path, **kw)

    def admin(self, method: str, params: Dict[str, Any]) -> Tuple[int, Any, Dict[str, str]]:
        return self.post(f"/phoneauth/v1/{method}", params, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def stdout(self) -> str:
        return (self.log_dir / "stdout.log").read_text()

    def stderr(self) -> str:
        return (self.log_dir / "stderr.log").read_text()


def write_config(tmp_path: Path, engine: Dict[str, Any], server: Dict[str, Any]) -> Path:
    config = {"database": str(tmp_path / "phoneauth.db"), "projectId": PROJECT, "issuer": ISSUER,
              "testPhoneNumbers": {TEST_NUMBER: TEST_CODE, SECOND_NUMBER: SECOND_CODE},
              # On by default, the pumping defense would refuse the many codes these tests send and
              # never enter; test_pumping.py tests it through phoneauthd.
              "pumping": {"mode": "off"}}
    config.update(engine)
    config["server"] = {"port": 0, "adminTokens": [ADMIN_TOKEN], **server}
    path = tmp_path / f"config-{time.monotonic_ns()}.json"
    path.write_text(json.dumps(config))
    return path


def start_server(tmp_path: Path, engine: Optional[Dict[str, Any]] = None, server: Optional[Dict[str, Any]] = None,
                 env: Optional[Dict[str, str]] = None) -> Server:
    """Starts phoneauthd and waits for its "listening" line; fails with its stderr if it exits."""
    path = write_config(tmp_path, engine or {}, server or {})
    log_dir = tmp_path / f"logs-{time.monotonic_ns()}"
    log_dir.mkdir()
    out, err = open(log_dir / "stdout.log", "wb"), open(log_dir / "stderr.log", "wb")
    process = subprocess.Popen([BINARY, "--config", str(path)], stdout=out, stderr=err,
                               env={**os.environ, **(env or {})})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in (log_dir / "stderr.log").read_text().splitlines():
            if '"listening"' in line:
                return Server(process, json.loads(line)["url"], log_dir)
        if process.poll() is not None:
            raise AssertionError(f"phoneauthd exited {process.returncode}: {(log_dir / 'stderr.log').read_text()}")
        time.sleep(0.02)
    process.kill()
    raise AssertionError("phoneauthd did not start in 30 s")


def run_server(tmp_path: Path, engine: Optional[Dict[str, Any]] = None, server: Optional[Dict[str, Any]] = None,
               env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    """Runs phoneauthd to completion (for configurations it must refuse)."""
    path = write_config(tmp_path, engine or {}, server or {})
    return subprocess.run([BINARY, "--config", str(path)], capture_output=True, text=True, timeout=30,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def emulator(tmp_path: Path):
    """A server in development mode (emulatorCompat): codes kept, not sent."""
    server = start_server(tmp_path, server={"emulatorCompat": True})
    yield server
    server.stop()


@pytest.fixture
def signing_emulator(tmp_path: Path):
    """Development mode with no resend interval, so one number can sign in several times."""
    server = start_server(tmp_path, engine={"resendAfterSeconds": 0}, server={"emulatorCompat": True})
    yield server
    server.stop()


@pytest.fixture
def firebase_app(server, monkeypatch):
    """An app of the unmodified firebase-admin in emulator mode, pointed at the module's `server`."""
    import uuid

    import firebase_admin
    import google.auth.credentials

    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", server.host_port)
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", PROJECT)
    created = firebase_admin.initialize_app(google.auth.credentials.AnonymousCredentials(),
                                            options={"projectId": PROJECT}, name=f"test-{uuid.uuid4().hex}")
    yield created
    firebase_admin.delete_app(created)


@pytest.fixture
def production(tmp_path: Path):
    """A server as deployed: SMS through a webhook to a loopback receiver (`production.sms`),
    no emulator features, an API key required."""
    from sms_servers import FakeServer, Answer

    receiver = FakeServer()
    receiver.answer(Answer(200, {"messageId": "m1"}))
    secret = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    server = start_server(tmp_path, engine={"sms": {"providers": [{"type": "webhook", "url": receiver.url, "secret": secret}]}},
                          server={"apiKeys": ["test-api-key"]})
    server.sms = receiver
    yield server
    server.stop()
    receiver.close()
