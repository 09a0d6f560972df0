"""`phoneauth pumping` lists the SMS pumping defense's decisions of a store, as a table and as JSON,
with the scope shown as it is (a prefix is not a number to mask).

The command is out/bin/phoneauth, or $PHONEAUTH_CLI (as in test_cli.py)."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

import phoneauth
from support import engine_config

CLI = os.environ.get("PHONEAUTH_CLI", "out/bin/phoneauth")
DEFAULT = {"mode": "enforce"}  # the library's default; support.DEFAULTS turns it off


def number(i: int) -> str:
    return f"+1650555{i:04d}"


def pumping_command(tmp_path, db_path, pumping, *options):
    """`phoneauth pumping` with `options` on the store at db_path, configured with `pumping`."""
    config = tmp_path / "phoneauth.json"
    config.write_text(json.dumps(engine_config(db_path, pumping=pumping)))
    env = {k: v for k, v in os.environ.items()
           if k not in ("PHONEAUTH_CONFIG", "PHONEAUTH_DATABASE", "PHONEAUTH_DATABASE_URL")}
    return subprocess.run([CLI, "pumping", *options, "--config", str(config)], capture_output=True, text=True,
                          timeout=60, env=env)


def test_the_command_lists_the_decisions(tmp_path, db_path, make_engine, sms):
    engine = make_engine(sender=sms, pumping=DEFAULT)
    for i in range(6):
        try:
            engine.verify_phone_number(number(i))
        except phoneauth.QuotaExceededError:
            pass
    engine.close()
    shown = pumping_command(tmp_path, db_path, DEFAULT, "--json")
    assert shown.returncode == 0, shown.stderr
    decisions = json.loads(shown.stdout)["decisions"]
    assert [(d["scopeKind"], d["scope"]) for d in decisions] == [("prefix", "+1650555")], decisions
    table = pumping_command(tmp_path, db_path, DEFAULT)
    assert table.returncode == 0 and "prefix +1650555" in table.stdout, table.stdout


def test_a_ratings_risk_is_shown_against_its_start_score(tmp_path, db_path, make_engine, sms):
    pumping = {"mode": "enforce", "tollFraud": {"phoneEnforcementState": "ENFORCE", "useSmsTollFraudProtection": True,
                                                "tollFraudManagedRules": [{"startScore": 0.8, "action": "BLOCK"}]}}
    engine = make_engine(sender=sms, pumping=pumping)
    engine.set_captcha_verifier(lambda request: {"success": True, "tollFraudRisk": 0.95})
    with pytest.raises(phoneauth.CaptchaCheckFailedError):
        engine.verify_phone_number(number(1), app_verification={"captchaToken": "t"})
    engine.close()
    table = pumping_command(tmp_path, db_path, pumping)
    assert table.returncode == 0 and "tollFraudRisk 0.95>=0.8" in table.stdout, table.stdout
