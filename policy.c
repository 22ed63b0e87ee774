// SPDX-License-Identifier: GPL-2.0
/*
 * A run's AppArmor profiles: names, files, loading, removal, and the
 * removal of what dead runs left behind.  See policy.h.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"

#define RUN_PARENT "/tmp"
#define OWNER_FILE "owner"
#define MAX_PROFILES 1024

struct profile {
	enum aa_abi abi;
	bool loaded;	/* by this process */
	bool complain;
	char *given;	/* the caller's name, NULL when numbered */
	char *name;	/* <prefix>.<run id>.<given or pN> */
	char *rules;
	char *attach;	/* the executable it attaches to, or NULL */
};

struct aa_policy {
	char dir[PATH_MAX];
	const char *id;		/* the mkdtemp() suffix of @dir */
	pid_t creator;
	int dirfd;
	int owner;		/* the locked owner file */
	int count;
	struct profile prof[MAX_PROFILES];
};

static const char *const abi_rule[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = "abi <abi/4.0>,",
	[AA_ABI_NEW] = "abi <abi/5.0>,",
	[AA_ABI_3] = "abi <abi/3.0>,",
	[AA_ABI_NONE] = "",
};

/*
 * The owner file is created under a temporary name, locked, then renamed:
 * a cleaner never sees it unlocked while its run is alive.
 */
static int make_owner(struct aa_policy *pol)
{
	int fd;

	fd = openat(pol->dirfd, ".owner", O_RDWR | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) ||
	    renameat(pol->dirfd, ".owner", pol->dirfd, OWNER_FILE)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	pol->owner = fd;
	return 0;
}

struct aa_policy *aa_policy_new(const char *prefix, char *err, size_t errlen)
{
	struct aa_policy *pol = calloc(1, sizeof(*pol));
	int n, ret;

