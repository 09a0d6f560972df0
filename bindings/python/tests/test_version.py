"""version() and abi_version(): the library and the binding agree."""

import re

import phoneauth


def test_version_is_0_1_0():
    assert phoneauth.version() == "0.1.0"


def test_abi_version_is_1():
    assert phoneauth.abi_version() == 1
    assert phoneauth.abi_version() == phoneauth.ABI_VERSION


def test_version_matches_header(header_text):
    declared = re.search(r'#define PHONEAUTH_VERSION "([^"]+)"', header_text).group(1)
    assert phoneauth.version() == declared


def test_strerror_names_the_code():
    assert phoneauth.strerror(17044).startswith("invalidVerificationCode")
    assert phoneauth.strerror(18002).startswith("unknownMethod")
    assert phoneauth.strerror(123456789)  # never NULL, even for an unknown number
