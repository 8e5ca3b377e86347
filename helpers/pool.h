/*
 * pool.h - worker pools: fork n workers that share an anonymous shared
 * mapping with the parent. A worker signals readiness with pool_ready(), then
 * blocks in pool_wait_go() until the parent calls pool_go() (all ready, or the
 * deadline passed). pool_join() reaps them, forwarding SIGTERM on g_stop and
 * killing what is still alive at the hard deadline.
 */
#ifndef HELPERS_POOL_H
#define HELPERS_POOL_H

#include <stddef.h>
#include <sys/types.h>

struct pool {
	int		n;
	pid_t		*pids;
	int		gofd[2];
	volatile int	*ready;		/* shared counter */
};
void	*shm_alloc(size_t len);
void	shm_free(void *p, size_t len);
/* fn(i, arg) runs in the child, which then _exit()s with its return value */
void	pool_start(struct pool *p, int n, int (*fn)(struct pool *, int, void *), void *arg);
void	pool_ready(struct pool *p);
int	pool_wait_go(struct pool *p);	/* 0 go, -1 stop asked */
void	pool_wait_ready(struct pool *p, double timeout_s);
void	pool_go(struct pool *p);
void	pool_join(struct pool *p, double hard_deadline_mono);
void	pool_free(struct pool *p);

#endif
