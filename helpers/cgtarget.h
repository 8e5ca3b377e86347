/*
 * cgtarget.h - what cgcpu and pss-sum measure: a cgroup directory (v2, or v1
 * cpuacct) or a process and its descendants.
 */
#ifndef HELPERS_CGTARGET_H
#define HELPERS_CGTARGET_H

#include <stddef.h>
#include <sys/types.h>

struct tgt {
	char	kind;		/* 'g' or 'p' */
	char	name[1024];	/* cgroup directory or pid as given */
	pid_t	pid;
	char	cg2[4096];	/* resolved cgroup v2 directory, "" if none */
	char	cg1[4096];	/* resolved cgroup v1 cpuacct directory, "" if none */
	char	procs[4096];	/* a directory whose cgroup.procs (recursive) lists the members */
};
/* takes option -g or -p (ch) with its argument into t; errx(2) when it is bad, and the
 * usage error of usage_text when t already has a target (one target only) */
void	cgtarget_option(struct tgt *t, int ch, const char *arg, const char *usage_text);
/* resolves -g/-p; -1 with msg when it cannot */
int	cgtarget_resolve(struct tgt *t, char *msg, size_t len);
/* the member pids (cgroup.procs recursively, or the tree of pid); malloc'd, count in *n */
pid_t	*cgtarget_pids(const struct tgt *t, size_t *n);
/* pid and all its descendants */
pid_t	*cgtarget_proc_tree(pid_t root, size_t *n);

#endif
