// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of af_unix_send_perf's strict parsing (perf_parse.c) and baseline
 * file (perf_baseline.c): a baseline that is corrupt, truncated, empty,
 * of another format, of another version or unreadable must never load,
 * and each field that must match between a baseline and a run must be
 * compared, with the outcome perf_baseline.h documents.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "perf_baseline.h"
#include "perf_parse.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

TEST(parse_uint)
{
	static const char * const bad[] = {
		"", "-1", " 1", "+1", "1x", "1 ", "0x10", "abc",
		"99999999999999999999999",
	};
	unsigned long long v;
	size_t i;

	EXPECT_EQ(0, perf_parse_uint("15", 2, 1000, &v));
	EXPECT_EQ(15ULL, v);
	EXPECT_EQ(0, perf_parse_uint("2", 2, 1000, &v));
	EXPECT_EQ(0, perf_parse_uint("1000", 2, 1000, &v));
	EXPECT_EQ(-ERANGE, perf_parse_uint("1", 2, 1000, &v));
	EXPECT_EQ(-ERANGE, perf_parse_uint("1001", 2, 1000, &v));
	EXPECT_NE(0, perf_parse_uint(NULL, 0, 1, &v));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_NE(0, perf_parse_uint(bad[i], 0, ~0ULL, &v))
			TH_LOG("accepted bad[%zu]", i);
}

