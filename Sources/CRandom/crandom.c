#include "crandom.h"

#include <errno.h>
#include <sys/random.h>

int pa_random_bytes(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}
