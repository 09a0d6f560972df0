/* test_open.c: phoneauth_open with good and bad configurations; close; reopening a store. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char *g_dir;

/* Opens with a configuration that must fail; checks NULL return, the error object, and returns
 * it parsed (new reference). */
#define OPEN_FAILS(config) open_fails(__FILE__, __LINE__, (config))
static json_t *open_fails(const char *file, int line, const char *config) {
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(config, &err);
    tu_check(e == NULL, file, line, "phoneauth_open returns NULL", "config %s",
             config ? config : "NULL");
    phoneauth_close(e);
    if (!tu_check(err != NULL, file, line, "error_json set", "config %s", config ? config : "NULL"))
        return NULL;
    json_t *res = json_loads(err, 0, NULL);
    long long st = tu_int(res, "error.status", -1);
    const char *code = tu_str(res, "error.code");
    tu_check(code && st > 0 && json_is_string(tu_get(res, "error.message")) &&
                 json_is_object(tu_get(res, "error.details")),
             file, line, "error object {code, status, message, details{}}", "%s", err);
    tu_check(phoneauth_strerror((int)st) != NULL, file, line, "strerror(status) != NULL", NULL);
    phoneauth_free(err);
    /* the same configuration with error_json NULL: still NULL, no crash */
    e = phoneauth_open(config, NULL);
    tu_check(e == NULL, file, line, "phoneauth_open(..., NULL) returns NULL", NULL);
    phoneauth_close(e);
    return res;
}

static int is_status(json_t *res, int a, int b) {
    long long st = tu_int(res, "error.status", -1);
    return st == a || st == b;
}

static char *config_with(const char *members) {
    char *s = NULL;
    if (asprintf(&s, "{\"database\": \"%s/open.db\"%s%s}", g_dir, members ? ", " : "",
                 members ? members : "") < 0)
        abort();
    return s;
}

/* A bad value of one key: invalidConfiguration naming the key in details.key and the message. */
static void bad_key(const char *key, const char *member) {
    char *config = config_with(member);
    json_t *res = OPEN_FAILS(config);
    const char *k = tu_str(res, "error.details.key");
    CHECKF(tu_int(res, "error.status", -1) == PHONEAUTH_ERR_INVALID_CONFIGURATION &&
               strcmp(tu_str(res, "error.code") ? tu_str(res, "error.code") : "",
                      "invalidConfiguration") == 0,
           "%s -> %s", config, tu_dump(res));
    CHECKF(k && strcmp(k, key) == 0, "%s -> details.key should be %s: %s", config, key,
           tu_dump(res));
    CHECKF(strstr(tu_errmsg(res), key) != NULL, "%s -> message should name %s: %s", config, key,
           tu_errmsg(res));
    json_decref(res);
    free(config);
}

