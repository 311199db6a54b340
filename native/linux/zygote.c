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
 * Requests arrive on fd 3 (SOCK_SEQPACKET, one message each, with the
 * child's descriptors attached; format: zygote-request.h), each answered
 * with one int32: the child's pid, 0 for a kill, or -errno. Events go out
 * on fd 4 (a stream): "PID WAITSTATUS\n" for every child reaped.
 *
 * Children are forked one request ahead (the "spare",
 * zygote-child.c), so the fork is not on the caller's path.
 * The zygote dies with its caller (PR_SET_PDEATHSIG), which delivers each
 * running supervisor its own parent-death signal: tear-down, as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "zygote.h"

#define MAX_CHILDREN 4096

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
  while (send(CORDON_FD_ZYGOTE_REQUESTS, &v, sizeof v, MSG_NOSIGNAL) < 0 && errno == EINTR) {}
}

static pid_t start(struct zy_request *r, const struct zy_parsed *q, int sig_fd) {
  pid_t pid = zy_spare_take(r);
  return pid > 0 ? pid : zy_start(r, q, sig_fd);
}

static void spawn_request(struct zy_request *r, const struct zy_parsed *q, int sig_fd) {
  pid_t pid = start(r, q, sig_fd);
  int err = errno;
  /* Closed before the next spare is forked: a spare holding this
   * command's pipe ends would keep its output from reaching EOF. */
  zy_request_close_fds(r);
  if (pid < 0) reply(-err);
  else if (track(pid, 0) < 0) { kill(pid, SIGKILL); reply(-EAGAIN); } /* reaped and reported as usual */
  else reply(pid);
  /* The next child is forked now, off the caller's path. */
  zy_spare_make(sig_fd);
}

/* Signal a live child alone ("p": SIGUSR2 asks its supervisor for a
 * tear-down), or its process group ("g": the launcher made it a session
 * leader; before setsid() the group does not exist yet and the child alone
 * is signalled). Only a child in the table above. */
static void kill_request(const struct zy_parsed *q) {
  if (!is_child(q->pid)) { reply(-ESRCH); return; }
  if ((q->group && kill(-q->pid, q->sig) == 0) || kill(q->pid, q->sig) == 0) reply(0);
  else reply(-errno);
}

static void handle(struct zy_request *r, int sig_fd) {
  static struct zy_parsed q; /* 32 KiB of field pointers: not on the stack */
  int rc = zy_request_parse(r, &q);
  /* A join is never answered, not even a malformed one: the caller reads no reply to it. */
  if (rc < 0) { zy_request_close_fds(r); if (!zy_request_is_join(r)) reply(rc); }
  else if (q.kind == ZY_KILL) kill_request(&q);
  else if (q.kind == ZY_JOIN) zy_spare_join(r, sig_fd);
  else if (q.kind == ZY_VERSION) reply(CORDON_ZYGOTE_PROTOCOL);
  else spawn_request(r, &q, sig_fd);
}

/* Exit lines waiting for the caller to read them. The event stream is non-blocking:
 * a caller whose event loop is busy must not stall the zygote (and with it
 * every request) on a full socket buffer. At most one line per live child
 * is ever queued, so the queue is bounded by MAX_CHILDREN. */
static char events[MAX_CHILDREN * 24];
static size_t n_events;

static int flush_events(void) {
  size_t done = 0;
  while (done < n_events) {
    ssize_t w = write(CORDON_FD_ZYGOTE_EVENTS, events + done, n_events - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) break;
    if (w <= 0) return -1; /* the caller is gone */
    done += (size_t)w;
  }
  memmove(events, events + done, n_events - done);
  n_events -= done;
  return 0;
}

