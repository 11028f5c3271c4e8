/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "probe/verbs.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int rd_verbs_load(struct rd_verbs *v, char *err, size_t len, bool *missing)
{
	memset(v, 0, sizeof *v);
	*missing = false;
	dlerror();
	v->handle = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!v->handle) {
		const char *e = dlerror();
		snprintf(err, len, "%s", e ? e : "dlopen failed");
		return -1;
	}
	void *first = NULL;
#define RD_VERBS_LOAD(name, ret, args)                                                                \
	if (!*missing) {                                                                              \
		void *sym = dlsym(v->handle, "ibv_" #name);                                           \
		if (!sym) {                                                                           \
			const char *e = dlerror();                                                    \
			snprintf(err, len, "%s", e ? e : "ibv_" #name " is missing");                 \
			*missing = true;                                                              \
		} else {                                                                              \
			v->name = (ret(*) args)sym;                                                   \
			first = first ? first : sym;                                                  \
			v->nsyms++;                                                                   \
		}                                                                                     \
	}
	RD_VERBS_SYMS(RD_VERBS_LOAD)
#undef RD_VERBS_LOAD
	if (*missing) {
		dlclose(v->handle);
		v->handle = NULL;
		return -1;
	}
	Dl_info info;
	if (first && dladdr(first, &info) && info.dli_fname)
		snprintf(v->library, sizeof v->library, "%s", info.dli_fname);
	return 0;
}

void rd_verbs_unload(struct rd_verbs *v)
{
	if (v->handle)
		dlclose(v->handle);
	v->handle = NULL;
}

int rd_verbs_query_port(const struct rd_verbs *v, struct ibv_context *ctx, unsigned port, struct ibv_port_attr *pa)
{
	memset(pa, 0, sizeof *pa);
	errno = 0;
	return v->query_port(ctx, (uint8_t)port, (struct _compat_ibv_port_attr *)(void *)pa);
}

int rd_verbs_err(int ret)
{
	if (ret > 0)
		return ret;
	if (ret < -1)
		return -ret;
	return errno > 0 ? errno : EIO;
}
