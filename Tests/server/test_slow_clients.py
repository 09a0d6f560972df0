"""Slow and idle clients are let go: idle keep-alive connections, requests whose head or body stops
half-way, more connections than server.maxConnections, and a SIGTERM while a slow client holds a
connection. Each test holds a raw socket the way an attacker would, with short configured timeouts.

Timing is asserted one way only: a connection is closed no sooner than its timeout (measured from a
moment before the server could have started the clock) and within a generous bound (BOUND times
it), so a busy machine slows the test but does not fail it."""

from __future__ import annotations

import re
import signal
import socket
import ssl
import time

from conftest import TEST_NUMBER, needs_tls, run_server, start_server
from sms_servers import make_tls_files

BOUND = 10  # how many times a timeout a close may take on a busy machine
LONG = 60  # a timeout the test must not reach
SEND = "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode?key=k"


def serve(tmp_path, **server):
    """phoneauthd in development mode with these `server` keys (every timeout LONG unless given)."""
    keys = {"idleTimeoutSeconds": LONG, "headerTimeoutSeconds": LONG, "bodyTimeoutSeconds": LONG, **server}
    return start_server(tmp_path, server={"emulatorCompat": True, **keys})


def connect(server) -> socket.socket:
    host, port = server.host_port.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=30)


def get(path: str = "/healthz") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode()


