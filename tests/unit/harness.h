/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Minimal unit-test harness: every RD_TEST runs in its own forked process, so a crash in one
 * case is reported as that case's failure and the others still run.  Ownership: tests own
 * everything they allocate; the harness owns nothing of theirs. */
#ifndef RD_TEST_HARNESS_H
#define RD_TEST_HARNESS_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef void (*rd_test_fn)(void);
void rd_test_register(const char *name, rd_test_fn fn);
void rd_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* Directory of the project's test data (tests/), taken from $RD_TESTS_DIR or "tests". */
const char *rd_test_dir(void);
/* Directory of ../shared/fixtures/real, or NULL when it is absent. */
const char *rd_test_real_dir(void);
/* The exit status of a skipped case: the harness counts it apart from passes and failures. */
#define RD_TEST_SKIP_STATUS 77
/* Ends this case as skipped, printing reason on stderr (a plain clone has no ../shared). */
void rd_test_skip(const char *reason) __attribute__((noreturn));
/* rd_test_real_dir(), or ends this case as skipped naming the absent directory. */
const char *rd_test_real_dir_or_skip(void);
/* Makes a fresh directory $TMPDIR/NAME.XXXXXX (/tmp without TMPDIR), its path in buf; a path that
 * does not fit or a mkdtemp that fails ends the case as failed.  The caller removes it. */
char *rd_test_mkdtemp(char *buf, size_t len, const char *name);
/* True when a mapping of this process (/proc/self/maps) names what, e.g. "libarchive.so": a
 * library loaded on first use is not mapped before it. */
bool rd_test_mapped(const char *what);

#define RD_TEST(name)                                                        \
	static void name(void);                                              \
	__attribute__((constructor)) static void name##_register(void)      \
	{                                                                    \
		rd_test_register(#name, name);                               \
	}                                                                    \
	static void name(void)

#define CHECK(cond)                                                          \
	do {                                                                 \
		if (!(cond))                                                 \
			rd_test_fail(__FILE__, __LINE__, "%s", #cond);       \
	} while (0)

#define CHECK_INT(a, b)                                                      \
	do {                                                                 \
		long long a_ = (long long)(a), b_ = (long long)(b);          \
		if (a_ != b_)                                                \
			rd_test_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", \
				     #a, a_, b_);                            \
	} while (0)

#define CHECK_STR(a, b)                                                      \
	do {                                                                 \
		const char *a_ = (a), *b_ = (b);                             \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                       \
			rd_test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
				     #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif
