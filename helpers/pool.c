/*
 * pool.c - forked worker pools over anonymous shared memory (see pool.h).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "pool.h"

void *
shm_alloc(size_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		err(1, "cannot map %zu bytes of shared memory", len);
	return p;	/* zero-filled */
}

void
shm_free(void *p, size_t len)
{
	munmap(p, len);
}

void
pool_start(struct pool *p, int n, int (*fn)(struct pool *, int, void *), void *arg)
{
	pid_t pid;
	int i;

	memset(p, 0, sizeof(*p));
	if ((p->pids = calloc((size_t)n, sizeof(pid_t))) == NULL)
		err(1, "calloc");
	p->ready = shm_alloc(sizeof(int));
	if (pipe(p->gofd) == -1)
		err(1, "pipe");
	fflush(NULL);
	for (i = 0; i < n; i++) {
		if ((pid = fork()) == -1) {
			warn("fork (started %d of %d workers)", i, n);
			break;
		}
		if (pid == 0) {
			close(p->gofd[1]);
			_exit(fn(p, i, arg));
		}
		p->pids[i] = pid;
		p->n = i + 1;
	}
	close(p->gofd[0]);
	p->gofd[0] = -1;
}

void
pool_ready(struct pool *p)
{
	__atomic_add_fetch(p->ready, 1, __ATOMIC_SEQ_CST);
}

int
pool_wait_go(struct pool *p)
{
	char c;
	ssize_t r;

	for (;;) {
		if (g_stop)
			return -1;
		r = read(p->gofd[0], &c, 1);
		if (r == 0)
			return g_stop ? -1 : 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

static int
pool_alive(struct pool *p)
{
	int i, alive = 0, st;

	for (i = 0; i < p->n; i++) {
		if (p->pids[i] <= 0)
			continue;
		if (waitpid(p->pids[i], &st, WNOHANG) == p->pids[i])
			p->pids[i] = -p->pids[i];
		else
			alive++;
	}
	return alive;
}

void
pool_wait_ready(struct pool *p, double timeout_s)
{
	double end = mono_s() + timeout_s;

	while (__atomic_load_n(p->ready, __ATOMIC_SEQ_CST) < p->n && !g_stop &&
	    mono_s() < end && pool_alive(p) > 0)
		sleep_ms(2);
}

void
pool_go(struct pool *p)
{
	if (p->gofd[1] >= 0)
		close(p->gofd[1]);
	p->gofd[1] = -1;
}

static void
pool_kill(struct pool *p, int sig)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->pids[i] > 0)
			kill(p->pids[i], sig);
}

void
pool_join(struct pool *p, double hard_deadline)
{
	sig_atomic_t seen = 0;
	int killed = 0;

	pool_go(p);
	while (pool_alive(p) > 0) {
		if (g_stop != seen) {
			seen = g_stop;
			pool_kill(p, SIGTERM);
		}
		if (!killed && hard_deadline > 0 && mono_s() > hard_deadline) {
			warnx("workers still running at the deadline: killing them");
			pool_kill(p, SIGKILL);
			killed = 1;
		}
		sleep_ms(10);
	}
}

void
pool_free(struct pool *p)
{
	if (p->ready != NULL)
		shm_free((void *)p->ready, sizeof(int));
	free(p->pids);
	memset(p, 0, sizeof(*p));
}
