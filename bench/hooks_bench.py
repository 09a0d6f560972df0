"""What a blocking hook costs, through the Python binding: without a hook, with an in-process hook
that answers {} (a Python callable, so the binding's callback cost is in it), and with an HTTP
hook on a loopback server that answers {} (the event signed as a JWT, libcurl, the server's
parsing). Two calls: verify_phone_number of a test number with beforeSendSms (no SMS; the hook
runs before anything is counted or written), and sign_in_with_credential of an existing user
with beforeSignIn (its sign-in then takes two transactions rather than one). BENCH_HOOK_CALLS
calls per configuration (default 2000), after a warm-up.

Prints {"hooks": {"none": {...}, "inProcess": {...}, "http": {...}, "inProcessAddedUs",
"httpAddedUs"}, "signInHooks": {the same for sign-ins}}: p50/p90/p99/max µs per call; the added
cost is the p50 difference with no hook, taken in the same run.
"""
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import phoneauth

from benchutil import percentiles

NUMBER, CODE = "+16505551234", "123456"


class Function(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a deployed function's front end

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        # One write: headers and body in separate small writes would meet the client's delayed
        # ACK (Nagle), 40 ms a call that no real function front end costs.
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")

    def log_message(self, *args):
        pass


def run(directory, name, calls, hooks=None, hook=None, hook_name="beforeSendSms"):
    config = {"database": os.path.join(directory, name + ".db"), "testPhoneNumbers": {NUMBER: CODE},
              "resendAfterSeconds": 0, "sms": {"provider": "console"}, "quotas": {"smsPerNumberPerHour": 0}}
    if hooks:
        config["hooks"] = hooks
    engine = phoneauth.Engine(config)
    try:
        if hook:
            engine.set_hook(hook_name, hook)
        call = sign_in if hook_name == "beforeSignIn" else lambda e: (lambda: e.verify_phone_number(NUMBER))
        for _ in range(min(200, calls)):
            call(engine)()
        times = []
        for _ in range(calls):
            timed = call(engine)  # the part not measured (a sign-in's verification) runs here
            started = time.perf_counter_ns()
            timed()
            times.append(time.perf_counter_ns() - started)
        return percentiles(times)
    finally:
        engine.close()


def sign_in(engine):
    """A credential for the test number, and the sign-in with it to time."""
    started = engine.verify_phone_number(NUMBER)
    credential = engine.credential(verification_id=started["verificationId"], verification_code=CODE)["credential"]
    return lambda: engine.sign_in_with_credential(credential=credential)


def compare(directory, calls, url, hook_name):
    none = run(directory, hook_name + "-none", calls, hook_name=hook_name)
    in_process = run(directory, hook_name + "-inprocess", calls, hook=lambda event: {}, hook_name=hook_name)
    http = run(directory, hook_name + "-http", calls, hooks={hook_name: {"url": url}}, hook_name=hook_name)
    return {"calls": calls, "none": none, "inProcess": in_process, "http": http,
            "inProcessAddedUs": round(in_process["p50"] - none["p50"], 1),
            "httpAddedUs": round(http["p50"] - none["p50"], 1)}


def main():
    calls = int(os.environ.get("BENCH_HOOK_CALLS") or 2000)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Function)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    directory = tempfile.mkdtemp(prefix="phoneauth-hooks-bench-")
    try:
        print("hooks: no hook, in process, over HTTP; beforeSendSms, then beforeSignIn", file=sys.stderr)
        sms = compare(directory, calls, url, "beforeSendSms")
        sign_ins = compare(directory, calls, url, "beforeSignIn")
    finally:
        server.shutdown()
        shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps({"hooks": sms, "signInHooks": sign_ins}, indent=2))


if __name__ == "__main__":
    main()
