/*
 * base.h - what every helper needs: exit codes, option numbers, clocks, signals.
 */
#ifndef HELPERS_BASE_H
#define HELPERS_BASE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_USAGE	2	/* 0 ok, 1 the operation failed (the line says why), 2 usage */
#define ERRLEN		256	/* an error message in a line */

/*
 * The helper's one synopsis: -h prints all of text on stdout and exits 0; a
 * usage error prints its first line on stderr and exits 2.
 */
void	usage(const char *text, int ok) __attribute__((noreturn));

/* numbers from options: errx(2) with the option letter when out of range */
long	opt_num(int opt, const char *s, long min, long max);

/* clocks */
double	mono_s(void);
int64_t	mono_ns(void);
int64_t	real_ns(void);
void	sleep_ms(long ms);

/* SIGINT/SIGTERM/SIGHUP set g_stop (counted); no SA_RESTART so blocking calls return */
extern volatile sig_atomic_t g_stop;
/*
 * Resets every signal to its default and unblocks all (whatever the caller
 * left, e.g. SIGCHLD ignored), then installs the g_stop handler.
 */
void	signals_install(void);
/* the set of signals that set g_stop (for sigprocmask/ppoll) */
void	signals_stop_set(sigset_t *set);

/* "what: strerror(e)" into msg ("what: timed out" for ETIMEDOUT) */
void	errmsg(char *msg, size_t len, const char *what, int e);

#endif
