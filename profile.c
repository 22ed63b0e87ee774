// SPDX-License-Identifier: GPL-2.0
/*
 * Generated profile text.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

const char *const prof_unix_perms[] = {
	"create", "bind", "listen", "accept", "connect", "send", "receive",
	"getattr", "shutdown", "getopt", "setopt",
};

const size_t prof_unix_perms_count = ARRAY_SIZE(prof_unix_perms);

static void vadd(struct prof *p, const char *fmt, va_list ap)
{
	size_t room = sizeof(p->text) - p->len;
	int n = vsnprintf(p->text + p->len, room, fmt, ap);

	if (n < 0 || (size_t)n >= room)
		p->overflow = true;
	else
		p->len += n;
}

void prof_add(struct prof *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(p, fmt, ap);
	va_end(ap);
}

/*
 * The harness kills timed-out tests, libapparmor reads the label from
 * /proc, pathname sockets live in the run directory.
 */
void prof_base(struct prof *p, const char *dir, const char *fperms)
{
	p->len = 0;
	p->overflow = false;
	prof_add(p, "  signal (receive) peer=unconfined,\n"
		 "  /proc/*/attr/{apparmor/,}current r,\n  %s/ r,\n  %s/* %s,\n",
		 dir, dir, fperms);
}

void prof_exec_reads(struct prof *p, const char *self, const char *links)
{
	prof_add(p, "  %s rm,\n  %s rm,\n  /{usr/,}lib{,32,64,x32}/** rm,\n"
		 "  /etc/ld.so.cache r,\n", self, links);
}

void prof_vrules(struct prof *p, const char *dir, const char *fmt,
		 va_list ap)
{
	prof_base(p, dir, "rw");
	vadd(p, fmt, ap);
}

void prof_rules(struct prof *p, const char *dir, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	prof_vrules(p, dir, fmt, ap);
	va_end(ap);
}

void prof_all_perms_but(struct prof *p, const char *dir, enum aa_abi abi,
			const char *drop)
{
	prof_all_perms_but_files(p, dir, "rw", abi, drop);
}

void prof_all_perms_but_files(struct prof *p, const char *dir,
			      const char *fperms, enum aa_abi abi,
			      const char *drop)
{
	prof_base(p, dir, fperms);
	prof_unix_rules_but(p, abi, drop);
}

void prof_unix_rules_but(struct prof *p, enum aa_abi abi, const char *drop)
{
	const char *sep = "";
	size_t i;

	prof_add(p, "  %s (", abi == AA_ABI_NEW ? "unix" : "network");
	for (i = 0; i < ARRAY_SIZE(prof_unix_perms); i++) {
		if (drop && !strcmp(drop, prof_unix_perms[i]))
			continue;
		prof_add(p, "%s%s", sep, prof_unix_perms[i]);
		sep = ", ";
	}
	prof_add(p, ")%s,\n", abi == AA_ABI_NEW ? "" : " unix");
}

void prof_lacking(struct prof *p, const char *dir, enum aa_abi abi,
		  const char *perm)
{
	if (abi == AA_ABI_NEW)
		prof_all_perms_but(p, dir, abi, perm);
	else if (perm)
		prof_rules(p, dir, "  network unix,\n  deny network (%s) unix,\n",
			   perm);
	else
		prof_rules(p, dir, "  network unix,\n");
}

const char *prof_allow_unix(enum aa_abi abi)
{
	return abi == AA_ABI_NEW ? "unix," : "network unix,";
}
