/* test_signin.c: the SMS sign-in flow through the typed wrappers and phoneauth_call: verify,
 * receive the SMS, credential, sign in (new user, then existing), wrong codes, single use,
 * refresh with rotation, verifyIdToken, signOut. */
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static phoneauth_engine *g_e;
static tu_sms g_sms;
static tu_sent g_sent;

#define PHONE "+16505553434"

typedef int (*wrapper_fn)(phoneauth_engine *, const char *, char **);

/* Calls a typed wrapper with params (stolen) and parses the output. */
#define WCALL(fn, params, st) wcall(__FILE__, __LINE__, (fn), (params), (st))
static json_t *wcall(const char *file, int line, wrapper_fn fn, json_t *params, int *st) {
    char *text = json_dumps(params, JSON_COMPACT);
    json_decref(params);
    char *out = NULL;
    *st = fn(g_e, text, &out);
    free(text);
    return tu_parse_out_at(file, line, *st, out);
}

static int is_rfc3339_utc(const char *s) {
    int y, mo, d, h, mi, sec;
    char z = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6) return 0;
    z = s[strlen(s) - 1];
    return z == 'Z' && y >= 2020 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31;
}

static int count_char(const char *s, char c) {
    int n = 0;
    for (; s && *s; s++) n += *s == c;
    return n;
}

/* Starts a verification and returns {verificationId, code} from the SMS; vid/code are filled. */
static int start(const char *phone, char *vid, size_t vid_size, char *code) {
    int st;
    json_t *v = WCALL(phoneauth_verify_phone_number, json_pack("{s:s}", "phoneNumber", phone), &st);
    int ok = EXPECT_OK(v, st);
    const char *id = tu_str(v, "verificationId");
    ok = ok && CHECKF(id && strlen(id) < vid_size, "%s", tu_dump(v));
    if (ok) snprintf(vid, vid_size, "%s", id);
    json_t *m = ok ? tu_sms_wait(&g_sms, vid, tu_timeout_ms(15000)) : NULL;
    ok = ok && CHECKF(m != NULL, "no SMS for %s", phone);
    ok = ok && CHECKF(tu_extract_code(tu_str(m, "body"), (int)tu_int(v, "codeLength", 6), code),
                      "no code in %s", tu_dump(m));
    json_decref(m);
    json_decref(v);
    return ok;
}

static json_t *credential(const char *vid, const char *code) {
    int st;
    json_t *c = WCALL(phoneauth_credential,
                      json_pack("{s:s, s:s}", "verificationId", vid, "verificationCode", code), &st);
    EXPECT_OK(c, st);
    json_t *cred = json_incref(tu_get(c, "credential"));
    json_decref(c);
    return cred;
}

static json_t *sign_in(json_t *cred, int *st) {
    return WCALL(phoneauth_sign_in_with_credential, json_pack("{s:O}", "credential", cred), st);
}