TEST(parse_double_and_lists)
{
	static const char * const bad[] = {
		"", "nan", "NaN", "-nan", "+nan", "inf", "-inf", "infinity",
		"5%", "1e999", "x", "1.5.2", " 1", "0x1p3",
	};
	unsigned int out[16];
	size_t i, n;
	double d;

	EXPECT_EQ(0, perf_parse_double("5", 0, 100, &d));
	EXPECT_TRUE(NEAR(5, d, 0));
	EXPECT_EQ(0, perf_parse_double("0.5", 0, 100, &d));
	EXPECT_EQ(0, perf_parse_double("100", 0, 100, &d));
	EXPECT_EQ(-ERANGE, perf_parse_double("100.001", 0, 100, &d));
	EXPECT_EQ(-ERANGE, perf_parse_double("-1", 0, 100, &d));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_NE(0, perf_parse_double(bad[i], -1e300, 1e300, &d))
			TH_LOG("accepted bad[%zu]", i);

	ASSERT_EQ(0, perf_parse_uint_list("64,128,256", 8, 65536, out, 16, &n));
	EXPECT_EQ(3UL, n);
	EXPECT_EQ(256U, out[2]);
	ASSERT_EQ(0, perf_parse_uint_list("8,65536", 8, 65536, out, 2, &n));
	EXPECT_EQ(65536U, out[1]);
	EXPECT_NE(0, perf_parse_uint_list("64,,128", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list(",64", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("64,", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("64,x", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("4", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("65537", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("", 8, 65536, out, 16, &n));
	EXPECT_EQ(-E2BIG, perf_parse_uint_list("8,8,8", 8, 65536, out, 2, &n));
}

TEST(read_file)
{
	char path[] = "/tmp/perf_baseline_test.XXXXXX", err[PERF_ERR_MAX];
	int fd = mkstemp(path);
	char *text;

	ASSERT_LE(0, fd);
	ASSERT_EQ(8, write(fd, "12345678", 8));
	text = perf_read_file(path, 9, err, sizeof(err));
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("12345678", text);
	free(text);
	EXPECT_EQ(NULL, perf_read_file(path, 8, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "file too large"));
	ASSERT_EQ(1, write(fd, "", 1));
	EXPECT_EQ(NULL, perf_read_file(path, 64, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "NUL byte"));
	close(fd);
	unlink(path);
	EXPECT_EQ(NULL, perf_read_file(path, 64, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "No such file"));
}

FIXTURE(baseline) {
	struct perf_baseline b;
	char text[8192];
	char err[PERF_ERR_MAX];
};

FIXTURE_SETUP(baseline)
{
	struct perf_entry e = { "sendmmsg", 128, 1.1877, 2632.6, 2216.4 };
	struct perf_entry e2 = { "io_uring", 128, 1.18, 2000, 1700 };
	struct perf_baseline *b = &self->b;

	memset(b, 0, sizeof(*b));
	snprintf(b->id.machine_id, sizeof(b->id.machine_id),
		 "0123456789abcdef0123456789abcdef");
	snprintf(b->id.cpu_model, sizeof(b->id.cpu_model),
		 "QEMU TCG CPU version 2.5+");
	snprintf(b->sys.kernel, sizeof(b->sys.kernel), "7.2.13-amd64");
	snprintf(b->sys.lsm, sizeof(b->sys.lsm), "capability,landlock,apparmor");
	b->sys.apparmor = true;
	b->set.batch = 32;
	b->set.msgs_per_round = 8192;
	b->set.warmup = 2;
	b->set.icount = true;
	b->set.tolerance = 0.05;
	ASSERT_EQ(0, perf_baseline_put(b, &e));
	ASSERT_EQ(0, perf_baseline_put(b, &e2));
	ASSERT_EQ(0, perf_baseline_format(b, self->text, sizeof(self->text)));
}

FIXTURE_TEARDOWN(baseline)
{
}

/* Replaces the line starting with @key by @line ("" deletes it). */
static void edit(char *text, const char *key, const char *line)
{
	char out[8192], *p = strstr(text, key), *nl;

	if (!p)
		return;
	nl = strchr(p, '\n');
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(p - text), text, line,
		 nl + 1);
	memcpy(text, out, strlen(out) + 1);
}

static int parse(const char *text, char *err)
{
	struct perf_baseline b;

	return perf_baseline_parse(text, &b, err, PERF_ERR_MAX);
}

TEST_F(baseline, roundtrip_and_match)
{
	const struct perf_entry *e;
	struct perf_baseline b;

	ASSERT_EQ(0, perf_baseline_parse(self->text, &b, self->err,
					 sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(PERF_MATCH, (int)perf_baseline_match(&b, &self->b.id,
						       &self->b.sys, &self->b.set,
						       self->err, sizeof(self->err)));
	e = perf_baseline_find(&b, "sendmmsg", 128);
	ASSERT_NE(NULL, e);
	EXPECT_TRUE(NEAR(1.1877, e->ratio, 1e-9));
	EXPECT_TRUE(NEAR(2632.6, e->dgram_ns, 1e-9));
	EXPECT_EQ(NULL, perf_baseline_find(&b, "sendmmsg", 256));
	EXPECT_EQ(NULL, perf_baseline_find(&b, "send", 128));
	EXPECT_STREQ("7.2.13-amd64", b.sys.kernel);
	EXPECT_STREQ("capability,landlock,apparmor", b.sys.lsm);
	EXPECT_TRUE(b.sys.apparmor);
	EXPECT_TRUE(NEAR(0.05, b.set.tolerance, 1e-12));
	EXPECT_EQ(2U, b.set.warmup);
}

TEST_F(baseline, store_and_load_file)
{
	char dir[] = "/tmp/perf_baseline_test.XXXXXX", path[64];
	struct perf_baseline b;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/base", dir);
	EXPECT_EQ(-ENOENT, perf_baseline_load(path, &b, self->err,
					      sizeof(self->err)));
	ASSERT_EQ(0, perf_baseline_store(path, &self->b, self->err,
					 sizeof(self->err)));
	EXPECT_EQ(0, perf_baseline_load(path, &b, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(2UL, b.nr_entries);
	unlink(path);
	/* unreadable: a directory where the file should be */
	ASSERT_EQ(0, mkdir(path, 0700));
	EXPECT_EQ(-EIO, perf_baseline_load(path, &b, self->err,
					   sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "Is a directory")) TH_LOG("%s", self->err);
	rmdir(path);
	rmdir(dir);
}

TEST_F(baseline, empty_and_foreign)
{
	static const char * const foreign[] = {
		"{\n  \"format\": \"af_unix_send_perf/2\"\n}\n",
		"machine_id=x\nversion=2\n",
		"\177ELF\n",
	};
	size_t i;

	EXPECT_NE(0, parse("", self->err));
	EXPECT_NE(NULL, strstr(self->err, "empty file"));
	EXPECT_NE(0, parse("# only a comment\n", self->err));
	EXPECT_NE(NULL, strstr(self->err, "missing key 'version'"));
	for (i = 0; i < ARRAY_SIZE(foreign); i++)
		EXPECT_NE(0, parse(foreign[i], self->err));
	EXPECT_NE(NULL, strstr(self->err, "expected key=value"));
	parse(foreign[1], self->err);
	EXPECT_NE(NULL, strstr(self->err, "not an af_unix_send_perf baseline"));
}

TEST_F(baseline, other_version)
{
	edit(self->text, "version=", "version=1\n");
	EXPECT_NE(0, parse(self->text, self->err));
	EXPECT_NE(NULL, strstr(self->err, "record the baseline again"));
}

TEST_F(baseline, each_key_is_required)
{
	static const char * const keys[] = {
		"machine_id=", "cpu_model=", "kernel=", "lsm=", "apparmor=",
		"batch=", "msgs_per_round=", "warmup=", "icount=",
		"tolerance=", "end=",
	};
	char orig[8192], want[64];
	size_t i;

	snprintf(orig, sizeof(orig), "%s", self->text);
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, keys[i], "");
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted without %s", keys[i]);
		snprintf(want, sizeof(want), "missing key '%.*s'",
			 (int)strlen(keys[i]) - 1, keys[i]);
		EXPECT_NE(NULL, strstr(self->err, want)) TH_LOG("%s", self->err);
	}
}

TEST_F(baseline, bad_values)
{
	static const char * const lines[] = {
		"warmup=abc\n", "warmup=-1\n", "warmup=2x\n", "warmup=1001\n",
		"batch=0\n", "msgs_per_round=0\n", "icount=maybe\n",
		"apparmor=1\n", "tolerance=nan\n", "tolerance=0\n",
		"tolerance=1.5\n", "tolerance=-0.05\n", "tolerance=inf\n",
		"end=2\n", "lsm=\n", "machine_id=\n",
	};
	static const char * const entries[] = {
		"entry=sendmmsg 128 nan 1 1\n", "entry=sendmmsg 128 inf 1 1\n",
		"entry=sendmmsg 128 1.1\n", "entry=sendmmsg 128 1.1 1 1 extra\n",
		"entry=sendmmsg 0 1.1 1 1\n", "entry=sendmmsg 128 100 1 1\n",
		"entry=sendmmsg 128 0 1 1\n", "entry=sendmmsg 128 1.1 -5 1\n",
		"entry=sendmmsg 128 1.1 1 0\n",
		"entry=io_uring 128 1.1 1 1\n",	/* duplicate */
	};
	char orig[8192], key[32];
	size_t i;

	snprintf(orig, sizeof(orig), "%s", self->text);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(lines[i], "=") + 1,
			 lines[i]);
		edit(self->text, key, lines[i]);
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted %s", lines[i]);
	}
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, "entry=sendmmsg", entries[i]);
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted %s", entries[i]);
	}
	snprintf(self->text, sizeof(self->text), "%s", orig);
	edit(self->text, "entry=sendmmsg", "");
	edit(self->text, "entry=io_uring", "");
	EXPECT_NE(0, parse(self->text, self->err));
	EXPECT_NE(NULL, strstr(self->err, "no 'entry' lines"));
}

/* Another machine or CPU: cannot be judged here (SKIP). */
TEST_F(baseline, other_machine)
{
	struct perf_identity id = self->b.id;

	id.machine_id[0] = 'f';
	EXPECT_EQ(PERF_OTHER_MACHINE,
		  (int)perf_baseline_match(&self->b, &id, &self->b.sys,
					   &self->b.set, self->err,
					   sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "another machine"));
	EXPECT_NE(NULL, strstr(self->err, "f123456789abcdef")) TH_LOG("%s", self->err);
	id = self->b.id;
	snprintf(id.cpu_model, sizeof(id.cpu_model), "AMD EPYC");
	EXPECT_EQ(PERF_OTHER_MACHINE,
		  (int)perf_baseline_match(&self->b, &id, &self->b.sys,
					   &self->b.set, self->err,
					   sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "AMD EPYC"));
	EXPECT_NE(NULL, strstr(self->err, "QEMU TCG"));
}

/* Another LSM list or AppArmor state: SKIP; another kernel: the point. */
TEST_F(baseline, other_system)
{
	struct perf_system sys = self->b.sys;

	snprintf(sys.kernel, sizeof(sys.kernel), "7.3.4-amd64");
	EXPECT_EQ(PERF_MATCH,
		  (int)perf_baseline_match(&self->b, &self->b.id, &sys,
					   &self->b.set, self->err,
					   sizeof(self->err)));
	snprintf(sys.lsm, sizeof(sys.lsm), "capability,landlock,apparmor,bpf");
	EXPECT_EQ(PERF_OTHER_SYSTEM,
		  (int)perf_baseline_match(&self->b, &self->b.id, &sys,
					   &self->b.set, self->err,
					   sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "apparmor,bpf"));
	sys = self->b.sys;
	sys.apparmor = false;
	EXPECT_EQ(PERF_OTHER_SYSTEM,
		  (int)perf_baseline_match(&self->b, &self->b.id, &sys,
					   &self->b.set, self->err,
					   sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "AppArmor disabled"));
}

/* Each setting that must match: FAIL, naming both. */
TEST_F(baseline, other_settings)
{
	struct perf_settings set[6];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(set); i++)
		set[i] = self->b.set;
	set[0].batch = 16;
	set[1].msgs_per_round = 65536;
	set[2].warmup = 3;
	set[3].icount = false;
	set[4].tolerance = 1.0;
	set[5].tolerance = 0.05 + 1e-6;
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		EXPECT_EQ(PERF_OTHER_SETTINGS,
			  (int)perf_baseline_match(&self->b, &self->b.id,
						   &self->b.sys, &set[i],
						   self->err, sizeof(self->err)))
			TH_LOG("setting %zu not compared", i);
	}
	perf_baseline_match(&self->b, &self->b.id, &self->b.sys, &set[4],
			    self->err, sizeof(self->err));
	EXPECT_NE(NULL, strstr(self->err, "tolerance 5%")) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "tolerance 100%"));
}

