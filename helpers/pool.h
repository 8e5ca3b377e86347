/*
 * pool.h - worker pools.
 *
 * pool_start forks n workers that share anonymous shared memory with the
 * parent (allocate it with pool_shm_alloc before). A worker says it is ready with
 * pool_ready(), then blocks in pool_wait_go() until the parent's pool_go()
 * (all ready, or the ready timeout passed); the end of the parent (EOF on the
 * go pipe, or PR_SET_PDEATHSIG's SIGTERM) is never a go. The parent sleeps in
 * ppoll() on a pipe that every worker holds open: no polling. pool_join()
 * waits for the pipe's EOF, forwards SIGTERM on g_stop, SIGKILLs what is alive
 * at the hard deadline and collects every exit status.
 */
#ifndef HELPERS_POOL_H
#define HELPERS_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"
#include "cgusage.h"

#define PER_S_MAX	3600	/* seconds of per_s kept (-d beyond that: the first hour) */

struct pool {
	int		n;		/* asked */
	int		started;	/* forked */
	pid_t		*pids;
	int		*status;	/* wait status; -1 never started, -2 not reaped */
	int		gofd[2];
	int		upfd[2];
	int		ready;		/* workers that said so */
	int		killed;		/* SIGKILLed at the hard deadline */
	int		interrupted;	/* a signal asked the run to stop */
	int64_t		*go_ns;		/* shared: when the workers were released (0 before) */
	uint32_t	*per_s;		/* shared: n * nsec counters */
	int		nsec;
	int64_t		window_ns;	/* the measuring window: go to go + the -d seconds */
	char		fork_error[ERRLEN];
	/* the server's CPU over the window (pool_cpu): read at go and at go + window */
	struct tgt	*cpu_tgt;	/* NULL: not asked */
	int		cpu_read;	/* readings taken: 0, 1 (at go) or 2 */
	struct cg_cpu	cpu0, cpu1;
	int64_t		cpu_t0, cpu_t1;
	const char	*cpu_source;
	char		cpu_msg[ERRLEN];
};

void	*pool_shm_alloc(size_t len);
void	 pool_shm_free(void *p, size_t len);

/* fn(p, i, arg) runs in worker i, which then _exit()s with its return value;
 * nsec: the -d seconds (the window, and the length of the per-second count) */
void	pool_start(struct pool *p, int n, int nsec, int (*fn)(struct pool *, int, void *),
	    void *arg);
/* worker side */
void	pool_ready(struct pool *p);
int	pool_wait_go(struct pool *p);	/* 0 go; -1 stop asked or the parent is gone */
/* parent side */
/* after pool_start: read the CPU time of t (a cgroup or a process tree, see cgtarget.h:
 * the server's) at pool_go and at the end of the window, so that meas_json's server_cpu
 * is the CPU of the window the operations are counted in, not of the helper's set-up */
void	pool_cpu(struct pool *p, struct tgt *t);
void	pool_wait_ready(struct pool *p, double timeout_s);
void	pool_go(struct pool *p);
void	pool_join(struct pool *p, int64_t hard_deadline_ns);	/* 0: none */
void	pool_free(struct pool *p);

#endif
