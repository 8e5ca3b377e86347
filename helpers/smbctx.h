/*
 * smbctx.h - the libsmbclient side: a private client HOME and one context per
 * worker process (the library has no thread support), the first error.
 */
#ifndef HELPERS_SMBCTX_H
#define HELPERS_SMBCTX_H

#include <stddef.h>
#include <stdint.h>
#include <libsmbclient.h>

#include "base.h"
#include "creds.h"

/* Makes a private HOME with .smb/smb.conf (removed at exit by the process that made it). */
void	client_home_setup(void);
/* A context for one worker, created after fork; NULL with msg on failure. */
SMBCCTX	*ctx_new(const struct creds *c, int timeout_ms, char *msg, size_t len);
void	ctx_purge(SMBCCTX *ctx);	/* drop cached connections: next call logs in again */
void	ctx_free(SMBCCTX *ctx);
/* a login: new connection, negotiate, session setup, tree connect (+ one stat) */
int	smb_login(SMBCCTX *ctx, const char *share_url);
/* "what: strerror(errno)" into msg */
void	errmsg(char *msg, size_t len, const char *what, int e);

/* the first error a worker met and when (plain data: it lives in shared memory) */
struct firsterr {
	int64_t	ns;		/* mono_ns() when it happened; 0 before the run */
	char	msg[ERRLEN];	/* "" while there was none */
};
/* records "what: strerror(e)" now, unless an error is recorded already */
void	firsterr_note(struct firsterr *f, const char *what, int e);
/* the earlier of best (NULL: none yet) and f, ignoring an empty f */
const struct firsterr *firsterr_earlier(const struct firsterr *best, const struct firsterr *f);

#endif
