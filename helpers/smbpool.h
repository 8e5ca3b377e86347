/*
 * smbpool.h - the one run of the SMB load helpers that use a worker pool
 * (smb-login-storm, smb-files, smb-readers): fork the workers, read the
 * server's CPU over the window when asked, wipe the parent's copy of the
 * credentials (each worker has its own), give the workers their set-up time,
 * remove the client home once every worker has made its context, release
 * them, and join them by a hard deadline. What each worker does, and what the
 * tool makes of their measurements, stays in the tool.
 */
#ifndef HELPERS_SMBPOOL_H
#define HELPERS_SMBPOOL_H

#include <stdint.h>

#include "cgtarget.h"
#include "creds.h"
#include "pool.h"

/* n workers fn(p, i, arg) over a window of seconds (pool_start); cpu: the server's
 * cgroup or process tree (NULL or no kind: not read); ready_s: the set-up time the
 * workers get; join_s: seconds after go at which the workers still alive are killed */
void	smbpool_run(struct pool *p, int n, int seconds, int (*fn)(struct pool *, int, void *),
	    void *arg, struct creds *c, struct tgt *cpu, double ready_s, int64_t join_s);

#endif
