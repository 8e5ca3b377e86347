/*
 * target.c - smb://host[:port]/share[/path] and //host[:port]/share[/path] targets.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target.h"

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static void
urldecode(char *s)
{
	char *d = s;
	int h, l;

	for (; *s; s++) {
		if (*s == '%' && (h = hexval(s[1])) >= 0 && (l = hexval(s[2])) >= 0) {
			*d++ = (char)(h * 16 + l);
			s += 2;
		} else
			*d++ = *s;
	}
	*d = '\0';
}

int
target_parse(struct target *t, const char *s)
{
	char buf[2048], *p, *host, *share, *port;
	int url = 0;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (strncmp(s, "smb://", 6) == 0) {
		s += 6;
		url = 1;
	} else if (strncmp(s, "//", 2) == 0)
		s += 2;
	else
		return -1;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	if (url)
		urldecode(buf);
	host = buf;
	if ((p = strchr(host, '/')) == NULL)
		return -1;
	*p = '\0';
	share = p + 1;
	if (strchr(host, '@') != NULL)	/* user:pass@ stays off the command line */
		return -1;
	if ((port = strrchr(host, ':')) != NULL) {
		char *end;
		long v;

		*port++ = '\0';
		errno = 0;
		v = strtol(port, &end, 10);
		if (errno || *end || end == port || v < 1 || v > 65535)
			return -1;
		t->port = (int)v;
	}
	if ((p = strchr(share, '/')) != NULL)
		*p++ = '\0';
	if (*host == '\0' || *share == '\0' || strlen(host) >= sizeof(t->host) ||
	    strlen(share) >= sizeof(t->share))
		return -1;
	strcpy(t->host, host);
	strcpy(t->share, share);
	if (p != NULL) {
		while (*p == '/')
			p++;
		n = strlen(p);
		while (n > 0 && p[n - 1] == '/')
			p[--n] = '\0';
		if (n >= sizeof(t->path))
			return -1;
		strcpy(t->path, p);
	}
	return 0;
}

static size_t
urlencode(char *d, size_t len, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	unsigned char ch;

	for (; *s && o + 4 < len; s++) {
		ch = (unsigned char)*s;
		if (isalnum(ch) || strchr("-._~/!$&'()*+,=", ch) != NULL)
			d[o++] = (char)ch;
		else {
			d[o++] = '%';
			d[o++] = hex[ch >> 4];
			d[o++] = hex[ch & 15];
		}
	}
	d[o] = '\0';
	return o;
}

void
target_url(const struct target *t, const char *extra, char *buf, size_t len)
{
	size_t o;

	if (t->port)
		o = (size_t)snprintf(buf, len, "smb://%s:%d/", t->host, t->port);
	else
		o = (size_t)snprintf(buf, len, "smb://%s/", t->host);
	if (o >= len)
		return;
	o += urlencode(buf + o, len - o, t->share);
	if (t->path[0] && o + 1 < len) {
		buf[o++] = '/';
		o += urlencode(buf + o, len - o, t->path);
	}
	if (extra != NULL && o + 1 < len) {
		buf[o++] = '/';
		urlencode(buf + o, len - o, extra);
	}
}
