// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor selftest helpers: system probes, running the parser, labels.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBAPPARMOR
#include <sys/apparmor.h>
#endif

#include "common.h"
#include "kselftest.h"

static int read_file(const char *path, char *buf, size_t len)
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
	return 0;
}

int aa_read_line(const char *path, char *buf, size_t len)
{
	int ret = read_file(path, buf, len);

	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

int aa_task_label(char *buf, size_t len)
{
	/* The LSM-specific file first: with stacking "current" may be another's. */
	if (!aa_read_line("/proc/self/attr/apparmor/current", buf, len))
		return 0;
	return aa_read_line("/proc/self/attr/current", buf, len);
}

int aa_run_capture(char *const argv[], char *out, size_t outlen)
{
	size_t used = 0;
	int pipefd[2];
	int status;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int ret = -errno;

		close(pipefd[0]);
		close(pipefd[1]);
		return ret;
	}
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(pipefd[1], 1) < 0 ||
		    dup2(pipefd[1], 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], out + used, outlen - used - 1)) > 0) {
		used += n;
		if (used == outlen - 1)
			break;
	}
	out[used] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -ECHILD;
}

static bool parser_in(const char *dir, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/apparmor_parser", dir);

	return n > 0 && (size_t)n < len && !access(path, X_OK);
}

static bool find_parser(char *path, size_t len)
{
	static const char *const dirs[] = { "/sbin", "/usr/sbin", NULL };
	const char *env = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;
	size_t i;

	copy = strdup(env ? env : "");
	for (dir = strtok_r(copy, ":", &save); copy && dir && !found;
	     dir = strtok_r(NULL, ":", &save))
		found = parser_in(dir, path, len);
	free(copy);
	for (i = 0; dirs[i] && !found; i++)
		found = parser_in(dirs[i], path, len);
	if (!found)
		path[0] = '\0';
	return found;
}

/* Compiles @policy without loading it: can this parser express it? */
static int parser_probe(const char *parser, const char *policy, bool strict,
			char *out, size_t outlen)
{
	static const char *const werror[] = {
		"--warn=rule-downgraded", "--Werror=rule-downgraded",
		"--warn=rule-not-enforced", "--Werror=rule-not-enforced",
	};
	char file[] = "/tmp/apparmor_selftest_probe.XXXXXX";
	const char *argv[8] = { parser, "-QK", file };

	size_t len = strlen(policy);
	int fd, ret, i;

	fd = mkstemp(file);
	if (fd < 0)
		return -errno;
	ret = write(fd, policy, len) == (ssize_t)len ? 0 : -EIO;
	if (close(fd))
		ret = -EIO;
	/* Downgrading to coarse rules is what the OLD ABI is about. */
	for (i = 0; strict && i < 4; i++)
		argv[3 + i] = werror[i];
	if (!ret)
		ret = aa_run_capture((char *const *)argv, out, outlen);
	else
		snprintf(out, outlen, "writing %s: %s", file, strerror(-ret));
	unlink(file);
	return ret;
}

static void first_line(char *s)
{
	s[strcspn(s, "\n")] = '\0';
}

static void set_skip(struct aa_env *env, int abi, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < AA_ABI_COUNT; i++) {
		if ((abi >= 0 && i != abi) || env->skip[i][0])
			continue;
		va_start(ap, fmt);
		vsnprintf(env->skip[i], sizeof(env->skip[i]), fmt, ap);
		va_end(ap);
	}
}

void aa_env_probe(struct aa_env *env)
{
	char buf[4096];

	memset(env, 0, sizeof(*env));
	if (!read_file("/sys/kernel/security/lsm", buf, sizeof(buf)) &&
	    strstr(buf, "apparmor") &&
	    !read_file("/sys/module/apparmor/parameters/enabled", buf,
		       sizeof(buf)) && buf[0] == 'Y')
		env->enabled = true;
	if (!read_file(AA_SECURITYFS "/features/network_v9/af_unix", buf,
		       sizeof(buf)) && !strncmp(buf, "yes", 3))
		env->have_v9_unix = true;

	if (!env->enabled) {
		set_skip(env, -1,
			"AppArmor is not the active LSM (/sys/kernel/security/lsm, apparmor.enabled)");
		return;
	}
	if (geteuid()) {
		set_skip(env, -1, "loading AppArmor policy needs root");
		return;
	}
	if (!find_parser(env->parser, sizeof(env->parser))) {
		set_skip(env, -1, "apparmor_parser not found in PATH, /sbin or /usr/sbin");
		return;
	}
	if (parser_probe(env->parser,
			 "abi <abi/4.0>,\nprofile probe { network unix, }\n",
			 false, buf, sizeof(buf))) {
		first_line(buf);
		set_skip(env, -1, "apparmor_parser cannot compile abi/4.0 policy: %s",
			 buf);
		return;
	}
	if (!env->have_v9_unix) {
		set_skip(env, AA_ABI_NEW, "kernel lacks " AA_SECURITYFS
			 "/features/network_v9/af_unix (fine-grained unix mediation, 6.17+)");
		return;
	}
	if (parser_probe(env->parser,
			 "abi <abi/5.0>,\nprofile probe { unix bind addr=@probe, }\n",
			 true, buf, sizeof(buf))) {
		first_line(buf);
		set_skip(env, AA_ABI_NEW,
			 "apparmor_parser cannot encode abi/5.0 unix rules without downgrade (needs AppArmor >= 5.0): %s",
			 buf);
	}
}