def post_head(length: int, path: str = SEND) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def read_response(sock: socket.socket) -> int:
    """Reads one response (Content-Length or chunked) and returns its status."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before a whole response head: {data!r}"
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    if length:
        while len(rest) < int(length.group(1)):
            chunk = sock.recv(65536)
            assert chunk, "closed in the middle of a response body"
            rest += chunk
    else:
        assert re.search(rb"(?im)^transfer-encoding:\s*chunked", head), head
        while not rest.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(65536)
            assert chunk, "closed in the middle of a chunked body"
            rest += chunk
    return int(head.split(b" ", 2)[1])


def closed_after(sock: socket.socket, started: float, timeout: float) -> float:
    """Waits for the server to close (EOF or reset); returns the seconds since `started`. Whatever
    the server sends first (none of the tests expects anything) is ignored."""
    sock.settimeout(timeout * BOUND)
    try:
        while sock.recv(65536):
            pass
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
        pass  # a reset (the server closed with bytes unread) or TLS cut without close_notify
    except socket.timeout:
        raise AssertionError(f"still open {timeout * BOUND} s after a {timeout} s timeout")
    return time.monotonic() - started


def assert_closed_in_time(sock: socket.socket, started: float, timeout: float) -> None:
    elapsed = closed_after(sock, started, timeout)
    assert timeout <= elapsed <= timeout * BOUND, elapsed


def cut(server, reason: str) -> int:
    """phoneauth_http_connections_cut_total for this reason, from /metrics."""
    status, text, _ = server.get("/metrics")
    assert status == 200
    found = re.search(r'phoneauth_http_connections_cut_total\{reason="%s"\} (\d+)' % reason, text)
    return int(found.group(1)) if found else 0


def test_new_timeout_keys_are_range_checked(tmp_path):
    for key, value in [("idleTimeoutSeconds", 0), ("headerTimeoutSeconds", 0), ("bodyTimeoutSeconds", 0),
                       ("maxConnections", 0), ("shutdownTimeoutSeconds", -1), ("headerTimeoutSeconds", "15")]:
        done = run_server(tmp_path, server={"emulatorCompat": True, key: value})
        assert done.returncode == 1, (key, value)
        assert "invalidConfiguration" in done.stderr and f"server.{key}" in done.stderr, done.stderr


def test_idle_keep_alive_connection_is_closed(tmp_path):
    server = serve(tmp_path, idleTimeoutSeconds=1)
    try:
        sock = connect(server)
        started = time.monotonic()  # the idle clock starts once the answer is written, later
        sock.sendall(get())
        assert read_response(sock) == 200
        assert_closed_in_time(sock, started, 1)
        assert cut(server, "idle") == 1 and cut(server, "header") == 0
    finally:
        server.stop()


def test_partial_head_is_closed_even_when_trickled(tmp_path):
    server = serve(tmp_path, headerTimeoutSeconds=1)
    try:
        started = time.monotonic()  # the header clock starts at the accept
        sock = connect(server)
        sock.sendall(b"POST /phoneauth/v1/verifyPhoneNumber HTTP/1.1\r\nHost: localhost\r\n")
        assert_closed_in_time(sock, started, 1)

        # A header line every 0.2 s: a deadline, not an inactivity timer, so it is still cut.
        started = time.monotonic()
        sock = connect(server)
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
        sock.settimeout(0.2)
        closed = False
        while not closed and time.monotonic() - started < BOUND:
            try:
                closed = sock.recv(65536) == b""
            except socket.timeout:
                try:
                    sock.send(b"X-Slow: y\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    closed = True
            except ConnectionResetError:
                closed = True
        elapsed = time.monotonic() - started
        assert closed and 1 <= elapsed <= BOUND, elapsed
        assert cut(server, "header") == 2
    finally:
        server.stop()


def test_partial_head_after_a_request_gets_the_header_timeout_not_the_idle_one(tmp_path):
    server = serve(tmp_path, headerTimeoutSeconds=1)  # idle: LONG
    try:
        sock = connect(server)
        sock.sendall(get())
        assert read_response(sock) == 200
        started = time.monotonic()  # the header clock starts at this request's first byte
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: loc")
        assert_closed_in_time(sock, started, 1)
    finally:
        server.stop()


def test_partial_body_is_closed(tmp_path):
    server = serve(tmp_path, bodyTimeoutSeconds=1)
    try:
        sock = connect(server)
        started = time.monotonic()  # the body clock starts at the end of the head
        sock.sendall(post_head(100) + b"{")
        assert_closed_in_time(sock, started, 1)
        # The access log says what happened: not 413, the body's size was never the matter.
        deadline = time.monotonic() + BOUND
        while '"status":' not in server.stdout() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert '"status":408' in server.stdout(), server.stdout()
        assert cut(server, "body") == 1
    finally:
        server.stop()


def test_normal_client_keeps_its_connection_across_requests(tmp_path):
    server = serve(tmp_path, idleTimeoutSeconds=2, headerTimeoutSeconds=1, bodyTimeoutSeconds=1)
    try:
        sock = connect(server)
        for _ in range(4):
            sock.sendall(get())
            assert read_response(sock) == 200
            time.sleep(0.3)  # well under the idle timeout
        body = b'{"phoneNumber": "%s"}' % TEST_NUMBER.encode()
        sock.sendall(post_head(len(body)) + body)
        assert read_response(sock) == 200
        sock.sendall(get("/.well-known/jwks.json"))
        assert read_response(sock) == 200
        text = server.get("/metrics")[1]
        assert "phoneauth_http_open_connections 2" in text, text  # this one and the scrape's
        sock.close()
        assert sum(cut(server, reason) for reason in ("idle", "header", "body")) == 0
    finally:
        server.stop()


def test_slow_body_that_completes_within_the_timeout_is_served(tmp_path):
    server = serve(tmp_path, bodyTimeoutSeconds=LONG // 2)
    try:
        body = b'{"phoneNumber": "%s"}' % TEST_NUMBER.encode()
        body += b" " * (100 - len(body))
        sock = connect(server)
        sock.sendall(post_head(len(body)))
        for i in range(0, len(body), 10):  # 10 bytes every 0.1 s: a second for the body
            sock.sendall(body[i:i + 10])
            time.sleep(0.1)
        assert read_response(sock) == 200
        sock.close()
    finally:
        server.stop()


def test_connections_beyond_the_cap_wait_and_the_others_keep_working(tmp_path):
    server = serve(tmp_path, maxConnections=2)
    try:
        first, second = connect(server), connect(server)
        for sock in (first, second):
            sock.sendall(get())
            assert read_response(sock) == 200
        # The third connects (the kernel's backlog takes it) but is not accepted: no answer.
        third = connect(server)
        third.sendall(get())
        third.settimeout(1.5)
        try:
            data = third.recv(65536)
            raise AssertionError(f"a connection beyond the cap was answered: {data!r}")
        except socket.timeout:
            pass
        for sock in (first, second):  # the clients already in keep working
            sock.sendall(get())
            assert read_response(sock) == 200
        first.close()  # a place frees: the third is accepted and answered
        third.settimeout(30)
        assert read_response(third) == 200
        second.close()
        third.close()
    finally:
        server.stop()


def test_a_burst_of_connections_gets_no_more_than_the_cap(tmp_path):
    server = serve(tmp_path, maxConnections=2)
    try:
        socks = [connect(server) for _ in range(20)]
        for sock in socks:
            sock.sendall(get())
        time.sleep(1)
        answered = 0
        for sock in socks:
            sock.setblocking(False)
            try:
                answered += sock.recv(65536).startswith(b"HTTP/1.1 200")
            except (BlockingIOError, ConnectionResetError):
                pass  # waiting in the backlog, or closed at once past the cap
        assert answered <= 2
        for sock in socks:
            sock.close()
        # The places are free again, once the server has accepted and closed the queued connections
        # the clients gave up (one that comes in the same accept as them may be closed at once).
        deadline = time.monotonic() + BOUND
        while True:
            sock = connect(server)
            try:
                sock.sendall(get())
                assert read_response(sock) == 200
                break
            except (AssertionError, ConnectionResetError, BrokenPipeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
            finally:
                sock.close()
    finally:
        server.stop()


def test_sigterm_closes_a_slow_client_after_the_shutdown_timeout(tmp_path):
    server = serve(tmp_path, shutdownTimeoutSeconds=1)
    try:
        slow = connect(server)
        slow.sendall(post_head(100) + b"{")
        # A round trip on another connection: the server has read the slow request's head by now.
        other = connect(server)
        other.sendall(get())
        assert read_response(other) == 200
        other.close()
        time.sleep(0.2)
        started = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=BOUND) == 0  # without the deadline: until the client leaves
        elapsed = time.monotonic() - started
        assert 1 <= elapsed <= BOUND, elapsed  # it did wait for the request in flight
        closed_after(slow, started, 1)
        assert '"stopped"' in server.stderr()
    finally:
        server.stop()


@needs_tls
def test_slow_clients_are_closed_over_tls_too(tmp_path):
    files = make_tls_files(tmp_path)
    server = serve(tmp_path, headerTimeoutSeconds=1,
                   tls={"certificateFile": files["cert"], "privateKeyFile": files["key"]})
    try:
        context = ssl.create_default_context(cafile=files["ca"])
        # A handshake never begun: the header clock runs from the accept.
        started = time.monotonic()
        assert_closed_in_time(connect(server), started, 1)
        # A head that stops half-way inside TLS.
        started = time.monotonic()
        sock = context.wrap_socket(connect(server), server_hostname="127.0.0.1")
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: loc")
        elapsed = closed_after(sock, started, 1)
        assert 1 <= elapsed <= BOUND, elapsed
        # A whole request is still answered.
        sock = context.wrap_socket(connect(server), server_hostname="127.0.0.1")
        sock.sendall(get())
        assert read_response(sock) == 200
        sock.close()
    finally:
        server.stop()
