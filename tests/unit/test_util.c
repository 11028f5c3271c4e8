/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* util/: the run's time (SOURCE_DATE_EPOCH) and the monotonic clock. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
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
