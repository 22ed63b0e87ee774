// SPDX-License-Identifier: GPL-2.0
/*
 * What a unix socket carries: a regular file, a directory or a FIFO,
 * opened under profile A (which allows it every access), reaches a task
 * under profile U, which then operates on it once.  The routes: SCM_RIGHTS
 * over each socket type; kept open across an exec into U, by A's exec rule
 * or by change_onexec; fork() and change_profile; U stacked onto A.  A
 * either only opened it, or did the same operation first.
 *
 * The rows hold the kernel to SEMANTICS: [carry], U's profile decides
 * what the task under U may do with a file however the descriptor came to
 * it, and one U may not have as it was opened is dropped at receipt or
 * revoked at an exec (what keeps it across fork() and change_profile is
 * refused at its first use); [label], a stack asks every profile of
 * A//&U, and A allows everything; [file], what each letter allows.  What
 * A did with the descriptor before does not matter: A is not the task
 * that operates.  So each row expects what U's profile says about the
 * object, and runs the control too: the same operation by a task under U
 * on a descriptor it opened itself.
 *
 * Files are revalidated by aa_file_perm(), which skips the check when the
 * task's label is a subset of the label cached on the file and the request
 * is within the permissions cached with it.  The rows lacking a permission
 * beyond the open mode (k, m, w for a lock) are where a cache carried over
 * from A would show: 7.2 and 7.3 merge U into the cached label at the
 * first revalidation (receipt, the exec, U's first operation) and then ask
 * only A's profile for what the cache lacks, so U's own rules are never
 * asked again.
 *
 * One ABI: file rules are the same in both, and abi/4.0 runs on kernels
 * without network_v9/af_unix (6.12) too.
 */

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "audit_log.h"
#include "unix_carried.h"
#include "unix_handoff.h"
#include "unix_test.h"

/* Where each object lives in the run directory, and its profiles' tag. */
static const char *const carried_rel[COBJ_COUNT] = {
	[COBJ_FILE] = "carried/file",
	[COBJ_DIR] = "carried/dir/",
	[COBJ_FIFO] = "carried/fifo",
};

static const char *const carried_tag[COBJ_COUNT] = {
	[COBJ_FILE] = "file",
	[COBJ_DIR] = "dir",
	[COBJ_FIFO] = "fifo",
};

/* The permissions of apparmor.d(5) a row's U has or lacks, in its order. */
enum {
	P_R = 1 << 0,
	P_W = 1 << 1,
	P_A = 1 << 2,
	P_K = 1 << 3,
	P_M = 1 << 4,
};

struct carried_row {
	enum carried_op op;
	unsigned int perm;	/* what U's profile grants or lacks */
	const char *why;
};

/* Each row is [carry]: U's profile decides, the letter's by [file]. */
/* clang-format off */
static const struct carried_row carried_rows[] = {
	{ .op = COP_READ, .perm = P_R, .why = "[file] r: read" },
	{ .op = COP_WRITE, .perm = P_W, .why = "[file] w: write" },
	{ .op = COP_APPEND, .perm = P_W,
	  .why = "[file] a only opens for appending: the write() asks w" },
	{ .op = COP_FLOCK_SH, .perm = P_K, .why = "[file] k: lock" },
	{ .op = COP_FLOCK_EX, .perm = P_K, .why = "[file] k: lock (and w, which U has)" },
	{ .op = COP_SETLK_RD, .perm = P_K, .why = "[file] k: lock" },
	{ .op = COP_SETLK_WR, .perm = P_K, .why = "[file] k: lock (and w, which U has)" },
	{ .op = COP_MMAP_READ, .perm = P_R, .why = "[file] r: read, a mapping included" },
	{ .op = COP_MMAP_EXEC, .perm = P_M, .why = "[file] m: mmap with PROT_EXEC" },
	{ .op = COP_MPROTECT_EXEC, .perm = P_M, .why = "[file] m: PROT_EXEC, by mprotect() too" },
};

/* clang-format on */

/* What the descriptor for @op is opened with, as permissions. */
static unsigned int carried_open_perms(enum carried_object obj,
				       enum carried_op op)
{
	int flags = carried_open_flags(obj, op);

	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return P_R;
	case O_WRONLY:
		return flags & O_APPEND ? P_A : P_W;
	default:
		return P_R | P_W;
	}
}

