/*
 * net.c — network escape attempts with the profile's network off: TCP and
 * UDP to servers the test runs on loopback (IPv4 and IPv6), raw, packet and
 * netlink sockets, unix sockets of a host server (pathname and abstract),
 * and socketpair(AF_UNIX), which must keep working.
 */
#include "probe.h"
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/vm_sockets.h>
#include <unistd.h>

/* Fill a sockaddr for HOST (IPv4 or IPv6 literal) and PORT. */
static socklen_t inet_address(const char *host, const char *port, struct sockaddr_storage *ss) {
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)atoi(port));
    return sizeof *v4;
  }
  if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)atoi(port));
    return sizeof *v6;
  }
  return 0;
}

/* socket() is the first call under test: its errno is what a filter on it answers. */
static int connect_to(int type, char **a) {
  struct sockaddr_storage ss;
  socklen_t len = inet_address(a[0], a[1], &ss);
  if (!len) { errno = EINVAL; return setup_failed("address"); }
  int fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
  if (fd < 0) return outcome(-1);
  long rc = connect(fd, (struct sockaddr *)&ss, len);
  if (rc == 0 && type == SOCK_DGRAM) rc = send(fd, "ping", 4, 0);
  close(fd);
  return outcome(rc);
}

static int cmd_tcp(char **a) { return connect_to(SOCK_STREAM, a); }

/*
 * TCP Fast Open: the connect happens inside the send (MSG_FASTOPEN, the
 * address given to the send), through tcp_sendmsg_fastopen — not through
 * connect(2), where Landlock's TCP rule checks the port. `how` is the call:
 * sendto, sendmsg or sendmmsg. A blocking socket: the send returns once the
 * handshake is done and the bytes are queued (4: OK).
 */
static int fast_open(const char *how, char **a) {
  struct sockaddr_storage ss;
  socklen_t len = inet_address(a[0], a[1], &ss);
  if (!len) { errno = EINVAL; return setup_failed("address"); }
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return setup_failed("socket");
  char ping[4] = "ping";
  struct iovec iov = {ping, sizeof ping};
  struct msghdr msg = {.msg_name = &ss, .msg_namelen = len, .msg_iov = &iov, .msg_iovlen = 1};
  struct mmsghdr mm = {.msg_hdr = msg};
  long rc;
  if (!strcmp(how, "sendto")) rc = sendto(fd, ping, sizeof ping, MSG_FASTOPEN, (struct sockaddr *)&ss, len);
  else if (!strcmp(how, "sendmsg")) rc = sendmsg(fd, &msg, MSG_FASTOPEN);
  else rc = sendmmsg(fd, &mm, 1, MSG_FASTOPEN);
  close(fd);
  return outcome(rc < 0 ? -1 : 0);
}

/*
 * TCP to HOST on the proxy's port — the port of $HTTP_PROXY
 * (http://127.0.0.1:PORT), or PORT when there is none (unconfined) — the
 * one port Landlock's rule lets a connect through, on every host.
 */
static int cmd_proxyport(char **a) {
  const char *proxy = getenv("HTTP_PROXY");
  const char *colon = proxy ? strrchr(proxy, ':') : NULL;
  char *port[2] = {(char *)a[0], colon ? (char *)colon + 1 : a[1]};
  return connect_to(SOCK_STREAM, port);
}

static int cmd_tfo(char **a) { return fast_open("sendto", a); }
static int cmd_tfomsg(char **a) { return fast_open("sendmsg", a); }
static int cmd_tfommsg(char **a) { return fast_open("sendmmsg", a); }
static int cmd_udp(char **a) { return connect_to(SOCK_DGRAM, a); }

static int open_socket(int family, int type, int protocol) {
  int fd = socket(family, type | SOCK_CLOEXEC, protocol);
  if (fd >= 0) close(fd);
  return outcome(fd);
}

static int cmd_raw(char **a) { (void)a; return open_socket(AF_INET, SOCK_RAW, IPPROTO_ICMP); }
static int cmd_packet(char **a) { (void)a; return open_socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)); }
static int cmd_netlink(char **a) { (void)a; return open_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE); }

/* Connect to a unix socket: a path, or an abstract name given as "@name".
 * The abstract name is NUL-padded to the full sun_path, as Node binds it. */
