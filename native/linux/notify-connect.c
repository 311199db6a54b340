/*
 * notify-connect.c — connect(2) decided by the supervisor, with a network
 * allowlist in Landlock mode (the `connect notify when=net-proxy` line of
 * profiles/linux/seccomp.rules; docs/network.md).
 *
 * Why: Landlock's TCP rule (LANDLOCK_RULE_NET_PORT, ABI <= 7) matches a
 * port, never an address, so the rule that lets the command reach the proxy
 * at 127.0.0.1:PORT let it reach PORT on every other host as well: a server
 * of the attacker's listening on every port took a direct connection past
 * the allowlist. Here the address is checked too: only the proxy's own
 * endpoint (127.0.0.1, or its IPv4-mapped IPv6 form, on a planned port) is
 * connected; any other address is EACCES, the errno Landlock's rule gives.
 *
 * The supervisor never lets the kernel re-read the command's memory after
 * its check (no SECCOMP_USER_NOTIF_FLAG_CONTINUE: another thread could
 * rewrite the address in between — seccomp_unotify(2)). It copies the
 * address once, takes the command's socket with pidfd_getfd(2) (the same
 * open file description: its flags and options are the command's) and
 * connects it itself with its own copy; the command's call returns that
 * connect's result. The supervisor sits outside the command's Landlock
 * domain, which is why the address check here is the whole decision.
 *
 * The supervisor answers one notification at a time, so a connect must
 * not hold it. SO_BINDTODEVICE sent the SYN for 127.0.0.1 out of eth0,
 * where nothing answers: with a high TCP_SYNCNT the supervisor waited for
 * hours and a timed-out run's setsid'd processes outlived it (red team).
 * So the supervisor binds the socket to lo itself before connecting: an
 * unprivileged task may bind an unbound socket to a device once, and never
 * rebind it (socket(7), Linux 5.7), so another thread of the command cannot
 * move it between the check and the connect; a socket already bound
 * elsewhere is refused (EACCES). And a blocking connect waits at most
 * CONNECT_DEADLINE_MS, ended by a timer signal whose handler is installed
 * without SA_RESTART (not SO_SNDTIMEO: the command's other threads share
 * the socket and could set it back to infinite): the command then gets
 * EINPROGRESS and the handshake goes on in the background. To a listening
 * loopback socket a connect ends in microseconds; only a full accept
 * backlog (a dropped SYN, retried after a second) reaches the deadline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include "metadata.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a pidfd for one thread */
#endif

/* How long a supervised connect may hold the supervisor (see above). */
#define CONNECT_DEADLINE_MS 250

/* The proxy's endpoint: 127.0.0.1 on one of the planned ports. */
static int is_proxy(const struct md_net *net, uint32_t addr_be, uint16_t port_be) {
  if (addr_be != htonl(INADDR_LOOPBACK)) return 0;
  for (size_t i = 0; i < net->n_ports; i++)
    if (ntohs(port_be) == net->ports[i]) return 1;
  return 0;
}

/* Whether this address may be connected: the proxy's, as IPv4 or as an
 * IPv4-mapped IPv6 address (a dual-stack socket reaches the same listener).
 * AF_UNSPEC dissolves an association and reaches nothing. */
static int allowed(const struct md_net *net, const struct sockaddr_storage *ss, socklen_t len) {
  if (len < sizeof(sa_family_t)) return 0;
  if (ss->ss_family == AF_UNSPEC) return 1;
  if (ss->ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;
    return is_proxy(net, v4->sin_addr.s_addr, v4->sin_port);
  }
  if (ss->ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
    if (!IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) return 0;
    uint32_t v4;
    memcpy(&v4, v6->sin6_addr.s6_addr + 12, sizeof v4);
    return is_proxy(net, v4, v6->sin6_port);
  }
  /* AF_UNIX (a socketpair's socket: socket(AF_UNIX) is refused with an
   * allowlist) would resolve its path here, outside the command's Landlock
   * domain and cwd; every other family is refused at socket(). */
  return 0;
}

