/* Unit tests of the pieces the layout clean-up of issue 13 made into one function each: the
 * catalogue renderer (render/catalogue.c), the check-id list matcher (checks/runner.c). */
#include <stdlib.h>

#include "checks/check.h"
#include "harness.h"
#include "render/catalogue.h"

static char *catalogue(bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	rd_catalogue_render(f, json);
	fclose(f);
	return buf;
}

RD_TEST(catalogue_text_three_lines_a_check)
{
	char *t = catalogue(false);
	size_t lines = 0, checks = 0;
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		checks++;
		CHECK(strstr(t, c->id) != NULL);
	}
	CHECK(checks > 0);
	CHECK_INT(lines, 3 * checks);
	CHECK(strncmp(t, "stack.flavor ", 13) == 0);
	CHECK(strstr(t, "\n    detects: ") && strstr(t, "\n    reads:   "));
	free(t);
}

RD_TEST(catalogue_json_schema_and_every_id)
{
	char *j = catalogue(true);
	CHECK(strstr(j, "\"schema\": \"rdma-doctor/checks/v1\"") != NULL);
	for (const struct rd_check *c = rd_checks; c->id; c++) {
		char want[128];
		snprintf(want, sizeof want, "\"id\": \"%s\"", c->id);
		CHECK(strstr(j, want) != NULL);
	}
	free(j);
}

/* One matcher of check-id lists, for the runner and for check's option validation. */
RD_TEST(check_selected_ids_and_prefixes)
{
	CHECK(rd_check_selected("ports.rate", "ports.rate"));
	CHECK(rd_check_selected("ports.rate", "ports"));
	CHECK(rd_check_selected("ports.rate", "stack.flavor,ports"));
	CHECK(rd_check_selected("ports.rate", "stack,,ports.rate"));
	CHECK(!rd_check_selected("ports.rate", "port"));
	CHECK(!rd_check_selected("ports.rate", "ports."));
	CHECK(!rd_check_selected("ports.rate", "ports.rate.x"));
	CHECK(!rd_check_selected("ports.rate", "ports.ra"));
	CHECK(!rd_check_selected("ports.rate", ""));
	CHECK(!rd_check_selected("ports.rate", NULL));
	CHECK(!rd_check_selected("ports.rate", ","));
}
