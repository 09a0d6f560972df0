/*
 * fuzz_open.c: libFuzzer target for phoneauth_open (the configuration JSON).
 *
 * The input is the configuration text. So that the fuzzer writes nowhere but a scratch folder:
 *   - when it is a JSON object (jansson, with the library's own flags: JSON_DECODE_ANY |
 *     JSON_REJECT_DUPLICATES), a string "database" (or a missing one) is replaced by a SQLite
 *     file in the scratch folder and the object re-serialized; a non-string "database" is kept
 *     (a type error);
 *   - otherwise the library cannot parse it either (it parses with the same jansson and flags),
 *     and it is passed as it is, with every '/' (and "\u002f") turned into '.' all the same.
 * PostgreSQL URIs therefore never reach the library (no network). The database file is reused
 * by FUZZ_OPEN_REUSE inputs (default 500), then replaced, so most opens find an existing one.
 *
 * Checks: on success error_json is NULL and the engine answers getJwks; on failure the error
 * object keeps the contract (fz_check_output) and quotes neither the canary nor the masterKey.
 */
#include "fuzz_common.h"

#include <ctype.h>
#include <stdint.h>

static char *g_dir;
static unsigned long g_inputs, g_generation;

static void at_exit(void) { fz_rmtree(g_dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    unsetenv("PHONEAUTH_DATABASE_URL");
    unsetenv("PHONEAUTH_MASTER_KEY");
    g_dir = fz_tmpdir("fuzz-open");
    atexit(at_exit);
    return 0;
}

static void new_generation(void) {
    /* Removes the files of the current database generation (db, -wal, -shm, .key). */
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *ent;
        while ((ent = readdir(d))) {
            if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
            char *path = NULL;
            if (asprintf(&path, "%s/%s", g_dir, ent->d_name) >= 0) {
                struct stat st;
                if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) fz_rmtree(path);
                else unlink(path);
            }
            free(path);
        }
        closedir(d);
    }
    g_generation++;
}

/* A masterKey worth checking for: long, and not something that could be a key name the error
 * names for another reason (those are plain names with few digits). */
static int looks_secret(const char *s) {
    size_t digits = 0, odd = 0, n = strlen(s);
    for (const char *p = s; *p; p++) {
        if (isdigit((unsigned char)*p)) digits++;
        else if (!isalpha((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-') odd++;
    }
    return n >= 16 && (odd || digits >= 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    static unsigned long reuse;
    if (!reuse) {
        const char *s = getenv("FUZZ_OPEN_REUSE");
        reuse = s && atol(s) > 0 ? (unsigned long)atol(s) : 500;
    }
    if (g_inputs++ % reuse == 0) new_generation();

    char *raw = malloc(size + 1);
    memcpy(raw, data, size);
    raw[size] = 0;

    char *config = NULL;
    char *master_key = NULL;
    json_t *root = json_loads(raw, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    if (json_is_object(root)) {
        json_t *db = json_object_get(root, "database");
        if (!db || json_is_string(db)) {
            char *path = NULL;
            if (asprintf(&path, "%s/open-%lu.db", g_dir, g_generation) < 0) abort();
            json_object_set_new(root, "database", json_string(path));
            free(path);
        }
        const char *mk = json_string_value(json_object_get(root, "masterKey"));
        if (mk && looks_secret(mk)) master_key = strdup(mk);
        config = json_dumps(root, JSON_COMPACT | JSON_ENCODE_ANY);
    } else {
        config = strdup(raw);
        for (char *p = config; *p; p++) {
            if (*p == '/') *p = '.';
            if (p[0] == '\\' && p[1] == 'u' && p[2] == '0' && p[3] == '0' && p[4] == '2' &&
                (p[5] == 'f' || p[5] == 'F'))
                p[5] = 'e';
        }
    }
    json_decref(root);
    free(raw);
    if (!config) return 0; /* jansson could not serialize it (e.g. NUL in a key) */

    char *error = FZ_SENTINEL;
    phoneauth_engine *e = phoneauth_open(config, &error);
    if (e) {
        if (error != NULL) fz_fail("phoneauth_open succeeded and set error_json: %s", error == FZ_SENTINEL ? "(untouched)" : fz_clip(error));
        char *out = FZ_SENTINEL;
        int st = phoneauth_call(e, "getJwks", NULL, &out);
        json_t *res = fz_check_output("getJwks after open", st, out, NULL, 0);
        if (st != PHONEAUTH_OK) fz_fail("getJwks failed on an engine just opened: %s; config %s", fz_clip(out), fz_clip(config));
        json_decref(res);
        phoneauth_free(out);
        phoneauth_close(e);
    } else {
        if (error == FZ_SENTINEL || !error) fz_fail("phoneauth_open failed without an error object; config %s", fz_clip(config));
        /* No status is returned: the error object's own, which must be an error number. */
        json_t *pre = json_loads(error, 0, NULL);
        json_t *status = json_object_get(json_object_get(pre, "error"), "status");
        int st = json_is_integer(status) ? (int)json_integer_value(status) : -1;
        json_decref(pre);
        if (st == PHONEAUTH_OK) fz_fail("phoneauth_open failed with status 0: %s", fz_clip(error));
        const char *secrets[1] = {master_key};
        json_t *res = fz_check_output("phoneauth_open", st, error, secrets, master_key ? 1 : 0);
        json_decref(res);
        phoneauth_free(error);
    }
    free(master_key);
    free(config);
    return 0;
}
