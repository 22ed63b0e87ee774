// SPDX-License-Identifier: GPL-2.0
/*
 * Audit records from the NETLINK_AUDIT read-only multicast group.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "audit_log.h"
#include "common.h"

/* A busy run must not overflow the queue between two reads. */
#define RCVBUF (4 << 20)
#define RECORD_MAX 8192

int audit_log_open(char *why, size_t len)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1 << (AUDIT_NLGRP_READLOG - 1),
	};
	int size = RCVBUF, fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0) {
		err = errno;
		snprintf(why, len, "no audit netlink socket (CONFIG_AUDIT?): %s",
			 strerror(err));
		return -err;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = errno;
		snprintf(why, len, "cannot join the audit log group (needs CAP_AUDIT_READ): %s",
			 strerror(err));
		close(fd);
		return -err;
	}
	return fd;
}

static bool holds_all(const char *text, const char *const needles[])
{
	for (; *needles; needles++)
		if (!strstr(text, *needles))
			return false;
	return true;
}

/*
 * The next record's text into @buf, within @ms of @t0: 0, -ETIMEDOUT, or
 * -errno.
 */
static int next_record(int fd, char *buf, const struct timespec *t0, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long left;
	ssize_t n;

	while ((left = ms - ms_since(t0)) > 0) {
		if (poll(&pfd, 1, left) < 0)
			return -errno;
		if (!pfd.revents)
			continue;
		n = recv(fd, buf, RECORD_MAX, MSG_DONTWAIT);
		/* Records were dropped: the one wanted may be among them. */
		if (n < 0 && errno == ENOBUFS)
			return -ENOBUFS;
		if (n < 0 && errno == EAGAIN)
			continue;
		if (n < 0)
			return -errno;
		/*
		 * One record per message; its nlmsg_len is not always its
		 * length (kauditd_send_multicast_skb()): use what arrived.
		 */
		if ((size_t)n <= NLMSG_HDRLEN)
			continue;
		buf[n] = '\0';
		memmove(buf, buf + NLMSG_HDRLEN, n - NLMSG_HDRLEN + 1);
		return 0;
	}
	return -ETIMEDOUT;
}

int audit_log_find(int fd, const char *const needles[], char *rec,
		   size_t len, int ms)
{
	char buf[RECORD_MAX + 1];
	struct timespec t0;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(ret = next_record(fd, buf, &t0, ms))) {
		if (holds_all(buf, needles)) {
			snprintf(rec, len, "%s", buf);
			return 0;
		}
	}
	return ret;
}

int audit_log_scan(int fd, const char *const stop[],
		   bool (*match)(const char *rec, void *arg), void *arg, int ms)
{
	char buf[RECORD_MAX + 1];
	struct timespec t0;
	int ret, n = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(ret = next_record(fd, buf, &t0, ms))) {
		if (holds_all(buf, stop))
			return n;
		n += match(buf, arg);
	}
	return ret;
}

/* audit_log_until()'s @want: the first record that holds it, copied. */
struct first {
	const char *const *want;
	char *rec;
	size_t len;
	int found;
};

static bool first_of(const char *rec, void *arg)
{
	struct first *f = arg;

	if (f->found || !holds_all(rec, f->want))
		return false;
	snprintf(f->rec, f->len, "%s", rec);
	f->found = 1;
	return true;
}

int audit_log_until(int fd, const char *const stop[],
		    const char *const want[], char *rec, size_t len, int ms)
{
	struct first f = { want, rec, len, 0 };
	int ret = audit_log_scan(fd, stop, first_of, &f, ms);

	return ret < 0 ? ret : f.found;
}

bool audit_field(const char *rec, const char *key, char *val, size_t len)
{
	size_t klen = strlen(key);
	const char *p = rec, *end;

	/* A key starts the record or follows a space. */
	while ((p = strstr(p, key))) {
		if ((p == rec || p[-1] == ' ') && p[klen] == '=')
			break;
		p += klen;
	}
	if (!p)
		return false;
	p += klen + 1;
	if (*p == '"')
		end = strchr(++p, '"');
	else
		end = p + strcspn(p, " ");
	if (!end)
		return false;
	snprintf(val, len, "%.*s", (int)(end - p), p);
	return true;
}
