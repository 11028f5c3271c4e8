/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A stand-in for librpm.so.9 for tests/unit/test_rpmdb.c: the functions model/rpmdb.c looks up,
 * behaving as RD_RPMSHIM says: "hang" (rpmtsOpenDB never returns), "crash" (SIGSEGV in it),
 * "error" (it logs an error and fails), "two" (two packages, one of them known).  Test code only. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmts.h>

static int dummy;
static int next;
static rpmlogCallback cb;

int rpmDefineMacro(rpmMacroContext mc, const char *macro, int level)
{
	(void)mc, (void)macro, (void)level;
	return 0;
}
rpmts rpmtsCreate(void) { return (rpmts)&dummy; }
int rpmtsSetRootDir(rpmts ts, const char *rootDir)
{
	(void)ts;
	return access(rootDir, F_OK) == 0 ? 0 : -1;
}
rpmVSFlags rpmtsSetVSFlags(rpmts ts, rpmVSFlags vsflags)
{
	(void)ts;
	return vsflags;
}
int rpmtsOpenDB(rpmts ts, int dbmode)
{
	(void)ts, (void)dbmode;
	const char *m = getenv("RD_RPMSHIM");
	if (m && strcmp(m, "hang") == 0)
		for (;;)
			pause();
	if (m && strcmp(m, "crash") == 0)
		raise(SIGSEGV);
	if (m && strcmp(m, "error") == 0) {
		if (cb)
			cb((rpmlogRec)&dummy, NULL);
		return 1;
	}
	return 0;
}
rpmdbMatchIterator rpmtsInitIterator(const rpmts ts, rpmDbiTagVal rpmtag, const void *keyp, size_t keylen)
{
	(void)ts, (void)rpmtag, (void)keyp, (void)keylen;
	next = 0;
	return (rpmdbMatchIterator)&dummy;
}
Header rpmdbNextIterator(rpmdbMatchIterator mi)
{
	(void)mi;
	return next < 2 ? (Header)(intptr_t)(++next) : NULL;
}
rpmdbMatchIterator rpmdbFreeIterator(rpmdbMatchIterator mi)
{
	(void)mi;
	return NULL;
}
const char *headerGetString(Header h, rpmTagVal tag)
{
	int n = (int)(intptr_t)h;
	switch (tag) {
	case RPMTAG_NAME: return n == 1 ? "rdma-core" : "bash";
	case RPMTAG_VERSION: return n == 1 ? "48.0\tx" : "5.1.8"; /* a tab: sent as '?' */
	case RPMTAG_RELEASE: return "1.el9";
	case RPMTAG_ARCH: return "x86_64";
	default: return NULL;
	}
}
uint64_t headerGetNumber(Header h, rpmTagVal tag)
{
	(void)h;
	return tag == RPMTAG_EPOCH ? 0 : 0;
}
rpmts rpmtsFree(rpmts ts)
{
	(void)ts;
	return NULL;
}
rpmlogCallback rpmlogSetCallback(rpmlogCallback c, rpmlogCallbackData data)
{
	(void)data;
	cb = c;
	return NULL;
}
const char *rpmlogRecMessage(rpmlogRec rec)
{
	(void)rec;
	return "cannot open Packages database in /x\n";
}
rpmlogLvl rpmlogRecPriority(rpmlogRec rec)
{
	(void)rec;
	return RPMLOG_ERR;
}
