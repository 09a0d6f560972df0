#ifndef PHONEAUTH_CFIDO2_SHIM_H
#define PHONEAUTH_CFIDO2_SHIM_H
/* libfido2 verifies WebAuthn attestations and assertions (fido_cred_verify, fido_assert_verify):
 * the engine never talks to a device through it. */
#include <fido.h>
#include <fido/es256.h>
#include <fido/rs256.h>
#include <fido/eddsa.h>
/* OpenSSL's libcrypto, which libfido2 is built on: the chain of a packed attestation's
 * certificates, judged against the roots a host chose to trust (AttestationTrust). */
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#endif
