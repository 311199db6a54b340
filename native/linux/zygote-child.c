/*
 * zygote-child.c — how the zygote (zygote.c) starts a child: passing
 * descriptors (unix(7), SCM_RIGHTS), a clean slate in the child, and the
 * "spare", a launcher child forked *before* its request arrives.
 *
 * Why a spare: fork(2) of even this small static process costs close to a
 * millisecond on a VM. Forked ahead of time, while the previous command
 * runs, that cost leaves the path between the caller's request and the
 * command's start; the request and its descriptors are handed to the
 * waiting spare over a private socket pair instead, and the zygote answers
 * at once (in namespace mode it does not wait for bwrap's execve either).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "launcher.h"
#include "zygote.h"

void zy_close_fds(struct request *r) {
  for (size_t i = 0; i < r->nfds; i++) close(r->fds[i]);
  r->nfds = 0;
}

static void take_rights(struct request *r, struct cmsghdr *c) {
  size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
  for (size_t i = 0; i < k; i++) {
    int fd;
    memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
    if (r->nfds < MAX_CHILD_FDS) r->fds[r->nfds++] = fd;
    else close(fd); /* more than a request carries: not kept, not leaked */
  }
}

/* One message and the descriptors attached to it. Descriptors arrive
 * close-on-exec (MSG_CMSG_CLOEXEC) so none leaks into an unrelated child.
 * With `sender`, the kernel-supplied credentials (SCM_CREDENTIALS, unix(7))
 * must name that process: the request socket is a capability, and if it
 * ever reached another process (a sandboxed command above all), what that
 * process sends is refused — it cannot forge another pid without
 * CAP_SYS_ADMIN. */
ssize_t zy_receive(int sock, struct request *r, pid_t sender) {
  union { char buf[CMSG_SPACE(sizeof(int) * MAX_CHILD_FDS) + CMSG_SPACE(sizeof(struct ucred))]; struct cmsghdr align; } ctl;
  struct iovec iov = {r->buf, r->cap};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  struct ucred who = {0, 0, 0};
  ssize_t n;
  r->nfds = 0;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC); while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_RIGHTS) take_rights(r, c);
    else if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof who)) memcpy(&who, CMSG_DATA(c), sizeof who);
  }
  if (sender > 0 && who.pid != sender) { zy_close_fds(r); errno = EPERM; return -1; }
  /* A truncated message or descriptor list is not a request we understood. */
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) { zy_close_fds(r); errno = EMSGSIZE; return -1; }
  r->len = (size_t)n;
  r->buf[n < (ssize_t)r->cap ? n : (ssize_t)r->cap - 1] = 0;
  return n;
}

/* The child starts from a clean slate: default signal handling and an empty
 * mask (both survive execve, signal(7)), the caller's umask, and no
 * descriptor of the zygote's own. */
static void reset_child(int sig_fd, const char *umask_octal) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  close(sig_fd);
  umask((mode_t)strtoul(umask_octal, NULL, 8) & 0777);
}

/* Move the n received descriptors to 0..n-1 and close everything else
 * (the request socket and the event stream included). They are first
 * lifted above n-1, so that placing one can never overwrite another that is
 * still to be placed; dup2(2) clears close-on-exec on the final copies. */
static int place_fds(const struct request *r, int *status_fd) {
  int n = (int)r->nfds, high[MAX_CHILD_FDS] = {0};
  for (int i = 0; i < n; i++)
    if ((high[i] = fcntl(r->fds[i], F_DUPFD_CLOEXEC, n)) < 0) return -1;
  /* From here a received number may be overwritten by a placed one: errors go to the lifted copy. */
  if (n > 4) *status_fd = high[4];
  for (int i = 0; i < n; i++)
    if (dup2(high[i], i) < 0) return -1;
  return cordon_close_from((unsigned)n, ~0U >> 1);
}

/* Split "A\0B\0C\0" into fields; returns how many. */
size_t zy_fields(const struct request *r, char **out, size_t max) {
  size_t n = 0;
  for (size_t at = 0; at < r->len && n < max; at += strlen(r->buf + at) + 1) out[n++] = r->buf + at;
  return n;
}

/* Namespace mode: exec bwrap on fds 0..n-1, with an empty environment (the
 * command's environment travels in the plan); bwrap keeps fds 3 and 4 open
 * for the launcher it runs, and mounts the bind sources on 5.. by fd. */
static void exec_wrapper(char **argv) {
  char *envp[] = {NULL};
  execve(argv[0], argv, envp);
  struct cordon_err e;
  cordon_err_set(&e, "launch", "execve", errno);
  snprintf(e.detail, sizeof e.detail, "%s", argv[0]);
  status_write_err(4, &e);
  _exit(127);
}

/* In the child (the spare, or a fork when there is none): run one request,
 * which the zygote has already validated. Never returns. */
static void child_main(struct request *r, int sig_fd) {
  char *f[MAX_ARGS + 1];
  size_t nf = zy_fields(r, f, MAX_ARGS);
  f[nf] = NULL;
  if (nf < 2 || r->nfds < CHILD_FDS) _exit(125);
  reset_child(sig_fd, f[1]);
  int status_fd = r->fds[4]; /* the status fd as received, until place_fds lifts it */
  if (place_fds(r, &status_fd) < 0) {
    struct cordon_err e;
    cordon_err_set(&e, "launch", "dup2", errno);
    status_write_err(status_fd, &e);
    _exit(125);
  }
  if (f[0][0] == 'L') _exit(launcher_run(3, 4));
  exec_wrapper(f + 2);
}

/* Without a spare: a plain fork. */
pid_t zy_start(struct request *r, int sig_fd) {
  pid_t pid = fork();
  if (pid == 0) child_main(r, sig_fd);
  return pid;
}

static struct { pid_t pid; int sock; } spare = {0, -1};

/* The spare waits for its one request, forwarded whole by the zygote with
 * its five descriptors. It dies with the zygote (PDEATHSIG) and never runs
 * anything without a request. Its buffer is its own: pages it never
 * touches cost nothing. */
static void spare_main(int sock, pid_t zygote, int sig_fd) {
  struct request r = {.buf = malloc(MAX_REQUEST + 1), .cap = MAX_REQUEST};
  if (!r.buf || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != zygote) _exit(125);
  if (zy_receive(sock, &r, 0) <= 0) _exit(125);
  child_main(&r, sig_fd); /* which refuses a request without its five descriptors */
}

void zy_spare_make(int sig_fd) {
  int sv[2];
  pid_t zygote = getpid();
  if (spare.pid > 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return;
  pid_t pid = fork();
  if (pid == 0) { close(sv[0]); spare_main(sv[1], zygote, sig_fd); }
  close(sv[1]);
  if (pid < 0) { close(sv[0]); return; }
  spare.pid = pid;
  spare.sock = sv[0];
}

static void spare_drop(void) {
  close(spare.sock);
  spare.pid = 0;
  spare.sock = -1;
}

/* Hand the request to the spare; its pid, or -1 when there is none (or it
 * died meanwhile: the caller then forks as usual). */
pid_t zy_spare_take(struct request *r) {
  pid_t pid = spare.pid;
  if (pid <= 0) return -1;
  int ok = cordon_send_fds(spare.sock, r->buf, r->len, r->fds, r->nfds) == 0;
  spare_drop();
  if (ok) return pid;
  kill(pid, SIGKILL); /* reaped later; its exit is reported for an unknown pid */
  return -1;
}

void zy_spare_reaped(pid_t pid) {
  if (pid == spare.pid) spare_drop();
}
