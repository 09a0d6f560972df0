"""SMS delivery through the engine's built-in Twilio provider, against a loopback Twilio-like server.

Per run: a fresh engine over a fresh SQLite file with `sms.providers` = one Twilio provider whose
baseUrl is a server in this process that answers every message after $BENCH_DELIVERY_LATENCY_MS
(default 100) with 201 {"sid"}. verify_phone_number starts N verifications on distinct numbers
(N = $BENCH_DELIVERY_MESSAGES, default 2000); the engine's delivery threads send the SMS in the
background, and a log sink counts "codeSent" and "deliveryFailed". Each SMS sent gets its delivery
receipt: a thread of this process signs Twilio's status callback (MessageStatus=delivered, with
X-Twilio-Signature) for each codeSent and hands it to reportDelivery, as a host's web server
would; "codeDelivered" events are counted. Runs: sms.concurrency 1 and the default (the key
omitted), or those named in $BENCH_DELIVERY_CONCURRENCY (e.g. "default" or "1,8").

Prints {"delivery": {"latencyMs", "messages", "runs": [...]}}: per run, SMS/s (delivered / time
from the first verify call to the last codeSent), that time, how long the verify calls took,
failures, the server's most simultaneous requests, duplicates (a number sent more than one
SMS), and the receipts applied and how long after the last codeSent the last codeDelivered came.
Progress goes to stderr.
"""
import base64
import hashlib
import hmac
import json
import os
import queue
import re
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import phoneauth

from benchutil import phone_number

DEFAULT_CONCURRENCY = 16  # what the engine uses for HTTP providers when sms.concurrency is omitted
STALL_SECONDS = 60  # no delivery event for this long: give up waiting (retries back off ~1-8 s)
CODE = re.compile(r"\d{6,10}")
AUTH_TOKEN = "bench-token"
RECEIPT_URL = "https://auth.example.com/phoneauth/v1/receipts/twilio"


def env_int(name, default):
    v = os.environ.get(name)
    return int(v) if v else default