static int cmd_unix(char **a) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  socklen_t len = sizeof sun;
  if (a[0][0] == '@') {
    strncpy(sun.sun_path + 1, a[0] + 1, sizeof sun.sun_path - 2);
  } else {
    strncpy(sun.sun_path, a[0], sizeof sun.sun_path - 1);
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return outcome(-1);
  long rc = connect(fd, (struct sockaddr *)&sun, len);
  close(fd);
  return outcome(rc);
}

static int cmd_socketpair(char **a) {
  int sv[2];
  char c = 0;
  (void)a;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return outcome(-1);
  long rc = write(sv[0], "x", 1) == 1 && read(sv[1], &c, 1) == 1 && c == 'x' ? 0 : -1;
  return outcome(rc);
}

/*
 * A datagram to a host daemon's pathname unix socket (journald's, syslog's
 * /dev/log) from a socketpair: socket(AF_UNIX) is refused, but a datagram
 * socketpair's socket still takes an address in sendto(2) — it "connects
 * the sandbox to itself" only as long as nobody names another peer.
 */
static int dgram_pair_to(int type, char **a) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  int sv[2];
  strncpy(sun.sun_path, a[0], sizeof sun.sun_path - 1);
  if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0) return outcome(-1);
  /* MSG_DONTWAIT: a full queue at the daemon is EAGAIN, never a hang. */
  long rc = sendto(sv[0], "ping", 4, MSG_DONTWAIT, (struct sockaddr *)&sun, sizeof sun);
  return outcome(rc < 0 ? -1 : 0);
}

static int cmd_unixdgram(char **a) { return dgram_pair_to(SOCK_DGRAM, a); }
/* SOCK_RAW: unix_create() turns it into SOCK_DGRAM. */
static int cmd_unixraw(char **a) { return dgram_pair_to(SOCK_RAW, a); }

/*
 * The same two with the family's high 32 bits set: the kernel takes an int
 * and drops them, so 0x1_00000001 is AF_UNIX to the kernel and not 1 to a
 * 64-bit seccomp comparison.
 */
#define HIGH_UNIX 0x100000001L
static int cmd_hiunix(char **a) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  strncpy(sun.sun_path, a[0], sizeof sun.sun_path - 1);
  int fd = (int)syscall(SYS_socket, HIGH_UNIX, (long)(SOCK_STREAM | SOCK_CLOEXEC), 0L);
  if (fd < 0) return outcome(-1);
  long rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
  close(fd);
  return outcome(rc);
}

static int cmd_hidgram(char **a) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  int sv[2];
  strncpy(sun.sun_path, a[0], sizeof sun.sun_path - 1);
  if (syscall(SYS_socketpair, HIGH_UNIX, (long)(SOCK_DGRAM | SOCK_CLOEXEC), 0L, sv) < 0) return outcome(-1);
  long rc = sendto(sv[0], "ping", 4, MSG_DONTWAIT, (struct sockaddr *)&sun, sizeof sun);
  return outcome(rc < 0 ? -1 : 0);
}

/*
 * TCP to HOST:PORT from a socket bound to device DEV (SO_BINDTODEVICE):
 * the SYN leaves by DEV whatever the address. A 1 s send timeout bounds
 * the connect here (EINPROGRESS past it), so an unanswered SYN ends.
 */
static int cmd_tcpdev(char **a) {
  struct sockaddr_storage ss;
  socklen_t len = inet_address(a[1], a[2], &ss);
  if (!len) { errno = EINVAL; return setup_failed("address"); }
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct timeval limit = {1, 0};
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit) < 0) return setup_failed("socket");
  if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, a[0], (socklen_t)strlen(a[0])) < 0) return setup_failed("SO_BINDTODEVICE");
  long rc = connect(fd, (struct sockaddr *)&ss, len);
  close(fd);
  return outcome(rc);
}

/*
 * TCP to HOST:PORT from a thread made without CLONE_FILES: its descriptor
 * table is its own copy, so fd N there is not the thread group's fd N. The
 * thread connects, then asks its own socket for its peer (ENOTCONN: the
 * connect reached some other socket).
 */
static struct sockaddr_storage th_addr;
static socklen_t th_len;
static volatile int th_done, th_err;
static char th_stack[64 * 1024] __attribute__((aligned(16)));

