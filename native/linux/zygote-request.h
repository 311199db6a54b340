/*
 * zygote-request.h — the zygote's request protocol (cordon-wire.h has the
 * constants): one SOCK_SEQPACKET message of NUL-terminated fields, with the
 * child's descriptors attached as SCM_RIGHTS (unix(7)).
 *
 *   "L\0" UMASK "\0" NCG "\0"                 + 5 fds   run the launcher on fds 0..4
 *   "X\0" UMASK "\0" NCG "\0" FILE "\0" ARGS… + ≥5 fds  execve FILE ARGS… on fds 0..n-1
 *     (either: NCG more fds at the end, open cgroup.procs files the child
 *     joins before anything else runs; they are never passed on)
 *   "K\0" PID "\0" SIG "\0" g|p "\0"           signal a child not yet reaped:
 *                                              its process group, or it alone
 *   "J\0"                          + 1..NCG fds  the waiting spare joins these
 *                                              cgroups now (ahead of its launch)
 *   "J\0"                          + no fds      replace the spare by a new one
 *   "V\0"                                        the protocol this zygote speaks
 *
 * Receiving (with the sender's credentials), parsing into a checked view,
 * and sending a request on (the zygote hands each one to its spare) live
 * here; what the zygote does with a request is zygote.c and zygote-child.c.
 */
#ifndef CORDON_ZYGOTE_REQUEST_H
#define CORDON_ZYGOTE_REQUEST_H

#include <stddef.h>
#include <sys/types.h>
#include "cordon-wire.h"

/* One message as received: its bytes (NUL-terminated one past `len`) and
 * the descriptors that came with it, owned until closed or handed on. */
struct zy_request {
  char *buf;
  size_t cap, len;
  int fds[CORDON_MAX_REQUEST_FDS];
  size_t nfds;
};

enum zy_kind { ZY_LAUNCH, ZY_EXEC, ZY_KILL, ZY_JOIN, ZY_VERSION };

/* A parsed request: pointers into the request's buffer. */
struct zy_parsed {
  enum zy_kind kind;
  mode_t umask;     /* L, X: the caller's umask */
  size_t ncg;       /* L, X: the last `ncg` descriptors are cgroup.procs files to join; J: all of them */
  char **argv;      /* X: FILE ARGS…, NULL-terminated */
  pid_t pid;        /* K */
  int sig;          /* K */
  int group;        /* K: 1 for the process group, 0 for the child alone */
  char *fields[CORDON_MAX_REQUEST_FIELDS + 2];
  size_t nfields;
};

/* A buffer for the largest request; 0, or -1 with errno. */
int zy_request_init(struct zy_request *r);

/* One message; with `sender` > 0, a message sent by any other process is
 * refused (EPERM; needs SO_PASSCRED on `sock`). A truncated message or
 * descriptor list is refused (EMSGSIZE). Returns its length, 0 when the
 * peer closed the socket, or -1 with errno. */
ssize_t zy_request_receive(int sock, struct zy_request *r, pid_t sender);

/* Check a request and split it into `out`: 0, or -errno (-E2BIG: too many
 * fields; -EINVAL: malformed, or not the descriptors its kind takes;
 * -ESRCH: a kill that names no valid target). */
int zy_request_parse(struct zy_request *r, struct zy_parsed *out);

/* Whether the request is a join (its first field is "J"), parsed or not: a join is never answered. */
int zy_request_is_join(const struct zy_request *r);

/* Send the request, bytes and descriptors, on `sock`: 0, or -1 with errno. */
int zy_request_send(int sock, const struct zy_request *r);

/* Close the descriptors the request still holds. */
void zy_request_close_fds(struct zy_request *r);

#endif
