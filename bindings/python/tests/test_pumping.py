"""The SMS pumping defense through the C ABI, as a host meets it: on by default (the other tests
turn it off), a prefix whose codes are not entered is refused with quotaExceeded and a reason, the
log sink hears pumpingSuspected, the event handler gets it as a durable event, listPumpingDecisions
shows the decision, and record mode refuses nothing. (`phoneauth pumping`: test_pumping_cli.py.)"""

from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

import phoneauth
from support import engine_config

DEFAULT = {"mode": "enforce"}  # the library's default; support.DEFAULTS turns it off


def number(i: int) -> str:
    return f"+1650555{i:04d}"


def test_a_prefix_whose_codes_are_not_entered_is_refused_and_recorded(make_engine, sms):
    engine = make_engine(sender=sms, pumping=DEFAULT)
    heard: List[Dict[str, Any]] = []
    engine.set_log_sink(heard.append)
    for i in range(5):
        engine.verify_phone_number(number(i))
    with pytest.raises(phoneauth.QuotaExceededError) as refused:
        engine.verify_phone_number(number(5))
    details = refused.value.details
    assert details["reason"] == "suspectedPumping", details
    assert details["scope"] == "+1650555" and details["scopeKind"] == "prefix", details
    assert details["retryAfterSeconds"] == 900, details
    assert number(5) not in str(refused.value)

    decisions = engine.call("listPumpingDecisions")["decisions"]
    assert [(d["action"], d["rule"], d["sent"], d["verified"], d["allowance"]) for d in decisions] == [
        ("refused", "hour", 5, 0, 5)], decisions
    assert "phoneNumber" not in decisions[0], decisions
    event = next(e for e in heard if e["event"] == "pumpingSuspected")
    assert event["scope"] == "+1650555" and event["action"] == "refused", event


def test_a_refusal_is_a_durable_event_under_its_scope(make_engine, sms):
    engine = make_engine(sender=sms, pumping=DEFAULT, events={})
    delivered: List[Dict[str, Any]] = []
    arrived = threading.Event()

    def take(event: Dict[str, Any]) -> bool:
        delivered.append(event)
        arrived.set()
        return True

    engine.set_event_handler(take)
    for i in range(6):
        try:
            engine.verify_phone_number(number(i))
        except phoneauth.QuotaExceededError:
            pass
    assert arrived.wait(30), "no event delivered"
    [event] = [e for e in delivered if e["type"] == "pumpingSuspected"]
    [decision] = engine.call("listPumpingDecisions")["decisions"]
    assert event["data"] == decision, (event, decision)
    assert number(5) not in str(event)


def test_record_mode_sends_everything_and_flags(make_engine, sms):
    engine = make_engine(sender=sms, pumping={"mode": "record"})
    for i in range(7):
        engine.verify_phone_number(number(i))
    assert sms.wait_for(count=7)
    decisions = engine.call("listPumpingDecisions")["decisions"]
    assert len(decisions) == 2 and {d["action"] for d in decisions} == {"flagged"}, decisions


def test_bad_settings_name_their_key(db_path):
    with pytest.raises(phoneauth.InvalidConfigurationError) as bad:
        phoneauth.Engine(engine_config(db_path, pumping={"mode": "audit"}))
    assert bad.value.details["key"] == "pumping.mode"