static int thread_connect(void *arg) {
  (void)arg;
  int err = 0, fd = (int)syscall(SYS_socket, (long)th_addr.ss_family, (long)SOCK_STREAM, 0L);
  if (fd < 0 || syscall(SYS_connect, (long)fd, &th_addr, (long)th_len) < 0) err = errno;
  struct sockaddr_storage peer;
  socklen_t plen = sizeof peer;
  if (!err && syscall(SYS_getpeername, (long)fd, &peer, &plen) < 0) err = errno;
  th_err = err;
  __atomic_store_n(&th_done, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_exit, 0L);
  return 0;
}

static int cmd_threadconnect(char **a) {
  th_len = inet_address(a[0], a[1], &th_addr);
  if (!th_len) { errno = EINVAL; return setup_failed("address"); }
  /* A thread (same memory, same thread group), but a descriptor table of its own. */
  if (clone(thread_connect, th_stack + sizeof th_stack, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND | CLONE_SYSVSEM, NULL) < 0) return setup_failed("clone");
  while (!__atomic_load_n(&th_done, __ATOMIC_SEQ_CST)) usleep(1000);
  errno = th_err;
  return outcome(th_err ? -1 : 0);
}

/* listen(2) on a socket never bound: the kernel binds a free port on every
 * address itself (inet_autobind) — no bind(2) for a bind rule to see. */
static int cmd_listen(char **a) {
  (void)a;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return setup_failed("socket");
  long rc = listen(fd, 1);
  close(fd);
  return outcome(rc);
}

/* Non-IP ways to other processes and machines: NETLINK_USERSOCK (host
 * processes listening on it) and AF_VSOCK (the hypervisor host). */
static int cmd_usersock(char **a) { (void)a; return open_socket(AF_NETLINK, SOCK_RAW, NETLINK_USERSOCK); }
static int cmd_vsock(char **a) { (void)a; return open_socket(AF_VSOCK, SOCK_STREAM, 0); }

/* The host daemon for unixdgram: a datagram socket bound at PATH (mode
 * 0777, for any caller), read and discarded until the probe is killed (a
 * unix datagram queue holds net.unix.max_dgram_qlen, 10 by default);
 * READY once bound. */
static int cmd_dgrambind(char **a) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  strncpy(sun.sun_path, a[0], sizeof sun.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0 || chmod(a[0], 0777) < 0) return setup_failed("bind");
  printf("READY\n");
  fflush(stdout);
  char buf[64];
  for (;;) if (recv(fd, buf, sizeof buf, 0) < 0 && errno != EINTR) return setup_failed("recv");
}

/* base64 of `in` (RFC 4648) into `out` (4/3 the size, plus a NUL). */
static void base64(const char *in, char *out) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t n = strlen(in), i = 0;
  for (; i + 2 < n; i += 3, out += 4) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out[0] = t[v >> 18]; out[1] = t[v >> 12 & 63]; out[2] = t[v >> 6 & 63]; out[3] = t[v & 63];
  }
  if (n - i == 1) { unsigned v = (unsigned char)in[i] << 16; out[0] = t[v >> 18]; out[1] = t[v >> 12 & 63]; out[2] = out[3] = '='; out += 4; }
  if (n - i == 2) { unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8; out[0] = t[v >> 18]; out[1] = t[v >> 12 & 63]; out[2] = t[v >> 6 & 63]; out[3] = '='; out += 4; }
  *out = 0;
}

/* The proxy of a network allowlist, as the sandbox's environment names it
 * (HTTP_PROXY=http://USER:TOKEN@127.0.0.1:PORT), or -1 when there is none.
 * `auth` gets the Proxy-Authorization header line ("" without credentials). */
static int proxy_fd(char *auth, size_t cap) {
  const char *p = getenv("HTTP_PROXY"), *at;
  char user[256] = "", b64[400];
  struct sockaddr_in sin = {.sin_family = AF_INET};
  auth[0] = 0;
  if (!p || strncmp(p, "http://", 7) != 0) return -1;
  p += 7;
  if ((at = strchr(p, '@')) && (size_t)(at - p) < sizeof user) {
    memcpy(user, p, (size_t)(at - p));
    user[at - p] = 0;
    base64(user, b64);
    snprintf(auth, cap, "Proxy-Authorization: Basic %s\r\n", b64);
    p = at + 1;
  }
  if (strncmp(p, "127.0.0.1:", 10) != 0) return -1;
  sin.sin_port = htons((uint16_t)atoi(p + 10));
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0) { close(fd); return -2; }
  return fd;
}

