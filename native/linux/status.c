/*
 * status.c — report to the parent over the close-on-exec status fd.
 *
 * The parent reads until EOF. A successful execve closes the fd (O_CLOEXEC)
 * after the "ok" record; a failure leaves an error record naming the step,
 * the syscall and errno, and the launcher exits CORDON_EXIT_SETUP. The
 * supervisor adds an exit record with the command's wait status. Each record
 * is one JSON object on one line; the field names are cordon-wire.h's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "launcher.h"

/* One record being written. Bounded: the longest (an error with a 600-byte
 * escaped detail) fits with room to spare. */
struct record {
  char buf[1024];
  size_t n;
};

static void append(struct record *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(r->buf + r->n, sizeof r->buf - r->n, fmt, ap);
  va_end(ap);
  if (w > 0) r->n = r->n + (size_t)w < sizeof r->buf ? r->n + (size_t)w : sizeof r->buf - 1;
}

static void key(struct record *r, const char *name) {
  append(r, "%s\"%s\":", r->n ? "," : "{", name);
}

static void put_int(struct record *r, const char *name, long long v) {
  key(r, name);
  append(r, "%lld", v);
}

static void put_bool(struct record *r, const char *name, int v) {
  key(r, name);
  append(r, "%s", v ? "true" : "false");
}

/* A u64 mask as a hex string: a JSON number (a double) would lose bits above 2^53. */
static void put_hex(struct record *r, const char *name, unsigned long long v) {
  key(r, name);
  append(r, "\"0x%llx\"", v);
}

/* JSON-escape a string (a detail may be a path with quotes or control chars). */
static void put_str(struct record *r, const char *name, const char *s) {
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

static void send_record(int fd, struct record *r) {
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

void status_write_ok(int fd, const struct applied *a) {
  struct record r = {.n = 0};
  put_bool(&r, CORDON_STATUS_OK, 1);
  put_int(&r, CORDON_STATUS_LANDLOCK_ABI, a->landlock_abi);
  put_hex(&r, CORDON_STATUS_FS_HANDLED, (unsigned long long)a->fs_handled);
  put_bool(&r, CORDON_STATUS_NET_HANDLED, a->net_handled);
  put_int(&r, CORDON_STATUS_SCOPED, a->scoped);
  put_int(&r, CORDON_STATUS_LOG_FLAGS, a->log_flags);
  put_int(&r, CORDON_STATUS_SECCOMP_RULES, a->seccomp_rules);
  put_bool(&r, CORDON_STATUS_NO_NEW_PRIVS, a->no_new_privs);
  put_bool(&r, CORDON_STATUS_CAPS_DROPPED, a->caps_dropped);
  put_bool(&r, CORDON_STATUS_BOUNDING_DROPPED, a->bounding_dropped);
  put_int(&r, CORDON_STATUS_SKIPPED_RULES, a->skipped_rules);
  put_int(&r, CORDON_STATUS_METADATA, a->metadata);
  send_record(fd, &r);
}

void status_write_err(int fd, const struct cordon_err *e) {
  struct record r = {.n = 0};
  put_bool(&r, CORDON_STATUS_OK, 0);
  put_str(&r, CORDON_STATUS_STEP, e->step ? e->step : "unknown");
  put_str(&r, CORDON_STATUS_SYSCALL, e->syscall ? e->syscall : "unknown");
  put_int(&r, CORDON_STATUS_ERRNO, e->err);
  put_str(&r, CORDON_STATUS_DETAIL, e->detail);
  send_record(fd, &r);
}

/* The command's wait status, from the supervisor: {"exit":true,"code":N},
 * {"exit":true,"signal":N}, or {"exit":true,"lost":true} when waitpid failed. */
void status_write_exit(int fd, int wait_status) {
  struct record r = {.n = 0};
  put_bool(&r, CORDON_STATUS_EXIT, 1);
  if (wait_status >= 0 && WIFSIGNALED(wait_status)) put_int(&r, CORDON_STATUS_SIGNAL, WTERMSIG(wait_status));
  else if (wait_status >= 0 && WIFEXITED(wait_status)) put_int(&r, CORDON_STATUS_CODE, WEXITSTATUS(wait_status));
  else put_bool(&r, CORDON_STATUS_LOST, 1);
  send_record(fd, &r);
}
