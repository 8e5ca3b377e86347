/*
 * cgtarget.c - cgroup and process-tree targets of cgcpu and pss-sum (see cgtarget.h).
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cgtarget.h"

/* mount point of the first filesystem of type fstype (with superopt, if given) */
static int
find_mount(const char *fstype, const char *superopt, char *out, size_t len)
{
	FILE *f;
	char line[4096], mnt[4096], *sep, type[256], src[1024], opts[2048];
	int found = 0;

	if ((f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		if (sscanf(sep + 3, "%255s %1023s %2047s", type, src, opts) != 3)
			continue;
		if (strcmp(type, fstype) != 0)
			continue;
		if (superopt != NULL) {
			char *tok, *save = NULL;
			int has = 0;

			for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (strcmp(tok, superopt) == 0)
					has = 1;
			if (!has)
				continue;
		}
		if (strlen(mnt) < len) {
			strcpy(out, mnt);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static int
isdir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
isfile(const char *p)
{
	return access(p, R_OK) == 0;
}

static int
path_join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s%s%s", a, (b[0] == '/' || a[strlen(a) - 1] == '/') ? "" : "/",
	    b);

	return n >= 0 && (size_t)n < len ? 0 : -1;
}

/*
 * The cpuacct directory of a cgroup v1 directory dir: dir itself when it has
 * cpuacct.usage, else the same path in the hierarchy where cpuacct is mounted
 * (v1 hierarchies mirror each other: systemd and the kit make the same path in
 * each); "" when there is none.
 */
static void
v1_cpuacct(const char *dir, char *out, size_t len)
{
	FILE *f;
	char line[4096], mnt[4096], best[4096] = "", m1[4096], file[4400], alt[4096];

	out[0] = '\0';
	snprintf(file, sizeof(file), "%s/cpuacct.usage", dir);
	if (isfile(file)) {
		snprintf(out, len, "%s", dir);
		return;
	}
	if ((f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {	/* the mount that holds dir */
		size_t n;

		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    strstr(line, " - cgroup ") == NULL)
			continue;
		n = strlen(mnt);
		if (strncmp(dir, mnt, n) == 0 && (dir[n] == '/' || dir[n] == '\0') &&
		    n > strlen(best))
			strcpy(best, mnt);
	}
	fclose(f);
	if (best[0] && find_mount("cgroup", "cpuacct", m1, sizeof(m1)) &&
	    path_join(alt, sizeof(alt), m1, dir + strlen(best)) == 0) {
		snprintf(file, sizeof(file), "%s/cpuacct.usage", alt);
		if (isfile(file))
			snprintf(out, len, "%s", alt);
	}
}

void
cgtarget_option(struct tgt *t, int ch, const char *arg, const char *usage_text)
{
	if (t->kind)
		usage(usage_text, 0);	/* one target only: -g or -p, once */
	if (ch == 'p') {
		t->pid = (pid_t)opt_num('p', arg, 1, 1L << 30);
		snprintf(t->name, sizeof(t->name), "%d", (int)t->pid);
	} else {
		if (strlen(arg) >= sizeof(t->name))
			errx(EXIT_USAGE, "option -%c: too long", ch);
		strcpy(t->name, arg);
	}
	t->kind = (char)ch;
}

int
cgtarget_resolve(struct tgt *t, char *msg, size_t len)
{
	char m2[4096] = "", m1[4096] = "", p2[4096];
	struct statfs sf;
	int have2, have1;

	t->cg2[0] = t->cg1[0] = t->procs[0] = '\0';
	have2 = find_mount("cgroup2", NULL, m2, sizeof(m2));
	have1 = find_mount("cgroup", "cpuacct", m1, sizeof(m1));
	switch (t->kind) {
	case 'p':
		if (kill(t->pid, 0) == -1 && errno == ESRCH) {
			snprintf(msg, len, "no process %d", (int)t->pid);
			return -1;
		}
		return 0;
	case 'g':
		if (t->name[0] == '/') {
			strcpy(p2, t->name);
			if (realpath(t->name, p2) == NULL) {
				snprintf(msg, len, "no cgroup directory '%.200s'", t->name);
				return -1;
			}
		} else if ((have2 && path_join(p2, sizeof(p2), m2, t->name) == 0 && isdir(p2)) ||
		    (have1 && path_join(p2, sizeof(p2), m1, t->name) == 0 && isdir(p2)))
			;
		else {
			snprintf(msg, len, "no cgroup directory '%.200s'", t->name);
			return -1;
		}
		/* the file system decides, not the path: cgroup v1 is often reached
		 * through a symlink (/sys/fs/cgroup/cpuacct -> cpu,cpuacct) */
		if (statfs(p2, &sf) == -1 || !isdir(p2)) {
			snprintf(msg, len, "no cgroup directory '%.200s'", t->name);
			return -1;
		}
		if (sf.f_type == CGROUP2_SUPER_MAGIC)
			strcpy(t->cg2, p2);
		else if (sf.f_type == CGROUP_SUPER_MAGIC)
			v1_cpuacct(p2, t->cg1, sizeof(t->cg1));
		else {
			snprintf(msg, len, "'%.200s' is not in a cgroup file system", t->name);
			return -1;
		}
		strcpy(t->procs, p2);
		return 0;
	}
	snprintf(msg, len, "no target");
	return -1;
}

struct pidv {
	pid_t	*v;
	size_t	n, cap;
};

static void
pidv_add(struct pidv *pv, pid_t pid)
{
	if (pv->n == pv->cap) {
		pv->cap = pv->cap ? pv->cap * 2 : 64;
		if ((pv->v = realloc(pv->v, pv->cap * sizeof(pid_t))) == NULL)
			err(1, "realloc");
	}
	pv->v[pv->n++] = pid;
}

static void
procs_walk(const char *dir, struct pidv *pv, int depth)
{
	char file[4400];
	FILE *f;
	DIR *d;
	struct dirent *de;
	long pid;

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	if ((f = fopen(file, "r")) != NULL) {
		while (fscanf(f, "%ld", &pid) == 1)
			pidv_add(pv, (pid_t)pid);
		fclose(f);
	}
	if (depth > 32 || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		procs_walk(file, pv, depth + 1);
	}
	closedir(d);
}

pid_t *
cgtarget_proc_tree(pid_t root, size_t *n)
{
	struct pidv all = { 0 }, par = { 0 }, out = { 0 };
	DIR *d;
	struct dirent *de;
	char file[300], buf[1024], *p;
	FILE *f;
	size_t i, j;
	long ppid;

	if ((d = opendir("/proc")) == NULL)
		err(1, "cannot open '/proc'");
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "/proc/%s/stat", de->d_name);
		if ((f = fopen(file, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %ld", &ppid) == 1) {
			pidv_add(&all, (pid_t)atol(de->d_name));
			pidv_add(&par, (pid_t)ppid);
		}
		fclose(f);
	}
	closedir(d);
	if (kill(root, 0) == 0 || errno == EPERM)
		pidv_add(&out, root);
	for (i = 0; i < out.n; i++)	/* breadth first: out grows as children are found */
		for (j = 0; j < all.n; j++)
			if (par.v[j] == out.v[i] && all.v[j] != out.v[i])
				pidv_add(&out, all.v[j]);
	free(all.v);
	free(par.v);
	*n = out.n;
	return out.v;
}

pid_t *
cgtarget_pids(const struct tgt *t, size_t *n)
{
	struct pidv pv = { 0 };

	if (t->kind == 'p')
		return cgtarget_proc_tree(t->pid, n);
	procs_walk(t->procs, &pv, 0);
	*n = pv.n;
	return pv.v;
}