static void test_first_sign_in(char *uid_out, char *refresh_out, char *id_token_out) {
    int st;
    json_t *v = WCALL(phoneauth_verify_phone_number, json_pack("{s:s}", "phoneNumber", PHONE), &st);
    if (!EXPECT_OK(v, st)) {
        json_decref(v);
        return;
    }
    const char *vid = tu_str(v, "verificationId");
    CHECKF(vid && strlen(vid) >= 16, "verificationId: %s", tu_dump(v));
    CHECKF(tu_int(v, "codeLength", -1) == 6, "%s", tu_dump(v));
    CHECKF(is_rfc3339_utc(tu_str(v, "expiresAt")), "expiresAt: %s", tu_dump(v));
    CHECKF(is_rfc3339_utc(tu_str(v, "resendAt")), "resendAt: %s", tu_dump(v));
    if (!vid) {
        json_decref(v);
        return;
    }

    /* the SMS */
    json_t *m = tu_sms_wait(&g_sms, vid, tu_timeout_ms(15000));
    if (!CHECKF(m != NULL, "no SMS within the timeout")) {
        json_decref(v);
        return;
    }
    CHECKF(tu_str(m, "to") && strcmp(tu_str(m, "to"), PHONE) == 0, "%s", tu_dump(m));
    CHECKF(tu_str(m, "languageCode") && strcmp(tu_str(m, "languageCode"), "en") == 0, "%s",
           tu_dump(m));
    char code[16];
    CHECKF(tu_extract_code(tu_str(m, "body"), 6, code), "no 6-digit code in %s", tu_dump(m));
    CHECKF(!strstr(tu_dump(v), code), "the code must not appear in the verify result");

    /* delivery recorded as sent: the status trails the callback, codeSent comes once it is stored */
    CHECKF(tu_sent_wait(&g_sent, 1, tu_timeout_ms(15000)) >= 1, "no codeSent");
    json_t *s = tu_callj(g_e, "getVerificationStatus", json_pack("{s:s}", "verificationId", vid), &st);
    const char *delivery = tu_str(s, "delivery");
    EXPECT_OK(s, st);
    CHECKF(delivery && strcmp(delivery, "sent") == 0, "%s", tu_dump(s));
    CHECKF(tu_str(s, "state") && strcmp(tu_str(s, "state"), "active") == 0, "%s", tu_dump(s));
    /* "attempts" counts delivery attempts (the engine's reading; docs/API.md does not say) */
    CHECKF(tu_int(s, "attempts", -1) == 1, "one delivery attempt: %s", tu_dump(s));
    const char *masked = tu_str(s, "phoneNumber");
    CHECKF(masked && strcmp(masked, PHONE) != 0 && strchr(masked, '*') &&
               strcmp(masked + strlen(masked) - 4, "3434") == 0,
           "masked number: %s", tu_dump(s));
    json_decref(s);

    /* a wrong code first */
    char wrong[16];
    strcpy(wrong, code);
    wrong[5] = wrong[5] == '9' ? '0' : (char)(wrong[5] + 1);
    json_t *cred = credential(vid, wrong);
    json_t *r = sign_in(cred, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    CHECKF(tu_int(r, "error.details.attemptsLeft", -1) == 4, "%s", tu_dump(r));
    CHECKF(!strstr(tu_errmsg(r), wrong), "the message must not echo the code");
    json_decref(r);
    json_decref(cred);

    /* the right code: a new user */
    cred = credential(vid, code);
    CHECKF(tu_str(cred, "providerId") && strcmp(tu_str(cred, "providerId"), "phone") == 0 &&
               tu_str(cred, "verificationId") && strcmp(tu_str(cred, "verificationId"), vid) == 0 &&
               tu_str(cred, "verificationCode") && strcmp(tu_str(cred, "verificationCode"), code) == 0,
           "%s", tu_dump(cred));
    r = sign_in(cred, &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
        CHECKF(tu_str(r, "additionalUserInfo.providerId") &&
                   strcmp(tu_str(r, "additionalUserInfo.providerId"), "phone") == 0,
               "%s", tu_dump(r));
        const char *uid = tu_str(r, "user.uid");
        const char *idt = tu_str(r, "idToken");
        const char *rt = tu_str(r, "refreshToken");
        CHECKF(uid && *uid, "%s", tu_dump(r));
        CHECKF(tu_str(r, "user.phoneNumber") && strcmp(tu_str(r, "user.phoneNumber"), PHONE) == 0,
               "%s", tu_dump(r));
        CHECKF(tu_bool(r, "user.disabled") == 0, "%s", tu_dump(r));
        CHECKF(json_is_null(tu_get(r, "user.displayName")), "%s", tu_dump(r));
        CHECKF(is_rfc3339_utc(tu_str(r, "user.metadata.creationTime")) &&
                   is_rfc3339_utc(tu_str(r, "user.metadata.lastSignInTime")),
               "%s", tu_dump(r));
        json_t *pd = json_array_get(tu_get(r, "user.providerData"), 0);
        CHECKF(tu_str(pd, "providerId") && strcmp(tu_str(pd, "providerId"), "phone") == 0 &&
                   tu_str(pd, "phoneNumber") && strcmp(tu_str(pd, "phoneNumber"), PHONE) == 0,
               "%s", tu_dump(r));
        CHECKF(idt && count_char(idt, '.') == 2, "idToken is a JWT: %s", idt ? idt : "NULL");
        CHECKF(rt && strlen(rt) >= 16, "refreshToken: %s", rt ? rt : "NULL");
        CHECKF(tu_int(r, "expiresIn", -1) == 3600, "%s", tu_dump(r));
        if (uid) snprintf(uid_out, 256, "%s", uid);
        if (rt) snprintf(refresh_out, 1024, "%s", rt);
        if (idt) snprintf(id_token_out, 4096, "%s", idt);
    }
    json_decref(r);

    /* Used once; presented again within signInRetrySeconds (a retry whose answer was lost), the
     * credential gets that same session back, and the same user, still new. */
    r = sign_in(cred, &st);
    EXPECT_OK(r, st);
    CHECKF(tu_str(r, "refreshToken") && strcmp(tu_str(r, "refreshToken"), refresh_out) == 0, "%s", tu_dump(r));
    CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), uid_out) == 0, "%s", tu_dump(r));
    CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
    json_decref(r);
    json_decref(cred);

    s = tu_callj(g_e, "getVerificationStatus", json_pack("{s:s}", "verificationId", vid), &st);
    EXPECT_OK(s, st);
    CHECKF(tu_str(s, "state") && strcmp(tu_str(s, "state"), "used") == 0, "%s", tu_dump(s));
    json_decref(s);

    json_decref(m);
    json_decref(v);
}

