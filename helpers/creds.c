/*
 * creds.c - the SMB helpers' credentials: -A FILE or SMB_USER/SMB_PASSWORD/SMB_DOMAIN.
 */
#define _GNU_SOURCE
#include <sys/stat.h>

#include <ctype.h>
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "creds.h"

static void
copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		errx(EXIT_USAGE, "credential value too long");
	strcpy(dst, src);
}

static void
split_domain(struct creds *c)
{
	char *p, tmp[256];

	if ((p = strpbrk(c->user, "\\/")) == NULL)
		return;
	*p = '\0';
	copy(c->domain, sizeof(c->domain), c->user);
	copy(tmp, sizeof(tmp), p + 1);
	copy(c->user, sizeof(c->user), tmp);
}

/*
 * Removes NAME from the environment and wipes its "NAME=value" bytes, which
 * unsetenv() alone leaves in memory (and in /proc/PID/environ, and in every
 * forked worker).
 */
static void
env_scrub(const char *name)
{
	size_t len = strlen(name);
	char **e, *entry = NULL;

	for (e = environ; *e != NULL; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			entry = *e;
	unsetenv(name);
	if (entry != NULL)
		explicit_bzero(entry, strlen(entry));
}

void
creds_load(struct creds *c, const char *file)
{
	struct stat st;
	FILE *f;
	char line[1024], *k, *v, *e;
	const char *s;

	memset(c, 0, sizeof(*c));
	if (file != NULL) {
		if ((f = fopen(file, "r")) == NULL)
			err(EXIT_USAGE, "cannot open '%s'", file);
		/* as smbclient users expect: a warning, not a refusal */
		if (fstat(fileno(f), &st) == 0 && (st.st_mode & S_IROTH))
			warnx("warning: '%s' can be read by others (chmod o-r it)", file);
		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\r\n")] = '\0';
			for (k = line; isspace((unsigned char)*k); k++)
				;
			if (*k == '#' || *k == ';' || (v = strchr(k, '=')) == NULL)
				continue;
			for (e = v; e > k && isspace((unsigned char)e[-1]); e--)
				;
			*e = '\0';
			for (v++; isspace((unsigned char)*v); v++)
				;
			if (strcmp(k, "username") == 0)
				copy(c->user, sizeof(c->user), v);
			else if (strcmp(k, "password") == 0)
				copy(c->password, sizeof(c->password), v);
			else if (strcmp(k, "domain") == 0)
				copy(c->domain, sizeof(c->domain), v);
		}
		explicit_bzero(line, sizeof(line));
		fclose(f);
		if (c->user[0] == '\0')
			errx(EXIT_USAGE, "no 'username' in '%s'", file);
	} else {
		if ((s = getenv("SMB_USER")) == NULL || *s == '\0')
			errx(EXIT_USAGE, "no credentials: use -A FILE, or set SMB_USER and SMB_PASSWORD");
		copy(c->user, sizeof(c->user), s);
		if ((s = getenv("SMB_PASSWORD")) != NULL) {
			copy(c->password, sizeof(c->password), s);
			env_scrub("SMB_PASSWORD");
		}
		if ((s = getenv("SMB_DOMAIN")) != NULL)
			copy(c->domain, sizeof(c->domain), s);
	}
	split_domain(c);
}

void
creds_wipe(struct creds *c)
{
	explicit_bzero(c, sizeof(*c));
}
