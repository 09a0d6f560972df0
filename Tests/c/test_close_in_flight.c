/* test_close_in_flight.c: phoneauth_close while SMS are in flight, many times over.
 *
 * Each cycle opens an engine on the same database, installs an SMS sender, starts several
 * verifications and closes the engine while their messages are in flight: one being handed to the
 * sender (its sealed body opened by the delivery thread), the others still queued. The cycles vary
 * when the close comes: while a callback runs (each sleeps a few milliseconds), right after the
 * calls (nothing sent yet), and while a callback that returns only once the close has begun holds
 * the second message, so the last two are certainly left. Checked:
 *   - phoneauth_close returns, and no callback of an engine runs after its phoneauth_close;
 *   - no message is lost: what a closing engine still held goes back to the store and a later
 *     engine sends it, so in the end every verification was delivered at least once;
 *   - nothing is left allocated: with LeakSanitizer (make -C Tests/c asan) a leak check runs
 *     after the cycles, all engines closed, and again at exit. A message or a sealed body kept
 *     by a closing engine or its delivery thread would be reported there. (Written for the
 *     "132 bytes in 2 allocations from KeyRing.open on the delivery thread" report of the fuzzer.)
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Present only when linked with a sanitizer that has LeakSanitizer (weak: NULL otherwise). */
extern int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

#define PER_CYCLE 4
#define MAX_CYCLES 64

static tu_sms g_sms;
static int g_after_close; /* invocations of a sender whose engine had been closed */

/* The sender of one engine: counts invocations that come after its close, notes which
 * verifications this engine delivered, then captures the message. */
typedef struct {
    int closed;
    int hold_until; /* > 0: from the 2nd invocation on, wait until that many marked threads ended */
    int invocations;
    int n_got;
    char got[MAX_CYCLES * PER_CYCLE][64];
} cycle_sender;
static pthread_mutex_t g_got_mu = PTHREAD_MUTEX_INITIALIZER;

static int sender(void *ctx, const char *message_json) {
    cycle_sender *c = ctx;
    if (__atomic_load_n(&c->closed, __ATOMIC_SEQ_CST)) __atomic_add_fetch(&g_after_close, 1, __ATOMIC_SEQ_CST);
    json_t *m = json_loads(message_json ? message_json : "", 0, NULL);
    const char *vid = tu_str(m, "verificationId");
    pthread_mutex_lock(&g_got_mu);
    if (vid && c->n_got < MAX_CYCLES * PER_CYCLE) snprintf(c->got[c->n_got++], sizeof c->got[0], "%s", vid);
    pthread_mutex_unlock(&g_got_mu);
    json_decref(m);
    int rc = tu_sms_sender(&g_sms, message_json);
    if (c->hold_until && __atomic_add_fetch(&c->invocations, 1, __ATOMIC_SEQ_CST) >= 2)
        CHECKF(tu_wait_marked_ended(c->hold_until, tu_timeout_ms(10000)) >= c->hold_until,
               "an SMS callback held until the close began, and no close began");
    return rc;
}

/* Whether engine `s` delivered verification vid. */
static int delivered_by(cycle_sender *s, const char *vid) {
    pthread_mutex_lock(&g_got_mu);
    int found = 0;
    for (int i = 0; i < s->n_got && !found; i++) found = strcmp(s->got[i], vid) == 0;
    pthread_mutex_unlock(&g_got_mu);
    return found;
}

static tu_sent g_sent; /* codeSent events, from every engine */

static const char *k_config =
    "{\"quotas\": {\"smsPerNumberPerHour\": 0, \"smsPerIpPerHour\": 0, \"smsPerProjectPerDay\": 0},"
    " \"sms\": {\"retryBackoffMs\": 10}}";

enum { CLOSE_WHILE_SENDING, CLOSE_AT_ONCE, CLOSE_WHILE_HELD, N_MODES };

