/* What each check reads of the model: the parts of host.h's RD_LOAD_* flags it needs, so that
 * `check --only X` reads only what X looks at.  A check missing from the table needs everything.
 * Ownership: nothing is allocated; the table is static. */
#ifndef RD_NEEDS_H
#define RD_NEEDS_H

/* The RD_LOAD_* parts check id needs (RD_LOAD_ALL when the table does not name it). */
unsigned rd_check_needs(const char *id);

#endif