TEST_F(baseline, truncated)
{
	size_t len = strlen(self->text), cut;
	struct perf_baseline b;
	char t[8192];

	/* every strict prefix must be rejected, never parsed as valid */
	for (cut = 0; cut < len; cut++) {
		memcpy(t, self->text, cut);
		t[cut] = '\0';
		EXPECT_NE(0, perf_baseline_parse(t, &b, self->err,
						 sizeof(self->err)))
			TH_LOG("prefix of %zu bytes accepted", cut);
	}
}

TEST_F(baseline, junk)
{
	struct perf_baseline b;
	char t[8192 + 64];

	snprintf(t, sizeof(t), "%sentry=send 128 1.0 1 1\n", self->text);
	EXPECT_NE(0, perf_baseline_parse(t, &b, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "after 'end'"));
	snprintf(t, sizeof(t), "%s", self->text);
	edit(t, "batch=", "colour=blue\n");
	EXPECT_NE(0, perf_baseline_parse(t, &b, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "unknown key 'colour'"));
	snprintf(t, sizeof(t), "%s", self->text);
	edit(t, "batch=", "batch=32\nbatch=32\n");
	EXPECT_NE(0, perf_baseline_parse(t, &b, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "duplicate"));
	EXPECT_NE(0, perf_baseline_parse("no equals sign\n", &b, NULL, 0));
}

TEST_F(baseline, put_and_bounds)
{
	struct perf_entry e = { "send", 64, 1.1, 1, 1 };
	size_t i;

	EXPECT_EQ(0, perf_baseline_put(&self->b, &e));
	EXPECT_EQ(3UL, self->b.nr_entries);
	e.ratio = 1.2;
	EXPECT_EQ(0, perf_baseline_put(&self->b, &e));
	EXPECT_EQ(3UL, self->b.nr_entries);
	EXPECT_TRUE(NEAR(1.2, perf_baseline_find(&self->b, "send", 64)->ratio, 0));
	for (i = self->b.nr_entries; i < PERF_MAX_ENTRIES; i++) {
		e.msg_size = 1000 + i;
		ASSERT_EQ(0, perf_baseline_put(&self->b, &e));
	}
	e.msg_size = 5000;
	EXPECT_EQ(-E2BIG, perf_baseline_put(&self->b, &e));
	EXPECT_EQ((size_t)PERF_MAX_ENTRIES, self->b.nr_entries);
	snprintf(e.workload, sizeof(e.workload), "two words");
	EXPECT_EQ(-EINVAL, perf_baseline_put(&self->b, &e));
}

TEST_HARNESS_MAIN