/*
 * U's permissions on the object for row @r: what the open mode asks and
 * the w an exclusive or write lock asks besides, then @r's own as @grant
 * says.
 */
static unsigned int carried_user_perms(enum carried_object obj,
				       const struct carried_row *r, bool grant)
{
	unsigned int p = carried_open_perms(obj, r->op);

	if (r->op == COP_FLOCK_EX || r->op == COP_SETLK_WR)
		p |= P_W;
	p = grant ? p | r->perm : p & ~r->perm;
	/* w grants appending too; the parser refuses a rule with both. */
	return p & P_W ? p & ~P_A : p;
}

static const char *perms_str(unsigned int p, char *buf)
{
	static const char chars[] = "rwakm";
	size_t i, n = 0;

	for (i = 0; i < sizeof(chars) - 1; i++)
		if (p & (1U << i))
			buf[n++] = chars[i];
	buf[n] = '\0';
	return buf;
}

/* U's profile's short name for @perms on @obj, and its exec link's. */
static void carried_user_name(char *buf, size_t len, enum carried_object obj,
			      unsigned int perms)
{
	char p[8];

	snprintf(buf, len, "carried_u_%s_%s", carried_tag[obj],
		 perms ? perms_str(perms, p) : "none");
}

static void carried_link(char *buf, size_t len, enum carried_object obj,
			 unsigned int perms)
{
	char name[64];

	carried_user_name(name, sizeof(name), obj, perms);
	snprintf(buf, len, "%s/x_%s", aa_policy_dir(policy), name);
}

/*
 * Where U stops on @route when the row's permission is (not) granted:
 * [carry].
 */
static struct outcome carried_want(enum carried_route route,
				   enum carried_object obj,
				   const struct carried_row *r, bool grant)
{
	if (grant)
		return (struct outcome){ .step = STEP_DONE };
	if (!(carried_open_perms(obj, r->op) & r->perm))
		return (struct outcome){ .step = STEP_OP, .err = EACCES };
	switch (route) {
	case CROUTE_SELF:
		return (struct outcome){ .step = STEP_OPEN, .err = EACCES };
	case CROUTE_STREAM:
	case CROUTE_DGRAM:
	case CROUTE_SEQPACKET:
		return (struct outcome){ .step = STEP_RECV_FD,
					 .fault = FAULT_NOT_INSTALLED };
	case CROUTE_EXEC_RULE:
	case CROUTE_ONEXEC:
		return (struct outcome){ .step = STEP_EXEC,
					 .fault = FAULT_NOT_INSTALLED };
	default:
		return (struct outcome){ .step = STEP_OP, .err = EACCES };
	}
}

/* The route the test under way takes; the profiles are shared. */
static struct {
	enum carried_route route;
} carried_params;

/*
 * What every U starts with: unix rules for the SCM_RIGHTS channel, and
 * what an exec into U maps and reads (this program, its links, the
 * libraries), none of which covers the objects.
 */
static void carried_user_base(struct prof *u, enum aa_abi abi)
{
	char links[PATH_MAX];

	snprintf(links, sizeof(links), "%s/x_*", aa_policy_dir(policy));
	rules(u, "  %s\n", prof_allow_unix(abi));
	prof_exec_reads(u, aa_self_exe(), links);
}

/* U for @perms on @obj. */
static const char *carried_user(struct ctx *c, enum carried_object obj,
				unsigned int perms)
{
	char name[64], p[8];
	struct prof u = { .name = name };

	carried_user_name(name, sizeof(name), obj, perms);
	carried_user_base(&u, c->v->abi);
	if (perms)
		prof_add(&u, "  %s/%s %s,\n", aa_policy_dir(policy),
			 carried_rel[obj], perms_str(perms, p));
	return registered(c, &u);
}

/*
 * A: every access to @obj, a change to any profile, and an exec rule
 * into each U of @obj by that U's link.  NULL if one is not registered.
 */
