/* test_passkeys.c: the passkey wrappers (phoneauth_start_passkey_enrollment,
 * phoneauth_finish_passkey_enrollment, phoneauth_start_passkey_sign_in,
 * phoneauth_finish_passkey_sign_in) each reach their method: a user signed in with a test number
 * registers a P-256 passkey made here with OpenSSL (attestation "none") and signs in with it.
 * Without a "passkeys" configuration they are refused as operationNotAllowed. */
#include "testutil.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUMBER "+16505551234"
#define CODE "123456"
#define RP_ID "login.example.com"
#define ORIGIN "https://login.example.com"
#define PASSKEYS_CONFIG "{\"testPhoneNumbers\": {\"" NUMBER "\": \"" CODE "\"}, \"passkeys\": {\"rpId\": \"" RP_ID \
                        "\", \"rpName\": \"Example\", \"origins\": [\"" ORIGIN "\"]}}"

static char *g_dir;

/* ---- a software authenticator (P-256, attestation "none") -------------------------------------- */

typedef struct {
    EVP_PKEY *key;
    unsigned char id[16];
    uint32_t counter;
} authenticator;

/* Base64url without padding into a new string. */
static char *b64url(const unsigned char *data, size_t len) {
    char *out = malloc(4 * ((len + 2) / 3) + 1);
    int n = EVP_EncodeBlock((unsigned char *)out, data, (int)len);
    while (n > 0 && out[n - 1] == '=') n--;
    out[n] = 0;
    for (char *c = out; *c; c++) *c = *c == '+' ? '-' : *c == '/' ? '_' : *c;
    return out;
}

/* Appends bytes to a buffer of capacity 1024 (everything built here is smaller). */
static void put(unsigned char *buf, size_t *len, const void *data, size_t n) {
    if (*len + n <= 1024) memcpy(buf + *len, data, n);
    *len += n;
}

/* A CBOR head: major type and a length or value below 65536. */
static void cbor_head(unsigned char *buf, size_t *len, int major, unsigned n) {
    unsigned char head[3] = {(unsigned char)(major << 5), 0, 0};
    if (n < 24) {
        head[0] |= (unsigned char)n;
        put(buf, len, head, 1);
    } else if (n < 256) {
        head[0] |= 24, head[1] = (unsigned char)n;
        put(buf, len, head, 2);
    } else {
        head[0] |= 25, head[1] = (unsigned char)(n >> 8), head[2] = (unsigned char)n;
        put(buf, len, head, 3);
    }
}

static void cbor_text(unsigned char *buf, size_t *len, const char *text) {
    cbor_head(buf, len, 3, (unsigned)strlen(text));
    put(buf, len, text, strlen(text));
}

static void cbor_bytes(unsigned char *buf, size_t *len, const unsigned char *data, size_t n) {
    cbor_head(buf, len, 2, (unsigned)n);
    put(buf, len, data, n);
}

/* Authenticator data: the relying party's hash, flags UP and UV (and AT with the credential),
 * the counter, then for a registration the AAGUID, credential ID and COSE key. */
static size_t auth_data(authenticator *a, int attested, unsigned char *buf) {
    size_t len = 0;
    unsigned char hash[32], flags = (unsigned char)(0x01 | 0x04 | (attested ? 0x40 : 0));
    EVP_Digest(RP_ID, strlen(RP_ID), hash, NULL, EVP_sha256(), NULL);
    put(buf, &len, hash, 32);
    put(buf, &len, &flags, 1);
    unsigned char counter[4] = {(unsigned char)(a->counter >> 24), (unsigned char)(a->counter >> 16),
                                (unsigned char)(a->counter >> 8), (unsigned char)a->counter};
    put(buf, &len, counter, 4);
    if (!attested) return len;
    unsigned char aaguid[16] = {0}, id_len[2] = {0, sizeof a->id}, x[32], y[32];
    put(buf, &len, aaguid, 16);
    put(buf, &len, id_len, 2);
    put(buf, &len, a->id, sizeof a->id);
    BIGNUM *bx = NULL, *by = NULL;
    EVP_PKEY_get_bn_param(a->key, OSSL_PKEY_PARAM_EC_PUB_X, &bx);
    EVP_PKEY_get_bn_param(a->key, OSSL_PKEY_PARAM_EC_PUB_Y, &by);
    BN_bn2binpad(bx, x, 32);
    BN_bn2binpad(by, y, 32);
    BN_free(bx);
    BN_free(by);
    /* COSE key {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} */
    cbor_head(buf, &len, 5, 5);
    cbor_head(buf, &len, 0, 1), cbor_head(buf, &len, 0, 2);
    cbor_head(buf, &len, 0, 3), cbor_head(buf, &len, 1, 6);
    cbor_head(buf, &len, 1, 0), cbor_head(buf, &len, 0, 1);
    cbor_head(buf, &len, 1, 1), cbor_bytes(buf, &len, x, 32);
    cbor_head(buf, &len, 1, 2), cbor_bytes(buf, &len, y, 32);
    return len;
}

