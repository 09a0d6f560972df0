"""Firebase's SMS toll fraud protection through the C ABI (pumping.tollFraud): reCAPTCHA
Enterprise's assessment is asked with the number and its smsTollFraudVerdict.risk is judged by
tollFraudManagedRules; a host verifier is given the number and answers tollFraudRisk."""

import pytest

import phoneauth
from sms_servers import Answer, FakeServer
from support import REAL_NUMBER

IP = "203.0.113.7"
RULES = {"phoneEnforcementState": "ENFORCE", "useSmsTollFraudProtection": True,
         "tollFraudManagedRules": [{"startScore": 0.8, "action": "BLOCK"}]}


def rated(risk):
    return Answer(200, {"name": "projects/1/assessments/a",
                        "tokenProperties": {"valid": True, "hostname": "login.example.com", "action": "login"},
                        "riskAnalysis": {"score": 0.9, "reasons": []},
                        "phoneFraudAssessment": {"smsTollFraudVerdict": {"risk": risk, "reasons": []}}})


@pytest.fixture
def service():
    server = FakeServer()
    yield server
    server.close()


def send(engine, token):
    return engine.verify_phone_number(REAL_NUMBER, app_verification={"captchaToken": token}, client_ip=IP)


def test_recaptcha_enterprise_rates_the_number_and_a_risky_send_is_refused(make_engine, sms, service):
    provider = {"type": "recaptchaEnterprise", "secret": "s", "baseUrl": service.url, "siteKey": "site-key-1",
                "projectId": "acme-auth"}
    engine = make_engine(sender=sms, captcha={"provider": provider}, pumping={"mode": "enforce", "tollFraud": RULES})
    service.script(rated(0.9), rated(0.2))
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        send(engine, "token-1")
    assert info.value.code == "captchaCheckFailed" and info.value.details["reason"] == "tollFraudRisk", info.value
    sms.wait_for(verification_id=send(engine, "token-2")["verificationId"])
    first, _ = service.wait_for_requests(2)
    assert first.json()["event"]["userInfo"] == {"userIds": [{"phoneNumber": REAL_NUMBER}]}
    [decision] = engine.call("listPumpingDecisions", {})["decisions"]
    assert (decision["rule"], decision["action"], decision["risk"], decision["startScore"]) == (
        "tollFraudRisk", "refused", 0.9, 0.8)


def test_a_host_verifier_is_given_the_number_and_its_risk_is_judged(make_engine, sms):
    asked = []
    engine = make_engine(sender=sms, pumping={"mode": "enforce", "tollFraud": dict(RULES,
                                                                                  phoneEnforcementState="AUDIT")})
    engine.set_captcha_verifier(lambda request: asked.append(request) or {"success": True, "tollFraudRisk": 1})
    sms.wait_for(verification_id=send(engine, "token-1")["verificationId"])
    assert asked == [{"token": "token-1", "clientIp": IP, "phoneNumber": REAL_NUMBER}]
    [decision] = engine.call("listPumpingDecisions", {})["decisions"]
    assert (decision["action"], decision["risk"]) == ("flagged", 1.0)
    # A risk that is not a number from 0 to 1 is an answer the engine cannot read: never a pass.
    for index, risk in enumerate(["high", 95, -1]):
        engine.set_captcha_verifier(lambda request, risk=risk: {"success": True, "tollFraudRisk": risk})
        with pytest.raises(phoneauth.PhoneAuthError) as info:
            send(engine, f"token-{index + 2}")
        assert info.value.details["reason"] == "verifierFailed", (risk, info.value)

