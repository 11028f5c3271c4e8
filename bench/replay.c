/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The floor of a read of a root (bench/check.sh): opens, reads to the end and closes each file,
 * and lists each directory, that a list names, relative to ROOT, with nothing else: no
 * confinement, no check of what a file is, no parsing.  Built static (no dynamic loader).
 * LIST: one entry a line, "f PATH" (a file read) or "d PATH" (a directory listed).
 * Usage: replay ROOT LIST      Exits 0, or 1 when ROOT or LIST cannot be opened. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static char list[1 << 20];
static char buf[1 << 16] __attribute__((aligned(8)));

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int lf = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (root < 0 || lf < 0)
		return 1;
	size_t len = 0;
	for (ssize_t n; len < sizeof list - 1 && (n = read(lf, list + len, sizeof list - 1 - len)) > 0;)
		len += (size_t)n;
	close(lf);
	list[len] = '\0';
	for (char *line = list, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (line[0] == 'd' && line[1] == ' ') {
			int fd = openat(root, line + 2, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd >= 0) {
				while (getdents64(fd, buf, sizeof buf) > 0)
					;
				close(fd);
			}
		} else if (line[0] == 'f' && line[1] == ' ') {
			int fd = openat(root, line + 2, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0) {
				while (read(fd, buf, sizeof buf) > 0)
					;
				close(fd);
			}
		}
	}
	return 0;
}
