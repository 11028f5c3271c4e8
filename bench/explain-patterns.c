/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Prints every pattern of the explain signature table, one a line, escaped for grep -E: the
 * yardstick bench/explain.sh gives `grep -c -i -E -f`.  Built by bench/explain.sh against
 * build/librdmadoctor.a. */
#include <stdio.h>
#include <string.h>

#include "explain/explain.h"

static void put(const char *p)
{
	for (; *p; p++) {
		if (strchr("\\.[]()*+?{}|^$", *p))
			putchar('\\');
		putchar(*p);
	}
	putchar('\n');
}

int main(void)
{
	for (const struct rd_signature *s = rd_signatures; s->id; s++) {
		for (int a = 0; a < 3 && s->all[a]; a++)
			put(s->all[a]);
		if (s->near)
			put(s->near);
	}
	return 0;
}