/* The client data JSON a browser makes for `type` ("webauthn.create" or "webauthn.get"). */
static char *client_data(const char *type, json_t *options) {
    json_t *client = json_pack("{s:s, s:s?, s:s}", "type", type, "challenge", tu_str(options, "challenge"), "origin",
                               ORIGIN);
    char *text = json_dumps(client, JSON_COMPACT);
    json_decref(client);
    return text;
}

/* navigator.credentials.create's answer as PublicKeyCredential JSON (new reference). */
static json_t *create(authenticator *a, json_t *options) {
    unsigned char data[1024], object[1024];
    size_t data_len = auth_data(a, 1, data), object_len = 0;
    cbor_head(object, &object_len, 5, 3);
    cbor_text(object, &object_len, "fmt"), cbor_text(object, &object_len, "none");
    cbor_text(object, &object_len, "attStmt"), cbor_head(object, &object_len, 5, 0);
    cbor_text(object, &object_len, "authData"), cbor_bytes(object, &object_len, data, data_len);
    char *client = client_data("webauthn.create", options);
    char *id = b64url(a->id, sizeof a->id), *client64 = b64url((unsigned char *)client, strlen(client));
    char *object64 = b64url(object, object_len);
    json_t *credential = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "id", id, "rawId", id, "type", "public-key",
                                   "response", "clientDataJSON", client64, "attestationObject", object64);
    free(client), free(id), free(client64), free(object64);
    return credential;
}

/* navigator.credentials.get's answer: the counter goes up, the key signs data || SHA-256(client). */
static json_t *get(authenticator *a, json_t *options) {
    a->counter++;
    unsigned char data[1024 + 32], signature[128];
    size_t data_len = auth_data(a, 0, data), signature_len = sizeof signature;
    char *client = client_data("webauthn.get", options);
    EVP_Digest(client, strlen(client), data + data_len, NULL, EVP_sha256(), NULL);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int signed_ok = EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, a->key) == 1 &&
                    EVP_DigestSign(md, signature, &signature_len, data, data_len + 32) == 1;
    EVP_MD_CTX_free(md);
    CHECK(signed_ok);
    char *id = b64url(a->id, sizeof a->id), *client64 = b64url((unsigned char *)client, strlen(client));
    char *data64 = b64url(data, data_len), *signature64 = b64url(signature, signature_len);
    json_t *credential = json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s}}", "id", id, "rawId", id, "type", "public-key",
                                   "response", "clientDataJSON", client64, "authenticatorData", data64, "signature",
                                   signature64);
    free(client), free(id), free(client64), free(data64), free(signature64);
    return credential;
}

/* ---- calls through the wrappers ----------------------------------------------------------------- */

typedef int (*wrapper_fn)(phoneauth_engine *, const char *, char **);

/* Runs a wrapper with params (stolen) and parses its output; *st gets the status. */
static json_t *wrap(wrapper_fn fn, phoneauth_engine *e, json_t *params, int *st) {
    char *text = json_dumps(params, JSON_COMPACT), *out = NULL;
    json_decref(params);
    *st = fn(e, text, &out);
    free(text);
    return tu_parse_out(*st, out);
}

