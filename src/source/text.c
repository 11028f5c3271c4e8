/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A read's result (text.h). */
#include "source/text.h"

#include <stdlib.h>

void rd_text_free(struct rd_text *t)
{
	free(t->data);
	t->data = NULL;
	t->len = 0;
}