static const char *carried_opener(struct ctx *c, enum carried_object obj)
{
	const char *dir = aa_policy_dir(policy), *u;
	char name[32], x[PATH_MAX];
	struct prof a = { .name = name };
	unsigned int seen = 0;	/* the Us with a rule, by their permissions */
	size_t i;
	int grant;

	snprintf(name, sizeof(name), "carried_a_%s", carried_tag[obj]);
	rules(&a, "  %s\n  /proc/*/attr/{apparmor/,}current w,\n"
	      "  change_profile,\n  /** rm,\n  %s ix,\n  %s/%s rwk,\n",
	      prof_allow_unix(c->v->abi), aa_self_exe(), dir,
	      carried_rel[obj]);
	for (i = 0; i < ARRAY_SIZE(carried_rows); i++) {
		if (!carried_op_applies(obj, carried_rows[i].op))
			continue;
		for (grant = 0; grant < 2; grant++) {
			unsigned int p = carried_user_perms(obj, &carried_rows[i],
							    grant);

			u = carried_user(c, obj, p);
			if (!u)
				return NULL;
			if (seen & (1U << p))
				continue;
			seen |= 1U << p;
			carried_link(x, sizeof(x), obj, p);
			prof_add(&a, "  %s px -> %s,\n", x, u);
		}
	}
	return registered(c, &a);
}

