/*
 * base.c - what every helper needs: option numbers, clocks, signals.
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"

volatile sig_atomic_t g_stop;

void
usage(const char *text, int ok)
{
	if (ok) {
		fputs(text, stdout);
		exit(fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1);
	}
	fprintf(stderr, "%.*s", (int)(strcspn(text, "\n") + 1), text);
	exit(EXIT_USAGE);
}

long
opt_num(int opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		errx(EXIT_USAGE, "option -%c: '%s' is not a number from %ld to %ld",
		    opt, s, min, max);
	return v;
}


int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double
mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

int64_t
real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal cuts it short, which is what we want */
}

static void
on_signal(int sig)
{
	(void)sig;
	if (g_stop < 100)
		g_stop++;
}

void
signals_install(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	/*
	 * Start from a known state whatever the caller left: every signal back to
	 * its default (an ignored SIGCHLD would make the children reap themselves
	 * and waitpid() never see them) and none blocked.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);	/* EINVAL for the C library's own: fine */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sa.sa_handler = on_signal;
	sa.sa_flags = 0;	/* no SA_RESTART: waits return early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void
signals_stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

void
errmsg(char *msg, size_t len, const char *what, int e)
{
	if (e == ETIMEDOUT)
		snprintf(msg, len, "%s: timed out", what);
	else
		snprintf(msg, len, "%s: %s", what, e ? strerror(e) : "failed");
}
