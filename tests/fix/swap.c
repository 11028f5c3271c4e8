/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Race helper for tests/fix/run.sh: exchanges two directory entries (renameat2 RENAME_EXCHANGE)
 * as fast as it can until killed, e.g. a file and a link to a file outside the root, so that a
 * fix that checks an entry and then acts on its name meets the other one.  Built by the test. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: swap A B\n");
		return 2;
	}
	for (;;)
		if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) < 0) {
			perror("renameat2");
			return 1;
		}
}
