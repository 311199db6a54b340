/*
 * status.c — the macOS launcher's records on the close-on-exec status fd,
 * one JSON object per line, field names from cordon-wire.h. An "ok"
 * record says what was applied; an error record names the step, the call,
 * errno and a detail (sandbox_init's own message). A successful execve
 * closes the fd after "ok"; an exec failure adds an error record.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "launcher.h"

struct line { char buf[1024]; size_t n; };

static void add(struct line *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(l->buf + l->n, sizeof l->buf - l->n, fmt, ap);
  va_end(ap);
  if (w > 0) l->n = l->n + (size_t)w < sizeof l->buf ? l->n + (size_t)w : sizeof l->buf - 1;
}

/* A JSON string: quotes, backslashes and control characters escaped (a
 * compiler message or a path may carry any of them). */
static void add_str(struct line *l, const char *name, const char *s) {
  add(l, ",\"%s\":\"", name);
  for (; *s && l->n + 8 < sizeof l->buf; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') add(l, "\\%c", c);
    else if (c < 0x20) add(l, "\\u%04x", c);
    else add(l, "%c", c);
  }
  add(l, "\"");
}

static void send_line(int fd, struct line *l) {
  add(l, "}\n");
  for (size_t off = 0; off < l->n;) {
    ssize_t w = write(fd, l->buf + off, l->n - off);
    if (w <= 0) return;
    off += (size_t)w;
  }
}

void darwin_status_ok(int fd, const struct darwin_applied *a) {
  struct line l = {.n = 0};
  add(&l, "{\"%s\":true,\"seatbelt\":%s,\"denyAttach\":%s,\"coreZero\":%s,\"dyldScrubbed\":%d", CORDON_STATUS_OK,
      a->seatbelt ? "true" : "false", a->deny_attach ? "true" : "false", a->core_zero ? "true" : "false", a->dyld_scrubbed);
  send_line(fd, &l);
}

void darwin_status_err(int fd, const struct cordon_err *e) {
  struct line l = {.n = 0};
  add(&l, "{\"%s\":false", CORDON_STATUS_OK);
  add_str(&l, CORDON_STATUS_STEP, e->step ? e->step : "unknown");
  add_str(&l, CORDON_STATUS_SYSCALL, e->syscall ? e->syscall : "unknown");
  add(&l, ",\"%s\":%d", CORDON_STATUS_ERRNO, e->err);
  add_str(&l, CORDON_STATUS_DETAIL, e->detail);
  send_line(fd, &l);
}
