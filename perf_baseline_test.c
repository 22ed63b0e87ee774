// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of af_unix_send_perf's strict parsing (perf_baseline.c) and baseline
 * file (perf_baseline.c): a baseline that is corrupt, truncated, empty,
 * of another format, of another version, unreadable or whose entries do
 * not agree with their runs must never load, and each field that must
 * match between a baseline and a run must be compared, with the outcome
 * perf_baseline.h documents.
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

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))
#define E9	(1 / 1e9)
#define E12	(1 / 1e12)

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

/* Three runs of each workload: ratios 1.1874, 1.1877, 1.1880 and so on */
static const struct perf_run_result runs[][3] = {
	{ { 1.1874, 2632.0, 2216.6 }, { 1.1877, 2632.6, 2216.5 },
	  { 1.1880, 2633.2, 2216.4 } },
	{ { 1.18, 2000, 1700 }, { 1.19, 2010, 1690 }, { 1.17, 1990, 1710 } },
};

FIXTURE_SETUP(baseline)
{
	static const char * const wl[] = { "sendmmsg", "io_uring" };
	struct perf_baseline *b = &self->b;
	size_t i, j;
	FILE *f;

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
	for (i = 0; i < ARRAY_SIZE(wl); i++)
		for (j = 0; j < ARRAY_SIZE(runs[i]); j++)
			ASSERT_EQ(0, perf_baseline_add_run(b, wl[i], 128,
							   &runs[i][j]));
	f = fmemopen(self->text, sizeof(self->text), "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, perf_baseline_write(f, b));
	ASSERT_EQ(0, fclose(f));
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
	EXPECT_EQ(3UL, e->nr_runs);
	EXPECT_TRUE(NEAR(1.1877, e->ratio, E9));
	/* the sample stdev of 1.1874, 1.1877, 1.1880 is 0.0003 */
	EXPECT_TRUE(NEAR(0.0003 / 1.1877, e->spread, E9));
	EXPECT_TRUE(NEAR(1.1880, e->runs[2].ratio, E9));
	e = perf_baseline_find(&b, "io_uring", 128);
	ASSERT_NE(NULL, e);
	EXPECT_TRUE(NEAR(0.01 / 1.18, e->spread, E9));
	EXPECT_EQ(NULL, perf_baseline_find(&b, "sendmmsg", 256));
	EXPECT_EQ(NULL, perf_baseline_find(&b, "send", 128));
	EXPECT_STREQ("7.2.13-amd64", b.sys.kernel);
	EXPECT_STREQ("capability,landlock,apparmor", b.sys.lsm);
	EXPECT_TRUE(b.sys.apparmor);
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
		"batch=", "msgs_per_round=", "warmup=", "icount=", "end=",
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
		"apparmor=1\n", "end=2\n", "lsm=\n", "machine_id=\n",
		"tolerance=0.05\n",	/* version 2's, now unknown */
	};
	static const char * const entries[] = {
		"entry=sendmmsg 128 nan 0.000253 3\n",
		"entry=sendmmsg 128 inf 0.000253 3\n",
		"entry=sendmmsg 128 1.1877\n",
		"entry=sendmmsg 128 1.1877 0.000253 3 extra\n",
		"entry=sendmmsg 0 1.1877 0.000253 3\n",
		"entry=sendmmsg 128 100 0.000253 3\n",
		"entry=sendmmsg 128 1.1877 -0.1 3\n",
		"entry=sendmmsg 128 1.1877 0.000253 0\n",
		"entry=io_uring 128 1.180000 0.008475 3\n",	/* duplicate */
	};
	static const char * const bad_runs[] = {
		"run=sendmmsg 128 nan 2632.0 2216.6\n",
		"run=sendmmsg 128 1.1874 2632.0\n",
		"run=sendmmsg 128 1.1874 2632.0 2216.6 extra\n",
		"run=sendmmsg 0 1.1874 2632.0 2216.6\n",
		"run=sendmmsg 128 100 2632.0 2216.6\n",
		"run=sendmmsg 128 1.1874 0 2216.6\n",
	};
	char orig[8192], key[32];
	size_t i;

	snprintf(orig, sizeof(orig), "%s", self->text);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(lines[i], "=") + 1,
			 lines[i]);
		edit(self->text, strcmp(key, "tolerance=") ? key : "warmup=",
		     lines[i]);
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted %s", lines[i]);
	}
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, "entry=sendmmsg", entries[i]);
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted %s", entries[i]);
		EXPECT_NE(NULL, strstr(self->err, " entry")) TH_LOG("%s", self->err);
	}
	for (i = 0; i < ARRAY_SIZE(bad_runs); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, "run=sendmmsg", bad_runs[i]);
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted %s", bad_runs[i]);
		EXPECT_NE(NULL, strstr(self->err, "malformed run"))
			TH_LOG("%s", self->err);
	}
	snprintf(self->text, sizeof(self->text), "%s", orig);
	while (strstr(self->text, "run="))
		edit(self->text, "run=", "");
	edit(self->text, "entry=sendmmsg", "");
	edit(self->text, "entry=io_uring", "");
	EXPECT_NE(0, parse(self->text, self->err));
	EXPECT_NE(NULL, strstr(self->err, "no 'run' lines"));
}