static void test_bad_configs(void) {
    json_t *res;

    /* NULL configuration */
    res = OPEN_FAILS(NULL);
    CHECKF(is_status(res, PHONEAUTH_ERR_INVALID_ARGUMENT, PHONEAUTH_ERR_INVALID_CONFIGURATION), "%s",
           tu_dump(res));
    json_decref(res);

    /* empty string, malformed JSON (with line and column), not an object */
    res = OPEN_FAILS("");
    CHECKF(is_status(res, PHONEAUTH_ERR_INVALID_ARGUMENT, PHONEAUTH_ERR_INVALID_CONFIGURATION), "%s",
           tu_dump(res));
    json_decref(res);

    res = OPEN_FAILS("{\"database\": \"/tmp/x.db\",\n  \"projectId\": }");
    CHECKF(is_status(res, PHONEAUTH_ERR_INVALID_ARGUMENT, PHONEAUTH_ERR_INVALID_CONFIGURATION), "%s",
           tu_dump(res));
    CHECKF(strstr(tu_errmsg(res), "line") && strstr(tu_errmsg(res), "column"),
           "malformed config: message should carry line and column: %s", tu_errmsg(res));
    json_decref(res);

    res = OPEN_FAILS("[\"database\"]");
    CHECKF(is_status(res, PHONEAUTH_ERR_INVALID_ARGUMENT, PHONEAUTH_ERR_INVALID_CONFIGURATION), "%s",
           tu_dump(res));
    json_decref(res);

    res = OPEN_FAILS("{\"database\": \"/tmp/\xff\xfe.db\"}");
    CHECKF(is_status(res, PHONEAUTH_ERR_INVALID_ARGUMENT, PHONEAUTH_ERR_INVALID_CONFIGURATION), "%s",
           tu_dump(res));
    json_decref(res);

    /* database of the wrong type */
    res = OPEN_FAILS("{\"database\": 5}");
    CHECKF(tu_int(res, "error.status", -1) == PHONEAUTH_ERR_INVALID_CONFIGURATION, "%s",
           tu_dump(res));
    CHECKF(tu_str(res, "error.details.key") && strcmp(tu_str(res, "error.details.key"), "database") == 0,
           "%s", tu_dump(res));
    json_decref(res);

    /* missing database: invalidConfiguration, key "database" */
    res = OPEN_FAILS("{}");
    CHECKF(tu_int(res, "error.status", -1) == PHONEAUTH_ERR_INVALID_CONFIGURATION, "%s",
           tu_dump(res));
    CHECKF(tu_str(res, "error.details.key") && strcmp(tu_str(res, "error.details.key"), "database") == 0,
           "%s", tu_dump(res));
    json_decref(res);
    res = OPEN_FAILS("{\"projectId\": \"p\"}");
    CHECKF(tu_int(res, "error.status", -1) == PHONEAUTH_ERR_INVALID_CONFIGURATION, "%s",
           tu_dump(res));
    json_decref(res);

    /* unknown key, named */
    bad_key("noSuchOption", "\"noSuchOption\": 1");
    bad_key("datbase", "\"datbase\": \"typo.db\"");
    /* wrong types and out-of-range values */
    bad_key("sms", "\"sms\": []");
    bad_key("sms.bogus", "\"sms\": {\"bogus\": 1}");
    bad_key("codeLength", "\"codeLength\": 3");
    bad_key("codeLength", "\"codeLength\": 11");
    bad_key("codeLength", "\"codeLength\": \"six\"");
    bad_key("idTokenTtlSeconds", "\"idTokenTtlSeconds\": 59");
    bad_key("maxAttempts", "\"maxAttempts\": 0");
    bad_key("codeTtlSeconds", "\"codeTtlSeconds\": 0");
    bad_key("signingAlgorithm", "\"signingAlgorithm\": \"HS256\"");
    bad_key("sqliteSynchronous", "\"sqliteSynchronous\": \"off\"");
    bad_key("masterKey", "\"masterKey\": \"too-short\"");
    bad_key("testPhoneNumbers", "\"testPhoneNumbers\": [\"+16505551234\"]");
    /* the SMS text: each rule names the key, a template its language */
    bad_key("sms.templates.fr", "\"sms\": {\"templates\": {\"fr\": \"Votre code\"}}");
    bad_key("sms.templates.de", "\"sms\": {\"templates\": {\"de\": \"{code} {kode}\"}}");
    bad_key("sms.templates.en", "\"sms\": {\"templates\": {\"en\": \"{code} {appName}\"}}");
    /* 71 Cyrillic letters: UCS-2, 2 segments (GSM-7 would fit 160 letters in one) */
    char russian[256] = "\"sms\": {\"templates\": {\"ru\": \"{code} ";
    for (int i = 0; i < 71; i++) strcat(russian, "\u0436");
    strcat(russian, "\"}}");
    bad_key("sms.templates.ru", russian);
    bad_key("sms.appName", "\"sms\": {\"appName\": \"\"}");
    bad_key("sms.originBoundDomain", "\"sms\": {\"originBoundDomain\": \"https://example.com\"}");
    bad_key("sms.androidAppHash", "\"sms\": {\"androidAppHash\": \"tooShort\"}");
    bad_key("sms.maxSegments", "\"sms\": {\"maxSegments\": 0}");
    bad_key("defaultLanguageCode", "\"defaultLanguageCode\": \"sw\"");

    /* the database cannot be opened: storageError */
    res = OPEN_FAILS("{\"database\": \"/nonexistent/dir/x.db\"}");
    CHECKF(tu_int(res, "error.status", -1) == PHONEAUTH_ERR_STORAGE &&
               tu_str(res, "error.code") && strcmp(tu_str(res, "error.code"), "storageError") == 0,
           "%s", tu_dump(res));
    json_decref(res);

    /* a file that is not a database */
    char path[4096];
    snprintf(path, sizeof path, "%s/garbage.db", g_dir);
    FILE *f = fopen(path, "w");
    if (CHECK(f != NULL)) {
        for (int i = 0; i < 512; i++) fputs("this is not an sqlite database\n", f);
        fclose(f);
        char config[4200];
        snprintf(config, sizeof config, "{\"database\": \"%s\"}", path);
        res = OPEN_FAILS(config);
        CHECKF(tu_int(res, "error.status", -1) == PHONEAUTH_ERR_STORAGE, "%s", tu_dump(res));
        json_decref(res);
    }
}