/* The objects, made by the unconfined test; 0 or -errno. */
static int carried_objects(void)
{
	static const char page[CARRIED_FILE_LEN];
	const char *dir = aa_policy_dir(policy);
	char path[PATH_MAX];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/carried", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/carried/dir", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/carried/fifo", dir);
	if (mkfifo(path, 0644) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/carried/file", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, page, sizeof(page)) != sizeof(page))
		ret = -EIO;
	close(fd);
	return ret;
}

/* How long the mark that ends a run's records may take to come. */
#define CARRIED_AUDIT_MS 5000

/* A run's refusal in the audit log: its first, and how many. */
struct carried_rec {
	char pid_kv[32];
	char rec[1024];
	int n;
};

/*
 * A refusal by the task of the operation (@arg's pid) itself: not the
 * route's (file_receive, file_inherit), which an exec also makes of the
 * descriptors it revokes.
 */
static bool carried_refusal(const char *rec, void *arg)
{
	static const char *const ops[] = {
		"file_perm", "file_lock", "file_mmap", "file_mprotect",
	};
	struct carried_rec *r = arg;
	char op[32];
	size_t i;

	if (!strstr(rec, "apparmor=\"DENIED\"") || !strstr(rec, r->pid_kv) ||
	    !audit_field(rec, "operation", op, sizeof(op)))
		return false;
	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (!strcmp(op, ops[i]))
			break;
	if (i == ARRAY_SIZE(ops))
		return false;
	if (!r->n++)
		snprintf(r->rec, sizeof(r->rec), "%s", rec);
	return true;
}

/* The mark's process: an open of the object U may not open, refused. */
static void carried_mark_main(void *arg)
{
	const struct carried *cr = arg;
	int fd;

	if (aa_confine(cr->user))
		return;
	fd = open(cr->path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
}

/*
 * What a refusal's record says, as a reviewer compares two: the
 * operation, the profile, the file and the masks (requested= and
 * denied= on 7.3, *_mask= on 7.2).  Empty when @rec is.
 */
static void carried_rec_str(const char *rec, char *buf, size_t len)
{
	static const char *const keys[][2] = {
		{ "operation", NULL }, { "profile", NULL }, { "name", NULL },
		{ "requested", "requested_mask" }, { "denied", "denied_mask" },
	};
	char val[256];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; rec[0] && i < ARRAY_SIZE(keys) && n < len; i++) {
		if (!audit_field(rec, keys[i][0], val, sizeof(val)) &&
		    (!keys[i][1] ||
		     !audit_field(rec, keys[i][1], val, sizeof(val))))
			val[0] = '\0';
		n += snprintf(buf + n, len - n, "%s%s=\"%s\"", n ? " " : "",
			      keys[i][0], val);
	}
}

/*
 * The record of @got's refusal at the operation, read up to a mark made
 * by a later refusal of @mark_cr's U; 0, or -errno when the mark did not
 * come.  Nothing is read for any other outcome.
 */
static int carried_audit(int afd, const struct carried *mark_cr,
			 const struct outcome *got, char *buf, size_t len)
{
	struct carried_rec r = { .n = 0 };
	struct outcome m = { .step = STEP_DONE };
	char mark_kv[32];
	const char *const mark[] = { "apparmor=\"DENIED\"",
				     "operation=\"open\"", mark_kv, NULL };
	pid_t pid;
	int n;

	buf[0] = '\0';
	if (afd < 0 || got->step != STEP_OP || got->err != EACCES)
		return 0;
	pid = spawn(carried_mark_main, (void *)mark_cr);
	if (pid < 0)
		return pid;
	reap(&m, pid);
	snprintf(r.pid_kv, sizeof(r.pid_kv), " pid=%d ", got->pid);
	snprintf(mark_kv, sizeof(mark_kv), " pid=%d ", pid);
	n = audit_log_scan(afd, mark, carried_refusal, &r, CARRIED_AUDIT_MS);
	if (n < 0)
		return n;
	carried_rec_str(r.rec, buf, len);
	return 0;
}

/* The label of @cr's stack, U onto A: the kernel orders it by name. */
static const char *carried_stack_label(char *buf, size_t len,
				       const struct carried *cr)
{
	bool a_first = strcmp(cr->creator, cr->user) < 0;

	snprintf(buf, len, "%s//&%s", a_first ? cr->creator : cr->user,
		 a_first ? cr->user : cr->creator);
	return buf;
}

/* What the runs of a test share. */
struct carried_test {
	struct ctx *c;
	int afd;		/* the audit log, -1 if there is none */
	struct carried mark;	/* the mark's U, which may not open the object */
};

#define REC_LEN 512

/*
 * One run on @cr's route, or the control, U's outcome held to @want, and
 * a refusal at the operation against the control's record @want_rec
 * (NULL: @cr is the control, whose refusal must be audited); the record
 * in @rec.
 */
static void carried_one(struct carried_test *t, const struct carried *cr,
			const struct carried_row *r, bool grant,
			const struct outcome *want, const char *want_rec,
			char *rec)
{
	struct __test_metadata *_metadata = t->c->metadata;
	struct outcome opener, got = { 0 };
	char desc[512], p[8];
	int ret;

	rec[0] = '\0';
	ret = carried_run(cr, &opener, &got);
	EXPECT_EQ(0, ret) {
		TH_LOG("%s: cannot run: %s", carried_op_name(cr->op),
		       strerror(-ret));
	}
	if (ret)
		return;
	snprintf(desc, sizeof(desc), "%s, %s, U %s %s (%s): %s%s",
		 carried_object_name(cr->obj), carried_op_name(cr->op),
		 grant ? "granting" : "lacking",
		 perms_str(r->perm, p), r->why,
		 carried_route_name(cr->route),
		 cr->route == CROUTE_SELF ? "" :
		 cr->warm ? ", A did it first" : ", A only opened it");
	expect_outcome(_metadata, desc, "A",
		       (struct outcome){ .step = STEP_DONE }, &opener);
	expect_outcome(_metadata, desc, "U", *want, &got);
	ret = carried_audit(t->afd, &t->mark, &got, rec, REC_LEN);
	EXPECT_EQ(0, ret) {
		TH_LOG("%s: the audit log's mark did not come: %s", desc,
		       strerror(-ret));
	}
	if (ret || t->afd < 0 || got.step != STEP_OP || got.err != EACCES)
		return;
	/* A denial is audited, whoever opened the file. */
	if (!want_rec) {
		EXPECT_NE(0, rec[0]) {
			TH_LOG("%s: U's refusal was not audited", desc);
		}
	} else if (want_rec[0]) {
		EXPECT_STREQ(want_rec, rec) {
			TH_LOG("%s: U's refusal was audited otherwise than on its own descriptor",
			       desc);
		}
	}
}

/* Row @r's control, then its route's runs after each history of A's. */
static void carried_row(struct carried_test *t, struct carried *cr,
			const struct carried_row *r, bool grant)
{
	char label[2 * NAME_MAX_LEN + 4], ctl_rec[REC_LEN];
	char rec[REC_LEN];
	struct outcome want;
	int warm;

	cr->route = CROUTE_SELF;
	cr->label = cr->user;
	want = carried_want(cr->route, cr->obj, r, grant);
	carried_one(t, cr, r, grant, &want, NULL, ctl_rec);
	cr->route = carried_params.route;
	want = carried_want(cr->route, cr->obj, r, grant);
	if (cr->route == CROUTE_STACK)
		cr->label = carried_stack_label(label, sizeof(label), cr);
	for (warm = 0; warm < 2; warm++) {
		cr->warm = warm ? CARRIED_WARM(cr->op) : 0;
		carried_one(t, cr, r, grant, &want, ctl_rec, rec);
	}
}

static void carried_check(struct ctx *c, enum carried_object obj)
{
	struct __test_metadata *_metadata = c->metadata;
	const char *dir = aa_policy_dir(policy), *a = carried_opener(c, obj);
	struct carried_test t = { .c = c, .afd = -1 };
	char path[PATH_MAX], x[PATH_MAX], why[256];
	struct stat st;
	size_t i;
	int grant;

	t.mark.user = carried_user(c, obj, 0);
	if (c->collect) {
		if (!a || !t.mark.user)
			ksft_exit_fail_msg("cannot register more profiles\n");
		return;
	}
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, t.mark.user);
	ASSERT_EQ(0, carried_objects());
	snprintf(path, sizeof(path), "%s/%s", dir, carried_rel[obj]);
	ASSERT_EQ(0, stat(path, &st));
	t.mark.path = path;
	t.afd = audit_log_open(why, sizeof(why));
	if (t.afd < 0)
		TH_LOG("refusals' audit records not compared: %s", why);
	for (i = 0; i < ARRAY_SIZE(carried_rows); i++) {
		if (!carried_op_applies(obj, carried_rows[i].op))
			continue;
		for (grant = 1; grant >= 0; grant--) {
			unsigned int p = carried_user_perms(obj,
							    &carried_rows[i],
							    grant);
			struct carried cr = {
				.obj = obj,
				.op = carried_rows[i].op,
				.path = path,
				.ino = st.st_ino,
				.creator = a,
				.user = carried_user(c, obj, p),
				.exec_path = x,
			};

			ASSERT_NE(NULL, cr.user);
			carried_link(x, sizeof(x), obj, p);
			ASSERT_EQ(0, aa_link_program(aa_self_exe(), x));
			c->subs++;
			carried_row(&t, &cr, &carried_rows[i], grant);
		}
	}
	if (t.afd >= 0)
		close(t.afd);
}

