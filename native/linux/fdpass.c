/*
 * fdpass.c — send one message with descriptors attached (unix(7),
 * SCM_RIGHTS). Shared by the addon (a request to the zygote) and the zygote
 * (a request handed on to its spare).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "cordon.h"
#include "cordon-wire.h"

#define MAX_FDS CORDON_MAX_REQUEST_FDS /* a request's five and namespace mode's bind sources */

int cordon_send_fds(int sock, const void *msg, size_t len, const int *fds, size_t nfds) {
  union { char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)]; struct cmsghdr align; } ctl;
  struct iovec iov = {(void *)msg, len};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
  if (nfds > MAX_FDS) { errno = EINVAL; return -1; }
  memset(&ctl, 0, sizeof ctl);
  if (nfds) {
    m.msg_control = ctl.buf;
    m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
  }
  ssize_t n;
  /* MSG_NOSIGNAL: a vanished peer is an EPIPE to report, not a SIGPIPE. */
  do n = sendmsg(sock, &m, MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
  return n == (ssize_t)len ? 0 : -1;
}
