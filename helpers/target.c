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
	if (*host == '[') {		/* [IPv6 address] */
		if ((p = strchr(host, ']')) == NULL || p == host + 1)
			return -1;
		port = p[1] == ':' ? p + 1 : NULL;
		if (p[1] != '\0' && p[1] != ':')
			return -1;
	} else
		port = strrchr(host, ':');
	if (port != NULL) {
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

/* %-encodes s into d; -1 when it does not fit in len */
static int
urlencode(char *d, size_t len, const char *s, size_t *used)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	unsigned char ch;

	for (; *s; s++) {
		ch = (unsigned char)*s;
		if (o + 4 > len)
			return -1;
		if (isalnum(ch) || strchr("-._~/!$&'()*+,=", ch) != NULL)
			d[o++] = (char)ch;
		else {
			d[o++] = '%';
			d[o++] = hex[ch >> 4];
			d[o++] = hex[ch & 15];
		}
	}
	d[o] = '\0';
	*used = o;
	return 0;
}

int
target_url(const struct target *t, const char *extra, char *buf, size_t len)
{
	size_t o, n;
	int r;

	/*
	 * libsmbclient takes the port after the host's first ':' and %-decodes the
	 * host only after that: an IPv6 address goes without brackets, its colons
	 * %-encoded (smb://%3A%3A1:4450/share).
	 */
	if (len < 7)
		return -1;
	memcpy(buf, "smb://", 7);
	o = 6;
	if (t->host[0] == '[') {
		char inner[256];

		snprintf(inner, sizeof(inner), "%.*s", (int)strlen(t->host) - 2, t->host + 1);
		if (urlencode(buf + o, len - o, inner, &n) == -1)
			return -1;
		o += n;
	} else {
		if (o + strlen(t->host) + 1 > len)
			return -1;
		strcpy(buf + o, t->host);
		o += strlen(t->host);
	}
	if (t->port)
		r = snprintf(buf + o, len - o, ":%d/", t->port);
	else
		r = snprintf(buf + o, len - o, "/");
	if (r < 0 || (size_t)r >= len - o)
		return -1;
	o += (size_t)r;
	if (urlencode(buf + o, len - o, t->share, &n) == -1)
		return -1;
	o += n;
	if (t->path[0]) {
		if (o + 2 > len)
			return -1;
		buf[o++] = '/';
		if (urlencode(buf + o, len - o, t->path, &n) == -1)
			return -1;
		o += n;
	}
	if (extra != NULL) {
		if (o + 2 > len)
			return -1;
		buf[o++] = '/';
		if (urlencode(buf + o, len - o, extra, &n) == -1)
			return -1;
	}
	return 0;
}
