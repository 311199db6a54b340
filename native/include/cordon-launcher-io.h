/*
 * cordon-launcher-io.h — what the Linux and macOS launchers do the same
 * way (native/common/launcher-io.c): read their command line's descriptor
 * arguments, read the plan to end of file, and write status records (one
 * JSON object per line, field names from cordon-wire.h).
 */
#ifndef CORDON_LAUNCHER_IO_H
#define CORDON_LAUNCHER_IO_H

#include <stddef.h>

/* The descriptor after `flag` in argv, or -1 (which each launcher refuses,
 * as it refuses 0..2: the plan and status must not be the command's stdio). */
int cordon_fd_arg(int argc, char **argv, const char *flag);

/* Everything readable from fd, NUL-terminated, malloc'd; NULL with errno
 * (EFBIG above CORDON_MAX_PLAN_BYTES: a plan is kilobytes, and the launcher
 * refuses absurd input rather than read without bound). */
char *cordon_read_all(int fd, size_t *len);

/* One status record being written. Bounded: the longest (an error with a
 * 600-byte escaped detail) fits with room to spare. */
struct cordon_record {
  char buf[1024];
  size_t n;
};
void cordon_record_int(struct cordon_record *r, const char *name, long long v);
void cordon_record_bool(struct cordon_record *r, const char *name, int v);
/* A u64 mask as a hex string: a JSON number (a double) would lose bits above 2^53. */
void cordon_record_hex(struct cordon_record *r, const char *name, unsigned long long v);
/* JSON-escaped: a detail may be a path or a compiler message with quotes or control characters. */
void cordon_record_str(struct cordon_record *r, const char *name, const char *s);
/* Close the object, write the line to fd (best effort: a caller that went away cannot be told). */
void cordon_record_send(int fd, struct cordon_record *r);

/* The error record ("ok": false) of both launchers: the failing step, the
 * call, errno and the detail. */
struct cordon_err;
void cordon_record_error(int fd, const struct cordon_err *e);

#endif