int main(void) {
    char *dir = tu_tmpdir();
    tu_sms_init(&g_sms, NULL);
    tu_sent_init(&g_sent);
    int cycles = tu_memcheck() ? 6 : 30;
    static char vids[MAX_CYCLES * PER_CYCLE][128];
    static cycle_sender senders[MAX_CYCLES];
    int n_vids = 0;

    for (int cycle = 0; cycle < cycles; cycle++) {
        int mode = cycle % N_MODES;
        tu_sms_set_delay(&g_sms, mode == CLOSE_WHILE_SENDING ? 3 : 0);
        /* Earlier engines are closed: their marked threads have ended, this engine's has not. */
        if (mode == CLOSE_WHILE_HELD) senders[cycle].hold_until = tu_marked_ended() + 1;
        phoneauth_engine *e = tu_open(dir, "inflight", k_config);
        if (!e) break;
        CHECK(phoneauth_set_log_sink(e, tu_sent_sink, &g_sent) == PHONEAUTH_OK);
        CHECK(phoneauth_set_sms_sender(e, sender, &senders[cycle]) == PHONEAUTH_OK);
        int calls_before = tu_sms_calls(&g_sms), sent_before = tu_sent_wait(&g_sent, 0, 0);
        for (int i = 0; i < PER_CYCLE; i++) {
            char phone[32];
            snprintf(phone, sizeof phone, "+1650555%04d", 1000 + cycle * PER_CYCLE + i);
            int st;
            json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), &st);
            if (EXPECT_OK(v, st) && tu_str(v, "verificationId"))
                snprintf(vids[n_vids++], sizeof vids[0], "%s", tu_str(v, "verificationId"));
            json_decref(v);
        }
        /* While sending: wait until the delivery thread is inside the sender (it has opened a
         * sealed body), then close at once. While held: the first message's codeSent has marked
         * the bookkeeping thread and the second is held until the close has begun, so the engine
         * must stop with the last two left (to a later engine). */
        if (mode == CLOSE_WHILE_SENDING) tu_sms_wait_calls(&g_sms, calls_before + 1, tu_timeout_ms(5000));
        if (mode == CLOSE_WHILE_HELD) {
            CHECKF(tu_sent_wait(&g_sent, sent_before + 1, tu_timeout_ms(10000)) > sent_before,
                   "cycle %d: no codeSent for the first message", cycle);
            CHECKF(tu_sms_wait_calls(&g_sms, calls_before + 2, tu_timeout_ms(10000)) == calls_before + 2,
                   "cycle %d: the second message did not reach the sender", cycle);
        }
        phoneauth_close(e);
        __atomic_store_n(&senders[cycle].closed, 1, __ATOMIC_SEQ_CST);
    }
    /* A last engine sends whatever the closed ones left. */
    tu_sms_set_delay(&g_sms, 0);
    static cycle_sender last;
    phoneauth_engine *e = tu_open(dir, "inflight", k_config);
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, sender, &last) == PHONEAUTH_OK);
        int missing = 0;
        for (int i = 0; i < n_vids; i++) {
            json_t *m = tu_sms_wait(&g_sms, vids[i], tu_timeout_ms(5000));
            if (!m) missing++;
            json_decref(m);
        }
        CHECKF(missing == 0, "%d of %d messages were never delivered", missing, n_vids);
        CHECKF(n_vids == cycles * PER_CYCLE, "%d verifications started, want %d", n_vids, cycles * PER_CYCLE);
        phoneauth_close(e);
    }
    /* Checked after the last engine ran: a callback of a closed engine had all that time to come. */
    CHECKF(__atomic_load_n(&g_after_close, __ATOMIC_SEQ_CST) == 0,
           "%d SMS callbacks ran after their engine's phoneauth_close returned", g_after_close);
    /* The close came with messages in flight: some were sent by a later engine than their own,
     * certainly the last two of each held cycle. */
    int handed_on = 0, held_left = 0;
    for (int i = 0; i < n_vids; i++) {
        int later = !delivered_by(&senders[i / PER_CYCLE], vids[i]);
        handed_on += later;
        held_left += later && (i / PER_CYCLE) % N_MODES == CLOSE_WHILE_HELD && i % PER_CYCLE >= 2;
    }
    CHECKF(held_left == 2 * (cycles / N_MODES), "%d of the %d messages queued behind a held one were left by the "
           "close", held_left, 2 * (cycles / N_MODES));
    printf("%d cycles, %d messages, %d sender invocations, %d messages sent by a later engine than their own\n",
           cycles, n_vids, tu_sms_calls(&g_sms), handed_on);

    /* Every engine is closed and its delivery thread joined: nothing they allocated may be left. */
    if (__lsan_do_recoverable_leak_check)
        CHECKF(__lsan_do_recoverable_leak_check() == 0, "LeakSanitizer found leaks after %d open/close cycles", cycles);

    tu_sms_destroy(&g_sms);
    tu_sent_destroy(&g_sent);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