/* Whether @pid exits within @ms; it is not reaped. */
static bool exits_in_time(pid_t pid, int ms)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	siginfo_t info;
	int i;

	if (pidfd >= 0) {
		i = poll(&pfd, 1, ms);
		close(pidfd);
		return i == 1;
	}
	/* Before 5.3, or under valgrind: look every millisecond. */
	for (i = 0; i < ms; i++) {
		info.si_pid = 0;
		if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) ||
		    info.si_pid == pid)
			return true;
		usleep(1000);
	}
	return false;
}

int aa_link_program(const char *self, const char *path)
{
	struct stat st;
	int in, out;
	off_t left = -1;
	ssize_t n = 1;

	if (!link(self, path) || errno == EEXIST)
		return 0;
	in = open(self, O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in >= 0 && out >= 0 && !fstat(in, &st))
		left = st.st_size;
	/* sendfile() may copy less than asked, from 9p or overlayfs. */
	while (left > 0 && n > 0) {
		n = sendfile(out, in, NULL, left);
		left -= n > 0 ? n : 0;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	/* A partial copy would be found and run by the next caller. */
	if (left && out >= 0)
		unlink(path);
	return left ? -1 : 0;
}

const char *aa_self_exe(void)
{
	static char self[PATH_MAX];
	ssize_t n;

	if (self[0])
		return self;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		ksft_exit_fail_msg("/proc/self/exe: %s\n", strerror(errno));
	self[n] = '\0';
	return self;
}

long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int aa_reap(pid_t pid, int ms)
{
	bool hung = !exits_in_time(pid, ms);
	int status;

	if (hung)
		kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -ECHILD;
	return hung ? -ETIMEDOUT : status;
}

#ifdef HAVE_LIBAPPARMOR
int aa_confine(const char *profile)
{
	return aa_change_profile(profile) ? -errno : 0;
}

int aa_stack(const char *profile)
{
	return aa_stack_profile(profile) ? -errno : 0;
}

int aa_confine_onexec(const char *profile)
{
	return aa_change_onexec(profile) ? -errno : 0;
}

int aa_stack_exec(const char *profile)
{
	return aa_stack_onexec(profile) ? -errno : 0;
}

/* A NULL @profile stands for "unconfined", which has no mode. */
static int label_is(char *label, const char *mode, const char *profile,
		    bool complain)
{
	int ret;

	if (profile)
		ret = strcmp(label, profile) || !mode ||
		      strcmp(mode, complain ? "complain" : "enforce");
	else
		ret = strcmp(label, "unconfined") != 0;

	free(label);
	return ret ? -EPERM : 0;
}

int aa_check_label(const char *profile, bool complain)
{
	char *label, *mode;

	if (aa_getcon(&label, &mode) < 0)
		return -errno;
	return label_is(label, mode, profile, complain);
}

/*
 * libapparmor before 4.0 expects SO_PEERSEC to end in a NUL, which newer
 * kernels do not send ("name (enforce)"): aa_getpeercon() then fails with
 * EINVAL.  Read the option directly and let aa_splitcon() parse it.
 */
static int peer_label_raw(int fd, const char *profile, bool complain)
{
	char buf[512], *mode = NULL, *label;
	socklen_t len = sizeof(buf) - 1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERSEC, buf, &len))
		return -errno;
	buf[len] = '\0';
	label = aa_splitcon(buf, &mode);
	if (!label)
		return -EINVAL;
	return label_is(strdup(label), mode, profile, complain);
}

int aa_check_peer_label(int fd, const char *profile, bool complain)
{
	char *label, *mode;

	if (aa_getpeercon(fd, &label, &mode) < 0)
		return errno == EINVAL ? peer_label_raw(fd, profile, complain) :
					 -errno;
	return label_is(label, mode, profile, complain);
}

#else
int aa_confine(const char *profile)
{
	(void)profile;
	return -EOPNOTSUPP;
}

int aa_stack(const char *profile)
{
	(void)profile;
	return -EOPNOTSUPP;
}

int aa_confine_onexec(const char *profile)
{
	(void)profile;
	return -EOPNOTSUPP;
}

int aa_stack_exec(const char *profile)
{
	(void)profile;
	return -EOPNOTSUPP;
}

int aa_check_label(const char *profile, bool complain)
{
	(void)profile;
	(void)complain;
	return -EOPNOTSUPP;
}

int aa_check_peer_label(int fd, const char *profile, bool complain)
{
	(void)fd;
	(void)profile;
	(void)complain;
	return -EOPNOTSUPP;
}
#endif
