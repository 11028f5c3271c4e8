/* Fuzz target: snapshot archives (.tar.gz and .tar) extracted into a scratch directory. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source/archive.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	if (!dir[0]) {
		/* tmpfs when there is one: each input is extracted, then removed */
		snprintf(dir, sizeof dir, "%s/rd-fuzz-archive.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	int in = memfd_create("archive", MFD_CLOEXEC);
	if (in < 0 || write(in, data, size) != (ssize_t)size || lseek(in, 0, SEEK_SET) != 0)
		abort();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char err[256];
	rd_archive_extract(in, dfd, err, sizeof err);
	close(in);
	/* empty the scratch directory for the next input */
	int again = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dfd);
	rd_remove_tree(AT_FDCWD, dir);
	mkdir(dir, 0700);
	close(again);
	return 0;
}
