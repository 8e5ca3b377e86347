/*
 * creds.h - the SMB helpers' credentials, never from the command line.
 */
#ifndef HELPERS_CREDS_H
#define HELPERS_CREDS_H

struct creds {
	char	user[256];
	char	password[256];
	char	domain[256];
};
/*
 * Fills c from file (-A; username=/password=/domain= lines) when not NULL,
 * else from SMB_USER/SMB_PASSWORD/SMB_DOMAIN; errx(2) when there are none.
 */
void	creds_load(struct creds *c, const char *file);
void	creds_wipe(struct creds *c);

#endif
