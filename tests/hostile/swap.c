/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* swap PATH-A PATH-B [PATH-A PATH-B ...]: exchanges each pair of names atomically
 * (renameat2 RENAME_EXCHANGE) in a tight loop until killed, so that a directory of a root and a
 * symbolic link out of it take turns under one name.  Built and run by tests/hostile/run.sh. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3 || argc % 2 != 1) {
		fprintf(stderr, "usage: %s PATH-A PATH-B [PATH-A PATH-B ...]\n", argv[0]);
		return 2;
	}
	for (unsigned long n = 0;; n++)
		for (int i = 1; i + 1 < argc; i += 2)
			if (syscall(SYS_renameat2, AT_FDCWD, argv[i], AT_FDCWD, argv[i + 1], 2 /* RENAME_EXCHANGE */) < 0) {
				perror("renameat2");
				return 1;
			}
}