/* Reap every exited child and queue its wait status for the caller. */
static int reap(int sig_fd) {
  struct signalfd_siginfo si;
  int status;
  pid_t pid;
  while (read(sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {}
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    int tracked = track(0, pid) == 0; /* found, and no longer live */
    zy_spare_reaped(pid);
    if (!tracked || n_events + 24 > sizeof events) continue; /* a spare, or never handed out */
    n_events += (size_t)snprintf(events + n_events, 24, "%d %d\n", (int)pid, status);
  }
  return flush_events();
}

/* Parent death, its own session, non-dumpable, no cwd pinned, sender
 * credentials on requests, SIGCHLD through a signalfd. */
static int zygote_setup(void) {
  pid_t parent = getppid();
  sigset_t chld;
  int on = 0;
  /* If the caller dies, so does the zygote, and each supervisor then gets
   * its own parent-death signal (tear-down of its command). */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || parent == 1) return -1;
  /* Out of the caller's session and process group: a Ctrl-C at the
   * caller's terminal (SIGINT to its foreground group) must not kill the
   * zygote and with it every run; the caller decides what to stop. */
  if (setsid() < 0) return -1;
  /* Not dumpable: same-uid processes cannot ptrace it or read its memory
   * through /proc (ptrace(2), "ptrace access mode checking"). */
  if (prctl(PR_SET_DUMPABLE, 0) < 0 || chdir("/") < 0) return -1;
  /* Each request carries its sender's pid, checked against the caller. The
   * caller turned this on before sending anything (credentials are attached
   * at send time); a socket without it is refused rather than trusted. */
  socklen_t len = sizeof on;
  if (getsockopt(CORDON_FD_ZYGOTE_REQUESTS, SOL_SOCKET, SO_PASSCRED, &on, &len) < 0 || !on) return -1;
  if (fcntl(CORDON_FD_ZYGOTE_EVENTS, F_SETFL, fcntl(CORDON_FD_ZYGOTE_EVENTS, F_GETFL) | O_NONBLOCK) < 0) return -1;
  signal(SIGPIPE, SIG_IGN); /* a vanished caller is an EPIPE, not a death */
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0) return -1;
  return signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* What poll() reported: 1 to go on, 0 or 125 to exit with. */
static int on_request(struct zy_request *r, pid_t caller, int sig_fd) {
  ssize_t n = zy_request_receive(CORDON_FD_ZYGOTE_REQUESTS, r, caller);
  if (n == 0) return 0; /* the caller closed the socket: done */
  /* Sent by another process: the socket has leaked. Stop serving it at
   * once (the caller sees the zygote gone and starts a new one). */
  if (n < 0 && errno == EPERM) return CORDON_EXIT_SETUP;
  if (n < 0 && errno == EMSGSIZE) {
    if (!zy_request_is_join(r)) reply(-EMSGSIZE); /* a join is never answered */
  }
  else if (n < 0 && errno != EAGAIN) return CORDON_EXIT_SETUP;
  else if (n > 0) handle(r, sig_fd);
  return 1;
}

int zygote_main(void) {
  struct zy_request r;
  pid_t caller = getppid();
  int sig_fd = zygote_setup(), rc = 1;
  if (sig_fd < 0 || zy_request_init(&r) < 0) return CORDON_EXIT_SETUP;
  zy_spare_make(sig_fd);
  struct pollfd p[3] = {{CORDON_FD_ZYGOTE_REQUESTS, POLLIN, 0}, {sig_fd, POLLIN, 0}, {CORDON_FD_ZYGOTE_EVENTS, 0, 0}};
  while (rc == 1) {
    p[2].events = n_events ? POLLOUT : 0;
    if (poll(p, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return CORDON_EXIT_SETUP;
    }
    if ((p[1].revents & POLLIN) && reap(sig_fd) < 0) return 0;
    if (p[2].revents & (POLLERR | POLLHUP)) return 0; /* the caller closed its end: gone */
    if ((p[2].revents & POLLOUT) && flush_events() < 0) return 0;
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) rc = on_request(&r, caller, sig_fd);
  }
  return rc;
}
