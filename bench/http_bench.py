"""Sign-ins through phoneauthd over loopback HTTP (http_bench.c, keep-alive, libcurl), with 1 and
2 client threads, each run against a fresh server over a fresh SQLite file.

The server is $PHONEAUTHD (default ../out/bin/phoneauthd, `make server`), in development mode so
the bench reads codes from it instead of an SMS provider; quotas are raised as the in-process
bench raises them, and the per-IP ones too since every request comes from 127.0.0.1. Flows per
run: $BENCH_FLOWS_HTTP, else $BENCH_FLOWS, else 5000, after $BENCH_HTTP_WARMUP untimed flows
(default 200).

Prints {"http": {"threads1": {...}, "threads2": {...}}}; progress goes to stderr.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.environ.get("PHONEAUTHD") or os.path.join(HERE, "..", "out", "bin", "phoneauthd")
DRIVER = os.path.join(HERE, "out", "http_bench")
BIG = 100_000_000


def flows():
    return int(os.environ.get("BENCH_FLOWS_HTTP") or os.environ.get("BENCH_FLOWS") or 5000)


def warmup():
    return int(os.environ.get("BENCH_HTTP_WARMUP") or 200)


def start(directory):
    config = {"database": os.path.join(directory, "bench.db"), "projectId": "bench",
              "quotas": {"smsPerProjectPerDay": BIG, "smsPerIpPerHour": BIG, "regionBurstPerHour": BIG,
                         "wrongCodesPerIpPer5Minutes": BIG},
              "server": {"port": 0, "emulatorCompat": True, "accessLog": False}}
    path = os.path.join(directory, "config.json")
    with open(path, "w") as f:
        json.dump(config, f)
    err = open(os.path.join(directory, "stderr.log"), "w+")
    process = subprocess.Popen([SERVER, "--config", path], stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        err.seek(0)
        for line in err:
            if '"listening"' in line:
                return process, json.loads(line)["url"]
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    err.seek(0)
    sys.exit(f"http_bench: phoneauthd did not start: {err.read()}")


def main():
    if not os.path.exists(SERVER):
        print(json.dumps({"http": {"skipped": f"no server at {SERVER}: run make server"}}))
        return
    result, first = {}, 0
    for threads in (1, 2):
        directory = tempfile.mkdtemp(prefix="phoneauth-http-bench-")
        process, url = start(directory)
        try:
            print(f"http_bench: {flows()} flows, {threads} client thread(s) against {url}", file=sys.stderr)
            subprocess.run([DRIVER, url, str(warmup()), str(threads), str(900_000)], check=True,
                           stdout=subprocess.DEVNULL)  # warm-up
            done = subprocess.run([DRIVER, url, str(flows()), str(threads), str(first)], stdout=subprocess.PIPE, text=True)
            result[f"threads{threads}"] = json.loads(done.stdout)
            first += flows()
        finally:
            process.terminate()
            process.wait(30)
            shutil.rmtree(directory, ignore_errors=True)
    print(json.dumps({"http": result}))


if __name__ == "__main__":
    main()
