/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* util/: the run's time (SOURCE_DATE_EPOCH) and the monotonic clock. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util/map.h"
#include "util/util.h"

RD_TEST(run_time_is_source_date_epoch_when_a_number)
{
	setenv("SOURCE_DATE_EPOCH", "1764460800", 1);
	CHECK_INT(rd_run_time(), 1764460800);
	setenv("SOURCE_DATE_EPOCH", "0", 1);
	CHECK_INT(rd_run_time(), 0);
}

RD_TEST(run_time_is_now_when_source_date_epoch_is_not_a_number)
{
	const char *bad[] = {"", "12abc", "-5", "abc"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("SOURCE_DATE_EPOCH", bad[i], 1);
		long long t0 = (long long)time(NULL), t = rd_run_time();
		CHECK(t >= t0 && t <= t0 + 2);
	}
	unsetenv("SOURCE_DATE_EPOCH");
	long long t0 = (long long)time(NULL);
	CHECK(rd_run_time() >= t0);
}

RD_TEST(mono_ms_counts_milliseconds)
{
	long long a = rd_mono_ms();
	usleep(20000);
	long long b = rd_mono_ms();
	CHECK(b - a >= 20 && b - a < 2000);
}

RD_TEST(map_keys_are_the_bytes_given)
{
	struct rd_map m = {0};
	bool isnew = false;
	rd_map_put(&m, "ab", 2, &isnew)->val.ix = 1;
	CHECK(isnew);
	rd_map_put(&m, "abc", 3, &isnew)->val.ix = 2;
	CHECK(isnew);
	rd_map_put(&m, "a\0b", 3, &isnew)->val.ix = 3; /* a key may hold a NUL */
	CHECK(isnew);
	rd_map_put(&m, "abcd", 2, &isnew)->val.ix = 4; /* only the first len bytes are the key */
	CHECK(!isnew);
	CHECK_INT(m.n, 3);
	CHECK_INT(rd_map_get(&m, "ab", 2)->val.ix, 4);
	CHECK_INT(rd_map_get(&m, "abc", 3)->val.ix, 2);
	CHECK_INT(rd_map_get(&m, "a\0b", 3)->val.ix, 3);
	CHECK(rd_map_get(&m, "a", 1) == NULL);
	CHECK(rd_map_get(&m, "abcd", 4) == NULL);
	CHECK_STR(rd_map_get(&m, "abc", 3)->key, "abc");
	rd_map_free(&m, NULL);
	CHECK(m.n == 0 && m.cap == 0 && rd_map_get(&m, "ab", 2) == NULL);
}

RD_TEST(map_grows_and_keeps_every_key)
{
	struct rd_map m = {0};
	char k[32];
	for (size_t i = 0; i < 5000; i++) {
		int n = snprintf(k, sizeof k, "key%zu", i);
		rd_map_put(&m, k, (size_t)n, NULL)->val.p = rd_xasprintf("v%zu", i);
	}
	CHECK_INT(m.n, 5000);
	CHECK(m.n * 4 <= m.cap * 3);
	for (size_t i = 0; i < 5000; i++) {
		int n = snprintf(k, sizeof k, "key%zu", i);
		struct rd_map_slot *s = rd_map_get(&m, k, (size_t)n);
		CHECK(s != NULL);
		char want[32];
		snprintf(want, sizeof want, "v%zu", i);
		CHECK_STR(s->val.p, want);
	}
	rd_map_free(&m, free); /* valgrind and ASan see the values freed */
}
