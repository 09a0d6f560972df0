"""What the PostgreSQL test modules (test_postgres_*.py) share: engines in pg_worker.py child
processes (Worker, Workers), outcomes of their calls, and the credentials and codes of sign-ins.

An outcome is what pg_worker.py answers for one call: {"ok": result} or {"error": {"code",
"status", "message", "details", "str", "repr"}}, with "t0" (time.time() at the start) and
"elapsed" (seconds).
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
WORKER = HERE / "pg_worker.py"
REPLY_TIMEOUT = 60.0  # seconds a worker may take to answer one command


def wrong(code: str) -> str:
    """A code of the same length that differs from `code` in every digit."""
    return "".join(str((int(d) + 1) % 10) for d in code)


def code_in(body: str) -> str:
    runs = re.findall(r"(?<![0-9])[0-9]{6}(?![0-9])", body)
    assert len(runs) == 1, f"expected one 6-digit code in the SMS body, found {len(runs)}"
    return runs[0]


class Worker:
    """One pg_worker.py process; request() sends a command and returns its answer."""

    def __init__(self, name: str, log_dir: Path):
        self.name = name
        self.stderr_path = log_dir / f"{name}.stderr"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent), env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        self._stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, text=True, env=env, cwd=str(HERE))
        self._answers: "queue.Queue[Any]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            if line.startswith("@@"):
                self._answers.put(json.loads(line[2:]))
        self._answers.put(None)  # end of output: the process is gone

    def stderr_tail(self) -> str:
        try:
            return self.stderr_path.read_text()[-3000:]
        except OSError:
            return ""

    def send(self, command: Dict[str, Any]) -> None:
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = REPLY_TIMEOUT) -> Dict[str, Any]:
        try:
            answer = self._answers.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"worker {self.name} did not answer within {timeout} s "
                                 f"(a hang?); its stderr:\n{self.stderr_tail()}") from None
        if answer is None:
            raise AssertionError(f"worker {self.name} ended (exit status {self.proc.wait()}); "
                                 f"its stderr:\n{self.stderr_tail()}")
        return answer

    def request(self, command: Dict[str, Any], timeout: float = REPLY_TIMEOUT) -> Dict[str, Any]:
        self.send(command)
        return self.receive(timeout)

    def open(self, config: Dict[str, Any], sender: bool = False) -> Dict[str, Any]:
        return self.request({"op": "open", "config": config, "sender": sender})

    def call(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        return self.request({"op": "call", "method": method, "params": params})

    def ok(self, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        """The result of a call that must succeed."""
        return succeeded(self.call(method, params), f"{method} in {self.name}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send({"op": "exit"})
                self.proc.wait(timeout=15)
            except Exception:
                self.proc.kill()
                self.proc.wait()
        self._stderr.close()


class Workers:
    """Starts workers (spawn) and stops them all (stop_all); for a test's fixture."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.started: List[Worker] = []

    def spawn(self, n: int) -> List[Worker]:
        """n started workers: binding imported, no engine yet."""
        workers = [Worker(f"w{len(self.started) + i}", self.log_dir) for i in range(n)]
        self.started.extend(workers)
        for worker in workers:
            assert worker.receive(30).get("ready"), f"worker {worker.name} did not start"
        return workers

    def stop_all(self) -> None:
        for worker in self.started:
            worker.stop()


def merged(config: Dict[str, Any], overrides: Dict[str, Any]) -> Dict[str, Any]:
    """`config` with `overrides` merged one level deep (postgres, sms, quotas...)."""
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return config


def succeeded(outcome: Dict[str, Any], what: str) -> Dict[str, Any]:
    assert "ok" in outcome, f"{what} failed: {outcome['error']['repr']}"
    return outcome["ok"]


def error_of(outcome: Dict[str, Any]) -> Dict[str, Any]:
    assert "error" in outcome, f"expected an error, got a result: {str(outcome['ok'])[:300]}"
    return outcome["error"]


def kind(outcome: Dict[str, Any]):
    """("ok", None) or (error code, details.reason)."""
    if "ok" in outcome:
        return ("ok", None)
    return (outcome["error"]["code"], outcome["error"]["details"].get("reason"))


def open_all(workers: List[Worker], config: Dict[str, Any], sender: Any = False) -> None:
    """Opens an engine in each worker, all at once."""
    for worker in workers:
        worker.send({"op": "open", "config": config, "sender": sender})
    for worker in workers:
        succeeded(worker.receive(), f"opening the engine in {worker.name}")


def race(workers: List[Worker], threads: List[List[List[Any]]]) -> List[Dict[str, Any]]:
    """threads[i] = the call lists ([method, params]) of worker i's threads. Every thread of every
    worker waits until all are ready, then they run at once; returns every outcome."""
    for worker, calls in zip(workers, threads):
        worker.send({"op": "prepare", "threads": calls})
    for worker in workers:
        worker.receive()
    for worker in workers:
        worker.send({"op": "go"})
    outcomes = []
    for worker in workers:
        for box in worker.receive()["results"]:
            outcomes.extend(dict(o, worker=worker.name) for o in box)
    return outcomes


def credential(verification_id: str, code: str) -> Dict[str, Any]:
    return {"providerId": "phone", "verificationId": verification_id, "verificationCode": code}


def sign_in_call(verification_id: str, code: str) -> List[Any]:
    return ["signInWithCredential", {"credential": credential(verification_id, code)}]


def no_storage_errors(outcomes: List[Dict[str, Any]]) -> None:
    bad = [o["error"]["repr"] for o in outcomes if "error" in o and o["error"]["code"] == "storageError"]
    assert not bad, f"{len(bad)} storage errors, e.g. {bad[0]}"


def sms_of(worker: Worker, verification_id: str, timeout: float = 15) -> Dict[str, Any]:
    messages = worker.request({"op": "wait_messages", "verificationIds": [verification_id], "timeout": timeout},
                              timeout=timeout + REPLY_TIMEOUT)["messages"]
    found = [m for m in messages if m["verificationId"] == verification_id]
    assert found, f"no SMS for {verification_id} within {timeout} s"
    return found[0]
