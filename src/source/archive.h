/* Ownership: the caller owns every descriptor and buffer passed in; these functions never close
 * the caller's descriptors and free everything they allocate before returning.
 *
 * A self-contained tar.gz reader and writer (gzip per RFC 1952 around DEFLATE per RFC 1951;
 * ustar, GNU and pax tar dialects) that needs nothing but libc.  The library never prints. */
#ifndef RD_SOURCE_ARCHIVE_H
#define RD_SOURCE_ARCHIVE_H

#include <stddef.h>

/* Extract a tar archive, gzip-compressed (detected by the 1f 8b magic) or plain, read from in_fd
 * into the existing directory dest_dirfd. Returns 0 or a negative errno; on failure writes a
 * one-line reason (naming the entry) into err. */
int rd_archive_extract(int in_fd, int dest_dirfd, char *err, size_t errlen);

/* Write the whole tree under src_dirfd as a gzip-compressed tar archive to out_fd. */
int rd_archive_create(int src_dirfd, int out_fd, char *err, size_t errlen);

#endif
