/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: NCCL's conf-file lines (model/ncclconf.c) and its NCCL_IB_HCA lists, on any bytes.
 * Every variable kept has a non-empty name without '=' and a name and value of at most 1023
 * bytes, names are distinct, and a list has at most 32 entries, each with a non-empty name.
 * The same bytes as a process's environ block: only NCCL_* and HOME are kept, names distinct, and
 * the kept block is no longer than the input and holds each kept entry. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/ncclconf.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_nccl_conf c = {0};
	rd_nccl_conf_parse(&c, "/etc/nccl.conf", (const char *)data, size);
	for (size_t i = 0; i < c.n; i++) {
		size_t nl = strlen(c.vars[i].name), vl = strlen(c.vars[i].value);
		if (!nl || nl > 1023 || vl > 1023 || strchr(c.vars[i].name, '='))
			abort();
		for (size_t k = 0; k < i; k++)
			if (strcmp(c.vars[i].name, c.vars[k].name) == 0)
				abort();
		struct rd_nccl_list l;
		rd_nccl_list_parse(c.vars[i].value, &l);
		if (l.n > RD_NCCL_LIST_MAX)
			abort();
		for (int e = 0; e < l.n; e++)
			if (!l.e[e].prefix[0] || strlen(l.e[e].prefix) >= RD_NCCL_PREFIX_MAX)
				abort();
		(void)rd_nccl_list_selects(&l, "mlx5_0", 1);
	}
	c.nfiles = 0;
	rd_nccl_conf_free(&c);

	struct rd_nccl_conf e = {0};
	char *kept = malloc(size + 1);
	if (!kept)
		return 0;
	size_t n = rd_nccl_environ_parse(&e, "env", (const char *)data, size, kept);
	if (n > size + 1)
		abort();
	for (size_t i = 0; i < e.n; i++) {
		const char *name = e.vars[i].name;
		if (strncmp(name, "NCCL_", 5) != 0 && strcmp(name, "HOME") != 0)
			abort();
		if (strncmp(name, "NCCL_", 5) == 0 && !name[5])
			abort();
		for (size_t k = 0; k < i; k++)
			if (strcmp(name, e.vars[k].name) == 0)
				abort();
		if (!memmem(kept, n, name, strlen(name)))
			abort();
	}
	free(kept);
	rd_nccl_conf_free(&e);
	return 0;
}
