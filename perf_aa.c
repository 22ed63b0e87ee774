// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor helpers for af_unix_send_perf.  See perf_aa.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf_aa.h"
#include "perf_stats.h"

/* First line of a file without its newline; -errno on failure. */
int perf_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

bool perf_aa_enabled(void)
{
	char buf[512];

	if (!perf_read_line("/sys/kernel/security/lsm", buf, sizeof(buf)))
		return strstr(buf, "apparmor");
	return !perf_read_line("/sys/module/apparmor/parameters/enabled",
			       buf, sizeof(buf)) && buf[0] == 'Y';
}

/* The task's AppArmor label; -errno when AppArmor does not answer. */
int perf_aa_label(char *buf, size_t len)
{
	int ret;

	ret = perf_read_line("/proc/self/attr/apparmor/current", buf, len);
	if (ret)
		ret = perf_read_line("/proc/self/attr/current", buf, len);
	return ret;
}

bool perf_aa_feature_yes(const char *rel)
{
	char path[256], buf[16];

	snprintf(path, sizeof(path), PERF_AA_FS "/features/%s", rel);
	return !perf_read_line(path, buf, sizeof(buf)) && !strcmp(buf, "yes");
}

int perf_find_prog(const char *name, char *out, size_t len)
{
	const char *env = getenv("PATH");
	char path[4096], *dir, *save;

	snprintf(path, sizeof(path), "%s:/sbin:/usr/sbin",
		 env ? env : "/usr/bin:/bin");
	for (dir = strtok_r(path, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (snprintf(out, len, "%s/%s", dir, name) >= (int)len)
			continue;
		if (!access(out, X_OK))
			return 0;
	}
	return -ENOENT;
}

/*
 * Loads profile text through "apparmor_parser -a -K": the kernel only takes
 * compiled policy, and the parser is the only compiler.  The parser's own
 * messages go to stderr, where the user can read them.
 */
int perf_aa_load(const char *parser, const char *text, char *err,
		 size_t errlen)
{
	char file[] = "/tmp/aa_send_perf_profileXXXXXX";
	size_t len = strlen(text);
	int fd, status;
	pid_t pid;

	fd = mkstemp(file);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
		snprintf(err, errlen, "temporary profile: %s", strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(file);
		}
		return -EIO;
	}
	close(fd);
	pid = fork();
	if (pid == 0) {
		execl(parser, parser, "-a", "-K", "-q", file, (char *)NULL);
		_exit(127);
	}
	status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	unlink(file);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "%s -a failed (status %#x)", parser,
			 (unsigned int)status);
		return -EINVAL;
	}
	return 0;
}

int perf_aa_remove(const char *name)
{
	size_t len = strlen(name);
	ssize_t n;
	int fd;

	fd = open(PERF_AA_FS "/.remove", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, name, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/* What aa_change_profile() writes, without needing libapparmor. */
int perf_aa_change_profile(const char *name)
{
	static const char * const paths[] = {
		"/proc/thread-self/attr/apparmor/current",
		"/proc/thread-self/attr/current",
	};
	char cmd[256];
	size_t i;
	int fd, len, ret = -ENOENT;

	len = snprintf(cmd, sizeof(cmd), "changeprofile %s", name);
	if (len >= (int)sizeof(cmd))
		return -ENAMETOOLONG;
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		fd = open(paths[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		ret = write(fd, cmd, len) == len ? 0 : -errno;
		close(fd);
		if (!ret)
			break;
	}
	return ret;
}
