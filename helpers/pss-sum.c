/*
 * pss-sum - PSS and RSS summed over a cgroup or a process tree
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cgtarget.h"
#include "json.h"

static const char usage_text[] =
"usage: pss-sum [-h] (-g cgroup_dir | -p pid)\n"
"PSS and RSS, kB, summed from /proc/PID/smaps_rollup over the members of a\n"
"cgroup and its descendant cgroups, or of a process and its descendants;\n"
"processes that end meanwhile are skipped, kernel threads count 0.\n"
"  -g cgroup_dir   a cgroup directory, absolute or relative to the cgroup2\n"
"                  mount (then to the cgroup v1 cpuacct mount) (no default:\n"
"                  -g or -p is needed)\n"
"  -h              print this help and exit\n"
"  -p pid          the process and its descendants (no default)\n"
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

/* 0 read, -1 gone, -2 not allowed */
static int
rollup(pid_t pid, long long *pss, long long *rss)
{
	char path[64], line[256];
	long long v;
	FILE *f;

	*pss = *rss = 0;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return errno == EACCES || errno == EPERM ? -2 : -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "Rss: %lld", &v) == 1)
			*rss = v;
		else if (sscanf(line, "Pss: %lld", &v) == 1)
			*pss = v;
	}
	if (ferror(f)) {
		fclose(f);
		return errno == EACCES || errno == EPERM ? -2 : -1;
	}
	fclose(f);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct tgt t;
	struct jw w;
	const char *source = NULL;
	char msg[ERRLEN] = "";
	long long pss = 0, rss = 0, maxrss = 0, p, r, procs = 0, denied = 0;
	pid_t *pids = NULL;
	size_t i, n = 0;
	int ch, ok, rc;
	double start = mono_s();

	memset(&t, 0, sizeof(t));
	while ((ch = getopt(argc, argv, "g:hp:")) != -1) {
		switch (ch) {
		case 'g':
		case 'p':
			cgtarget_option(&t, ch, optarg, usage_text);
			break;
		case 'h': usage(usage_text, 1); break;
		default: usage(usage_text, 0);
		}
	}
	if (!t.kind || optind != argc)
		usage(usage_text, 0);
	signals_install();
	json_line_guard("pss-sum");
	ok = cgtarget_resolve(&t, msg, sizeof(msg)) == 0;
	if (ok) {
		source = t.kind == 'p' ? "proc" : strcmp(t.procs, t.cg2) == 0 ? "cgroup2" : "cgroup1";
		pids = cgtarget_pids(&t, &n);
		for (i = 0; i < n; i++) {
			if ((rc = rollup(pids[i], &p, &r)) == -2)
				denied++;
			if (rc != 0)
				continue;
			procs++;
			pss += p;
			rss += r;
			if (r > maxrss)
				maxrss = r;
		}
		free(pids);
		if (denied) {
			snprintf(msg, sizeof(msg), "not allowed to read smaps_rollup of %lld processes",
			    denied);
			ok = 0;
		} else if (t.kind == 'p' && procs == 0) {
			snprintf(msg, sizeof(msg), "no process %d", (int)t.pid);
			ok = 0;
		}
	}
	json_head(&w, "pss-sum", ok, msg);
	json_num(&w, "duration_s", mono_s() - start, 3);
	json_str(&w, "source", source);
	json_str(&w, "target", t.kind == 'p' ? t.name : t.procs[0] ? t.procs : t.name);
	if (ok) {
		json_int(&w, "processes", procs);
		json_int(&w, "pss_kb", pss);
		json_int(&w, "rss_kb", rss);
		json_int(&w, "max_rss_kb", maxrss);
	} else {
		json_null(&w, "processes");
		json_null(&w, "pss_kb");
		json_null(&w, "rss_kb");
		json_null(&w, "max_rss_kb");
	}
	json_end(&w);
	json_stdout_close();
	return ok ? 0 : 1;
}