static void test_good_configs(void) {
    /* minimal */
    char *config = config_with(NULL);
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(config, &err);
    CHECKF(e != NULL, "%s -> %s", config, err ? err : "NULL");
    CHECKF(err == NULL, "error_json must stay NULL on success: %s", err);
    phoneauth_free(err);
    phoneauth_close(e);

    /* the database and its key file exist; the key file is private */
    char path[4096];
    struct stat sb = {0};
    snprintf(path, sizeof path, "%s/open.db", g_dir);
    CHECKF(stat(path, &sb) == 0, "%s was not created", path);
    snprintf(path, sizeof path, "%s/open.db.key", g_dir);
    if (getenv("PHONEAUTH_MASTER_KEY") == NULL) {
        CHECKF(stat(path, &sb) == 0 && (sb.st_mode & 0777) == 0600, "%s missing or not 0600 (%o)",
               path, (unsigned)(sb.st_mode & 0777));
    }

    /* reopening the same store works; error_json may be NULL on success */
    e = phoneauth_open(config, NULL);
    CHECK(e != NULL);
    phoneauth_close(e);
    free(config);

    /* every documented key */
    config = config_with(
        "\"projectId\": \"demo-project\", \"issuer\": \"https://issuer.example/demo\","
        " \"masterKey\": \"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\","
        " \"signingAlgorithm\": \"ES256\", \"idTokenTtlSeconds\": 600, \"codeLength\": 8,"
        " \"codeTtlSeconds\": 120, \"maxAttempts\": 3, \"resendAfterSeconds\": 30,"
        " \"defaultLanguageCode\": \"fr\", \"testPhoneNumbers\": {\"+16505551234\": \"123456\"},"
        " \"appVerification\": {\"disabledForTesting\": false},"
        " \"sms\": {\"provider\": \"callback\", \"maxAttempts\": 2, \"retryBackoffMs\": 100},"
        " \"sqliteSynchronous\": \"full\"");
    snprintf(path, sizeof path, "%s/open.db", g_dir);
    /* a different master key cannot decrypt the keys of open.db: use a fresh database */
    char *p = strstr(config, "open.db");
    if (p) memcpy(p, "full.db", 7);
    err = NULL;
    e = phoneauth_open(config, &err);
    CHECKF(e != NULL, "%s -> %s", config, err ? err : "NULL");
    phoneauth_free(err);
    if (e) {
        int st;
        json_t *r = tu_call(e, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505553434\"}", &st);
        EXPECT_OK(r, st);
        CHECKF(tu_int(r, "codeLength", -1) == 8, "codeLength 8 configured: %s", tu_dump(r));
        json_decref(r);
        r = tu_call(e, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505551234\"}", &st);
        EXPECT_OK(r, st);
        json_decref(r);
    }
    phoneauth_close(e);
    free(config);

    /* the other algorithms */
    const char *algs[] = {"RS256", "EdDSA"};
    for (int i = 0; i < 2; i++) {
        char member[128];
        snprintf(member, sizeof member, "\"signingAlgorithm\": \"%s\"", algs[i]);
        char name[32];
        snprintf(name, sizeof name, "alg%d", i);
        char extra[160];
        snprintf(extra, sizeof extra, "{%s}", member);
        e = tu_open(g_dir, name, extra);
        if (e) {
            int st;
            json_t *r = tu_call(e, "getJwks", NULL, &st);
            EXPECT_OK(r, st);
            const char *alg = tu_str(json_array_get(tu_get(r, "keys"), 0), "alg");
            CHECKF(alg && strcmp(alg, algs[i]) == 0, "%s: %s", algs[i], tu_dump(r));
            json_decref(r);
        }
        phoneauth_close(e);
    }
}

