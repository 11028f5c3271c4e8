/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The text printing path (control characters made visible), JSON string escaping, the report's
 * summary label, UTC without tzdata, the locale test and plurals. */
#include <stdlib.h>
#include <string.h>

#include "checks/check.h"
#include "harness.h"
#include "render/out.h"
#include "render/report.h"
#include "util/util.h"

static char *visible(const char *s, size_t n, bool ascii)
{
	struct rd_buf b = {0};
	rd_buf_put_visible(&b, s, n, ascii);
	return rd_buf_steal(&b);
}

RD_TEST(visible_controls_and_utf8)
{
	char *v = visible("a\x1b[31mb\nc\td\x7f", 12, false);
	CHECK_STR(v, "a\\x1b[31mb\\x0ac\\x09d\\x7f");
	free(v);
	v = visible("x\x9by", 3, false); /* a raw C1 byte: invalid UTF-8 */
	CHECK_STR(v, "x\\x9by");
	free(v);
	v = visible("x\xc2\x9by", 4, false); /* U+009B CSI, valid UTF-8 */
	CHECK_STR(v, "x\\xc2\\x9by");
	free(v);
	v = visible("caf\xc3\xa9 \xe2\x9c\x94", 9, false); /* é and ✔ are kept */
	CHECK_STR(v, "caf\xc3\xa9 \xe2\x9c\x94");
	free(v);
	v = visible("caf\xc3\xa9", 5, true); /* not a UTF-8 terminal */
	CHECK_STR(v, "caf\\xc3\\xa9");
	free(v);
	v = visible("a\xe2\x80\xae" "b", 5, false); /* RIGHT-TO-LEFT OVERRIDE */
	CHECK_STR(v, "a\\u202eb");
	free(v);
	v = visible("\xe2\x9c", 2, false); /* a cut sequence */
	CHECK_STR(v, "\\xe2\\x9c");
	free(v);
	v = visible("a\0b", 3, false);
	CHECK_STR(v, "a\\x00b");
	free(v);
	v = visible("printf '[Service]\\n' > f", 24, false); /* a backslash stays: fixes are typed */
	CHECK_STR(v, "printf '[Service]\\n' > f");
	free(v);
}

static char *printed(bool ascii, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *printed(bool ascii, const char *fmt, ...)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	va_list ap;
	va_start(ap, fmt);
	rd_text_vprintf(f, ascii, fmt, ap);
	va_end(ap);
	fclose(f);
	return data;
}

RD_TEST(text_printf_escapes_only_arguments)
{
	char *s = printed(false, "\033[1m%-8s|%5zu|%.*s|%c|%lld|%%|%s\n", "dev\n", (size_t)42, 3, "abcdef", '\a', -7LL,
			  "ok");
	CHECK_STR(s, "\033[1mdev\\x0a |   42|abc|\\x07|-7|%|ok\n");
	free(s);
	s = printed(false, "%.2s|%-6.1s|%3d|%x|%u", "\x1bxyz", "ab", 5, 255u, 7u);
	CHECK_STR(s, "\\x1bx|a     |  5|ff|7");
	free(s);
}

static char *json_string(const char *in)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&data, &len);
	rd_json_write_string(f, in);
	fclose(f);
	return data;
}

RD_TEST(json_escaping)
{
	char *j = json_string("a\"b\\c\n\t\r\x01\x1b\x7f");
	CHECK_STR(j, "\"a\\\"b\\\\c\\n\\t\\r\\u0001\\u001b\\u007f\"");
	free(j);
	j = json_string("x\x9b\xffy\xc3\xa9\xe2\x9c"); /* invalid bytes are U+FFFD; é kept */
	CHECK_STR(j, "\"x\\ufffd\\ufffdy\xc3\xa9\\ufffd\\ufffd\"");
	free(j);
	j = json_string("a\xc2\x9b" "b\xc2\xa0"); /* U+009B escaped, U+00A0 kept */
	CHECK_STR(j, "\"a\\u009bb\xc2\xa0\"");
	free(j);
}

RD_TEST(utc_without_tzdata)
{
	char b[32];
	CHECK_STR(rd_utc_iso8601(0, b, sizeof b), "1970-01-01T00:00:00Z");
	CHECK_STR(rd_utc_iso8601(1764460800, b, sizeof b), "2025-11-30T00:00:00Z");
	CHECK_STR(rd_utc_iso8601(951782400, b, sizeof b), "2000-02-29T00:00:00Z");
	CHECK_STR(rd_utc_iso8601(4107542399LL, b, sizeof b), "2100-02-28T23:59:59Z");
	CHECK_STR(rd_utc_iso8601(-1, b, sizeof b), "1969-12-31T23:59:59Z");
}

RD_TEST(locale_from_environment)
{
	unsetenv("LC_ALL");
	unsetenv("LC_CTYPE");
	unsetenv("LANG");
	CHECK(rd_env_locale_utf8()); /* nothing set: as before */
	setenv("LANG", "C.UTF-8", 1);
	CHECK(rd_env_locale_utf8());
	setenv("LC_CTYPE", "en_US.utf8@euro", 1);
	CHECK(rd_env_locale_utf8());
	setenv("LC_ALL", "C", 1);
	CHECK(!rd_env_locale_utf8());
	setenv("LC_ALL", "", 1); /* empty: the next one counts */
	CHECK(rd_env_locale_utf8());
	setenv("LC_CTYPE", "en_US.ISO-8859-1", 1);
	CHECK(!rd_env_locale_utf8());
	setenv("LC_CTYPE", "POSIX", 1);
	CHECK(!rd_env_locale_utf8());
	setenv("LC_CTYPE", "de_DE", 1);
	CHECK(!rd_env_locale_utf8());
}

RD_TEST(plural)
{
	char b[32];
	CHECK_STR(rd_plural(1, "module", "modules", b, sizeof b), "1 module");
	CHECK_STR(rd_plural(0, "module", "modules", b, sizeof b), "0 modules");
	CHECK_STR(rd_plural(2, "line that is", "lines that are", b, sizeof b), "2 lines that are");
}

RD_TEST(summary_label_agrees_with_counts)
{
	struct rd_report r = {0};
	struct rd_report_meta m = {.no_hardware = true};
	rd_report_add(&r, "memlock.limit", RD_SUBJ_SERVICE, RD_OK, "host", "fine");
	CHECK_INT(rd_report_summary_status(&r, &m), RD_UNKNOWN); /* nothing to check */
	rd_report_add(&r, "probe.loopback", RD_SUBJ_HOST, RD_FAIL, "host", "no RDMA device");
	CHECK_INT(rd_report_summary_status(&r, &m), RD_FAIL); /* not "UNKNOWN: 1 failed" */
	m.no_hardware = false;
	CHECK_INT(rd_report_summary_status(&r, &m), RD_FAIL);
	rd_report_free(&r);
	struct rd_report w = {0};
	rd_report_add(&w, "memlock.limit", RD_SUBJ_SERVICE, RD_WARN, "host", "8 MiB");
	rd_report_add(&w, "kernel.log", RD_SUBJ_LOG, RD_SKIP, "host", "skipped");
	m.no_hardware = true;
	CHECK_INT(rd_report_summary_status(&w, &m), RD_WARN);
	rd_report_free(&w);
}