static void test_off_unless_configured(void) {
    phoneauth_engine *e = tu_open(g_dir, "off", NULL);
    if (!e) return;
    int st;
    json_t *r = wrap(phoneauth_start_passkey_sign_in, e, json_object(), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed");
    json_decref(r);
    phoneauth_close(e);
}

static void test_a_phone_user_signs_in_again_with_a_passkey(void) {
    phoneauth_engine *e = tu_open(g_dir, "passkeys", PASSKEYS_CONFIG);
    if (!e) return;
    int st;
    json_t *v = wrap(phoneauth_verify_phone_number, e, json_pack("{s:s}", "phoneNumber", NUMBER), &st);
    json_t *in = EXPECT_OK(v, st) ? wrap(phoneauth_sign_in_with_credential, e,
                                         json_pack("{s:{s:s, s:s}}", "credential", "verificationId",
                                                   tu_str(v, "verificationId"), "verificationCode", CODE),
                                         &st)
                                  : NULL;
    json_decref(v);
    if (!in || !EXPECT_OK(in, st)) {
        json_decref(in);
        phoneauth_close(e);
        return;
    }
    authenticator a = {.key = EVP_EC_gen("P-256"), .counter = 0};
    for (size_t i = 0; i < sizeof a.id; i++) a.id[i] = (unsigned char)(0xa0 + i);
    char *id64 = b64url(a.id, sizeof a.id);

    /* creation options: the relying party and a user handle */
    json_t *started = wrap(phoneauth_start_passkey_enrollment, e,
                           json_pack("{s:s}", "idToken", tu_str(in, "idToken")), &st);
    EXPECT_OK(started, st);
    CHECKF(tu_str(started, "options.rp.id") && !strcmp(tu_str(started, "options.rp.id"), RP_ID), "%s",
           tu_dump(started));
    CHECKF(tu_str(started, "options.user.id") != NULL, "%s", tu_dump(started));
    json_t *made = wrap(phoneauth_finish_passkey_enrollment, e,
                        json_pack("{s:s, s:o, s:s}", "idToken", tu_str(in, "idToken"), "credential",
                                  create(&a, tu_get(started, "options")), "name", "C test"),
                        &st);
    EXPECT_OK(made, st);
    CHECKF(tu_str(made, "passkey.credentialId") && !strcmp(tu_str(made, "passkey.credentialId"), id64), "%s",
           tu_dump(made));

    /* request options for the user named by number: that passkey only */
    json_t *asked = wrap(phoneauth_start_passkey_sign_in, e, json_pack("{s:s}", "phoneNumber", NUMBER), &st);
    EXPECT_OK(asked, st);
    CHECKF(tu_str(asked, "options.rpId") && !strcmp(tu_str(asked, "options.rpId"), RP_ID), "%s", tu_dump(asked));
    json_t *allowed = tu_get(asked, "options.allowCredentials");
    const char *allowed_id = tu_str(json_array_get(allowed, 0), "id");
    CHECKF(json_array_size(allowed) == 1 && allowed_id && !strcmp(allowed_id, id64), "%s", tu_dump(asked));
    json_t *assertion = get(&a, tu_get(asked, "options"));
    json_t *again = wrap(phoneauth_finish_passkey_sign_in, e, json_pack("{s:O}", "credential", assertion), &st);
    EXPECT_OK(again, st);
    CHECKF(tu_str(again, "user.uid") && !strcmp(tu_str(again, "user.uid"), tu_str(in, "user.uid")), "%s vs %s",
           tu_dump(again), tu_dump(in));
    CHECK(tu_str(again, "idToken") && tu_str(again, "refreshToken"));

    /* the same assertion again: its challenge is used up */
    json_t *replayed = wrap(phoneauth_finish_passkey_sign_in, e, json_pack("{s:O}", "credential", assertion), &st);
    EXPECT_ERR(replayed, st, PHONEAUTH_ERR_INVALID_CREDENTIAL, "invalidCredential");
    CHECKF(tu_str(replayed, "error.details.reason") && !strcmp(tu_str(replayed, "error.details.reason"),
                                                                "wrongChallenge"),
           "%s", tu_dump(replayed));

    json_decref(assertion), json_decref(replayed), json_decref(again), json_decref(asked), json_decref(made), json_decref(started);
    json_decref(in);
    free(id64);
    EVP_PKEY_free(a.key);
    phoneauth_close(e);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_off_unless_configured();
    test_a_phone_user_signs_in_again_with_a_passkey();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