class FakeTwilio(ThreadingHTTPServer):
    """Answers Twilio's Messages.json after `latency` seconds and notes what it was sent."""
    daemon_threads = True
    request_queue_size = 256  # the engine opens up to `concurrency` connections at once

    def __init__(self, latency):
        super().__init__(("127.0.0.1", 0), Handler)
        self.latency = latency
        self.lock = threading.Lock()
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.codes = {}  # To -> codes sent to it, in order: more than one is a duplicate


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as with the real API
    # Headers and body go out in two writes: with Nagle on, the second waits for the client's
    # delayed ACK (~40 ms on Linux), which would be counted as provider latency.
    disable_nagle_algorithm = True

    def do_POST(self):
        srv = self.server
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/2010-04-01/Accounts/ACbench/Messages.json":
            return self.answer(404, {"code": 20404, "message": "not found"})
        form = parse_qs(body.decode())
        with srv.lock:
            srv.requests += 1
            n = srv.requests
            srv.in_flight += 1
            srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
            m = CODE.search(form.get("Body", [""])[0])
            srv.codes.setdefault(form.get("To", [""])[0], []).append(m.group(0) if m else None)
        try:
            time.sleep(srv.latency)  # the provider's own latency: what concurrency hides
            self.answer(201, {"sid": f"SM{n}"})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the engine gave up waiting (timeoutMs) and hung up: it will count a failure
        finally:
            with srv.lock:
                srv.in_flight -= 1

    def answer(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # no line per request on stderr
        pass


class Events:
    """The engine's log events, counted; runs on the engine's delivery threads."""

    def __init__(self):
        self.cond = threading.Condition()
        self.counts = {}
        self.sent = 0
        self.failed = 0
        self.given_up = 0
        self.retried_sent = 0  # codeSent with attempt > 1
        self.last_sent = None
        self.last_event = time.perf_counter()
        self.delivered = 0
        self.last_delivered = None
        self.sent_ids = queue.Queue()  # message IDs of codeSent, for the receipts thread

    def sink(self, event):
        name = event.get("event")
        now = time.perf_counter()
        with self.cond:
            self.counts[name] = self.counts.get(name, 0) + 1
            if name == "codeSent":
                self.sent += 1
                self.last_sent = now
                self.retried_sent += (event.get("attempt") or 1) > 1
                self.sent_ids.put(event.get("messageId"))
            elif name == "codeDelivered":
                self.delivered += 1
                self.last_delivered = now
            elif name == "deliveryFailed":
                self.failed += 1
                self.given_up += not event.get("willRetry")
            else:
                return
            self.last_event = now
            self.cond.notify_all()


def send_receipts(engine, ids):
    """Reports each sent message delivered, as Twilio's signed status callback, until None."""
    while (sid := ids.get()) is not None:
        params = {"MessageSid": sid, "MessageStatus": "delivered", "AccountSid": "ACbench"}
        signed = RECEIPT_URL + "".join(k + params[k] for k in sorted(params))
        signature = base64.b64encode(hmac.new(AUTH_TOKEN.encode(), signed.encode(), hashlib.sha1).digest()).decode()
        body = "&".join(f"{k}={v}" for k, v in params.items())
        engine.call("reportDelivery", {"provider": "twilio", "url": RECEIPT_URL, "body": body,
                                       "headers": {"X-Twilio-Signature": signature,
                                                   "Content-Type": "application/x-www-form-urlencoded"}})


def run(concurrency, messages, latency_ms):
    label = concurrency or f"default ({DEFAULT_CONCURRENCY})"
    server = FakeTwilio(latency_ms / 1000)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sms = {"providers": [{"type": "twilio", "baseUrl": f"http://127.0.0.1:{server.server_address[1]}",
                          "accountSid": "ACbench", "authToken": AUTH_TOKEN, "from": "+15005550006",
                          "receiptUrl": RECEIPT_URL, "timeoutMs": 5000}]}
    if concurrency:
        sms["concurrency"] = concurrency
    tmp = tempfile.mkdtemp(prefix="phoneauth-deliverybench-")
    ev = Events()
    verify_errors = {}
    try:
        # Distinct numbers keep the per-number limit out of the way; no clientIp, so no per-IP
        # limit; the project's daily quota is raised (its counting still runs). resendAfterSeconds
        # 0: no verification is reused, each call queues an SMS. Thousands of codes that nobody
        # enters are what SMS pumping looks like, so the pumping defense only records (its counting
        # and judging still run): in its default mode it refuses all but the first few sends.
        engine = phoneauth.Engine({"database": os.path.join(tmp, "phoneauth.sqlite"), "sms": sms,
                                   "resendAfterSeconds": 0, "pumping": {"mode": "record"},
                                   "quotas": {"smsPerProjectPerDay": 100_000_000}})
        with engine:
            engine.set_log_sink(ev.sink)
            receipts = threading.Thread(target=send_receipts, args=(engine, ev.sent_ids))
            receipts.start()
            print(f"delivery_bench.py: concurrency {label}, {messages} messages, {latency_ms} ms each...",
                  file=sys.stderr)
            t0 = time.perf_counter()
            for i in range(messages):
                try:
                    engine.verify_phone_number(phone_number=phone_number(i))
                except phoneauth.PhoneAuthError as e:
                    key = getattr(e, "code", None) or type(e).__name__
                    verify_errors[key] = verify_errors.get(key, 0) + 1
            verify_seconds = time.perf_counter() - t0
            started = messages - sum(verify_errors.values())
            # Wait until every message was sent or given up, or nothing happens for STALL_SECONDS.
            next_note = time.perf_counter() + 5
            with ev.cond:
                while ev.sent + ev.given_up < started:
                    now = time.perf_counter()
                    if now - ev.last_event > STALL_SECONDS:
                        print("delivery_bench.py: stalled, giving up", file=sys.stderr)
                        break
                    if now >= next_note:
                        print(f"delivery_bench.py:   {ev.sent}/{started} sent, {ev.failed} failed, "
                              f"{now - t0:.0f} s", file=sys.stderr)
                        next_note = now + 5
                    ev.cond.wait(1)
                # Then every receipt, or a stall.
                while ev.delivered < ev.sent and time.perf_counter() - ev.last_event < STALL_SECONDS:
                    ev.cond.wait(1)
                sent, failed, given_up, last_sent = ev.sent, ev.failed, ev.given_up, ev.last_sent
                counts, retried_sent = dict(ev.counts), ev.retried_sent
                delivered, last_delivered = ev.delivered, ev.last_delivered
            ev.sent_ids.put(None)
            receipts.join()
            engine.set_log_sink(None)
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(tmp, ignore_errors=True)

    seconds = (last_sent - t0) if last_sent else 0.0
    with server.lock:
        codes = server.codes
        result = {
            "concurrency": concurrency or DEFAULT_CONCURRENCY,
            "concurrencyConfigured": bool(concurrency),
            "smsPerSecond": round(sent / seconds, 1) if seconds else 0.0,
            "secondsToLastDelivery": round(seconds, 2),
            "verifySeconds": round(verify_seconds, 3),
            "delivered": sent,
            "failures": failed,
            "givenUp": given_up,
            "maxInFlight": server.max_in_flight,
            "serverRequests": server.requests,
            # A number should get exactly one SMS: more requests to it are duplicates (same code:
            # the same message sent again; another code: a second verification).
            "duplicates": sum(len(c) - 1 for c in codes.values()),
            "duplicatesWithAnotherCode": sum(len(set(c)) - 1 for c in codes.values()),
            "numbersWithoutSms": started - len(codes),
            "sentOnRetry": retried_sent,
            "receiptsApplied": delivered,
            "lastReceiptAfterLastSendSeconds": round(last_delivered - last_sent, 3) if last_delivered else None,
            "events": counts,
        }
    if verify_errors:
        result["verifyErrors"] = verify_errors
    print(f"delivery_bench.py: concurrency {label}: {result['smsPerSecond']} SMS/s, "
          f"{result['secondsToLastDelivery']} s, {failed} failed, max in flight {result['maxInFlight']}, "
          f"{result['duplicates']} duplicates", file=sys.stderr)
    return result


def main():
    messages = env_int("BENCH_DELIVERY_MESSAGES", 2000)
    latency_ms = env_int("BENCH_DELIVERY_LATENCY_MS", 100)
    wanted = os.environ.get("BENCH_DELIVERY_CONCURRENCY") or "1,default"
    # None: sms.concurrency omitted, the engine's default.
    concurrencies = [None if c.strip() == "default" else int(c) for c in wanted.split(",")]
    out = {"delivery": {"latencyMs": latency_ms, "messages": messages,
                        "runs": [run(c, messages, latency_ms) for c in concurrencies]}}
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