/* An entry that does not say what its runs give was edited: refused. */
TEST_F(baseline, entries_agree_with_runs)
{
	static const char * const claims[] = {
		"entry=sendmmsg 128 1.190000 0.000253 3\n",	/* ratio */
		"entry=sendmmsg 128 1.187700 0.000100 3\n",	/* spread */
		"entry=sendmmsg 128 1.187700 0.000253 2\n",	/* runs */
	};
	char orig[8192];
	size_t i;

	snprintf(orig, sizeof(orig), "%s", self->text);
	ASSERT_NE(NULL, strstr(orig, "entry=sendmmsg 128 1.187700 0.000253 3\n"))
		TH_LOG("%s", orig);
	for (i = 0; i < ARRAY_SIZE(claims); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, "entry=sendmmsg", claims[i]);
		EXPECT_NE(0, parse(self->text, self->err))
			TH_LOG("accepted %s", claims[i]);
		EXPECT_NE(NULL, strstr(self->err, "its 'run' lines give 1.187700, 0.000253 over 3"))
			TH_LOG("%s", self->err);
	}
	/* a run changed under its entry */
	snprintf(self->text, sizeof(self->text), "%s", orig);
	edit(self->text, "run=sendmmsg", "run=sendmmsg 128 1.200000 2632.0 2216.6\n");
	EXPECT_NE(0, parse(self->text, self->err));
	EXPECT_NE(NULL, strstr(self->err, "entry sendmmsg 128 says")) TH_LOG("%s", self->err);
	/* runs without an entry, an entry without runs */
	snprintf(self->text, sizeof(self->text), "%s", orig);
	edit(self->text, "entry=sendmmsg", "");
	EXPECT_NE(0, parse(self->text, self->err));
	EXPECT_NE(NULL, strstr(self->err, "runs of sendmmsg 128 have no 'entry' line"))
		TH_LOG("%s", self->err);
	snprintf(self->text, sizeof(self->text), "%s", orig);
	edit(self->text, "entry=sendmmsg",
	     "entry=sendmmsg 128 1.187700 0.000253 3\nentry=send 64 1.1 0 1\n");
	EXPECT_NE(0, parse(self->text, self->err));
	EXPECT_NE(NULL, strstr(self->err, "entry send 64 has no 'run' lines"))
		TH_LOG("%s", self->err);
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
	struct perf_settings set[4];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(set); i++)
		set[i] = self->b.set;
	set[0].batch = 16;
	set[1].msgs_per_round = 65536;
	set[2].warmup = 3;
	set[3].icount = false;
	for (i = 0; i < ARRAY_SIZE(set); i++) {
		EXPECT_EQ(PERF_OTHER_SETTINGS,
			  (int)perf_baseline_match(&self->b, &self->b.id,
						   &self->b.sys, &set[i],
						   self->err, sizeof(self->err)))
			TH_LOG("setting %zu not compared", i);
	}
	perf_baseline_match(&self->b, &self->b.id, &self->b.sys, &set[2],
			    self->err, sizeof(self->err));
	EXPECT_NE(NULL, strstr(self->err, "warm-up 2,")) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "warm-up 3,"));
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

TEST_F(baseline, add_run_and_bounds)
{
	struct perf_run_result r = { 1.1, 1, 1 };
	const struct perf_entry *e;
	size_t i;

	EXPECT_EQ(0, perf_baseline_add_run(&self->b, "send", 64, &r));
	EXPECT_EQ(3UL, self->b.nr_entries);
	e = perf_baseline_find(&self->b, "send", 64);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1UL, e->nr_runs);
	EXPECT_TRUE(NEAR(0, e->spread, 0));
	r.ratio = 1.3;
	EXPECT_EQ(0, perf_baseline_add_run(&self->b, "send", 64, &r));
	EXPECT_EQ(3UL, self->b.nr_entries);
	EXPECT_EQ(2UL, e->nr_runs);
	EXPECT_TRUE(NEAR(1.2, e->ratio, E12));
	EXPECT_TRUE(NEAR(sqrt(0.02) / 1.2, e->spread, E12));
	while (e->nr_runs < PERF_MAX_RUNS)
		ASSERT_EQ(0, perf_baseline_add_run(&self->b, "send", 64, &r));
	EXPECT_EQ(-E2BIG, perf_baseline_add_run(&self->b, "send", 64, &r));
	for (i = self->b.nr_entries; i < PERF_MAX_ENTRIES; i++)
		ASSERT_EQ(0, perf_baseline_add_run(&self->b, "send", 1000 + i, &r));
	EXPECT_EQ(-E2BIG, perf_baseline_add_run(&self->b, "send", 5000, &r));
	EXPECT_EQ((size_t)PERF_MAX_ENTRIES, self->b.nr_entries);
	EXPECT_EQ(-EINVAL, perf_baseline_add_run(&self->b, "two words", 64, &r));
	EXPECT_EQ(-EINVAL, perf_baseline_add_run(&self->b, "", 64, &r));
	r.ratio = 0;
	EXPECT_EQ(-EINVAL, perf_baseline_add_run(&self->b, "send", 64, &r));
}

/* The largest baseline there can be is written and read back whole. */
TEST_F(baseline, largest_file)
{
	char dir[] = "/tmp/perf_baseline_test.XXXXXX", path[64];
	static struct perf_baseline big, back;
	struct perf_run_result r = { 9.876543, 123456789.123, 98765432.1 };
	size_t i, j;

	big = self->b;
	big.nr_entries = 0;
	for (i = 0; i < PERF_MAX_ENTRIES; i++)
		for (j = 0; j < PERF_MAX_RUNS; j++)
			ASSERT_EQ(0, perf_baseline_add_run(&big, "io_uring",
							   65536 + i, &r));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/base", dir);
	ASSERT_EQ(0, perf_baseline_store(path, &big, self->err,
					 sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, perf_baseline_load(path, &back, self->err,
					sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ((size_t)PERF_MAX_ENTRIES, back.nr_entries);
	EXPECT_EQ((size_t)PERF_MAX_RUNS, back.entries[PERF_MAX_ENTRIES - 1].nr_runs);
	unlink(path);
	rmdir(dir);
}

TEST_HARNESS_MAIN