static void test_second_sign_in(const char *uid) {
    /* another format of the same number: the same user, not new */
    char vid[512], code[16];
    if (!start("+1 650-555-3434", vid, sizeof vid, code)) return;
    json_t *cred = credential(vid, code);
    int st;
    json_t *r = sign_in(cred, &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 0, "%s", tu_dump(r));
        CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), uid) == 0,
               "same user expected (%s): %s", uid, tu_dump(r));
        CHECKF(tu_str(r, "user.phoneNumber") && strcmp(tu_str(r, "user.phoneNumber"), PHONE) == 0,
               "%s", tu_dump(r));
    }
    json_decref(r);
    json_decref(cred);
}

static void test_attempts_and_replacement(void) {
    int st;
    /* maxAttempts (5) wrong codes kill the verification: even the right code then fails */
    char vid[512], code[16];
    if (start("+16505553435", vid, sizeof vid, code)) {
        char wrong[16];
        strcpy(wrong, code);
        wrong[0] = wrong[0] == '9' ? '0' : (char)(wrong[0] + 1);
        long long last_left = 99;
        for (int i = 0; i < 5; i++) {
            json_t *cred = credential(vid, wrong);
            json_t *r = sign_in(cred, &st);
            CHECKF(st == PHONEAUTH_ERR_INVALID_VERIFICATION_CODE || (i == 4 && st == PHONEAUTH_ERR_SESSION_EXPIRED),
                   "wrong code #%d: %d %s", i + 1, st, tu_dump(r));
            long long left = tu_int(r, "error.details.attemptsLeft", -1);
            if (st == PHONEAUTH_ERR_INVALID_VERIFICATION_CODE)
                CHECKF(left == 4 - i && left < last_left, "attemptsLeft after %d: %s", i + 1, tu_dump(r));
            last_left = left;
            json_decref(r);
            json_decref(cred);
        }
        json_t *cred = credential(vid, code);
        json_t *r = sign_in(cred, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_SESSION_EXPIRED, "sessionExpired");
        CHECKF(tu_str(r, "error.details.reason") &&
                   strcmp(tu_str(r, "error.details.reason"), "tooManyAttempts") == 0,
               "%s", tu_dump(r));
        json_decref(r);
        json_decref(cred);
        json_t *s = tu_callj(g_e, "getVerificationStatus", json_pack("{s:s}", "verificationId", vid), &st);
        CHECKF(tu_str(s, "state") && strcmp(tu_str(s, "state"), "dead") == 0, "%s", tu_dump(s));
        json_decref(s);
    }

    /* a new verification for the same number replaces the old one */
    char vid1[512], code1[16], vid2[512], code2[16];
    if (start("+16505553436", vid1, sizeof vid1, code1) &&
        start("+16505553436", vid2, sizeof vid2, code2)) {
        CHECKF(strcmp(vid1, vid2) != 0, "resendAfterSeconds 0: a new verification each time");
        json_t *cred = credential(vid1, code1);
        json_t *r = sign_in(cred, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_SESSION_EXPIRED, "sessionExpired");
        CHECKF(tu_str(r, "error.details.reason") &&
                   strcmp(tu_str(r, "error.details.reason"), "replaced") == 0,
               "%s", tu_dump(r));
        json_decref(r);
        json_decref(cred);
        cred = credential(vid2, code2);
        r = sign_in(cred, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        json_decref(cred);
    }

    /* unknown and malformed verification IDs */
    json_t *cred = credential("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "123456");
    json_t *r = sign_in(cred, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_ID, "invalidVerificationID");
    json_decref(r);
    json_decref(cred);
    r = tu_call(g_e, "getVerificationStatus", "{\"verificationId\": \"not-a-verification\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_ID, "invalidVerificationID");
    json_decref(r);
}

static void test_tokens(const char *uid, const char *refresh, const char *id_token) {
    int st;
    /* verifyIdToken */
    json_t *r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", id_token), &st);
    if (EXPECT_OK(r, st)) {
        json_t *c = tu_get(r, "claims");
        CHECKF(tu_str(c, "sub") && strcmp(tu_str(c, "sub"), uid) == 0, "%s", tu_dump(r));
        CHECKF(tu_str(c, "user_id") && strcmp(tu_str(c, "user_id"), uid) == 0, "%s", tu_dump(r));
        CHECKF(tu_str(c, "phone_number") && strcmp(tu_str(c, "phone_number"), PHONE) == 0, "%s",
               tu_dump(r));
        CHECKF(tu_str(c, "aud") && strcmp(tu_str(c, "aud"), "phoneauth") == 0, "%s", tu_dump(r));
        CHECKF(tu_str(c, "iss") && strcmp(tu_str(c, "iss"), "https://phoneauth.local/phoneauth") == 0,
               "%s", tu_dump(r));
        CHECKF(tu_str(c, "firebase.sign_in_provider") &&
                   strcmp(tu_str(c, "firebase.sign_in_provider"), "phone") == 0,
               "%s", tu_dump(r));
        json_t *ids = tu_get(c, "firebase.identities.phone");
        CHECKF(json_is_array(ids) && json_string_value(json_array_get(ids, 0)) &&
                   strcmp(json_string_value(json_array_get(ids, 0)), PHONE) == 0,
               "%s", tu_dump(r));
        long long iat = tu_int(c, "iat", -1), exp = tu_int(c, "exp", -1);
        CHECKF(iat > 1600000000 && exp - iat == 3600 && tu_int(c, "auth_time", -1) > 0, "%s",
               tu_dump(r));
    }
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s, s:b}", "idToken", id_token, "checkRevoked", 1),
                 &st);
    EXPECT_OK(r, st);
    json_decref(r);

    /* tampered and malformed ID tokens */
    size_t n = strlen(id_token);
    char *bad = strdup(id_token);
    bad[n - 3] = bad[n - 3] == 'A' ? 'B' : 'A'; /* signature */
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", bad), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ID_TOKEN, "invalidIdToken");
    json_decref(r);
    strcpy(bad, id_token);
    char *dot = strchr(bad, '.');
    if (dot) dot[3] = dot[3] == 'A' ? 'B' : 'A'; /* payload */
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", bad), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ID_TOKEN, "invalidIdToken");
    json_decref(r);
    free(bad);
    const char *junk[] = {"abc", "", "a.b.c", "....", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", junk[i]), &st);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ID_TOKEN || (junk[i][0] == 0 && st == PHONEAUTH_ERR_INVALID_ARGUMENT),
               "verifyIdToken(%s): %d %s", junk[i], st, tu_dump(r));
        json_decref(r);
    }

    /* refresh rotates the refresh token */
    r = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", refresh), &st);
    char rt2[1024] = "";
    if (EXPECT_OK(r, st)) {
        const char *nrt = tu_str(r, "refreshToken");
        const char *nid = tu_str(r, "idToken");
        CHECKF(nrt && strcmp(nrt, refresh) != 0, "rotated: %s", tu_dump(r));
        CHECKF(nid && count_char(nid, '.') == 2, "%s", tu_dump(r));
        CHECKF(tu_int(r, "expiresIn", -1) == 3600, "%s", tu_dump(r));
        if (nrt) snprintf(rt2, sizeof rt2, "%s", nrt);
        if (nid) {
            json_t *vr = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", nid), &st);
            EXPECT_OK(vr, st);
            CHECKF(tu_str(vr, "claims.sub") && strcmp(tu_str(vr, "claims.sub"), uid) == 0, "%s",
                   tu_dump(vr));
            json_decref(vr);
        }
    }
    json_decref(r);

    /* sign out the rotated session; refresh then fails with invalidUserToken (signedOut) */
    if (rt2[0]) {
        char *out = NULL;
        char params[1200];
        snprintf(params, sizeof params, "{\"refreshToken\": \"%s\"}", rt2);
        st = phoneauth_sign_out(g_e, params, &out);
        r = tu_parse_out(st, out);
        EXPECT_OK(r, st);
        CHECKF(json_is_object(r) && json_object_size(r) == 0, "signOut returns {}: %s", tu_dump(r));
        json_decref(r);
        r = tu_call(g_e, "refreshIdToken", params, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_USER_TOKEN, "invalidUserToken");
        CHECKF(tu_str(r, "error.details.reason") &&
                   strcmp(tu_str(r, "error.details.reason"), "signedOut") == 0,
               "%s", tu_dump(r));
        CHECKF(!strstr(tu_errmsg(r), rt2), "message must not contain the token");
        json_decref(r);
        /* signing out twice is not an error */
        out = NULL;
        st = phoneauth_sign_out(g_e, params, &out);
        r = tu_parse_out(st, out);
        EXPECT_OK(r, st);
        json_decref(r);
    }

    /* unknown refresh token */
    r = tu_call(g_e, "refreshIdToken", "{\"refreshToken\": \"no-such-token\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_USER_TOKEN, "invalidUserToken");
    json_decref(r);
}

/* Signs PHONE in by SMS; the result (new reference, or NULL on failure) and its refresh token. */
static json_t *signed_in(const char **refresh_token) {
    char vid[512], code[16];
    if (!start(PHONE, vid, sizeof vid, code)) return NULL;
    json_t *cred = credential(vid, code);
    int st;
    json_t *r = sign_in(cred, &st);
    json_decref(cred);
    *refresh_token = tu_str(r, "refreshToken");
    if (!EXPECT_OK(r, st) || !*refresh_token) {
        json_decref(r);
        return NULL;
    }
    return r;
}

/* Within the reuse interval (10 s by default) the previous token gets the same new token again
 * (concurrent refreshes, lost responses); an older one ends the whole session. */
static void test_refresh_reuse(void) {
    const char *rt0;
    json_t *r = signed_in(&rt0);
    if (!r) return;
    int st;
    json_t *r1 = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt0), &st);
    EXPECT_OK(r1, st);
    const char *rt1 = tu_str(r1, "refreshToken");
    /* a retry of the same refresh: the same token, no sign-out */
    json_t *again = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt0), &st);
    EXPECT_OK(again, st);
    CHECKF(rt1 && tu_str(again, "refreshToken") && strcmp(tu_str(again, "refreshToken"), rt1) == 0,
           "a retried refresh gets the same token: %s", tu_dump(again));
    json_decref(again);
    json_t *r2 = rt1 ? tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt1), &st) : NULL;
    EXPECT_OK(r2, st);
    const char *rt2 = tu_str(r2, "refreshToken");
    /* the grandparent is theft: the session ends, the newest token too */
    json_t *r3 = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt0), &st);
    EXPECT_ERR(r3, st, PHONEAUTH_ERR_INVALID_USER_TOKEN, "invalidUserToken");
    CHECKF(tu_str(r3, "error.details.reason") && strcmp(tu_str(r3, "error.details.reason"), "reused") == 0,
           "%s", tu_dump(r3));
    if (rt2) {
        json_t *r4 = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt2), &st);
        EXPECT_ERR(r4, st, PHONEAUTH_ERR_INVALID_USER_TOKEN, "invalidUserToken");
        json_decref(r4);
    }
    json_decref(r3);
    json_decref(r2);
    json_decref(r1);
    json_decref(r);
}

