/*
 * smbctx.h - the libsmbclient side: a private client HOME and one context per
 * worker process (the library has no thread support), the first error.
 */
#ifndef HELPERS_SMBCTX_H
#define HELPERS_SMBCTX_H

#include <stddef.h>
#include <libsmbclient.h>

#include "base.h"
#include "creds.h"

/*
 * Makes a private HOME with .smb/smb.conf and points HOME at it (json_fatal() when
 * it cannot). libsmbclient reads it when a process makes its first context;
 * smbctx_home_remove() removes it (the maker's exit does too): call it as soon
 * as every context is made, so that a killed run leaves nothing behind.
 */
void	smbctx_home_setup(void);
void	smbctx_home_remove(void);
/* A context for one worker, created after fork; NULL with msg on failure. */
SMBCCTX	*smbctx_new(const struct creds *c, int timeout_ms, char *msg, size_t len);
void	smbctx_purge(SMBCCTX *ctx);	/* drop cached connections: next call logs in again */
void	smbctx_free(SMBCCTX *ctx);
/* a login: new connection, negotiate, session setup, tree connect; no file operation */
int	smbctx_login(SMBCCTX *ctx, const char *share_url);
#endif
