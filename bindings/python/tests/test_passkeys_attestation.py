"""Attestation a host chose to trust (passkeys.attestationRoots): a passkey is registered only with
a packed attestation whose certificate chain (x5c) leads to one of the roots, valid now; anything
else (another root, a chain missing its intermediate, an expired certificate, self attestation,
none) is refused as untrustedAttestation. Without roots, any attestation is taken (its signature
checked). The certificates are made here with `cryptography`; OpenSSL judges them in the engine."""

import base64
import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

import phoneauth
from softauth import ORIGIN, RP_ID, Authenticator

NUMBER, CODE = "+16505551234", "123456"
NOW = datetime.datetime.now(datetime.timezone.utc)


def certificate(name: str, key, issuer=None, ca: bool = False, days=(-1, 365)) -> x509.Certificate:
    """A certificate of `key` named `name`, signed by `issuer` (a (certificate, key) pair) or itself."""
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    issuer_name, signer = (issuer[0].subject, issuer[1]) if issuer else (subject, key)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer_name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(NOW + datetime.timedelta(days=days[0]))
            .not_valid_after(NOW + datetime.timedelta(days=days[1]))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
            .sign(signer, hashes.SHA256()))


def der(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


class Authority:
    """A root, an intermediate under it, and attestation keys certified by the intermediate."""

    def __init__(self, name: str):
        self.root_key, self.middle_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
        self.root = certificate(f"{name} Root", self.root_key, ca=True)
        self.middle = certificate(f"{name} Intermediate", self.middle_key, (self.root, self.root_key), ca=True)

    def attestation(self, days=(-1, 365), with_intermediate=True):
        """x5c for the software authenticator: an attestation key and its chain, leaf first."""
        key = ec.generate_private_key(ec.SECP256R1())
        leaf = certificate("Authenticator Attestation", key, (self.middle, self.middle_key), days=days)
        return key, [der(leaf)] + ([der(self.middle)] if with_intermediate else [])

    @property
    def pem(self) -> str:
        return self.root.public_bytes(serialization.Encoding.PEM).decode()


@pytest.fixture
def vendor():
    return Authority("Vendor")


def passkey_engine(make_engine, **passkeys):
    return make_engine(testPhoneNumbers={NUMBER: CODE},
                       passkeys={"rpId": RP_ID, "origins": [ORIGIN], **passkeys})


def register(engine, authenticator) -> dict:
    started = engine.verify_phone_number(NUMBER)
    signed = engine.sign_in_with_credential(engine.credential(started["verificationId"], CODE)["credential"])
    options = engine.start_passkey_enrollment(signed["idToken"])["options"]
    return options, lambda: engine.finish_passkey_enrollment(signed["idToken"], authenticator.create(options))


def reason(call) -> str:
    with pytest.raises(phoneauth.PhoneAuthError) as raised:
        call()
    return raised.value.details.get("reason")


def test_a_chain_to_a_trusted_root_registers_and_anything_else_is_refused(make_engine, vendor):
    # The root in PEM, and in base64 DER: both forms are read.
    engine = passkey_engine(make_engine, attestationRoots=[vendor.pem, base64.b64encode(der(vendor.root)).decode()])
    trusted = Authenticator(attestation="packed", x5c=vendor.attestation())
    options, finish = register(engine, trusted)
    assert options["attestation"] == "direct"  # asked for, since it is judged
    assert finish()["passkey"]["format"] == "packed"
    options = engine.start_passkey_sign_in()["options"]
    assert engine.finish_passkey_sign_in(trusted.get(options))["user"]["uid"]

    stranger = Authority("Stranger")
    refused = {
        "another root": Authenticator(attestation="packed", x5c=stranger.attestation()),
        "no intermediate": Authenticator(attestation="packed", x5c=vendor.attestation(with_intermediate=False)),
        "expired": Authenticator(attestation="packed", x5c=vendor.attestation(days=(-30, -1))),
        "not yet valid": Authenticator(attestation="packed", x5c=vendor.attestation(days=(1, 30))),
        "self": Authenticator(attestation="packed"),
        "none": Authenticator(),
    }
    for why, authenticator in refused.items():
        _, finish = register(engine, authenticator)
        assert reason(finish) == "untrustedAttestation", why


def test_without_roots_any_attestation_is_taken_and_bad_roots_are_named(make_engine):
    engine = passkey_engine(make_engine)
    options, finish = register(engine, Authenticator(attestation="packed", x5c=Authority("Stranger").attestation()))
    assert options["attestation"] == "none"
    assert finish()["passkey"]["format"] == "packed"
    for roots in (["not a certificate"], [], [base64.b64encode(b"\x30\x03\x02\x01\x01").decode()]):
        with pytest.raises(phoneauth.PhoneAuthError) as raised:
            passkey_engine(make_engine, attestationRoots=roots)
        assert raised.value.code == "invalidConfiguration"
        assert "passkeys.attestationRoots" in raised.value.message
