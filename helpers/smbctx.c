/*
 * smbctx.c - the libsmbclient side of the shared module: a private client
 * HOME (libsmbclient reads $HOME/.smb/smb.conf and ignores SMB_CONF_PATH) and
 * one context per worker process (the library has no thread support).
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <dlfcn.h>
#include <err.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "smbctx.h"

static char	home[4096];
static pid_t	home_owner;

static const char client_conf[] =
    "[global]\n"
    "\tclient min protocol = SMB2_10\n"
    "\tclient max protocol = SMB3_11\n"
    "\tclient signing = default\n"
    "\tdisable netbios = yes\n"
    "\tname resolve order = host\n"
    "\tlog level = 0\n";

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	if (remove(path) == -1)
		warn("cannot remove '%s'", path);
	return 0;
}

void
smbctx_home_remove(void)
{
	if (home[0] && getpid() == home_owner) {
		nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		home[0] = '\0';
	}
}

/*
 * libsmbclient's synchronous calls make a new tevent context for every
 * request; with the default epoll backend that is epoll_create, epoll_ctl
 * and close each time. The poll backend needs none of them. The symbol is
 * looked up at run time (libtevent comes with libsmbclient; no -dev package
 * needed) and nothing changes when it is missing.
 */
static void
tevent_use_poll(void)
{
	bool (*set_backend)(const char *);

	*(void **)&set_backend = dlsym(RTLD_DEFAULT, "tevent_set_default_backend");
	if (set_backend != NULL && getenv("SMB_HELPERS_EPOLL") == NULL)
		set_backend("poll");
}

void
smbctx_home_setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char file[4200];
	FILE *f;

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	snprintf(home, sizeof(home), "%s/smbhelper.XXXXXX", tmp);
	if (mkdtemp(home) == NULL)
		json_fatal("cannot create a directory in '%s': %s", tmp, strerror(errno));
	home_owner = getpid();
	atexit(smbctx_home_remove);
	snprintf(file, sizeof(file), "%s/.smb", home);
	if (mkdir(file, 0700) == -1)
		json_fatal("cannot create '%s': %s", file, strerror(errno));
	snprintf(file, sizeof(file), "%s/.smb/smb.conf", home);
	if ((f = fopen(file, "w")) == NULL)
		json_fatal("cannot create '%s': %s", file, strerror(errno));
	fputs(client_conf, f);
	if (fclose(f) == EOF)
		json_fatal("cannot write '%s': %s", file, strerror(errno));
	if (setenv("HOME", home, 1) == -1)
		json_fatal("setenv: %s", strerror(errno));
	tevent_use_poll();
}

/* the one line libsmbclient logs for every login of smbctx_login(): see there */
static const char rap_refused[] = "smb1cli_req_writev_submit: called for dialect";

static void
log_fn(void *priv, int level, const char *msg)
{
	(void)priv; (void)level;
	if (strncmp(msg, rap_refused, sizeof(rap_refused) - 1) != 0)
		fputs(msg, stderr);
}

static void
auth_fn(SMBCCTX *ctx, const char *srv, const char *shr, char *wg, int wglen,
    char *un, int unlen, char *pw, int pwlen)
{
	const struct creds *c = smbc_getOptionUserData(ctx);

	(void)srv; (void)shr;
	if (c == NULL)
		return;
	if (c->domain[0])
		snprintf(wg, (size_t)wglen, "%s", c->domain);
	snprintf(un, (size_t)unlen, "%s", c->user);
	snprintf(pw, (size_t)pwlen, "%s", c->password);
}

/*
 * Whether smbctx_login()'s call made a connection: libsmbclient adds every server
 * it has logged in to (negotiate, session setup, tree connect) to the
 * context's cache, so the cache's add function, wrapped, tells. The helpers
 * purge the cache after each login, so each login that connects adds one.
 * Per thread: a helper's contexts are used by one thread each.
 */
static _Thread_local bool	login_connected;
static smbc_add_cached_srv_fn	cache_add;

static int
cache_add_fn(SMBCCTX *ctx, SMBCSRV *srv, const char *server, const char *share,
    const char *workgroup, const char *user)
{
	int rc = cache_add(ctx, srv, server, share, workgroup, user);

	if (rc == 0)
		login_connected = true;
	return rc;
}

SMBCCTX *
smbctx_new(const struct creds *c, int timeout_ms, char *msg, size_t len)
{
	SMBCCTX *ctx;

	if ((ctx = smbc_new_context()) == NULL) {
		errmsg(msg, len, "smbc_new_context", errno);
		return NULL;
	}
	smbc_setOptionDebugToStderr(ctx, 1);	/* the library logs to stdout otherwise */
	smbc_setLogCallback(ctx, NULL, log_fn);
	smbc_setTimeout(ctx, timeout_ms);
	smbc_setOptionUseKerberos(ctx, 0);
	smbc_setOptionFallbackAfterKerberos(ctx, 0);
	smbc_setOptionNoAutoAnonymousLogin(ctx, 1);
	smbc_setOptionUseCCache(ctx, 0);
	smbc_setOptionOneSharePerServer(ctx, 0);
	smbc_setOptionUserData(ctx, (void *)c);
	smbc_setFunctionAuthDataWithContext(ctx, auth_fn);
	if (cache_add == NULL)
		cache_add = smbc_getFunctionAddCachedServer(ctx);
	smbc_setFunctionAddCachedServer(ctx, cache_add_fn);
	if (smbc_init_context(ctx) == NULL) {
		errmsg(msg, len, "smbc_init_context", errno);
		smbc_free_context(ctx, 1);
		return NULL;
	}
	return ctx;
}

void
smbctx_purge(SMBCCTX *ctx)
{
	smbc_getFunctionPurgeCachedServers(ctx)(ctx);
}

void
smbctx_free(SMBCCTX *ctx)
{
	if (ctx != NULL)
		smbc_free_context(ctx, 1);
}

/*
 * A login and nothing more. libsmbclient has no call that only connects: every
 * call that connects then works on a file (a stat is Create, GetInfo, Close).
 * The one that does not is the print-queue listing: SMBC_server() logs in
 * (negotiate, session setup, tree connect, and the library's own query of the
 * share's file-system attributes, which is part of its tree connect), then the
 * listing, an SMB1-only RAP call, is refused on the SMB2 connection before
 * anything is sent (errno EINVAL, and one log line, dropped by log_fn). So
 * EINVAL after a connection was made (login_connected) is the success here; a
 * failed login has the errno of what failed (EACCES, ENOENT for a share that
 * is not there, ECONNREFUSED, ETIMEDOUT), or EINVAL too where libsmbclient
 * maps no errno to the server's status (a connection smbd ends at once, as
 * for 'hosts deny'): that EINVAL is told apart by no connection made, and
 * becomes ECONNABORTED. tests/helpers/cross-check.bats checks on the wire that
 * a login is exactly these requests.
 */
static void
print_job_fn(struct print_job_info *job)
{
	(void)job;
}

int
smbctx_login(SMBCCTX *ctx, const char *share_url)
{
	login_connected = false;
	if (smbc_getFunctionListPrintJobs(ctx)(ctx, share_url, print_job_fn) == 0)
		return 0;
	if (errno == EINVAL) {
		if (login_connected)
			return 0;
		errno = ECONNABORTED;
	}
	return -1;
}
