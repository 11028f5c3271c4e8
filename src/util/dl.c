/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "util/dl.h"

#include <dlfcn.h>

#include "util/util.h"

int rd_dl_load(const char *soname, const char *package, const char *need, const char *const names[], void *syms[],
	       size_t n, char *err, size_t errlen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		rd_set_err(err, errlen, "%s (apt-get install %s)", e ? e : "dlopen failed", package);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		syms[i] = dlsym(h, names[i]);
		if (!syms[i]) {
			rd_set_err(err, errlen, "%s has no function %s (%s)", soname, names[i], need);
			dlclose(h);
			return -1;
		}
	}
	return 0;
}
