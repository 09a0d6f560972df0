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
from cryptography.x509.oid import NameOID, ObjectIdentifier

import phoneauth
from softauth import ORIGIN, RP_ID, Authenticator

NUMBER, CODE = "+16505551234", "123456"
NOW = datetime.datetime.now(datetime.timezone.utc)
# The certificate extension naming the authenticator's model (Web Authentication, section 8.2.1).
AAGUID_EXTENSION = ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")


def certificate(name: str, key, issuer=None, ca: bool = False, days=(-1, 365), aaguid=None) -> x509.Certificate:
    """A certificate of `key` named `name`, signed by `issuer` (a (certificate, key) pair) or itself;
    with `aaguid`, the extension that certifies the authenticator's model."""
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    issuer_name, signer = (issuer[0].subject, issuer[1]) if issuer else (subject, key)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(NOW + datetime.timedelta(days=days[0]))
               .not_valid_after(NOW + datetime.timedelta(days=days[1]))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if aaguid is not None:
        builder = builder.add_extension(x509.UnrecognizedExtension(AAGUID_EXTENSION, b"\x04\x10" + aaguid), False)
    return builder.sign(signer, hashes.SHA256())


def der(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.DER)


class Authority:
    """A root, an intermediate under it, and attestation keys certified by the intermediate."""

    def __init__(self, name: str):
        self.root_key, self.middle_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
        self.root = certificate(f"{name} Root", self.root_key, ca=True)
        self.middle = certificate(f"{name} Intermediate", self.middle_key, (self.root, self.root_key), ca=True)

    def attestation(self, days=(-1, 365), with_intermediate=True, ca=False, aaguid=None):
        """x5c for the software authenticator: an attestation key and its chain, leaf first."""
        key = ec.generate_private_key(ec.SECP256R1())
        leaf = certificate("Authenticator Attestation", key, (self.middle, self.middle_key), days=days, ca=ca,
                           aaguid=aaguid)
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
    # The software authenticator's model is all zeros, as its authenticator data says.
    trusted = Authenticator(attestation="packed", x5c=vendor.attestation(aaguid=bytes(16)))
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
        "a CA as the leaf": Authenticator(attestation="packed", x5c=vendor.attestation(ca=True)),
        "another model certified": Authenticator(attestation="packed", x5c=vendor.attestation(aaguid=b"\x01" * 16)),
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


def test_an_attestation_statement_is_read_alike_by_both_readers(make_engine, vendor):
    """Keys beyond alg, sig and x5c (one libfido2 would read as x5c: "x5c\\0") are refused, so
    that the chain judged is the one whose key signed."""
    engine = passkey_engine(make_engine, attestationRoots=[vendor.pem])
    for extra in ({"x5c\0": [b"\x30\x00"]}, {"ecdaaKeyId": b"\x00"}):
        authenticator = Authenticator(attestation="packed", x5c=vendor.attestation())
        authenticator.extra_statement = extra
        _, finish = register(engine, authenticator)
        assert reason(finish) == "malformed", extra