static void carried_check_file(struct ctx *c)
{
	carried_check(c, COBJ_FILE);
}

static void carried_check_dir(struct ctx *c)
{
	carried_check(c, COBJ_DIR);
}

static void carried_check_fifo(struct ctx *c)
{
	carried_check(c, COBJ_FIFO);
}

FIXTURE(carried) {};

FIXTURE_VARIANT(carried) {
	enum carried_route route;
};

FIXTURE_SETUP(carried) {}

FIXTURE_TEARDOWN(carried) {}

FIXTURE_VARIANT_ADD(carried, scm_rights_stream) {
	.route = CROUTE_STREAM,
};

FIXTURE_VARIANT_ADD(carried, scm_rights_dgram) {
	.route = CROUTE_DGRAM,
};

FIXTURE_VARIANT_ADD(carried, scm_rights_seqpacket) {
	.route = CROUTE_SEQPACKET,
};

FIXTURE_VARIANT_ADD(carried, exec_rule) {
	.route = CROUTE_EXEC_RULE,
};

FIXTURE_VARIANT_ADD(carried, change_onexec) {
	.route = CROUTE_ONEXEC,
};

FIXTURE_VARIANT_ADD(carried, fork_change_profile) {
	.route = CROUTE_FORK,
};

FIXTURE_VARIANT_ADD(carried, stack) {
	.route = CROUTE_STACK,
};

TEST_F_TIMEOUT(carried, file, HANDOFF_TEST_TIMEOUT)
{
	carried_params.route = variant->route;
	run_abi(_metadata, AA_ABI_OLD, carried_check_file);
}

TEST_F_TIMEOUT(carried, dir, HANDOFF_TEST_TIMEOUT)
{
	carried_params.route = variant->route;
	run_abi(_metadata, AA_ABI_OLD, carried_check_dir);
}

TEST_F_TIMEOUT(carried, fifo, HANDOFF_TEST_TIMEOUT)
{
	carried_params.route = variant->route;
	run_abi(_metadata, AA_ABI_OLD, carried_check_fifo);
}

static check_fn *const carried_checks_of_abi[] = {
	carried_check_file, carried_check_dir, carried_check_fifo,
};

/* abi/4.0 alone: see the top of this file. */
static const struct checks carried_checks[AA_ABI_COUNT] = {
	[AA_ABI_OLD] = { carried_checks_of_abi, ARRAY_SIZE(carried_checks_of_abi) },
	[AA_ABI_NEW] = { NULL, 0 },
};
