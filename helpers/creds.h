/*
 * creds.h - the SMB helpers' credentials, never from the command line.
 */
#ifndef HELPERS_CREDS_H
#define HELPERS_CREDS_H

/* The -A option's lines of every SMB helper's help text (its synopsis shares them). */
#define CREDS_USAGE \
	"  -A file         credentials: username=, password=, domain= lines (the file of\n" \
	"                  smbclient -A and mount.cifs credentials=); a file others can\n" \
	"                  read is used with a warning. Default: the environment's\n" \
	"                  SMB_USER, SMB_PASSWORD (removed from the environment once\n" \
	"                  read), SMB_DOMAIN. Never a password on the command line.\n"

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