/* Read until the end of an HTTP header (or EOF); returns the status code. */
static int read_status(int fd, char *buf, size_t cap) {
  size_t n = 0;
  while (n < cap - 1) {
    ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
    buf[n] = 0;
    if (strstr(buf, "\r\n\r\n")) break;
  }
  buf[n] = 0;
  return strncmp(buf, "HTTP/1.", 7) == 0 ? atoi(buf + 9) : 0;
}

/* CONNECT host:port through the proxy, then one HTTP/1.0 GET in the tunnel.
 * Prints OK and the body's first word, or HTTP<status>, or NOPROXY. */
static void proxy_one(const char *target) {
  char buf[4096], auth[512];
  int fd = proxy_fd(auth, sizeof auth);
  if (fd == -1) { printf("NOPROXY "); return; }
  if (fd < 0) { printf("%s ", strerrorname_np(errno)); return; }
  dprintf(fd, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", target, target, auth);
  int status = read_status(fd, buf, sizeof buf);
  if (status == 200) {
    dprintf(fd, "GET / HTTP/1.0\r\nHost: %s\r\n\r\n", target);
    status = read_status(fd, buf, sizeof buf);
    char *body = strstr(buf, "\r\n\r\n");
    if (status == 200) printf("OK:%.20s ", body ? body + 4 : "");
    else printf("HTTP%d ", status);
  } else {
    printf("HTTP%d ", status);
  }
  close(fd);
}

/* Listen on a TCP port of 127.0.0.1 (port 0: any): a way in for others. */
static int cmd_bind(char **a) {
  struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(a[0]))};
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return setup_failed("socket");
  long rc = bind(fd, (struct sockaddr *)&sin, sizeof sin);
  if (rc == 0) rc = listen(fd, 1);
  close(fd);
  return outcome(rc);
}

/* N tunnels through the proxy open at once (all connected and asked for
 * before any answer is read), then one GET in each: OK:<answered>. */
static int cmd_proxymany(char **a) {
  int n = atoi(a[0]), fds[256], ok = 0;
  char buf[4096], auth[512];
  if (n < 1 || n > 256) return setup_failed("count");
  for (int i = 0; i < n; i++) {
    if ((fds[i] = proxy_fd(auth, sizeof auth)) < 0) return setup_failed("connect");
    dprintf(fds[i], "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", a[1], a[1], auth);
  }
  for (int i = 0; i < n; i++) {
    if (read_status(fds[i], buf, sizeof buf) == 200) {
      dprintf(fds[i], "GET / HTTP/1.0\r\nHost: %s\r\n\r\n", a[1]);
      if (read_status(fds[i], buf, sizeof buf) == 200) ok++;
    }
    close(fds[i]);
  }
  printf("OK:%d\n", ok);
  return 0;
}

static int cmd_proxy(char **a) {
  for (; *a; a++) proxy_one(*a);
  printf("\n");
  return 0;
}

static const struct probe_cmd cmds[] = {
  {"proxy", 1, cmd_proxy},
  {"proxymany", 2, cmd_proxymany},
  {"bind", 1, cmd_bind},
  {"tcp", 2, cmd_tcp},
  {"proxyport", 2, cmd_proxyport},
  {"tfo", 2, cmd_tfo},
  {"tfomsg", 2, cmd_tfomsg},
  {"tfommsg", 2, cmd_tfommsg},
  {"udp", 2, cmd_udp},
  {"raw", 0, cmd_raw},
  {"packet", 0, cmd_packet},
  {"netlink", 0, cmd_netlink},
  {"unix", 1, cmd_unix},
  {"socketpair", 0, cmd_socketpair},
  {"unixdgram", 1, cmd_unixdgram},
  {"unixraw", 1, cmd_unixraw},
  {"hiunix", 1, cmd_hiunix},
  {"hidgram", 1, cmd_hidgram},
  {"listen", 0, cmd_listen},
  {"threadconnect", 2, cmd_threadconnect},
  {"tcpdev", 3, cmd_tcpdev},
  {"usersock", 0, cmd_usersock},
  {"vsock", 0, cmd_vsock},
  {"dgrambind", 1, cmd_dgrambind},
  {NULL, 0, NULL},
};

int main(int argc, char **argv) { return probe_main(cmds, argc, argv); }