/* Two engines on one database at the same time (several processes or engines may share it). */
static void test_two_engines(void) {
    phoneauth_engine *a = tu_open(g_dir, "shared", "{\"testPhoneNumbers\": {\"+16505551234\": \"123456\"}}");
    phoneauth_engine *b = tu_open(g_dir, "shared", "{\"testPhoneNumbers\": {\"+16505551234\": \"123456\"}}");
    if (a && b) {
        int st;
        json_t *v = tu_call(a, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505551234\"}", &st);
        EXPECT_OK(v, st);
        const char *vid = tu_str(v, "verificationId");
        if (vid) {
            json_t *c = tu_callj(b, "credential",
                                 json_pack("{s:s, s:s}", "verificationId", vid, "verificationCode",
                                           "123456"),
                                 &st);
            EXPECT_OK(c, st);
            json_t *r = tu_callj(b, "signInWithCredential",
                                 json_pack("{s:O}", "credential", tu_get(c, "credential")), &st);
            EXPECT_OK(r, st); /* a verification started on engine a is usable on engine b */
            const char *rt = tu_str(r, "refreshToken");
            if (rt) {
                json_t *x = tu_callj(a, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt), &st);
                EXPECT_OK(x, st); /* and the session is visible to engine a */
                json_decref(x);
            }
            json_decref(r);
            json_decref(c);
        }
        json_decref(v);
    }
    phoneauth_close(a);
    phoneauth_close(b);
}

/* The entries of a folder, "." and ".." left out. */
static int entries_in(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *entry; d && (entry = readdir(d));)
        n += strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..");
    if (d) closedir(d);
    return n;
}

/* A mistyped database path fails and leaves nothing on disk: no key file, no database. */
static void test_mistyped_paths(void) {
    char *folder = NULL, *missing = NULL, *config = NULL, *key = NULL;
    if (asprintf(&folder, "%s/mistyped", g_dir) < 0 || asprintf(&missing, "%s/no-such-folder/users.db", g_dir) < 0)
        abort();
    CHECK(mkdir(folder, 0700) == 0);
    int before = entries_in(g_dir);
    const char *paths[] = {folder, missing};
    for (int i = 0; i < 2; i++) {
        if (asprintf(&config, "{\"database\": \"%s\"}", paths[i]) < 0 || asprintf(&key, "%s.key", paths[i]) < 0) abort();
        json_decref(OPEN_FAILS(config));
        struct stat info;
        CHECKF(stat(key, &info) != 0, "a failed open left %s behind", key);
        CHECKF(entries_in(g_dir) == before, "a failed open of %s left %d entries behind", paths[i],
               entries_in(g_dir) - before);
        CHECK(entries_in(folder) == 0);
        free(config);
        free(key);
    }
    rmdir(folder);
    free(folder);
    free(missing);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_mistyped_paths();
    test_bad_configs();
    test_good_configs();
    test_two_engines();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
