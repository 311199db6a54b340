/*
 * notify.c — the supervisor's side of Landlock mode's metadata filter
 * (metadata.h): take the listener from the command's process, then answer
 * its notifications while waiting for the command to exit.
 *
 * One thread, one notification at a time, and nothing that waits on the
 * command: a target killed mid-notification makes SECCOMP_IOCTL_NOTIF_RECV
 * or _SEND fail with ENOENT (the kernel drops the notification), never
 * block; the listener is only read when poll(2) says a notification is
 * there. The command's exit arrives as SIGCHLD through a signalfd(2) in the
 * same poll, so it is never missed while a notification is being handled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "metadata.h"

/* Linux 6.6: wake the supervisor and then the target on the same CPU, the
 * way a synchronous call would (seccomp_unotify(2)); a pure speed-up. */
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

/* The kernel copies out its own struct seccomp_notif, which may be larger
 * than this header's (SECCOMP_GET_NOTIF_SIZES says how large): room to spare. */
#define NOTIF_ROOM 1024
static union { struct seccomp_notif n; char room[NOTIF_ROOM]; } req_buf;
static union { struct seccomp_notif_resp r; char room[NOTIF_ROOM]; } resp_buf;
static struct seccomp_notif_sizes sizes;

int md_prepare(const struct plan *p, struct md_roots *roots, int sock[2], struct cordon_err *e) {
  sock[0] = sock[1] = -1;
  roots->r = NULL;
  roots->n = 0;
  /* The proxy's ports: what a supervised connect may reach (notify-connect.c). */
  roots->net.n_ports = p->n_ll_connect_ports;
  memcpy(roots->net.ports, p->ll_connect_ports, sizeof roots->net.ports);
  if (!p->metadata) return 0;
  /* Close-on-exec both ends: the command never holds either. */
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
    cordon_err_set(e, "metadata", "socketpair", errno);
    return -1;
  }
  return md_roots_open(p, roots, e);
}

/* The command's process has exec'd (or exited) by now (CLONE_VFORK): its
 * message, if any, is queued, so this never waits. */
int md_take_listener(int sock[2]) {
  union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
  char byte;
  struct iovec iov = {&byte, 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  int fd = -1;
  if (sock[0] < 0) return -1;
  close(sock[1]);
  if (recvmsg(sock[0], &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) == 1 && !(m.msg_flags & MSG_CTRUNC)) {
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
      memcpy(&fd, CMSG_DATA(c), sizeof fd);
  }
  close(sock[0]);
  return fd;
}

/* Buffers the kernel can fill; 0, or -1 when its structs outgrew NOTIF_ROOM. */
static int fit_buffers(int listener) {
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0) return -1;
  if (sizes.seccomp_notif > NOTIF_ROOM || sizes.seccomp_notif_resp > NOTIF_ROOM) return -1;
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP); /* optional */
  return 0;
}

/* Receive one notification and answer it. -1 when the listener is unusable. */
static int answer_one(int listener, const struct md_roots *roots) {
  /* RECV refuses a buffer that is not zeroed (EINVAL): room for extensions. */
  memset(&req_buf, 0, sizes.seccomp_notif);
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req_buf) < 0)
    return errno == ENOENT || errno == EINTR ? 0 : -1; /* ENOENT: the target died before we took it */
  struct md_target t = {listener, req_buf.n.id, (pid_t)req_buf.n.pid};
  memset(&resp_buf, 0, sizes.seccomp_notif_resp);
  resp_buf.r.id = req_buf.n.id;
  /* The call's result, decided and performed here: flags stay 0, never
   * SECCOMP_USER_NOTIF_FLAG_CONTINUE (metadata.h). */
  resp_buf.r.error = -md_answer(&t, &req_buf.n.data, roots);
  resp_buf.r.val = 0;
  /* ENOENT: the target was killed meanwhile; nothing waits for the answer. */
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp_buf);
  return 0;
}

/* SIGCHLD as a readable fd; -1 (then poll wakes every 20 ms to reap). */
static int child_events(sigset_t *old) {
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, old);
  return signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void drain(int fd) {
  struct signalfd_siginfo si;
  while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {}
}

/* Reap whatever exited (orphans of the command included, as wait_command
 * does); 1 with the command's status once it is among them. */
static int reaped(pid_t command, int *status) {
  int st;
  pid_t got;
  while ((got = waitpid(-1, &st, WNOHANG)) > 0)
    if (got == command) { *status = st; return 1; }
  if (got < 0 && errno == ECHILD) { *status = -1; return 1; }
  return 0;
}

int md_serve(int listener, pid_t command, const struct md_roots *roots) {
  sigset_t old;
  int status = -1, events = child_events(&old), exited = 1; /* a SIGCHLD before the signalfd is lost: look once */
  /* Without buffers the kernel can fill, close the listener: every
   * notified call then fails ENOSYS — closed, not open, and never stuck. */
  if (fit_buffers(listener) < 0) { close(listener); listener = -1; }
  while (!((exited || events < 0) && reaped(command, &status))) {
    struct pollfd pf[2] = {{listener, POLLIN, 0}, {events, POLLIN, 0}};
    exited = 0;
    if (poll(pf, 2, events < 0 ? 20 : -1) < 0) continue; /* EINTR: a forwarded signal */
    if (pf[1].revents & POLLIN) { drain(events); exited = 1; }
    if ((pf[0].revents & POLLIN) && answer_one(listener, roots) == 0) continue;
    /* Hung up (no task left with the filter) or unusable: stop polling it. */
    if (pf[0].revents) { close(listener); listener = -1; }
  }
  if (listener >= 0) close(listener);
  if (events >= 0) close(events);
  sigprocmask(SIG_SETMASK, &old, NULL);
  return status;
}
