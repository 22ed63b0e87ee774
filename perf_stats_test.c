// SPDX-License-Identifier: GPL-2.0
/*
 * Known-answer tests for perf_stats.c: statistics, option parsing, the
 * baseline file and the A/B/A report used by af_unix_send_perf and
 * perf_report.  No sockets, no AppArmor, no timing: these must pass
 * everywhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "perf_stats.h"

#define NEAR(a, b, eps) (fabs((a) - (b)) <= (eps))

TEST(summary_known_vector)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct perf_summary s;

	ASSERT_EQ(0, perf_summarize(v, 8, &s));
	EXPECT_TRUE(NEAR(5.0, s.mean, 1e-12));
	EXPECT_TRUE(NEAR(4.5, s.median, 1e-12));
	EXPECT_TRUE(NEAR(2.0, s.min, 1e-12));
	EXPECT_TRUE(NEAR(9.0, s.max, 1e-12));
	EXPECT_TRUE(NEAR(sqrt(32.0 / 7), s.stdev, 1e-12));
	EXPECT_TRUE(NEAR(sqrt(32.0 / 7) / 5, s.cv, 1e-12));
}

TEST(summary_odd_and_single)
{
	const double v[] = { 3, 1, 2 };
	struct perf_summary s;

	ASSERT_EQ(0, perf_summarize(v, 3, &s));
	EXPECT_TRUE(NEAR(2.0, s.median, 1e-12));
	EXPECT_TRUE(NEAR(1.0, s.stdev, 1e-12));
	EXPECT_TRUE(NEAR(0.5, s.cv, 1e-12));
	ASSERT_EQ(0, perf_summarize(v, 1, &s));
	EXPECT_TRUE(NEAR(3.0, s.mean, 1e-12));
	EXPECT_TRUE(NEAR(0.0, s.stdev, 1e-12));
	EXPECT_EQ(-EINVAL, perf_summarize(v, 0, &s));
}

TEST(t_quantiles)
{
	EXPECT_TRUE(NEAR(12.706, perf_t975(1), 1e-9));
	EXPECT_TRUE(NEAR(2.145, perf_t975(14), 1e-9));
	EXPECT_TRUE(NEAR(2.042, perf_t975(30), 1e-9));
	/* exact values: 2.0395 (31), 2.0096 (50), 1.9623 (1000) */
	EXPECT_TRUE(NEAR(2.0395, perf_t975(31), 1e-3));
	EXPECT_TRUE(NEAR(2.0086, perf_t975(50), 1e-3));
	EXPECT_TRUE(NEAR(1.9623, perf_t975(1000), 1e-3));
	EXPECT_TRUE(isnan(perf_t975(0)));
}

TEST(mean_ci_and_ratios)
{
	const double num[] = { 2, 4, 6 }, den[] = { 2, 2, 2 }, zero[] = { 1, 0 };
	double r[3];
	struct perf_ci ci;

	ASSERT_EQ(0, perf_ratios(num, den, 3, r));
	EXPECT_TRUE(NEAR(2.0, r[1], 1e-12));
	ASSERT_EQ(0, perf_mean_ci(r, 3, &ci));
	EXPECT_TRUE(NEAR(2.0, ci.mean, 1e-12));
	EXPECT_TRUE(NEAR(4.303 / sqrt(3), ci.half, 1e-9));
	EXPECT_TRUE(NEAR(2.0 - 4.303 / sqrt(3), ci.lo, 1e-9));
	EXPECT_EQ(-EINVAL, perf_mean_ci(r, 1, &ci));
	EXPECT_EQ(-EINVAL, perf_ratios(num, zero, 2, r));
}

static struct perf_ci ci_of(double mean, double half)
{
	struct perf_ci ci = { 15, mean, half, mean - half, mean + half };

	return ci;
}