/* The thread group of `tid`: pidfd_open(2) wants a process (before Linux
 * 6.9's PIDFD_THREAD), and the notification names the thread. */
static pid_t tgid_of(pid_t tid) {
  char path[64], line[128];
  snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
  FILE *f = fopen(path, "re");
  pid_t tgid = -1;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "Tgid: %d", &tgid) == 1) break;
  fclose(f);
  return tgid;
}

/* A pidfd whose fd table is the calling thread's: the thread itself
 * (PIDFD_THREAD, Linux 6.9) — a thread made without CLONE_FILES has a table
 * of its own — else its thread group, whose table the threads of a pthread
 * program share. */
static int pidfd_of(pid_t tid) {
  int pidfd = (int)syscall(__NR_pidfd_open, tid, PIDFD_THREAD);
  if (pidfd >= 0 || errno != EINVAL) return pidfd;
  pid_t tgid = tgid_of(tid);
  if (tgid < 0) { errno = ESRCH; return -1; }
  return (int)syscall(__NR_pidfd_open, tgid, 0);
}

/* The command's socket `fd`, as a descriptor of ours: 0 or an errno. */
static int take_socket(const struct md_target *t, int fd, int *out) {
  int pidfd = pidfd_of(t->tid);
  if (pidfd < 0) return errno;
  /* The tid was still blocked in this very call after the pidfd was made:
   * the pidfd is that task's process, whatever happens to the tid later. */
  int err = md_still_waiting(t) ? 0 : ESRCH;
  if (!err && (*out = (int)syscall(__NR_pidfd_getfd, pidfd, fd, 0)) < 0) err = errno;
  close(pidfd);
  return err;
}

/* Bind the socket to lo (once bound, the command cannot rebind it without
 * CAP_NET_RAW); one bound already must be bound to lo. 0, or EACCES. */
static int onto_loopback(int sock) {
  if (setsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, "lo", 2) == 0) return 0;
  char dev[IFNAMSIZ + 1] = "";
  socklen_t len = sizeof dev - 1;
  if (getsockopt(sock, SOL_SOCKET, SO_BINDTODEVICE, dev, &len) < 0) return EACCES;
  return strcmp(dev, "lo") == 0 ? 0 : EACCES;
}

static void wake(int sig) { (void)sig; }

/* connect() ended by a SIGALRM after CONNECT_DEADLINE_MS (no SA_RESTART:
 * the call returns EINTR). 0 or an errno. */
static int connect_bounded(int sock, const struct sockaddr_storage *ss, socklen_t len) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = wake;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, &old);
  struct itimerval deadline = {{0, 0}, {0, CONNECT_DEADLINE_MS * 1000}}, off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &deadline, NULL);
  int rc = connect(sock, (const struct sockaddr *)ss, len);
  int err = rc < 0 ? errno : 0;
  setitimer(ITIMER_REAL, &off, NULL);
  sigaction(SIGALRM, &old, NULL);
  /* The deadline, or a signal to the supervisor (EINTR): the handshake goes
   * on; the command learns its end as a non-blocking caller would. */
  return err == EINTR ? EINPROGRESS : err;
}

int md_connect(const struct md_target *t, const struct seccomp_data *d, const struct md_net *net) {
  struct sockaddr_storage ss;
  int len = (int)d->args[2]; /* an int to the kernel: its high bits are dropped */
  int fd = (int)d->args[0], sock = -1;
  /* The kernel's own bounds (move_addr_to_kernel): negative or over-long is EINVAL. */
  if (len < 0 || (size_t)len > sizeof ss) return EINVAL;
  memset(&ss, 0, sizeof ss);
  int err = md_read(t, d->args[1], &ss, (size_t)len);
  if (err) return err;
  if (!allowed(net, &ss, (socklen_t)len)) return EACCES;
  if ((err = take_socket(t, fd, &sock))) return err;
  err = onto_loopback(sock);
  if (!err) err = connect_bounded(sock, &ss, (socklen_t)len);
  close(sock);
  return err;
}
