/*
 * smb-wait-login - log in every interval until it works or the timeout ends
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "base.h"
#include "creds.h"
#include "json.h"
#include "smbctx.h"
#include "target.h"

#define MAX_ATTEMPT_MS	2000

static const char usage_text[] =
"usage: smb-wait-login [-h] [-A file] [-i interval_ms] [-t timeout_s] target\n"
"Logs in (new TCP connection, negotiate, session setup, tree connect,\n"
"disconnect) every -i ms until a login works or -t s have passed. A\n"
"wrong password ends it at once (it cannot heal).\n"
CREDS_USAGE
"  -h              print this help and exit\n"
"  -i interval_ms  time from one attempt's start to the next, ms (default 10)\n"
"  -t timeout_s    give up after this many seconds, s (default 10); no attempt\n"
"                  starts after it and none runs past it (its request timeout\n"
"                  is the time left, 2 s at most), except for libsmbclient's\n"
"                  fixed 5 s TCP connect timeout when the host does not answer\n"
"  target          //host[:port]/share\n"
TARGET_USAGE
"Times: duration_s is the whole run; elapsed_ms is from the start to the\n"
"first success (or to the end); first_success_ns is CLOCK_REALTIME.\n"
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

int
main(int argc, char *argv[])
{
	struct creds c;
	struct target t;
	struct jw w;
	SMBCCTX *ctx;
	const char *cfile = NULL;
	char url[4096], last[ERRLEN] = "", msg[ERRLEN] = "";
	long interval = 10, timeout = 10, attempts = 0, left_ms;
	int ch, ok = 0, e = 0;
	int64_t start, deadline, next, success_ns = 0, success_mono = 0;
	double elapsed_ms;

	while ((ch = getopt(argc, argv, "A:hi:t:")) != -1) {
		switch (ch) {
		case 'A': cfile = optarg; break;
		case 'h': usage(usage_text, 1); break;
		case 'i': interval = opt_num('i', optarg, 1, 60000); break;
		case 't': timeout = opt_num('t', optarg, 1, 86400); break;
		default: usage(usage_text, 0);
		}
	}
	if (argc - optind != 1)
		usage(usage_text, 0);
	if (target_parse(&t, argv[optind]) == -1)
		errx(EXIT_USAGE, "bad target '%s': want smb://host[:port]/share or //host[:port]/share",
		    argv[optind]);
	if (target_url(&t, NULL, url, sizeof(url)) == -1)
		errx(EXIT_USAGE, "target '%.64s...' is too long", argv[optind]);
	creds_load(&c, cfile);
	signals_install();
	json_line_guard("smb-wait-login");
	start = json_line_start_ns();
	deadline = start + (int64_t)timeout * 1000000000;
	smbctx_home_setup();

	ctx = smbctx_new(&c, MAX_ATTEMPT_MS, msg, sizeof(msg));
	smbctx_home_remove();	/* the context has read it */
	if (ctx != NULL) {
		for (;;) {
			next = mono_ns() + interval * 1000000;
			left_ms = (long)((deadline - mono_ns()) / 1000000);
			smbc_setTimeout(ctx, left_ms < 1 ? 1 : left_ms < MAX_ATTEMPT_MS ? (int)left_ms :
			    MAX_ATTEMPT_MS);
			attempts++;
			if (smbctx_login(ctx, url) == 0) {
				success_ns = real_ns();
				success_mono = mono_ns();
				ok = 1;
			} else {
				e = errno;
				errmsg(last, sizeof(last), "login", e);
			}
			smbctx_purge(ctx);
			if (ok)
				break;
			if (e == EACCES || e == EPERM) {
				snprintf(msg, sizeof(msg), "%.200s (not retried)", last);
				break;
			}
			/* the next attempt, unless the deadline comes first: then no sleep past it */
			if (next > deadline)
				next = deadline;
			while (!g_stop && mono_ns() < next)
				sleep_ms((long)((next - mono_ns() + 999999) / 1000000));
			if (g_stop) {
				snprintf(msg, sizeof(msg), "stopped by a signal; %.200s", last);
				break;
			}
			if (mono_ns() >= deadline) {
				snprintf(msg, sizeof(msg), "no login within %ld s; %.200s", timeout, last);
				break;
			}
		}
		smbctx_free(ctx);
	}
	elapsed_ms = (double)((ok ? success_mono : mono_ns()) - start) / 1e6;
	creds_wipe(&c);

	json_head(&w, "smb-wait-login", ok, msg);
	json_bool(&w, "interrupted", g_stop != 0);
	json_num(&w, "duration_s", (double)(mono_ns() - start) / 1e9, 3);
	json_int(&w, "attempts", attempts);
	json_num(&w, "elapsed_ms", elapsed_ms, 3);
	if (ok)
		json_int(&w, "first_success_ns", success_ns);
	else
		json_null(&w, "first_success_ns");
	json_str(&w, "last_error", last[0] ? last : NULL);
	json_end(&w);
	json_stdout_close();
	return ok ? 0 : 1;
}
