/*
 * zygote.h — the launcher's spawn server: its loop (zygote.c) and the code
 * that starts its children (zygote-child.c). The request format is
 * zygote-request.h; descriptor numbers and limits are cordon-wire.h.
 */
#ifndef CORDON_ZYGOTE_H
#define CORDON_ZYGOTE_H

#include <sys/types.h>
#include "zygote-request.h"

/* `cordon-launcher --zygote` (main.c): serve requests until the caller
 * closes its end; the exit status. */
int zygote_main(void);

/* A child for one parsed request: the launcher on fds 0..4 (L), or
 * FILE ARGS… on fds 0..n-1 (X). Its pid, or -1 with errno. */
pid_t zy_start(struct zy_request *r, const struct zy_parsed *q, int sig_fd);

/* The spare: a child forked ahead of time, waiting for its request. */
void zy_spare_make(int sig_fd);
/* Hand the request to the spare: its pid, or -1 when there is none. */
pid_t zy_spare_take(struct zy_request *r);
/* A join request (zygote-request.h "J"), never answered. */
void zy_spare_join(struct zy_request *r, int sig_fd);
void zy_spare_reaped(pid_t pid);

#endif
