/* The catalogue table, generated from checks/catalogue.h. */
#include "checks/catalogue.h"

#define ENTRY(fn, id, title, detects, evidence) {id, title, detects, evidence, rd_check_##fn},
const struct rd_check rd_checks[] = {RD_CHECKS(ENTRY){NULL, NULL, NULL, NULL, NULL}};
