/*
 * zygote.h — internals shared by the zygote's loop (zygote.c) and the code
 * that starts its children (zygote-child.c).
 */
#ifndef CORDON_ZYGOTE_H
#define CORDON_ZYGOTE_H

#include <stddef.h>
#include <sys/types.h>

#define REQ_FD 3
#define EVENT_FD 4
#define CHILD_FDS 5            /* stdin, stdout, stderr, plan, status */
/* Namespace mode also passes bwrap the bind sources it must not look up by
 * path (bwrap --bind-fd): they follow the five, on fds 5, 6, … */
#define MAX_CHILD_FDS 64
#define MAX_REQUEST (1u << 20) /* a bwrap argv is kilobytes */
#define MAX_ARGS 4096

struct request {
  char *buf;
  size_t cap, len;
  int fds[MAX_CHILD_FDS];
  size_t nfds;
};

/* One message; with `sender` > 0, a message sent by any other process is
 * refused (EPERM; needs SO_PASSCRED on `sock`). */
ssize_t zy_receive(int sock, struct request *r, pid_t sender);
void zy_close_fds(struct request *r);

size_t zy_fields(const struct request *r, char **out, size_t max);

/* A child for one request: the launcher on fds 0..4 ('L'), or FILE ARGV… ('X') on fds 0..n-1. */
pid_t zy_start(struct request *r, int sig_fd);

/* The spare: a child forked ahead of time, waiting for its request. */
void zy_spare_make(int sig_fd);
pid_t zy_spare_take(struct request *r);
void zy_spare_reaped(pid_t pid);

#endif
