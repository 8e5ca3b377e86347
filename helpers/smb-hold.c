/*
 * smb-hold - hold many connections, each with one open file
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <sys/resource.h>

#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "creds.h"
#include "json.h"
#include "smbctx.h"
#include "target.h"

#define TIMEOUT_MS	5000
#define FD_SPARE	64

struct conn {
	SMBCCTX		*ctx;
	SMBCFILE	*f;
	char		url[4096];
};

static const char usage_text[] =
"usage: smb-hold [-h] [-A file] [-n connections] target_folder\n"
"Opens -n connections one after another from this one process, each with its\n"
"own context and one open file target_folder/smb-hold.PID.N; prints its line\n"
"once all are held (or as many as could be), then holds them until SIGTERM,\n"
"SIGINT or end of stdin, then closes and removes its files. Raises its own\n"
"open-file limit as far as it can and says so when that is not far enough.\n"
CREDS_USAGE
"  -h              print this help and exit\n"
"  -n connections  connections to hold (default 200)\n"
"  target_folder   //host[:port]/share[/folder]; the folder must exist\n"
TARGET_USAGE
"Give it a pipe or a FIFO as stdin, not /dev/null, unless it should let go\n"
"at once. Each connect and open times out after 5 s.\n"
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

static long
raise_fd_limit(long n)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)n + FD_SPARE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return -1;
	if (rl.rlim_cur >= want)
		return (long)rl.rlim_cur;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
		struct rlimit up = { want, want };

		if (setrlimit(RLIMIT_NOFILE, &up) == 0)
			return (long)want;
		warn("cannot raise the open-file limit to %lu (hard limit %lu)",
		    (unsigned long)want, (unsigned long)rl.rlim_max);
		rl.rlim_cur = rl.rlim_max;
	} else
		rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		warn("cannot raise the open-file limit");
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < want)
		warnx("open-file limit %lu is below the %lu needed for %ld connections",
		    (unsigned long)rl.rlim_cur, (unsigned long)want, n);
	return (long)rl.rlim_cur;
}

static void
wait_for_end(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char buf[256];
	ssize_t r;

	while (!g_stop) {
		if (poll(&pfd, 1, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd.revents & POLLNVAL) {	/* no stdin: wait for a signal only */
			while (!g_stop)
				pause();
			break;
		}
		r = read(0, buf, sizeof(buf));
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			break;
	}
}

int
main(int argc, char *argv[])
{
	struct creds c;
	struct target t;
	struct conn *cs;
	struct jw w;
	const char *cfile = NULL;
	char rel[128], first[ERRLEN] = "", msg[ERRLEN], cs0url[4096];
	long n = 200, i, held = 0, errors = 0, fdlim;
	double start, dur;
	sigset_t block;
	int ch, ok;

	while ((ch = getopt(argc, argv, "A:hn:")) != -1) {
		switch (ch) {
		case 'A': cfile = optarg; break;
		case 'h': usage(usage_text, 1); break;
		case 'n': n = opt_num('n', optarg, 1, 100000); break;
		default: usage(usage_text, 0);
		}
	}
	if (argc - optind != 1)
		usage(usage_text, 0);
	if (target_parse(&t, argv[optind]) == -1)
		errx(EXIT_USAGE, "bad target '%s': want smb://host[:port]/share[/folder] or "
		    "//host[:port]/share[/folder]", argv[optind]);
	snprintf(rel, sizeof(rel), "smb-hold.%d.%ld", (int)getpid(), n);
	if (target_url(&t, rel, cs0url, sizeof(cs0url)) == -1)
		errx(EXIT_USAGE, "target '%.64s...' is too long", argv[optind]);
	creds_load(&c, cfile);
	signals_install();
	json_line_guard("smb-hold");
	smbctx_home_setup();
	fdlim = raise_fd_limit(n);
	if ((cs = calloc((size_t)n, sizeof(*cs))) == NULL)
		json_fatal("cannot allocate %ld connections: %s", n, strerror(errno));

	start = mono_s();
	for (i = 0; i < n && !g_stop; i++) {
		struct conn *k = &cs[i];

		snprintf(rel, sizeof(rel), "smb-hold.%d.%ld", (int)getpid(), i);
		target_url(&t, rel, k->url, sizeof(k->url));
		if ((k->ctx = smbctx_new(&c, TIMEOUT_MS, msg, sizeof(msg))) == NULL) {
			errors++;
			if (first[0] == '\0')
				snprintf(first, sizeof(first), "%s", msg);
			continue;
		}
		k->f = smbc_getFunctionOpen(k->ctx)(k->ctx, k->url, O_CREAT | O_RDWR | O_TRUNC, 0644);
		if (k->f == NULL) {
			if (first[0] == '\0')
				errmsg(first, sizeof(first), "open", errno);
			errors++;
			smbctx_free(k->ctx);
			k->ctx = NULL;
			continue;
		}
		held++;
	}
	dur = mono_s() - start;
	smbctx_home_remove();	/* every context is made */
	ok = held > 0;
	if (!ok && first[0] == '\0')
		snprintf(first, sizeof(first), "stopped before the first connection");

	json_head(&w, "smb-hold", ok, first);
	json_num(&w, "duration_s", dur, 3);
	json_int(&w, "asked", n);
	json_int(&w, "held", held);
	json_int(&w, "errors", errors);
	json_str(&w, "first_error", first[0] ? first : NULL);
	json_int(&w, "fd_limit", fdlim);
	json_bool(&w, "interrupted", g_stop != 0);
	json_end(&w);
	json_stdout_close();

	if (ok)
		wait_for_end();

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, NULL);
	for (i = 0; i < n; i++) {
		struct conn *k = &cs[i];

		if (k->ctx == NULL)
			continue;
		if (smbc_getFunctionClose(k->ctx)(k->ctx, k->f) != 0)
			warn("cannot close '%s'", k->url);
		if (smbc_getFunctionUnlink(k->ctx)(k->ctx, k->url) != 0)
			warn("cannot remove '%s'", k->url);
		smbctx_free(k->ctx);
	}
	free(cs);
	creds_wipe(&c);
	return ok ? 0 : 1;
}