/* 8 threads refresh one token at once: all succeed, with the same next token. */
typedef struct {
    const char *token;
    char got[1024];
    int status;
} refresh_job;

static void *refresh_thread(void *arg) {
    refresh_job *job = arg;
    char *params = NULL, *out = NULL;
    json_t *p = json_pack("{s:s}", "refreshToken", job->token);
    params = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    job->status = phoneauth_call(g_e, "refreshIdToken", params, &out);
    json_t *r = out ? json_loads(out, 0, NULL) : NULL;
    const char *t = json_string_value(json_object_get(r, "refreshToken"));
    snprintf(job->got, sizeof job->got, "%s", t ? t : "");
    json_decref(r);
    phoneauth_free(out);
    free(params);
    return NULL;
}

static void test_concurrent_refresh(void) {
    const char *rt0;
    json_t *r = signed_in(&rt0);
    if (!r) return;
    int st;
    refresh_job jobs[8];
    pthread_t threads[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (refresh_job){.token = rt0};
        pthread_create(&threads[i], NULL, refresh_thread, &jobs[i]);
    }
    for (int i = 0; i < 8; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < 8; i++) {
        CHECKF(jobs[i].status == PHONEAUTH_OK && jobs[i].got[0], "refresh %d failed: %d", i, jobs[i].status);
        CHECKF(strcmp(jobs[i].got, jobs[0].got) == 0, "refresh %d got another token", i);
    }
    json_t *next = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", jobs[0].got), &st);
    EXPECT_OK(next, st);  /* the session is alive */
    json_decref(next);
    json_decref(r);
}