	if (!pol) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pol->dirfd = -1;
	pol->owner = -1;
	pol->creator = getpid();
	n = snprintf(pol->dir, sizeof(pol->dir), "%s/%s.XXXXXX", RUN_PARENT,
		     prefix);
	if (n < 0 || (size_t)n >= sizeof(pol->dir)) {
		snprintf(err, errlen, "prefix too long: %s", prefix);
		free(pol);
		return NULL;
	}
	if (!mkdtemp(pol->dir)) {
		snprintf(err, errlen, "mkdtemp %s: %s", pol->dir, strerror(errno));
		free(pol);
		return NULL;
	}
	pol->id = strrchr(pol->dir, '.') + 1;
	pol->dirfd = open(pol->dir, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = pol->dirfd < 0 ? -errno : make_owner(pol);
	if (ret) {
		snprintf(err, errlen, "%s/%s: %s", pol->dir, OWNER_FILE,
			 strerror(-ret));
		aa_policy_free(pol);
		return NULL;
	}
	return pol;
}

const char *aa_policy_dir(const struct aa_policy *pol)
{
	return pol->dir;
}

int aa_policy_count(const struct aa_policy *pol)
{
	return pol->count;
}

int aa_policy_name(const struct aa_policy *pol, const char *name, char *buf,
		   size_t len)
{
	const char *base = strrchr(pol->dir, '/') + 1;
	int n;

	/* base is "<prefix>.<id>". */
	n = snprintf(buf, len, "%s.%s", base, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static struct profile *lookup(const struct aa_policy *pol, enum aa_abi abi,
			      const char *name, const char *rules)
{
	int i;

	for (i = 0; i < pol->count; i++) {
		const struct profile *p = &pol->prof[i];

		if (p->abi == abi && same(p->given, name) &&
		    !strcmp(p->rules, rules))
			return (struct profile *)p;
	}
	return NULL;
}

const char *aa_policy_find(const struct aa_policy *pol, enum aa_abi abi,
			   const char *name, const char *rules)
{
	const struct profile *p = lookup(pol, abi, name, rules);

	return p ? p->name : NULL;
}

const char *aa_policy_add(struct aa_policy *pol, enum aa_abi abi,
			  const char *name, const char *rules)
{
	struct profile *p = lookup(pol, abi, name, rules);
	char number[16];

	if (p)
		return p->name;
	if (pol->count == MAX_PROFILES)
		return NULL;
	p = &pol->prof[pol->count];
	snprintf(number, sizeof(number), "p%d", pol->count);
	p->abi = abi;
	p->rules = strdup(rules);
	p->given = name ? strdup(name) : NULL;
	if (asprintf(&p->name, "%s.%s", strrchr(pol->dir, '/') + 1,
		     name ? name : number) < 0)
		p->name = NULL;
	if (!p->rules || !p->name || (name && !p->given)) {
		free(p->rules);
		free(p->given);
		free(p->name);
		memset(p, 0, sizeof(*p));
		return NULL;
	}
	pol->count++;
	return p->name;
}

/* The names, one per line, before anything is loaded under them. */
static int write_owner(struct aa_policy *pol)
{
	char *text = NULL;
	size_t len = 0;
	ssize_t n;
	FILE *f;
	int i;

	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	for (i = 0; i < pol->count; i++)
		fprintf(f, "%s\n", pol->prof[i].name);
	if (fclose(f))
		return -ENOMEM;
	n = ftruncate(pol->owner, 0) ? -1 : pwrite(pol->owner, text, len, 0);
	free(text);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* Writes @text to @file in the run directory, replacing it. */
static int write_text(struct aa_policy *pol, const char *file,
		      const char *text, size_t len)
{
	ssize_t n;
	int fd;

	unlinkat(pol->dirfd, file, 0);
	fd = openat(pol->dirfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	n = fd < 0 ? -1 : write(fd, text, len);
	if (n < 0)
		n = -errno;
	if (fd >= 0 && close(fd) && n >= 0)
		n = -errno;
	if (n < 0)
		return n;
	return (size_t)n == len ? 0 : -EIO;
}

/* Whether @file in the run directory holds @text already. */
static bool holds_text(struct aa_policy *pol, const char *file,
		       const char *text, size_t len)
{
	char *old = malloc(len + 1);
	bool same = false;
	ssize_t n;
	int fd;

	fd = openat(pol->dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (old && fd >= 0) {
		n = read(fd, old, len + 1);
		same = n == (ssize_t)len && !memcmp(old, text, len);
	}
	if (fd >= 0)
		close(fd);
	free(old);
	return same;
}

/*
 * The policy file of one ABI: the profiles not loaded yet, or only the
 * one named @only with @rules.  With @same, a file that holds that text
 * already is left as it is, and *@same says so.
 */
static int write_policy(struct aa_policy *pol, enum aa_abi abi,
			const char *file, const char *only, const char *rules,
			bool *same)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int i, ret;

	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	fprintf(f, "%s\n", abi_rule[abi]);
	for (i = 0; i < pol->count && !only; i++) {
		const struct profile *p = &pol->prof[i];

		if (p->abi == abi && !p->loaded)
			fprintf(f, "profile %s%s%s%s {\n%s}\n", p->name,
				p->attach ? " " : "", p->attach ?: "",
				p->complain ? " flags=(complain)" : "", p->rules);
	}
	if (only)
		fprintf(f, "profile %s {\n%s}\n", only, rules);
	if (fclose(f))
		return -ENOMEM;
	if (same)
		*same = holds_text(pol, file, text, len);
	ret = same && *same ? 0 : write_text(pol, file, text, len);
	free(text);
	return ret;
}

/* Whether @abi has a profile to load: the parser gets no empty file. */
static bool has_profiles(const struct aa_policy *pol, enum aa_abi abi)
{
	int i;

	for (i = 0; i < pol->count; i++)
		if (pol->prof[i].abi == abi && !pol->prof[i].loaded)
			return true;
	return false;
}

int aa_policy_load(struct aa_policy *pol, const char *parser,
		   const bool abis[AA_ABI_COUNT], char *err, size_t errlen)
{
	static const char *const files[AA_ABI_COUNT] = {
		[AA_ABI_OLD] = "policy-old", [AA_ABI_NEW] = "policy-new",
		[AA_ABI_3] = "policy-abi3", [AA_ABI_NONE] = "policy-no-abi",
	};
	char paths[AA_ABI_COUNT][PATH_MAX + 16];
	/* -a, not -r: a profile of that name already loaded is an error. */
	char *argv[4 + AA_ABI_COUNT] = { (char *)parser, "-a", "-K" };
	int argc = 3, abi, i, ret;

	ret = write_owner(pol);
	if (ret) {
		snprintf(err, errlen, "%s/%s: %s", pol->dir, OWNER_FILE,
			 strerror(-ret));
		return ret;
	}
	for (abi = 0; abi < AA_ABI_COUNT; abi++) {
		if (!abis[abi] || !has_profiles(pol, abi))
			continue;
		ret = write_policy(pol, abi, files[abi], NULL, NULL, NULL);
		if (ret) {
			snprintf(err, errlen, "%s/%s: %s", pol->dir,
				 files[abi], strerror(-ret));
			return ret;
		}
		snprintf(paths[abi], sizeof(paths[abi]), "%s/%s", pol->dir,
			 files[abi]);
		argv[argc++] = paths[abi];
	}
	argv[argc] = NULL;
	/* Without a file the parser would read its standard input. */
	ret = argc > 3 ? aa_run_capture(argv, err, errlen) : 0;
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	for (i = 0; i < pol->count; i++)
		if (abis[pol->prof[i].abi])
			pol->prof[i].loaded = true;
	return 0;
}

static struct profile *by_name(struct aa_policy *pol, const char *name)
{
	int i;

	for (i = 0; i < pol->count; i++)
		if (!strcmp(pol->prof[i].name, name))
			return &pol->prof[i];
	return NULL;
}

int aa_policy_complain(struct aa_policy *pol, const char *name)
{
	struct profile *p = by_name(pol, name);

	if (!p)
		return -ENOENT;
	if (p->loaded)
		return -EBUSY;
	p->complain = true;
	return 0;
}

int aa_policy_attach(struct aa_policy *pol, const char *name,
		     const char *path)
{
	struct profile *p = by_name(pol, name);

	if (!p)
		return -ENOENT;
	if (p->loaded)
		return -EBUSY;
	free(p->attach);
	p->attach = strdup(path);
	return p->attach ? 0 : -ENOMEM;
}

int aa_policy_compile(struct aa_policy *pol, const char *parser,
		      enum aa_abi abi, const char *name, const char *rules,
		      const char *file, char *err, size_t errlen)
{
	char src[PATH_MAX + 8], out[PATH_MAX + 8];
	char *argv[7] = { (char *)parser, "-Q", "-K", "-o", out, src, NULL };
	bool same;
	int ret;

	/* Only what aa_policy_free() removes may be loaded. */
	if (!by_name(pol, name)) {
		snprintf(err, errlen, "%s: not a registered profile", name);
		return -ENOENT;
	}
	snprintf(src, sizeof(src), "%s/%s.src", pol->dir, file);
	snprintf(out, sizeof(out), "%s/%s.tmp", pol->dir, file);
	ret = write_policy(pol, abi, strrchr(src, '/') + 1, name, rules,
			   &same);
	if (ret) {
		snprintf(err, errlen, "%s: %s", src, strerror(-ret));
		return ret;
	}
	/*
	 * Tests of one run compile the same profiles (each ABI's replaced
	 * ones, once for each way of using them): a compile costs tens of
	 * milliseconds under TCG, so a binary of the same source is reused.
	 * It is renamed into place only once the parser is done with it.
	 */
	if (same && !faccessat(pol->dirfd, file, F_OK, 0))
		return 0;
	unlinkat(pol->dirfd, file, 0);
	ret = aa_run_capture(argv, err, errlen);
	if (!ret && renameat(pol->dirfd, strrchr(out, '/') + 1, pol->dirfd,
			     file))
		ret = -errno;
	return ret < 0 ? ret : ret ? -EINVAL : 0;
}

/* Writes @len bytes of @buf to the securityfs file @name in one write. */
static int write_all(const char *name, const void *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), AA_SECURITYFS "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * The kernel takes a policy blob in one write.  7.3.4 answers a
	 * 714-byte write with 4393: more than asked is taken as all.
	 */
	n = write(fd, buf, len);
	n = n < 0 ? -errno : (size_t)n >= len ? 0 : -EIO;
	close(fd);
	return n;
}

int aa_policy_replace(struct aa_policy *pol, const char *file)
{
	struct stat st;
	ssize_t len;
	char *blob;
	int fd, ret;

	fd = openat(pol->dirfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	blob = malloc(st.st_size ?: 1);
	if (!blob) {
		close(fd);
		return -ENOMEM;
	}
	len = read(fd, blob, st.st_size);
	ret = len < 0 ? -errno : len != st.st_size ? -EIO : 0;
	close(fd);
	if (!ret)
		ret = write_all(".replace", blob, len);
	free(blob);
	return ret;
}

int aa_policy_remove(struct aa_policy *pol, const char *name)
{
	struct profile *p = by_name(pol, name);

	if (!p)
		return -ENOENT;
	p->loaded = false;
	return write_all(".remove", name, strlen(name));
}

static void remove_profile(const char *name)
{
	int fd = open(AA_SECURITYFS "/.remove", O_WRONLY | O_CLOEXEC);

	/* Not an error if it was never loaded or is already gone. */
	if (fd < 0)
		return;
	if (write(fd, name, strlen(name)) < 0 && errno != ENOENT)
		fprintf(stderr, "# removing profile %s: %s\n", name,
			strerror(errno));
	close(fd);
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

void aa_policy_free(struct aa_policy *pol)
{
	int i;

	if (!pol)
		return;
	/*
	 * Forked tests hold a copy: only the creator removes anything, and
	 * every name, as the load may have happened in one of them.
	 */
	if (getpid() == pol->creator) {
		for (i = 0; i < pol->count; i++)
			remove_profile(pol->prof[i].name);
		/* The directory is private (mkdtemp, 0700): all of it is ours. */
		nftw(pol->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	}
	for (i = 0; i < pol->count; i++) {
		free(pol->prof[i].given);
		free(pol->prof[i].name);
		free(pol->prof[i].rules);
		free(pol->prof[i].attach);
	}
	if (pol->owner >= 0)
		close(pol->owner);
	if (pol->dirfd >= 0)
		close(pol->dirfd);
	free(pol);
}

/* Removes the profiles a dead run's owner file lists, and its directory. */
static void remove_dead_run(int owner, const char *dir, const char *base)
{
	char line[512];
	size_t len = strlen(base);
	FILE *f;
	int fd;

	fd = dup(owner);
	f = fd < 0 ? NULL : fdopen(fd, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* Only names of that run, whatever the file says. */
		if (!strncmp(line, base, len) && line[len] == '.')
			remove_profile(line);
	}
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

void aa_cleanup_stale(const char *prefix)
{
	size_t len = strlen(prefix);
	char dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int dfd, owner;
	DIR *d;

	d = opendir(RUN_PARENT);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, len) || de->d_name[len] != '.')
			continue;
		dfd = openat(dirfd(d), de->d_name,
			     O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0)
			continue;
		owner = -1;
		if (!fstat(dfd, &st) && st.st_uid == geteuid())
			owner = openat(dfd, OWNER_FILE,
				       O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		/* Locked: its run, or a process it forked, is alive. */
		if (owner >= 0 && !flock(owner, LOCK_EX | LOCK_NB) &&
		    snprintf(dir, sizeof(dir), "%s/%s", RUN_PARENT,
			     de->d_name) < (int)sizeof(dir))
			remove_dead_run(owner, dir, de->d_name);
		if (owner >= 0)
			close(owner);
		close(dfd);
	}
	if (d)
		closedir(d);
}
