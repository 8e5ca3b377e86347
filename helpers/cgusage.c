/*
 * cgusage.c - the CPU time a cgroup or a process tree has used so far (see cgusage.h).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgtarget.h"
#include "cgusage.h"

/* value of a "key N" line (cpu.stat, cpuacct.stat), or of the one number (key NULL) */
static int
read_key(const char *dir, const char *file, const char *key, double *v)
{
	char path[4400], k[64];
	double x;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (key == NULL)		/* a file holding one number */
		found = fscanf(f, "%lf", v) == 1;
	while (!found && fscanf(f, "%63s %lf", k, &x) == 2)
		if (strcmp(k, key) == 0) {
			*v = x;
			found = 1;
		}
	fclose(f);
	return found ? 0 : -1;
}

static int
read_proc(pid_t root, struct cg_cpu *c)
{
	char path[64], buf[2048], *p;
	unsigned long long ut, st;
	long long cut, cst;
	double tick = (double)sysconf(_SC_CLK_TCK);
	double u = 0, s = 0;
	pid_t *pids;
	size_t i, n;
	FILE *f;

	pids = cgtarget_proc_tree(root, &n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pids[i]);
		if ((f = fopen(path, "r")) == NULL)
			continue;	/* gone meanwhile */
		if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld",
		    &ut, &st, &cut, &cst) == 4) {
			u += (double)ut + (double)cut;
			s += (double)st + (double)cst;
		}
		fclose(f);
	}
	free(pids);
	if (n == 0)
		return -1;
	c->user = u * 1e6 / tick;
	c->sys = s * 1e6 / tick;
	c->cpu = c->user + c->sys;
	return 0;
}

int
cgusage_read(const struct tgt *t, const char **source, struct cg_cpu *c, char *msg, size_t len)
{
	double v;

	c->user = c->sys = NAN;
	if (t->kind == 'p') {
		*source = "proc";
		if (read_proc(t->pid, c) == -1) {
			snprintf(msg, len, "no process %d", (int)t->pid);
			return -1;
		}
		return 0;
	}
	if (t->cg2[0] && read_key(t->cg2, "cpu.stat", "usage_usec", &c->cpu) == 0) {
		*source = "cgroup2";
		if (read_key(t->cg2, "cpu.stat", "user_usec", &v) == 0)
			c->user = v;
		if (read_key(t->cg2, "cpu.stat", "system_usec", &v) == 0)
			c->sys = v;
		return 0;
	}
	if (t->cg1[0] && read_key(t->cg1, "cpuacct.usage", NULL, &v) == 0) {
		*source = "cgroup1";
		c->cpu = v / 1000;
		if (read_key(t->cg1, "cpuacct.usage_user", NULL, &v) == 0)
			c->user = v / 1000;
		else if (read_key(t->cg1, "cpuacct.stat", "user", &v) == 0)
			c->user = v * 1e6 / (double)sysconf(_SC_CLK_TCK);
		if (read_key(t->cg1, "cpuacct.usage_sys", NULL, &v) == 0)
			c->sys = v / 1000;
		else if (read_key(t->cg1, "cpuacct.stat", "system", &v) == 0)
			c->sys = v * 1e6 / (double)sysconf(_SC_CLK_TCK);
		return 0;
	}
	if (t->cg2[0])
		snprintf(msg, len, "no usage_usec in '%.200s/cpu.stat'", t->cg2);
	else
		snprintf(msg, len, "cgroup v1 directory '%.150s' has no cpuacct.usage, and no "
		    "cpuacct hierarchy has the same path", t->procs);
	return -1;
}
