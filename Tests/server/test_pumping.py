"""The SMS pumping defense through phoneauthd, as Firebase's clients meet it: codes to a prefix none
of whose codes are entered are refused with Identity Toolkit's quota error and a Retry-After, the
SMS provider is not called for them, and the admin route lists the decision."""

from __future__ import annotations

from conftest import ADMIN_TOKEN
from test_ios_replay import API_KEY, IOSClient, assert_toolkit_error, start_webhook_server


def test_a_prefix_whose_codes_are_not_entered_gets_the_quota_error(tmp_path):
    # The defense as it is by default (conftest turns it off for the other tests).
    server, receiver = start_webhook_server(tmp_path, {"pumping": {"mode": "enforce"}, "resendAfterSeconds": 0})
    try:
        client = IOSClient(server, key=API_KEY)
        for i in range(5):
            status, body, _ = client.send_verification_code(f"+1650253{i:04d}")
            assert status == 200, body
        receiver.wait_for_requests(5)
        answer = client.send_verification_code("+16502530005")
        assert_toolkit_error(answer, 429, "TOO_MANY_ATTEMPTS_TRY_LATER", "QUOTA_EXCEEDED")
        headers = {k.lower(): v for k, v in answer[2].items()}
        assert headers.get("retry-after") == "900", headers
        # The refusal wrote no verification, so no SMS is or will be on its way (whatever the
        # delivery thread's pace): the store holds the five sends alone.
        status, store, _ = server.admin("getStatus", {})
        assert status == 200, store
        assert sum(store["sms"][k] for k in ("queued", "sentLastHour", "failedLastHour")) == 5, store
        assert receiver.count() == 5, "the refused code was not sent"

        status, page, _ = server.post("/phoneauth/v1/listPumpingDecisions", {},
                                      headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert status == 200, page
        assert [(d["scopeKind"], d["scope"], d["action"]) for d in page["decisions"]] == [
            ("prefix", "+1650253", "refused")], page

        # /metrics: the refusal by country, scope and action; each country's codes sent and entered.
        status, metrics, _ = server.get("/metrics")
        assert status == 200
        lines = metrics.splitlines() if isinstance(metrics, str) else metrics.decode().splitlines()

        def value(name, **labels):
            found = [line for line in lines if line.startswith(name + "{")
                     and all(f'{k}="{v}"' in line for k, v in labels.items())]
            assert len(found) == 1, (name, labels, [line for line in lines if line.startswith(name)])
            return float(found[0].rsplit(" ", 1)[1])

        assert value("phoneauth_pumping_refused_total", country="US", scope_kind="prefix", rule="hour", action="refused",
                     channel="sms") == 1
        assert value("phoneauth_pumping_codes", country="US", window="hour", outcome="sent") == 5
        assert value("phoneauth_pumping_codes", country="US", window="hour", outcome="verified") == 0
        assert value("phoneauth_pumping_channel_codes", country="US", channel="sms", window="day", outcome="sent") == 5
    finally:
        server.stop()
        receiver.close()
