/*
 * status.c — report to the parent over the close-on-exec status fd.
 *
 * The parent reads until EOF. A successful execve closes the fd (O_CLOEXEC)
 * after the "ok" record; a failure leaves an error record naming the step,
 * the syscall and errno, and the launcher exits 125.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "launcher.h"

static void write_all(int fd, const char *buf, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, buf, n);
    if (w <= 0) return;
    buf += w;
    n -= (size_t)w;
  }
}

/* JSON-escape a detail string (paths may contain quotes or control chars). */
static void escape_into(char *out, size_t cap, const char *s) {
  size_t o = 0;
  for (; *s && o + 7 < cap; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { out[o++] = '\\'; out[o++] = (char)c; }
    else if (c < 0x20) o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
    else out[o++] = (char)c;
  }
  out[o] = 0;
}

void status_write_ok(int fd, const struct applied *a) {
  char buf[512];
  int n = snprintf(buf, sizeof buf,
                   "{\"ok\":true,\"landlockAbi\":%d,\"fsHandled\":\"0x%llx\",\"netHandled\":%s,"
                   "\"scoped\":%u,\"logFlags\":%d,\"seccompRules\":%d,\"noNewPrivs\":%s,"
                   "\"capsDropped\":%s,\"boundingDropped\":%s,\"skippedRules\":%d}\n",
                   a->landlock_abi, (unsigned long long)a->fs_handled, a->net_handled ? "true" : "false",
                   a->scoped, a->log_flags, a->seccomp_rules, a->no_new_privs ? "true" : "false",
                   a->caps_dropped ? "true" : "false", a->bounding_dropped ? "true" : "false", a->skipped_rules);
  if (n > 0) write_all(fd, buf, (size_t)n);
}

void status_write_err(int fd, const struct cordon_err *e) {
  char buf[1024], detail[600];
  escape_into(detail, sizeof detail, e->detail);
  int n = snprintf(buf, sizeof buf, "{\"ok\":false,\"step\":\"%s\",\"syscall\":\"%s\",\"errno\":%d,\"detail\":\"%s\"}\n",
                   e->step ? e->step : "unknown", e->syscall ? e->syscall : "unknown", e->err, detail);
  if (n > 0) write_all(fd, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* The command's wait status, from the supervisor: {"exit":true,"code":N} or
 * {"exit":true,"signal":N}. */
void status_write_exit(int fd, int wait_status) {
  char buf[96];
  int n;
  if (wait_status >= 0 && WIFSIGNALED(wait_status)) n = snprintf(buf, sizeof buf, "{\"exit\":true,\"signal\":%d}\n", WTERMSIG(wait_status));
  else if (wait_status >= 0 && WIFEXITED(wait_status)) n = snprintf(buf, sizeof buf, "{\"exit\":true,\"code\":%d}\n", WEXITSTATUS(wait_status));
  else n = snprintf(buf, sizeof buf, "{\"exit\":true,\"lost\":true}\n");
  if (n > 0) write_all(fd, buf, (size_t)n);
}
