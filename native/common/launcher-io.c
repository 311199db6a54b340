/*
 * launcher-io.c — the pieces both launchers (native/linux, native/darwin)
 * share: descriptor arguments, reading the plan, writing status records.
 * Plain POSIX; no allocation but the plan buffer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cordon.h"
#include "cordon-launcher-io.h"
#include "cordon-wire.h"

int cordon_fd_arg(int argc, char **argv, const char *flag) {
  for (int i = 1; i + 1 < argc; i++) {
    if (strcmp(argv[i], flag) != 0) continue;
    char *end;
    long fd = strtol(argv[i + 1], &end, 10);
    return *argv[i + 1] && !*end && fd >= 0 && fd <= 65535 ? (int)fd : -1;
  }
  return -1;
}

char *cordon_read_all(int fd, size_t *len) {
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
    if (n < cap) continue;
    if (cap >= CORDON_MAX_PLAN_BYTES) { free(buf); errno = EFBIG; return NULL; }
    cap *= 2;
    char *bigger = realloc(buf, cap + 1);
    if (!bigger) { free(buf); return NULL; }
    buf = bigger;
  }
  if (buf) buf[n] = 0;
  *len = n;
  return buf;
}

static void append(struct cordon_record *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(r->buf + r->n, sizeof r->buf - r->n, fmt, ap);
  va_end(ap);
  if (w > 0) r->n = r->n + (size_t)w < sizeof r->buf ? r->n + (size_t)w : sizeof r->buf - 1;
}

static void key(struct cordon_record *r, const char *name) {
  append(r, "%s\"%s\":", r->n ? "," : "{", name);
}

void cordon_record_int(struct cordon_record *r, const char *name, long long v) {
  key(r, name);
  append(r, "%lld", v);
}

void cordon_record_bool(struct cordon_record *r, const char *name, int v) {
  key(r, name);
  append(r, "%s", v ? "true" : "false");
}

void cordon_record_hex(struct cordon_record *r, const char *name, unsigned long long v) {
  key(r, name);
  append(r, "\"0x%llx\"", v);
}

void cordon_record_str(struct cordon_record *r, const char *name, const char *s) {
  char out[600];
  size_t o = 0;
  for (; *s && o + 7 < sizeof out; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { out[o++] = '\\'; out[o++] = (char)c; }
    else if (c < 0x20) o += (size_t)snprintf(out + o, sizeof out - o, "\\u%04x", c);
    else out[o++] = (char)c;
  }
  out[o] = 0;
  key(r, name);
  append(r, "\"%s\"", out);
}

void cordon_record_send(int fd, struct cordon_record *r) {
  append(r, "}\n");
  const char *buf = r->buf;
  size_t n = r->n;
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w <= 0) return;
    buf += w;
    n -= (size_t)w;
  }
}

void cordon_record_error(int fd, const struct cordon_err *e) {
  struct cordon_record r = {.n = 0};
  cordon_record_bool(&r, CORDON_STATUS_OK, 0);
  cordon_record_str(&r, CORDON_STATUS_STEP, e->step ? e->step : "unknown");
  cordon_record_str(&r, CORDON_STATUS_SYSCALL, e->syscall ? e->syscall : "unknown");
  cordon_record_int(&r, CORDON_STATUS_ERRNO, e->err);
  cordon_record_str(&r, CORDON_STATUS_DETAIL, e->detail);
  cordon_record_send(fd, &r);
}
