/* test_tenants.c: tenants through the C ABI: one number is a user in each tenant; a verification,
 * refresh token, ID token or uid of one tenant is refused in another as an unknown one is; a
 * tenant's test number is not one elsewhere; an unknown tenant and a tenant with users. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUMBER "+16505551234"

static char *g_dir;

/* A tenant with NUMBER as its test number (code `code`); its ID into `id`. */
static int make_tenant(phoneauth_engine *e, const char *name, const char *code, char id[128]) {
    int st;
    json_t *r = tu_callj(e, "createTenant",
                         json_pack("{s:s, s:{s:s}}", "displayName", name, "testPhoneNumbers", NUMBER, code), &st);
    int ok = EXPECT_OK(r, st) && tu_str(r, "tenant.tenantId");
    if (ok) snprintf(id, 128, "%s", tu_str(r, "tenant.tenantId"));
    json_decref(r);
    return ok;
}

/* verifyPhoneNumber + signInWithCredential in `tenant` (NULL: the default pool). */
static json_t *sign_in(phoneauth_engine *e, const char *tenant, const char *code, int *st) {
    json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s, s:s*}", "phoneNumber", NUMBER, "tenantId", tenant),
                         st);
    if (!EXPECT_OK(v, *st)) return v;
    json_t *r = tu_callj(e, "signInWithCredential",
                         json_pack("{s:{s:s?, s:s}, s:s*}", "credential", "verificationId",
                                   tu_str(v, "verificationId"), "verificationCode", code, "tenantId", tenant),
                         st);
    json_decref(v);
    return r;
}

/* The error `method` with `params` gives, as "code|message" (what a caller can tell apart). */
static void refusal(phoneauth_engine *e, const char *method, json_t *params, char out[512]) {
    int st;
    json_t *r = tu_callj(e, method, params, &st);
    snprintf(out, 512, "%d|%s|%s", st, tu_str(r, "error.code") ? tu_str(r, "error.code") : "(none)",
             tu_errmsg(r) ? tu_errmsg(r) : "(none)");
    json_decref(r);
}

static void test_isolation(void) {
    phoneauth_engine *e = tu_open(g_dir, "tenants", "{\"testPhoneNumbers\": {\"" NUMBER "\": \"111111\"}}");
    if (!e) return;
    char a[128], b[128];
    if (!make_tenant(e, "Alpha", "222222", a) || !make_tenant(e, "Bravo", "333333", b)) {
        phoneauth_close(e);
        return;
    }
    int st;
    json_t *in_a = sign_in(e, a, "222222", &st);
    EXPECT_OK(in_a, st);
    json_t *in_b = sign_in(e, b, "333333", &st);
    EXPECT_OK(in_b, st);
    json_t *in_default = sign_in(e, NULL, "111111", &st);
    EXPECT_OK(in_default, st);
    const char *uid_a = tu_str(in_a, "user.uid"), *uid_b = tu_str(in_b, "user.uid");
    const char *uid_d = tu_str(in_default, "user.uid");
    CHECKF(uid_a && uid_b && uid_d && strcmp(uid_a, uid_b) && strcmp(uid_a, uid_d) && strcmp(uid_b, uid_d),
           "one number, three users: %s %s %s", uid_a, uid_b, uid_d);
    CHECKF(tu_str(in_a, "user.tenantId") && !strcmp(tu_str(in_a, "user.tenantId"), a), "%s", tu_dump(in_a));

    /* A's test number is no test number in B: its code is wrong there, and a new verification
     * of B's is needed; a verification ID of A is unknown in B. */
    json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s, s:s}", "phoneNumber", NUMBER, "tenantId", a), &st);
    EXPECT_OK(v, st);
    char cross[512], unknown[512];
    refusal(e, "signInWithCredential",
            json_pack("{s:{s:s?, s:s}, s:s}", "credential", "verificationId", tu_str(v, "verificationId"),
                      "verificationCode", "222222", "tenantId", b),
            cross);
    char forged[128];
    snprintf(forged, sizeof forged, "%s", tu_str(v, "verificationId") ? tu_str(v, "verificationId") : "x");
    size_t n = strlen(forged);
    if (n > 4) memcpy(forged + n - 4, forged[n - 1] == 'A' ? "BBBB" : "AAAA", 4);
    refusal(e, "signInWithCredential",
            json_pack("{s:{s:s, s:s}, s:s}", "credential", "verificationId", forged, "verificationCode", "222222",
                      "tenantId", b),
            unknown);
    CHECKF(!strcmp(cross, unknown) && strstr(cross, "invalidVerificationID"), "%s vs %s", cross, unknown);
    json_decref(v);

    /* Refresh tokens and ID tokens of A, named with B. */
    refusal(e, "refreshIdToken", json_pack("{s:s?, s:s}", "refreshToken", tu_str(in_a, "refreshToken"), "tenantId", b),
            cross);
    CHECKF(strstr(cross, "invalidUserToken") != NULL, "%s", cross);
    json_t *ok = tu_callj(e, "refreshIdToken", json_pack("{s:s?}", "refreshToken", tu_str(in_a, "refreshToken")), &st);
    EXPECT_OK(ok, st); /* untouched by the refused try */
    json_decref(ok);
    refusal(e, "verifyIdToken", json_pack("{s:s?, s:s}", "idToken", tu_str(in_a, "idToken"), "tenantId", b), cross);
    CHECKF(strstr(cross, "invalidIdToken") != NULL, "%s", cross);

    /* A uid of A is unknown in B and in the default pool. */
    refusal(e, "getUser", json_pack("{s:s?, s:s}", "uid", uid_a, "tenantId", b), cross);
    refusal(e, "getUser", json_pack("{s:s, s:s}", "uid", "no-such-uid", "tenantId", b), unknown);
    CHECKF(!strcmp(cross, unknown) && strstr(cross, "userNotFound"), "%s vs %s", cross, unknown);
    refusal(e, "deleteUser", json_pack("{s:s?}", "uid", uid_a), cross);
    CHECKF(strstr(cross, "userNotFound") != NULL, "%s", cross);

    /* A tenant with users is kept; an unknown one is named. */
    refusal(e, "deleteTenant", json_pack("{s:s}", "tenantId", a), cross);
    CHECKF(strstr(cross, "tenantNotEmpty") != NULL, "%s", cross);
    refusal(e, "getUser", json_pack("{s:s?, s:s}", "uid", uid_a, "tenantId", "no-such-tenant"), cross);
    CHECKF(strstr(cross, "tenantNotFound") != NULL, "%s", cross);
    CHECK(PHONEAUTH_ERR_TENANT_NOT_FOUND == 18010 && PHONEAUTH_ERR_TENANT_NOT_EMPTY == 18011 &&
          PHONEAUTH_ERR_TENANT_ID_MISMATCH == 18012);

    json_decref(in_a);
    json_decref(in_b);
    json_decref(in_default);
    phoneauth_close(e);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_isolation();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
