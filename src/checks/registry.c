/* The catalogue table, generated from checks/catalogue.h. */
#include "checks/catalogue.h"

#define ENTRY(fn, id, kind, title, detects, evidence) {id, kind, title, detects, evidence, rd_check_##fn},
const struct rd_check rd_checks[] = {RD_CHECKS(ENTRY){NULL, RD_SUBJ_HOST, NULL, NULL, NULL, NULL}};
