"""Loopback HTTP(S) servers standing in for SMS providers (Twilio, Vonage, a webhook receiver) in
test_sms_providers.py. Each records every request it gets and answers from a script the test sets.

    server = FakeServer()                       # http://127.0.0.1:<port>
    server.answer(Answer(201, {"sid": "SM1"}))  # the answer to every request from now on
    server.script(Answer(500), Answer(201))     # these answers first, one per request, then the default
    server.answer(Answer(201, hold=gate))       # answered once the test sets the threading.Event gate
    server.answer(Answer(201, gather=4))        # answered once 4 requests are in the server at once
    server.wait_for_requests(2)
    server.requests[0].form()                   # the decoded form fields of the first request

Also: closed_port() (a port nothing listens on) and make_tls_files() (a private CA and a server
certificate for 127.0.0.1, as PEM files); the fixtures `servers` (servers(default, tls=None) makes
a server closed after the test) and `no_proxy`, for the test modules that import them.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple, Union
from urllib.parse import parse_qsl

import pytest


# The longest a held answer waits for what it waits for (then it goes anyway, and the test fails
# on what it then sees).
HOLD_LIMIT = 15.0


@dataclass
class Answer:
    """What the server sends back: a status, a body (a dict or list becomes JSON), extra headers,
    and what it waits for first: `hold`, an event the test sets when the answer may go (the test
    decides the order of events, not a delay); `gather`, that many requests in the server at once."""

    status: int = 200
    body: Union[bytes, str, Dict[str, Any], List[Any], None] = None
    headers: Dict[str, str] = field(default_factory=dict)
    hold: Optional[threading.Event] = None
    gather: int = 0

    def encoded(self) -> Tuple[bytes, str]:
        if self.body is None:
            return b"", "text/plain"
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode("utf-8"), "text/plain; charset=utf-8"
        return json.dumps(self.body).encode("utf-8"), "application/json"


@dataclass
class Request:
    """One request as it arrived."""

    method: str
    path: str
    headers: List[Tuple[str, str]]
    body: bytes
    arrived: float  # time.monotonic()

    def header(self, name: str) -> Optional[str]:
        """The value of the header `name` (case-insensitive); fails if it came more than once."""
        values = [v for k, v in self.headers if k.lower() == name.lower()]
        assert len(values) <= 1, f"header {name} sent {len(values)} times"
        return values[0] if values else None

    def header_dict(self) -> Dict[str, str]:
        return {k: v for k, v in self.headers}

    def form(self) -> Dict[str, str]:
        """The application/x-www-form-urlencoded fields. The body must be ASCII (non-ASCII text
        percent-encoded) and no field may repeat."""
        pairs = parse_qsl(self.body.decode("ascii"), keep_blank_values=True, strict_parsing=True,
                          encoding="utf-8", errors="strict")
        names = [k for k, _ in pairs]
        assert len(names) == len(set(names)), f"a form field repeats: {names}"
        return dict(pairs)

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


Responder = Union[Answer, Callable[[Request], Answer]]


class FakeServer:
    """A ThreadingHTTPServer on 127.0.0.1 (HTTP/1.1, keep-alive, Content-Length on every answer),
    with TLS when given an ssl.SSLContext. Thread-safe: the engine's delivery threads call it."""

    def __init__(self, tls: Optional[ssl.SSLContext] = None, default: Responder = Answer(200, {})):
        self.requests: List[Request] = []
        self._default: Responder = default
        self._script: List[Responder] = []
        self._cond = threading.Condition()
        self.active = 0
        self.max_active = 0
        self.tls_failures = 0  # handshakes that failed (e.g. the client did not trust us)
        self.connections = 0  # connections accepted (fewer than requests when kept alive)
        self._http = _Server(("127.0.0.1", 0), _Handler, self, tls)
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._http.server_address[1]

    @property
    def url(self) -> str:
        scheme = "https" if self._http.tls else "http"
        return f"{scheme}://127.0.0.1:{self.port}"

    def answer(self, responder: Responder) -> None:
        """The answer to every request once the script is used up."""
        with self._cond:
            self._default = responder

    def script(self, *responders: Responder) -> None:
        """Answers for the next requests, one each, in order."""
        with self._cond:
            self._script.extend(responders)

    def _connected(self) -> None:
        with self._cond:
            self.connections += 1

    def count(self) -> int:
        with self._cond:
            return len(self.requests)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> List[Request]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.url}: {len(self.requests)} request(s) within {timeout}s, "
                                         f"expected {count}")
                self._cond.wait(left)
            return list(self.requests)

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(5)

    # called by the handler threads

    def _arrived(self, request: Request) -> Answer:
        with self._cond:
            self.requests.append(request)
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            responder = self._script.pop(0) if self._script else self._default
            self._cond.notify_all()
        return responder(request) if callable(responder) else responder

    def _gather(self, count: int) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self.max_active >= count, HOLD_LIMIT)

    def _answered(self) -> None:
        with self._cond:
            self.active -= 1

    def _tls_failed(self) -> None:
        with self._cond:
            self.tls_failures += 1
            self._cond.notify_all()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, handler, fake: FakeServer, tls: Optional[ssl.SSLContext]):
        self.fake = fake
        self.tls = tls
        super().__init__(address, handler)

    def finish_request(self, request, client_address):
        # The TLS handshake runs here, on the connection's own thread, so a client that gives
        # up halfway never holds up the accepting thread.
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        try:
            wrapped = self.tls.wrap_socket(request, server_side=True)
        except OSError:  # ssl.SSLError included
            self.fake._tls_failed()
            return
        try:
            super().finish_request(wrapped, client_address)
        finally:
            # wrap_socket took over the connection: the base class's shutdown_request no longer can.
            wrapped.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # an idle keep-alive connection is dropped after this

    def setup(self):
        super().setup()
        self.server.fake._connected()

    def do_POST(self):
        self._handle()

    def do_GET(self):
        self._handle()

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        fake: FakeServer = self.server.fake
        answer = fake._arrived(Request(self.command, self.path, list(self.headers.items()), body, time.monotonic()))
        try:
            if answer.gather:
                fake._gather(answer.gather)
            if answer.hold is not None:
                answer.hold.wait(HOLD_LIMIT)
            payload, content_type = answer.encoded()
            self.send_response(answer.status)
            headers = {"Content-Type": content_type, **answer.headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()
        except OSError:
            # The client gave up (its timeout): nothing to answer to.
            self.close_connection = True
        finally:
            fake._answered()

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # quiet: the tests look at the recorded requests instead


def closed_port() -> int:
    """A loopback port nothing listens on (bound for a moment, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_tls_files(directory) -> Dict[str, str]:
    """A private CA and a certificate for 127.0.0.1 (IP subject alternative name) signed by it.
    Returns the paths {"ca", "cert", "key"} of PEM files written in `directory`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    lifetime = (now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1))

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "phoneauth test CA")])
    ca_cert = (x509.CertificateBuilder()
               .subject_name(ca_name).issuer_name(ca_name)
               .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(lifetime[0]).not_valid_after(lifetime[1])
               .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                            content_commitment=False, key_encipherment=False,
                                            data_encipherment=False, key_agreement=False,
                                            encipher_only=False, decipher_only=False), critical=True)
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
               .sign(ca_key, hashes.SHA256()))

    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(lifetime[0]).not_valid_after(lifetime[1])
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))

    paths = {name: str(directory / f"{name}.pem") for name in ("ca", "cert", "key")}
    with open(paths["ca"], "wb") as f:
        f.write(ca_cert.public_bytes(serialization.Encoding.PEM))
    with open(paths["cert"], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths["key"], "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return paths


def server_tls_context(files: Dict[str, str]) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files["cert"], files["key"])
    return context


@pytest.fixture
def no_proxy(monkeypatch):
    """libcurl honours proxy variables; the fake services are on this machine."""
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def servers(no_proxy):
    """servers(default, tls=None): a fake service, closed when the test ends."""
    made = []

    def factory(default=Answer(200, {}), tls=None):
        server = FakeServer(tls=tls, default=default)
        made.append(server)
        return server

    yield factory
    for server in made:
        server.close()
