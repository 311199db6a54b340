/*
 * zygote-request.c — receive, check and pass on one zygote request
 * (zygote-request.h has the format).
 *
 * The request socket is a capability: whoever can send on it can have the
 * zygote fork and exec. So the sender is checked against the caller by the
 * credentials the kernel attaches (not by anything in the message), the
 * descriptors arrive close-on-exec so none can leak into an unrelated
 * child, and anything malformed, truncated or oversized is refused whole.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cordon.h"
#include "zygote-request.h"

int zy_request_init(struct zy_request *r) {
  memset(r, 0, sizeof *r);
  /* One byte more than the largest request: it always ends in a NUL. Pages
   * a request never touches cost nothing (the spare holds one too). */
  r->buf = malloc(CORDON_MAX_REQUEST_BYTES + 1);
  r->cap = CORDON_MAX_REQUEST_BYTES;
  return r->buf ? 0 : -1;
}

void zy_request_close_fds(struct zy_request *r) {
  for (size_t i = 0; i < r->nfds; i++) close(r->fds[i]);
  r->nfds = 0;
}

static void take_rights(struct zy_request *r, const struct cmsghdr *c) {
  size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
  for (size_t i = 0; i < k; i++) {
    int fd;
    memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    if (r->nfds < CORDON_MAX_REQUEST_FDS) r->fds[r->nfds++] = fd;
    else close(fd); /* more than a request carries: not kept, not leaked */
  }
}

/* The descriptors, and the sender's credentials (SCM_CREDENTIALS, unix(7)):
 * the kernel fills those in from the sending process, which cannot forge
 * another pid without CAP_SYS_ADMIN. */
static pid_t take_control(struct zy_request *r, struct msghdr *msg) {
  struct ucred who = {0, 0, 0};
  for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) take_rights(r, c);
    else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof who)) memcpy(&who, CMSG_DATA(c), sizeof who);
  }
  return who.pid;
}

/* If the request socket ever reached another process (a sandboxed command
 * above all), what that process sends is refused: the zygote then stops
 * serving (zygote.c). MSG_CMSG_CLOEXEC: descriptors arrive close-on-exec. */
ssize_t zy_request_receive(int sock, struct zy_request *r, pid_t sender) {
  union {
    char buf[CMSG_SPACE(sizeof(int) * CORDON_MAX_REQUEST_FDS) + CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } ctl;
  struct iovec iov = {r->buf, r->cap};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  ssize_t n;
  r->nfds = 0;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC); while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  pid_t who = take_control(r, &msg);
  if (sender > 0 && who != sender) { zy_request_close_fds(r); errno = EPERM; return -1; }
  /* The bytes received are kept even when truncated: a truncated join must
   * still be known for one (it gets no answer, zy_request_is_join). */
  r->len = (size_t)n;
  r->buf[n] = 0; /* buf has cap + 1 bytes */
  /* A truncated message or descriptor list is not a request we understood. */
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) { zy_request_close_fds(r); errno = EMSGSIZE; return -1; }
  return n;
}

/* Split "A\0B\0C\0" into fields; returns how many (at most `max`). */
static size_t split_fields(struct zy_request *r, char **out, size_t max) {
  size_t n = 0;
  for (size_t at = 0; at < r->len && n < max; at += strlen(r->buf + at) + 1) out[n++] = r->buf + at;
  return n;
}

/* A whole decimal or octal number in [lo, hi], or -1. */
static long whole_number(const char *s, int base, long lo, long hi) {
  char *end;
  if (!*s) return -1;
  errno = 0;
  long v = strtol(s, &end, base);
  return errno || *end || v < lo || v > hi ? -1 : v;
}

static int parse_spawn(const struct zy_request *r, struct zy_parsed *out, enum zy_kind kind) {
  long mask = out->nfields >= 3 ? whole_number(out->fields[1], 8, 0, 0777) : -1;
  long ncg = out->nfields >= 3 ? whole_number(out->fields[2], 10, 0, CORDON_MAX_CGROUP_FDS) : -1;
  if (mask < 0 || ncg < 0 || (size_t)ncg > r->nfds) return -EINVAL;
  /* The launcher takes exactly its five descriptors; bwrap also the bind
   * sources after them. The cgroup.procs files come last and are counted
   * apart, so a bind source can never be taken for one (or the reverse). */
  size_t own = r->nfds - (size_t)ncg;
  int fds_ok = kind == ZY_EXEC ? own >= CORDON_CHILD_FDS : own == CORDON_CHILD_FDS;
  if (!fds_ok || (kind == ZY_EXEC && out->nfields < 4)) return -EINVAL;
  out->kind = kind;
  out->umask = (mode_t)mask;
  out->ncg = (size_t)ncg;
  out->argv = kind == ZY_EXEC ? out->fields + 3 : NULL;
  return 0;
}

/* The zygote checks that the pid is a live child of its own (zygote.c). */
static int parse_kill(const struct zy_request *r, struct zy_parsed *out) {
  if (r->nfds != 0) return -EINVAL; /* a kill carries nothing */
  if (out->nfields != 4) return -ESRCH;
  const char *scope = out->fields[3];
  out->kind = ZY_KILL;
  out->pid = (pid_t)whole_number(out->fields[1], 10, 1, 1L << 30);
  out->sig = (int)whole_number(out->fields[2], 10, 1, NSIG - 1);
  out->group = strcmp(scope, CORDON_KILL_GROUP) == 0;
  if (out->pid < 0 || out->sig < 0 || (!out->group && strcmp(scope, CORDON_KILL_PROCESS) != 0)) return -ESRCH;
  return 0;
}

/* Only cgroup.procs files, at most as many as a launch joins; none asks for a new spare. */
static int parse_join(const struct zy_request *r, struct zy_parsed *out) {
  if (out->nfields != 1 || r->nfds > CORDON_MAX_CGROUP_FDS) return -EINVAL;
  out->kind = ZY_JOIN;
  out->ncg = r->nfds;
  return 0;
}

int zy_request_parse(struct zy_request *r, struct zy_parsed *out) {
  out->nfields = split_fields(r, out->fields, CORDON_MAX_REQUEST_FIELDS + 1);
  if (out->nfields > CORDON_MAX_REQUEST_FIELDS) return -E2BIG; /* never a truncated argv */
  out->fields[out->nfields] = NULL;
  const char *kind = out->nfields > 0 ? out->fields[0] : "";
  if (strcmp(kind, CORDON_REQ_LAUNCH) == 0) return parse_spawn(r, out, ZY_LAUNCH);
  if (strcmp(kind, CORDON_REQ_EXEC) == 0) return parse_spawn(r, out, ZY_EXEC);
  if (strcmp(kind, CORDON_REQ_KILL) == 0) return parse_kill(r, out);
  if (strcmp(kind, CORDON_REQ_JOIN) == 0) return parse_join(r, out);
  if (strcmp(kind, CORDON_REQ_VERSION) == 0 && out->nfields == 1 && r->nfds == 0) return out->kind = ZY_VERSION, 0;
  return -EINVAL;
}

int zy_request_is_join(const struct zy_request *r) {
  return r->len >= sizeof CORDON_REQ_JOIN && memcmp(r->buf, CORDON_REQ_JOIN, sizeof CORDON_REQ_JOIN) == 0; /* "J\0" */
}

int zy_request_send(int sock, const struct zy_request *r) {
  return cordon_send_fds(sock, r->buf, r->len, r->fds, r->nfds);
}
