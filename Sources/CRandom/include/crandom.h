#ifndef PHONEAUTH_CRANDOM_H
#define PHONEAUTH_CRANDOM_H
#include <stddef.h>

/* Fills buf with n bytes from the kernel CSPRNG (getrandom), in as few system calls as it takes.
   Returns 0, or -1 with errno set if the kernel refused. */
int pa_random_bytes(void *buf, size_t n);

#endif
