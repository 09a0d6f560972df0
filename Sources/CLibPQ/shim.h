#ifndef PHONEAUTH_CLIBPQ_SHIM_H
#define PHONEAUTH_CLIBPQ_SHIM_H
#include <libpq-fe.h>

/* PG_DIAG_* are character macros; Swift reads them more plainly as functions. */
static inline int pa_pg_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int pa_pg_diag_message(void) { return PG_DIAG_MESSAGE_PRIMARY; }
#endif
