/*
 * smbpool.c - the one run of the pool load helpers (see smbpool.h).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/time.h>

#include "smbctx.h"
#include "smbpool.h"

void
smbpool_run(struct pool *p, int n, int seconds, int (*fn)(struct pool *, int, void *),
    void *arg, struct creds *c, struct tgt *cpu, double ready_s, int64_t join_s)
{
	pool_start(p, n, seconds, fn, arg);
	if (cpu != NULL && cpu->kind)
		pool_cpu(p, cpu);
	creds_wipe(c);		/* the workers have their copy */
	pool_wait_ready(p, ready_s);
	if (p->ready == p->started)
		smbctx_home_remove();	/* every context is made */
	pool_go(p);
	pool_join(p, *p->go_ns + join_s * 1000000000LL);
}
