/*
 * zygote.c — the launcher as a small, long-lived spawn server.
 *
 *   cordon-launcher --zygote        (fd 3: request socket, fd 4: event stream)
 *
 * Why: on Linux, Node's child_process forks the whole Node process (its page
 * tables, tens of MB of mappings) for every spawn; on a VM that alone costs
 * several milliseconds. The zygote is exec'd once per caller process, fresh
 * and single-threaded, with an empty environment; afterwards each sandboxed
 * command costs a fork of this tiny static process. The forked child runs the
 * normal launcher sequence (launcher.c) on the descriptors the caller sent,
 * or, in namespace mode, execs bubblewrap, which runs the launcher inside.
 *
 * Requests (SOCK_SEQPACKET, one message each; unix(7) SCM_RIGHTS):
 *   "L\0" UMASK "\0"                 + 5 fds  run the launcher on fds 0..4
 *   "X\0" UMASK "\0" FILE "\0" ARGS… + 5 fds  execve FILE ARGS… on fds 0..4
 *   "K\0" PID "\0" SIG "\0" g|p "\0"          signal a child that has not been
 *                                             reaped: its process group, or it alone
 * Each gets one int32 reply: the child's pid, 0 for K, or -errno.
 * Events (stream): "PID WAITSTATUS\n" for every child reaped.
 *
 * The zygote dies with its caller (PR_SET_PDEATHSIG), which delivers each
 * running supervisor its own parent-death signal: tear-down, as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "launcher.h"

#define REQ_FD 3
#define EVENT_FD 4
#define CHILD_FDS 5            /* stdin, stdout, stderr, plan, status */
#define MAX_REQUEST (1u << 20) /* a bwrap argv is kilobytes */
#define MAX_ARGS 4096
#define MAX_CHILDREN 4096

struct request {
  char *buf;
  size_t len;
  int fds[CHILD_FDS];
  size_t nfds;
};

/* Live (unreaped) children: only these may be signalled through "K". A pid
 * is not reused while its zombie exists, so a K for a pid in this table
 * cannot hit an unrelated process (unlike a kill() from the caller racing
 * with the reap). */
static pid_t children[MAX_CHILDREN];

static int track(pid_t pid, pid_t replace) {
  for (size_t i = 0; i < MAX_CHILDREN; i++)
    if (children[i] == replace) { children[i] = pid; return 0; }
  return -1;
}

static int is_child(pid_t pid) {
  for (size_t i = 0; pid > 0 && i < MAX_CHILDREN; i++)
    if (children[i] == pid) return 1;
  return 0;
}

static void reply(int value) {
  int32_t v = value;
  while (send(REQ_FD, &v, sizeof v, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

static void close_fds(struct request *r) {
  for (size_t i = 0; i < r->nfds; i++) close(r->fds[i]);
  r->nfds = 0;
}

/* One message and the descriptors attached to it. Descriptors arrive
 * close-on-exec (MSG_CMSG_CLOEXEC) so none leaks into an unrelated child. */
static ssize_t receive(struct request *r) {
  union { char buf[CMSG_SPACE(sizeof(int) * CHILD_FDS)]; struct cmsghdr align; } ctl;
  struct iovec iov = {r->buf, MAX_REQUEST};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  ssize_t n;
  r->nfds = 0;
  do n = recvmsg(REQ_FD, &msg, MSG_CMSG_CLOEXEC); while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k && r->nfds < CHILD_FDS; i++) memcpy(&r->fds[r->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
  }
  /* A truncated message or descriptor list is not a request we understood. */
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) { close_fds(r); errno = EMSGSIZE; return -1; }
  r->len = (size_t)n;
  r->buf[n] = 0;
  return n;
}

/* Split "A\0B\0C\0" into fields; returns how many. */
static size_t fields(struct request *r, char **out, size_t max) {
  size_t n = 0;
  for (size_t at = 0; at < r->len && n < max; at += strlen(r->buf + at) + 1) out[n++] = r->buf + at;
  return n;
}

/* The child starts from a clean slate: default signal handling and an empty
 * mask (both survive execve, signal(7)), and nothing of the zygote's own. */
static void reset_child(int sig_fd, mode_t mask) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  close(sig_fd);
  umask(mask);
}

/* Move the five received descriptors to 0..4 and close everything else
 * (the request socket and the event stream included). dup2(2) clears
 * close-on-exec on the copies; the received fds are all above 4. */
static int place_fds(const struct request *r) {
  for (int i = 0; i < CHILD_FDS; i++)
    if (dup2(r->fds[i], i) < 0) return -1;
  return (int)syscall(SYS_close_range, CHILD_FDS, ~0U, 0);
}

struct job {
  struct request *r;
  char **f;
  int sig_fd;
};

/* Namespace mode: exec bwrap on fds 0..4, with an empty environment (the
 * command's environment travels in the plan); bwrap keeps fds 3 and 4 open
 * for the launcher it runs. Only system calls here: this child shares the
 * zygote's memory until execve (see start_exec). */
static int exec_child(void *arg) {
  struct job *j = arg;
  char *envp[] = {NULL};
  reset_child(j->sig_fd, (mode_t)strtoul(j->f[1], NULL, 8) & 0777);
  if (place_fds(j->r) < 0) _exit(125);
  execve(j->f[2], j->f + 2, envp);
  struct cordon_err e;
  cordon_err_set(&e, "launch", "execve", errno);
  snprintf(e.detail, sizeof e.detail, "%s", j->f[2]);
  status_write_err(4, &e);
  _exit(127);
}

/* Like posix_spawn(3): CLONE_VM | CLONE_VFORK copies no page tables and
 * suspends the zygote until the child has exec'd (clone(2)). */
static pid_t start_exec(struct job *j) {
  static char stack[64 * 1024] __attribute__((aligned(16)));
  return clone(exec_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, j);
}

/* Launcher mode: a plain fork, since the child runs the whole launcher
 * (it allocates, and it never execs itself). */
static pid_t start_launcher(struct job *j) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  reset_child(j->sig_fd, (mode_t)strtoul(j->f[1], NULL, 8) & 0777);
  if (place_fds(j->r) < 0) _exit(125);
  _exit(launcher_run(3, 4));
}