/* Signing-key rotation through the ABI: a token signed before a rotation verifies, its key stays
 * in the JWKS beside the new one; retiring that key refuses the token at once. */
static void test_key_rotation(const char *id_token) {
    int st;
    json_t *before = tu_callj(g_e, "getJwks", json_object(), &st);
    size_t keys_before = json_array_size(tu_get(before, "keys"));
    json_t *r = tu_callj(g_e, "rotateSigningKey", json_object(), &st);
    if (EXPECT_OK(r, st)) CHECKF(json_array_size(tu_get(r, "keys")) == keys_before + 1, "%s", tu_dump(r));
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", id_token), &st);
    EXPECT_OK(r, st);
    json_decref(r);
    json_t *after = tu_callj(g_e, "getJwks", json_object(), &st);
    CHECKF(json_array_size(tu_get(after, "keys")) == keys_before + 1, "%s", tu_dump(after));
    /* the token's key is the oldest one: retire it */
    const char *old_kid = tu_str(json_array_get(tu_get(before, "keys"), 0), "kid");
    r = tu_callj(g_e, "retireSigningKey", json_pack("{s:s}", "kid", old_kid ? old_kid : ""), &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", id_token), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ID_TOKEN, "invalidIdToken");
    json_decref(r);
    json_decref(before);
    json_decref(after);
}

int main(void) {
    char *dir = tu_tmpdir();
    tu_sms_init(&g_sms, NULL);
    tu_sent_init(&g_sent);
    g_e = tu_open(dir, "signin", NULL);
    if (g_e) {
        CHECK(phoneauth_set_sms_sender(g_e, tu_sms_sender, &g_sms) == PHONEAUTH_OK);
        CHECK(phoneauth_set_log_sink(g_e, tu_sent_sink, &g_sent) == PHONEAUTH_OK);
        char uid[256] = "", refresh[1024] = "", id_token[4096] = "";
        test_first_sign_in(uid, refresh, id_token);
        if (uid[0]) test_second_sign_in(uid);
        test_attempts_and_replacement();
        if (uid[0] && refresh[0] && id_token[0]) test_tokens(uid, refresh, id_token);
        test_refresh_reuse();
        test_concurrent_refresh();
        if (id_token[0]) test_key_rotation(id_token);
    }
    phoneauth_close(g_e);
    CHECKF(!g_sms.overlapped, "two SMS callbacks ran at the same time");
    CHECKF(!g_sms.on_caller_thread, "an SMS callback ran on the caller's thread");
    CHECKF(g_sms.bad_messages == 0, "%d SMS callbacks received no JSON object", g_sms.bad_messages);
    tu_sms_destroy(&g_sms);
    tu_sent_destroy(&g_sent);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
