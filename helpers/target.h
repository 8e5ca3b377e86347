/*
 * target.h - smb://host[:port]/share[/path] or //host[:port]/share[/path];
 * host may be an IPv6 address in brackets: //[::1]:4450/share.
 */
#ifndef HELPERS_TARGET_H
#define HELPERS_TARGET_H

/* The help text's paragraph on targets, the same for every SMB helper. */
#define TARGET_USAGE \
	"Targets: //host[:port]/... or smb://host[:port]/... (an IPv6 host in\n" \
	"brackets: //[::1]:4450/share); the port defaults to 445.\n"

#include <stddef.h>

struct target {
	char	host[256];		/* as in the URL: "[::1]" keeps its brackets */
	int	port;			/* 0: libsmbclient's default */
	char	share[256];
	char	path[1024];		/* "" or "a/b" (no leading or trailing slash) */
};
int	target_parse(struct target *t, const char *s);	/* -1 when malformed */
/*
 * URL of the share root plus path and an optional extra component (NULL for
 * none), %-encoded; -1 when it does not fit in len (never cut)
 */
int	target_url(const struct target *t, const char *extra, char *buf, size_t len);

#endif