static void spawn_request(struct request *r, char **f, size_t nf, int sig_fd) {
  struct job j = {r, f, sig_fd};
  if (r->nfds != CHILD_FDS || nf < 2 || (f[0][0] == 'X' && nf < 3)) { close_fds(r); reply(-EINVAL); return; }
  pid_t pid = f[0][0] == 'L' ? start_launcher(&j) : start_exec(&j);
  int err = errno;
  close_fds(r);
  if (pid < 0) { reply(-err); return; }
  if (track(pid, 0) < 0) { kill(pid, SIGKILL); reply(-EAGAIN); return; } /* reaped and reported as usual */
  reply(pid);
}

/* Signal a live child alone ("p": SIGUSR2 asks its supervisor for a
 * tear-down), or its process group ("g": the launcher made it a session
 * leader; before setsid() the group does not exist yet and the child alone
 * is signalled). */
static void kill_request(char **f, size_t nf) {
  pid_t pid = nf == 4 ? (pid_t)atoi(f[1]) : 0;
  int sig = nf == 4 ? atoi(f[2]) : 0;
  if (!is_child(pid) || sig <= 0 || sig >= NSIG || (f[3][0] != 'g' && f[3][0] != 'p')) { reply(-ESRCH); return; }
  if ((f[3][0] == 'g' && kill(-pid, sig) == 0) || kill(pid, sig) == 0) reply(0);
  else reply(-errno);
}

static void handle(struct request *r, int sig_fd) {
  char *f[MAX_ARGS + 1];
  size_t nf = fields(r, f, MAX_ARGS);
  f[nf] = NULL;
  if (nf > 0 && (f[0][0] == 'L' || f[0][0] == 'X') && f[0][1] == 0) spawn_request(r, f, nf, sig_fd);
  else if (nf > 0 && f[0][0] == 'K' && f[0][1] == 0 && r->nfds == 0) kill_request(f, nf);
  else { close_fds(r); reply(-EINVAL); }
}

/* Reap every exited child and tell the caller its wait status. */
static int reap(int sig_fd) {
  struct signalfd_siginfo si;
  int status;
  pid_t pid;
  while (read(sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {}
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    track(0, pid);
    char line[48];
    int n = snprintf(line, sizeof line, "%d %d\n", (int)pid, status);
    if (write(EVENT_FD, line, (size_t)n) != n) return -1; /* the caller is gone */
  }
  return 0;
}

/* Parent death, non-dumpable, no cwd pinned, SIGCHLD through a signalfd. */
static int zygote_setup(void) {
  pid_t parent = getppid();
  sigset_t chld;
  /* If the caller dies, so does the zygote, and each supervisor then gets
   * its own parent-death signal (tear-down of its command). */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || parent == 1) return -1;
  /* Not dumpable: same-uid processes cannot ptrace it or read its memory
   * through /proc (ptrace(2), "ptrace access mode checking"). */
  if (prctl(PR_SET_DUMPABLE, 0) < 0 || chdir("/") < 0) return -1;
  signal(SIGPIPE, SIG_IGN); /* a vanished caller is an EPIPE, not a death */
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0) return -1;
  return signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
}

int zygote_main(void) {
  struct request r = {.buf = malloc(MAX_REQUEST + 1)};
  int sig_fd = zygote_setup();
  if (sig_fd < 0 || !r.buf) return 125;
  struct pollfd p[2] = {{REQ_FD, POLLIN, 0}, {sig_fd, POLLIN, 0}};
  for (;;) {
    if (poll(p, 2, -1) < 0 && errno != EINTR) return 125;
    if ((p[1].revents & POLLIN) && reap(sig_fd) < 0) return 0;
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ssize_t n = receive(&r);
    if (n == 0) return 0; /* the caller closed the socket: done */
    if (n < 0) { if (errno == EMSGSIZE) reply(-EMSGSIZE); else if (errno != EAGAIN) return 125; continue; }
    handle(&r, sig_fd);
  }
}
