/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The catalogue table, generated from checks/catalogue.h. */
#include "checks/catalogue.h"

#include <string.h>

#define ENTRY(fn, id, kind, needs, title, detects, evidence) {id, kind, title, detects, evidence, needs, rd_check_##fn},
const struct rd_check rd_checks[] = {RD_CHECKS(ENTRY){NULL, RD_SUBJ_HOST, NULL, NULL, NULL, 0, NULL}};

unsigned rd_check_needs(const char *id)
{
	for (const struct rd_check *c = rd_checks; c->id; c++)
		if (strcmp(c->id, id) == 0)
			return c->needs;
	return RD_LOAD_ALL;
}