TEST(verdicts)
{
	struct perf_ci ci;
	double lim;

	ci = ci_of(1.02, 0.01);
	EXPECT_EQ(PERF_PASS, (int)perf_judge(1.0, 0.05, &ci, &lim));
	EXPECT_TRUE(NEAR(1.05, lim, 1e-12));
	ci = ci_of(1.20, 0.01);
	EXPECT_EQ(PERF_FAIL, (int)perf_judge(1.0, 0.05, &ci, NULL));
	/* mean over the limit but the CI reaches below it: undecided */
	ci = ci_of(1.06, 0.02);
	EXPECT_EQ(PERF_NOISY, (int)perf_judge(1.0, 0.05, &ci, NULL));
	/* CI wider than the tolerance band: undecided even if clearly high */
	ci = ci_of(1.50, 0.03);
	EXPECT_EQ(PERF_NOISY, (int)perf_judge(1.0, 0.05, &ci, NULL));
	/* the numbers: 1.1877 against a 1.0651 baseline */
	ci = ci_of(1.1877, 0.0003);
	EXPECT_EQ(PERF_FAIL, (int)perf_judge(1.0651, 0.05, &ci, NULL));
	ci = ci_of(NAN, NAN);
	EXPECT_EQ(PERF_NOISY, (int)perf_judge(1.0, 0.05, &ci, NULL));
	EXPECT_STREQ("noisy", perf_verdict_name(PERF_NOISY));
}

