"""`phoneauth status` shows the events a store has recorded and not delivered yet: an engine with
"events" and no handler (nor webhook) signs a user in and is closed, its userCreated and
userSignedIn still in the store; the command, run as a user runs it on the same configuration,
prints them as "events pending" (and --json as events.pending). Once a handler has taken them the
count is back to 0.

The command is out/bin/phoneauth, or $PHONEAUTH_CLI (as in test_cli.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Dict, List

import phoneauth
from support import FIXED_NUMBERS, engine_config, fixed_credential

CLI = os.environ.get("PHONEAUTH_CLI", "out/bin/phoneauth")
NUMBER = "+16505551230"


def ok(args: List[str], config: Path) -> str:
    """Runs `phoneauth ARGS --config CONFIG`, which must exit 0; returns its stdout. Nothing of the
    caller's PHONEAUTH_CONFIG or database leaks in."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PHONEAUTH_CONFIG", "PHONEAUTH_DATABASE", "PHONEAUTH_DATABASE_URL")}
    done = subprocess.run([CLI, *args, "--config", str(config)], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == 0, f"{args} exited {done.returncode}: {done.stderr}"
    return done.stdout


def facts(text: str) -> Dict[str, str]:
    """The first table of `status` (name, value: two or more spaces apart)."""
    head = text.partition("\n\n")[0]
    return dict(re.split(r" {2,}", line.strip(), maxsplit=1) for line in head.splitlines() if line.strip())


def test_status_shows_the_events_waiting_in_the_store(tmp_path, db_path):
    config = tmp_path / "phoneauth.json"
    # "events" with neither url nor handler: events are recorded and wait in the store.
    config.write_text(json.dumps(engine_config(db_path, testPhoneNumbers=FIXED_NUMBERS, events={})))

    assert facts(ok(["status"], config))["events pending"] == "0"

    engine = phoneauth.Engine(json.loads(config.read_text()))
    try:
        signed = engine.sign_in_with_credential(credential=fixed_credential(engine, NUMBER))
        assert signed["additionalUserInfo"]["isNewUser"] is True, signed
    finally:
        engine.close()

    shown = facts(ok(["status"], config))
    assert shown["events pending"] == "2", shown  # userCreated and userSignedIn
    assert shown["users"] == "1", shown
    status = json.loads(ok(["status", "--json"], config))
    assert status["events"]["pending"] == 2, status
    assert isinstance(status["events"]["oldestPendingAt"], str), status
    # Reading the status delivered nothing (the command installs no handler).
    assert json.loads(ok(["status", "--json"], config))["events"]["pending"] == 2

    # A handler takes them; the store is then empty of events.
    taken: List[dict] = []
    both = threading.Event()

    def handler(event):
        taken.append(event)
        if len(taken) >= 2:
            both.set()
        return True

    engine = phoneauth.Engine(json.loads(config.read_text()))
    try:
        engine.set_event_handler(handler)
        assert both.wait(30), taken
    finally:
        engine.close()  # lets the event being delivered finish (and be recorded as delivered)
    assert [e["type"] for e in taken[:2]] == ["userCreated", "userSignedIn"], taken
    assert taken[0]["data"]["user"]["uid"] == signed["user"]["uid"], taken
    assert facts(ok(["status"], config))["events pending"] == "0"
    assert json.loads(ok(["status", "--json"], config))["events"] == {"pending": 0, "oldestPendingAt": None}


def test_events_are_listed_and_dropped_and_the_command_delivers_none(tmp_path, db_path):
    from sms_servers import FakeServer
    from test_events import SECRET

    receiver = FakeServer()
    try:
        config = tmp_path / "phoneauth.json"
        config.write_text(json.dumps(engine_config(db_path, testPhoneNumbers=FIXED_NUMBERS, events={
            "url": receiver.url + "/events", "secret": SECRET})))
        # Recorded by an engine with no receiver reachable yet (the same store, events of its own).
        recording = dict(json.loads(config.read_text()), events={})
        engine = phoneauth.Engine(recording)
        try:
            uid = engine.sign_in_with_credential(credential=fixed_credential(engine, NUMBER))["user"]["uid"]
        finally:
            engine.close()

        listed = json.loads(ok(["events", "list", "--json"], config))["events"]
        assert [(e["type"], e["subject"], e["attempts"]) for e in listed] == [
            ("userCreated", uid, 0), ("userSignedIn", uid, 0)]
        assert all("data" not in e and "payload" not in e for e in listed)  # never the contents
        text = ok(["events"], config)
        assert listed[0]["id"] in text and "userSignedIn" in text
        assert "is dropped" in ok(["events", "drop", listed[0]["id"]], config)
        assert [e["type"] for e in json.loads(ok(["events", "list", "--json"], config))["events"]] == ["userSignedIn"]
        assert receiver.count() == 0  # the commands record and list; the servers deliver

        env = {k: v for k, v in os.environ.items() if k != "PHONEAUTH_CONFIG"}
        unknown = subprocess.run([CLI, "events", "drop", "evt_nope", "--config", str(config)], capture_output=True,
                                 text=True, timeout=60, env=env)
        assert unknown.returncode == 1 and "No undelivered event" in unknown.stderr, unknown.stderr
    finally:
        receiver.close()
