/*
 * cgcpu - CPU time used by a cgroup or a process tree
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cgtarget.h"
#include "cgusage.h"
#include "json.h"


static const char usage_text[] =
"usage: cgcpu [-h] (-g cgroup_dir | -p pid) [-- command [arg ...]]\n"
"CPU time used by a cgroup or a process tree, microseconds.\n"
"  -g cgroup_dir   a cgroup directory, absolute or relative to the cgroup2\n"
"                  mount (then to the cgroup v1 cpuacct mount); its file\n"
"                  system type decides: cgroup2 cpu.stat, or cgroup v1\n"
"                  cpuacct.usage (no default: -g or -p is needed)\n"
"  -h              print this help and exit\n"
"  -p pid          the process and its descendants from /proc: utime + stime\n"
"                  + cutime + cstime (no default); a child that exits while\n"
"                  the tree is read can be missed, which the line says in\n"
"                  \"caveat\": prefer -g\n"
"  -- command      run the command, then report what the target used while\n"
"                  it ran and the command's exit status (128+N when killed by\n"
"                  signal N); default: the target's total so far\n"
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

static int
run(char **cmd)
{
	pid_t pid, r;
	int st;

	fflush(NULL);
	if ((pid = fork()) == -1)
		json_fatal("cannot run '%s': fork: %s", cmd[0], strerror(errno));
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(cmd[0], cmd);
		warn("cannot run '%s'", cmd[0]);
		_exit(127);
	}
	for (;;) {
		r = waitpid(pid, &st, 0);
		if (r == pid)
			break;
		if (r == -1 && errno != EINTR)
			json_fatal("waitpid: %s", strerror(errno));
		if (g_stop)		/* pass the signal on; the line comes after it ends */
			kill(pid, SIGTERM);
		g_stop = 0;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
main(int argc, char *argv[])
{
	struct tgt t;
	struct cg_cpu a, b;
	struct jw w;
	const char *source = NULL;
	char msg[ERRLEN] = "", tname[4200];
	char **cmd = NULL;
	int ch, ok, status = -1;
	double start;

	memset(&t, 0, sizeof(t));
	while ((ch = getopt(argc, argv, "+g:hp:")) != -1) {
		switch (ch) {
		case 'g':
		case 'p':
			cgtarget_option(&t, ch, optarg, usage_text);
			break;
		case 'h': usage(usage_text, 1); break;
		default: usage(usage_text, 0);
		}
	}
	if (!t.kind)
		usage(usage_text, 0);
	if (optind < argc)
		cmd = argv + optind;
	signals_install();
	json_line_guard("cgcpu");
	start = mono_s();
	ok = cgtarget_resolve(&t, msg, sizeof(msg)) == 0 &&
	    cgusage_read(&t, &source, &a, msg, sizeof(msg)) == 0;
	if (ok && cmd != NULL) {
		status = run(cmd);
		ok = cgusage_read(&t, &source, &b, msg, sizeof(msg)) == 0;
		a.cpu = b.cpu - a.cpu;
		a.user = b.user - a.user;
		a.sys = b.sys - a.sys;
	}
	snprintf(tname, sizeof(tname), "%s", t.kind == 'p' ? t.name : t.procs[0] ? t.procs : t.name);
	json_head(&w, "cgcpu", ok, msg);
	json_num(&w, "duration_s", mono_s() - start, 3);
	json_str(&w, "source", source);
	json_str(&w, "target", tname);
	json_str(&w, "caveat", source != NULL && strcmp(source, "proc") == 0 ?
	    "a process tree read from /proc: the CPU of a child that exits while the "
	    "tree is read can be missed or counted twice; a cgroup (-g) has no such gap" : NULL);
	json_num(&w, "cpu_us", ok ? a.cpu : NAN, 0);
	json_num(&w, "user_us", ok ? a.user : NAN, 0);
	json_num(&w, "system_us", ok ? a.sys : NAN, 0);
	if (cmd != NULL)
		json_int(&w, "command_status", status);
	else
		json_null(&w, "command_status");
	json_end(&w);
	json_stdout_close();
	return ok ? 0 : 1;
}