TEST(aba_report_points)
{
	struct perf_aba r;
	char buf[32];

	ASSERT_EQ(0, perf_aba(343.382, 395.831, 343.259, &r));
	snprintf(buf, sizeof(buf), "%.3f", r.slowdown_pct);
	EXPECT_STREQ("15.295", buf);
	snprintf(buf, sizeof(buf), "%.3f", r.drift_pct);
	EXPECT_STREQ("-0.036", buf);
	EXPECT_TRUE(NEAR(343.3205, r.mid, 1e-9));
	ASSERT_EQ(0, perf_aba(100, 100, 100, &r));
	EXPECT_TRUE(NEAR(0, r.slowdown_pct, 1e-12));
	EXPECT_EQ(-EINVAL, perf_aba(0, 1, 1, &r));
	EXPECT_EQ(-EINVAL, perf_aba(1, NAN, 1, &r));
}

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
		"", "nan", "inf", "5%", "1e999", "x", "1.5.2", " 1",
	};
	unsigned int out[16];
	size_t i, n;
	double d;

	EXPECT_EQ(0, perf_parse_double("5", 0, 100, &d));
	EXPECT_TRUE(NEAR(5, d, 0));
	EXPECT_EQ(0, perf_parse_double("0.5", 0, 100, &d));
	EXPECT_EQ(-ERANGE, perf_parse_double("-1", 0, 100, &d));
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_NE(0, perf_parse_double(bad[i], -1e300, 1e300, &d))
			TH_LOG("accepted bad[%zu]", i);

	ASSERT_EQ(0, perf_parse_uint_list("64,128,256", 8, 65536, out, 16, &n));
	EXPECT_EQ(3UL, n);
	EXPECT_EQ(256U, out[2]);
	EXPECT_NE(0, perf_parse_uint_list("64,,128", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list(",64", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("64,", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("64,x", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("4", 8, 65536, out, 16, &n));
	EXPECT_NE(0, perf_parse_uint_list("", 8, 65536, out, 16, &n));
	EXPECT_EQ(-E2BIG, perf_parse_uint_list("8,8,8", 8, 65536, out, 2, &n));
}

FIXTURE(baseline) {
	struct perf_baseline b;
	struct perf_identity id;
	struct perf_settings set;
	char text[8192];
	char err[PERF_ERR_MAX];
};

FIXTURE_SETUP(baseline)
{
	struct perf_entry e = { "sendmmsg", 128, 1.1877, 2632.6, 2216.4 };
	struct perf_entry e2 = { "io_uring", 128, 1.18, 2000, 1700 };

	memset(&self->b, 0, sizeof(self->b));
	snprintf(self->id.machine_id, sizeof(self->id.machine_id),
		 "0123456789abcdef0123456789abcdef");
	snprintf(self->id.cpu_model, sizeof(self->id.cpu_model),
		 "QEMU TCG CPU version 2.5+");
	self->set.batch = 32;
	self->set.msgs_per_round = 65536;
	self->set.rounds = 15;
	self->set.warmup = 3;
	self->set.icount = true;
	self->b.id = self->id;
	self->b.set = self->set;
	snprintf(self->b.kernel, sizeof(self->b.kernel), "7.2.13-amd64");
	ASSERT_EQ(0, perf_baseline_put(&self->b, &e));
	ASSERT_EQ(0, perf_baseline_put(&self->b, &e2));
	ASSERT_EQ(0, perf_baseline_format(&self->b, self->text,
					  sizeof(self->text)));
}

FIXTURE_TEARDOWN(baseline)
{
}

/* Replaces the first line starting with @key by @line ("" deletes it). */
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

TEST_F(baseline, roundtrip_and_match)
{
	const struct perf_entry *e;
	struct perf_baseline b;

	ASSERT_EQ(0, perf_baseline_parse(self->text, &b, self->err,
					 sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, perf_baseline_match(&b, &self->id, &self->set, self->err,
					 sizeof(self->err)));
	e = perf_baseline_find(&b, "sendmmsg", 128);
	ASSERT_NE(NULL, e);
	EXPECT_TRUE(NEAR(1.1877, e->ratio, 1e-9));
	EXPECT_TRUE(NEAR(2632.6, e->dgram_ns, 1e-9));
	EXPECT_EQ(NULL, perf_baseline_find(&b, "sendmmsg", 256));
	EXPECT_EQ(NULL, perf_baseline_find(&b, "send", 128));
	EXPECT_STREQ("7.2.13-amd64", b.kernel);
}

TEST_F(baseline, store_and_load_file)
{
	char path[] = "/tmp/perf_stats_test.XXXXXX";
	struct perf_baseline b;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, perf_baseline_store(path, &self->b, self->err,
					 sizeof(self->err)));
	EXPECT_EQ(0, perf_baseline_load(path, &b, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(2UL, b.nr_entries);
	unlink(path);
	EXPECT_EQ(-ENOENT, perf_baseline_load(path, &b, self->err,
					      sizeof(self->err)));
}

TEST_F(baseline, missing_key)
{
	struct perf_baseline b;

	edit(self->text, "rounds=", "");
	EXPECT_EQ(-EINVAL, perf_baseline_parse(self->text, &b, self->err,
					       sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "missing key 'rounds'"));
}

TEST_F(baseline, bad_numbers)
{
	static const char * const lines[] = {
		"rounds=abc\n", "rounds=1\n", "rounds=-15\n", "rounds=15x\n",
		"icount=maybe\n", "version=2\n",
	};
	char orig[8192];
	struct perf_baseline b;
	size_t i;

	snprintf(orig, sizeof(orig), "%s", self->text);
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, strncmp(lines[i], "icount", 6) ?
		     (lines[i][0] == 'v' ? "version=" : "rounds=") : "icount=",
		     lines[i]);
		EXPECT_EQ(0, !perf_baseline_parse(self->text, &b, self->err,
						  sizeof(self->err)))
			TH_LOG("accepted %s", lines[i]);
	}
	static const char * const entries[] = {
		"entry=sendmmsg 128 nan 1 1\n", "entry=sendmmsg 128 1.1\n",
		"entry=sendmmsg 128 1.1 1 1 extra\n", "entry=sendmmsg 0 1.1 1 1\n",
		"entry=sendmmsg 128 100 1 1\n", "entry=sendmmsg 128 1.1 -5 1\n",
		"entry=io_uring 128 1.1 1 1\n",	/* duplicate */
	};
	for (i = 0; i < ARRAY_SIZE(entries); i++) {
		snprintf(self->text, sizeof(self->text), "%s", orig);
		edit(self->text, "entry=sendmmsg", entries[i]);
		EXPECT_NE(0, perf_baseline_parse(self->text, &b, self->err,
						 sizeof(self->err)))
			TH_LOG("accepted %s", entries[i]);
	}
}

TEST_F(baseline, wrong_machine)
{
	struct perf_identity other = self->id;
	struct perf_baseline b;

	ASSERT_EQ(0, perf_baseline_parse(self->text, &b, self->err, sizeof(self->err)));
	other.machine_id[0] = 'f';
	EXPECT_EQ(-EINVAL, perf_baseline_match(&b, &other, &self->set,
					       self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "another machine"));
	other = self->id;
	snprintf(other.cpu_model, sizeof(other.cpu_model), "AMD EPYC");
	EXPECT_EQ(-EINVAL, perf_baseline_match(&b, &other, &self->set,
					       self->err, sizeof(self->err)));
}

TEST_F(baseline, wrong_settings)
{
	struct perf_settings set;
	struct perf_baseline b;

	ASSERT_EQ(0, perf_baseline_parse(self->text, &b, self->err, sizeof(self->err)));
	set = self->set;
	set.icount = false;
	EXPECT_EQ(-EINVAL, perf_baseline_match(&b, &self->id, &set, self->err,
					       sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "other settings"));
	set = self->set;
	set.rounds = 5;
	EXPECT_EQ(-EINVAL, perf_baseline_match(&b, &self->id, &set, self->err, sizeof(self->err)));
	set = self->set;
	set.batch = 1;
	EXPECT_EQ(-EINVAL, perf_baseline_match(&b, &self->id, &set, self->err, sizeof(self->err)));
	set = self->set;
	set.msgs_per_round = 1024;
	EXPECT_EQ(-EINVAL, perf_baseline_match(&b, &self->id, &set, self->err, sizeof(self->err)));
}

TEST_F(baseline, truncated)
{
	size_t len = strlen(self->text), cut;
	struct perf_baseline b;

	/* every strict prefix must be rejected, never parsed as valid */
	for (cut = 0; cut < len; cut++) {
		char t[8192];

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
	snprintf(t, sizeof(t), "colour=blue\n%s", self->text);
	EXPECT_NE(0, perf_baseline_parse(t, &b, self->err, sizeof(self->err)));
	snprintf(t, sizeof(t), "rounds=15\n%s", self->text);
	EXPECT_NE(0, perf_baseline_parse(t, &b, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "duplicate"));
	EXPECT_NE(0, perf_baseline_parse("no equals sign\n", &b, NULL, 0));
	EXPECT_NE(0, perf_baseline_parse("", &b, NULL, 0));
}

static const char json_text[] =
	"{\n  \"format\": \"af_unix_send_perf/1\",\n  \"series\": [\n"
	"    {\"variant\": \"unconfined\", \"workload\": \"sendmmsg\", \"sock\": \"dgram\", \"msg_size\": 128, \"cv\": 0.001, \"validated_msgs\": 100, \"validation_failures\": 0, \"ns_per_msg\": [343.0, 344.0]},\n"
	"    {\"variant\": \"unconfined\", \"workload\": \"sendmmsg\", \"sock\": \"seqpacket\", \"msg_size\": 128, \"cv\": 0.002, \"validated_msgs\": 100, \"validation_failures\": 2, \"ns_per_msg\": [290.5]}\n"
	"  ]\n}\n";

TEST(json_series)
{
	struct perf_series s;

	ASSERT_EQ(0, perf_json_find(json_text, "unconfined", "sendmmsg",
				    "dgram", 128, &s));
	EXPECT_EQ(2UL, s.n);
	EXPECT_TRUE(NEAR(344.0, s.ns[1], 1e-12));
	EXPECT_EQ(100ULL, s.validated);
	ASSERT_EQ(0, perf_json_find(json_text, "unconfined", "sendmmsg",
				    "seqpacket", 128, &s));
	EXPECT_EQ(2ULL, s.failures);
	EXPECT_EQ(-ENOENT, perf_json_find(json_text, "old-abi", "sendmmsg",
					  "dgram", 128, &s));
	EXPECT_EQ(-ENOENT, perf_json_find(json_text, "unconfined", "sendmmsg",
					  "dgram", 256, &s));
	EXPECT_EQ(-EINVAL, perf_json_find("{\"ns_per_msg\": [1,\n", "unconfined",
					  "sendmmsg", "dgram", 128, &s));
}

TEST_HARNESS_MAIN
