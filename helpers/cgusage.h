/*
 * cgusage.h - the CPU time a cgroup or a process tree (a resolved struct tgt)
 * has used so far: cgroup2 cpu.stat, cgroup v1 cpuacct, or /proc for -p.
 */
#ifndef HELPERS_CGUSAGE_H
#define HELPERS_CGUSAGE_H

#include <stddef.h>

#include "cgtarget.h"

struct cg_cpu {
	double	cpu, user, sys;		/* microseconds; user/sys NAN when unknown */
};
/* 0 with the totals in *c and *source ("cgroup2", "cgroup1", "proc"); -1 with msg */
int	cgusage_read(const struct tgt *t, const char **source, struct cg_cpu *c, char *msg, size_t len);

#endif
