/* portable_check.c: run by check-portable.sh where /opt/swift is hidden. Opens an engine, signs
 * in with a test number, verifies the ID token. Prints one line per step; exits 0 on success.
 * Only system libraries besides libphoneauth: jansson and libc. */
#include <jansson.h>
#include <phoneauth.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The string (or, for objects, the compact JSON text) of a top-level field; malloc'ed. */
static char *field(const char *json, const char *key) {
    json_t *root = json ? json_loads(json, 0, NULL) : NULL;
    json_t *v = json_object_get(root, key);
    char *s = json_is_string(v) ? strdup(json_string_value(v))
              : json_is_object(v) ? json_dumps(v, JSON_COMPACT) : NULL;
    json_decref(root);
    return s;
}

static int fail(const char *step, int status, char *out) {
    printf("FAIL %s: status %d %s\n", step, status, out ? out : "");
    phoneauth_free(out);
    return 1;
}

int main(int argc, char **argv) {
    const char *db = argc > 1 ? argv[1] : "/tmp/phoneauth-portable.db";
    printf("libphoneauth %s (ABI %d)\n", phoneauth_version(), phoneauth_abi_version());
    if (strcmp(phoneauth_version(), PHONEAUTH_VERSION) != 0) return fail("version", 0, NULL);

    char config[4200];
    snprintf(config, sizeof config,
             "{\"database\": \"%s\", \"testPhoneNumbers\": {\"+16505551234\": \"123456\"}}", db);
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(config, &err);
    if (!e) return fail("phoneauth_open", 0, err);
    printf("engine opened on %s\n", db);

    char *out = NULL;
    int st = phoneauth_verify_phone_number(e, "{\"phoneNumber\": \"+16505551234\"}", &out);
    char *vid = st == PHONEAUTH_OK ? field(out, "verificationId") : NULL;
    if (!vid) return fail("verifyPhoneNumber", st, out);
    phoneauth_free(out);

    char params[1024];
    snprintf(params, sizeof params, "{\"verificationId\": \"%s\", \"verificationCode\": \"123456\"}", vid);
    out = NULL;
    st = phoneauth_credential(e, params, &out);
    char *cred = st == PHONEAUTH_OK ? field(out, "credential") : NULL;
    if (!cred) return fail("credential", st, out);
    phoneauth_free(out);

    char params2[2048];
    snprintf(params2, sizeof params2, "{\"credential\": %s}", cred);
    out = NULL;
    st = phoneauth_sign_in_with_credential(e, params2, &out);
    char *idt = st == PHONEAUTH_OK ? field(out, "idToken") : NULL;
    if (!idt) return fail("signInWithCredential", st, out);
    phoneauth_free(out);
    printf("test-number sign-in ok (idToken %.12s...)\n", idt);

    char params3[8192];
    snprintf(params3, sizeof params3, "{\"idToken\": \"%s\"}", idt);
    out = NULL;
    st = phoneauth_call(e, "verifyIdToken", params3, &out);
    if (st != PHONEAUTH_OK) return fail("verifyIdToken", st, out);
    phoneauth_free(out);
    printf("verifyIdToken ok\n");

    free(idt);
    free(cred);
    free(vid);
    phoneauth_close(e);
    printf("PORTABLE OK\n");
    return 0;
}
