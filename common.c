// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor selftest helpers: system probes and test-owned policy.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_LIBAPPARMOR
#include <sys/apparmor.h>
#endif

#include "common.h"


struct aa_profile {
	enum aa_abi abi;
	char name[AA_NAME_MAX];
	char *rules;
};

struct aa_policy {
	char dir[PATH_MAX];
	char prefix[AA_NAME_MAX / 2];
	pid_t owner;
	int count;
	struct aa_profile prof[AA_MAX_PROFILES];
};

static const char *const abi_rule[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = "abi <abi/4.0>,",
	[AA_ABI_NEW] = "abi <abi/5.0>,",
};

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

static int write_file(const char *path, const char *data)
{
	size_t len = strlen(data);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (close(fd) || n != (ssize_t)len)
		return n < 0 ? -errno : -EIO;
	return 0;
}

/*
 * Runs @argv with stdout and stderr captured into @out.  Returns the exit
 * status, or -1 when the program could not be run.
 */
static int run_capture(char *const argv[], char *out, size_t outlen)
{
	size_t used = 0;
	int pipefd[2];
	int status;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
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
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool find_parser(char *path, size_t len)
{
	static const char *const dirs[] = { "/sbin", "/usr/sbin", NULL };
	const char *env = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;
	size_t i;

	copy = strdup(env ? env : "");
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(path, len, "%s/apparmor_parser", dir);
		found = !access(path, X_OK);
	}
	free(copy);
	for (i = 0; dirs[i] && !found; i++) {
		snprintf(path, len, "%s/apparmor_parser", dirs[i]);
		found = !access(path, X_OK);
	}
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
	int fd, ret, i;

	fd = mkstemp(file);
	if (fd < 0)
		return -1;
	close(fd);
	/* Downgrading to coarse rules is what the OLD ABI is about. */
	for (i = 0; strict && i < 4; i++)
		argv[3 + i] = werror[i];
	ret = write_file(file, policy) ? -1 :
	      run_capture((char *const *)argv, out, outlen);
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
		set_skip(env, -1, "AppArmor is not the active LSM (/sys/kernel/security/lsm, apparmor.enabled)");
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

struct aa_policy *aa_policy_new(const char *dir, const char *prefix)
{
	struct aa_policy *pol = calloc(1, sizeof(*pol));

	if (!pol)
		return NULL;
	snprintf(pol->dir, sizeof(pol->dir), "%s", dir);
	snprintf(pol->prefix, sizeof(pol->prefix), "%s", prefix);
	pol->owner = getpid();
	return pol;
}

void aa_policy_free(struct aa_policy *pol)
{
	int i;

	if (!pol)
		return;
	for (i = 0; i < pol->count; i++)
		free(pol->prof[i].rules);
	free(pol);
}

const char *aa_policy_add(struct aa_policy *pol, enum aa_abi abi,
			  const char *name, const char *rules)
{
	struct aa_profile *p;

	if (pol->count == AA_MAX_PROFILES)
		return NULL;
	p = &pol->prof[pol->count];
	p->rules = strdup(rules);
	if (!p->rules)
		return NULL;
	snprintf(p->name, sizeof(p->name), "%s.%d.%s", pol->prefix,
		 pol->owner, name);
	p->abi = abi;
	pol->count++;
	return p->name;
}

static int write_policy_file(struct aa_policy *pol, enum aa_abi abi,
			     const char *path)
{
	size_t len = strlen(abi_rule[abi]) + 2;
	char *text, *pos;
	int i, ret;

	for (i = 0; i < pol->count; i++)
		len += strlen(pol->prof[i].name) + strlen(pol->prof[i].rules) + 32;
	text = malloc(len);
	if (!text)
		return -ENOMEM;
	pos = text + sprintf(text, "%s\n", abi_rule[abi]);
	for (i = 0; i < pol->count; i++) {
		if (pol->prof[i].abi != abi)
			continue;
		pos += sprintf(pos, "profile %s {\n%s}\n", pol->prof[i].name,
			       pol->prof[i].rules);
	}
	ret = write_file(path, text);
	free(text);
	return ret;
}

int aa_policy_load(struct aa_policy *pol, const char *parser,
		   const bool abis[AA_ABI_COUNT], char *err, size_t errlen)
{
	char files[AA_ABI_COUNT][PATH_MAX + 16];
	char *argv[4 + AA_ABI_COUNT] = { (char *)parser, "-r", "-K" };
	int argc = 3, abi, ret;

	for (abi = 0; abi < AA_ABI_COUNT; abi++) {
		if (!abis[abi])
			continue;
		snprintf(files[abi], sizeof(files[abi]), "%s/policy-%d",
			 pol->dir, abi);
		ret = write_policy_file(pol, abi, files[abi]);
		if (ret) {
			snprintf(err, errlen, "writing %s: %s", files[abi],
				 strerror(-ret));
			return ret;
		}
		argv[argc++] = files[abi];
	}
	argv[argc] = NULL;
	ret = run_capture(argv, err, errlen);
	if (ret)
		return -EINVAL;
	return 0;
}

static void remove_profile(const char *name)
{
	/* Not an error if it is already gone. */
	write_file(AA_SECURITYFS "/.remove", name);
}

void aa_policy_unload(struct aa_policy *pol)
{
	char path[PATH_MAX + 16];
	int i;

	/*
	 * The load may have happened in another process (a test): remove
	 * every name, those never loaded just fail.
	 */
	for (i = 0; i < pol->count; i++)
		remove_profile(pol->prof[i].name);
	for (i = 0; i < AA_ABI_COUNT; i++) {
		snprintf(path, sizeof(path), "%s/policy-%d", pol->dir, i);
		unlink(path);
	}
}

/* Returns the pid embedded in a name "<prefix>.<pid>...", or 0. */
static pid_t owner_of(const char *name, const char *prefix)
{
	size_t len = strlen(prefix);
	char *end;
	long pid;

	if (strncmp(name, prefix, len) || name[len] != '.')
		return 0;
	pid = strtol(name + len + 1, &end, 10);
	if (end == name + len + 1 || (*end != '.' && *end != '\0') || pid <= 0)
		return 0;
	return pid;
}

static bool owner_gone(const char *name, const char *prefix)
{
	pid_t pid = owner_of(name, prefix);

	return pid > 0 && pid != getpid() && kill(pid, 0) && errno == ESRCH;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void aa_cleanup_stale(const char *tmpdir, const char *prefix)
{
	char line[512], path[PATH_MAX];
	struct dirent *de;
	FILE *f;
	DIR *d;

	f = fopen(AA_SECURITYFS "/profiles", "re");
	while (f && fgets(line, sizeof(line), f)) {
		/* Lines read "name (mode)". */
		char *sp = strrchr(line, ' ');

		if (sp)
			*sp = '\0';
		if (owner_gone(line, prefix))
			remove_profile(line);
	}
	if (f)
		fclose(f);

	d = opendir(tmpdir);
	while (d && (de = readdir(d))) {
		if (!owner_gone(de->d_name, prefix))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, de->d_name);
		nftw(path, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	}
	if (d)
		closedir(d);
}

#ifdef HAVE_LIBAPPARMOR
int aa_confine(const char *profile)
{
	return aa_change_profile(profile) ? -errno : 0;
}

/* A NULL @profile stands for "unconfined", which has no mode. */
static int label_is(char *label, const char *mode, const char *profile)
{
	int ret;

	if (profile)
		ret = strcmp(label, profile) || !mode || strcmp(mode, "enforce");
	else
		ret = strcmp(label, "unconfined") != 0;

	free(label);
	return ret ? -EPERM : 0;
}

int aa_check_label(const char *profile)
{
	char *label, *mode;

	if (aa_getcon(&label, &mode) < 0)
		return -errno;
	return label_is(label, mode, profile);
}

/*
 * libapparmor before 4.0 expects SO_PEERSEC to end in a NUL, which newer
 * kernels do not send ("name (enforce)"): aa_getpeercon() then fails with
 * EINVAL.  Read the option directly and let aa_splitcon() parse it.
 */
static int peer_label_raw(int fd, const char *profile)
{
	char buf[AA_NAME_MAX * 2], *mode = NULL, *label;
	socklen_t len = sizeof(buf) - 1;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERSEC, buf, &len))
		return -errno;
	buf[len] = '\0';
	label = aa_splitcon(buf, &mode);
	if (!label)
		return -EINVAL;
	return label_is(strdup(label), mode, profile);
}

int aa_check_peer_label(int fd, const char *profile)
{
	char *label, *mode;

	if (aa_getpeercon(fd, &label, &mode) < 0)
		return errno == EINVAL ? peer_label_raw(fd, profile) : -errno;
	return label_is(label, mode, profile);
}

#else
int aa_confine(const char *profile)
{
	(void)profile;
	return -EOPNOTSUPP;
}

int aa_check_label(const char *profile)
{
	(void)profile;
	return -EOPNOTSUPP;
}

int aa_check_peer_label(int fd, const char *profile)
{
	(void)fd;
	(void)profile;
	return -EOPNOTSUPP;
}
#endif
