/*
 * status.c — report to the parent over the close-on-exec status fd.
 *
 * The parent reads until EOF. A successful execve closes the fd (O_CLOEXEC)
 * after the "ok" record; a failure leaves an error record naming the step,
 * the syscall and errno, and the launcher exits CORDON_EXIT_SETUP. The
 * supervisor adds an exit record with the command's wait status. Each record
 * is one JSON object on one line; the field names are cordon-wire.h's, the
 * writer is native/common/launcher-io.c (shared with the macOS launcher).
 */
#include <sys/wait.h>
#include "cordon-launcher-io.h"
#include "cordon-wire.h"
#include "launcher.h"

void status_write_ok(int fd, const struct applied *a) {
  struct cordon_record r = {.n = 0};
  cordon_record_bool(&r, CORDON_STATUS_OK, 1);
  cordon_record_int(&r, CORDON_STATUS_LANDLOCK_ABI, a->landlock_abi);
  cordon_record_hex(&r, CORDON_STATUS_FS_HANDLED, (unsigned long long)a->fs_handled);
  cordon_record_bool(&r, CORDON_STATUS_NET_HANDLED, a->net_handled);
  cordon_record_int(&r, CORDON_STATUS_SCOPED, a->scoped);
  cordon_record_int(&r, CORDON_STATUS_LOG_FLAGS, a->log_flags);
  cordon_record_int(&r, CORDON_STATUS_SECCOMP_RULES, a->seccomp_rules);
  cordon_record_bool(&r, CORDON_STATUS_NO_NEW_PRIVS, a->no_new_privs);
  cordon_record_bool(&r, CORDON_STATUS_CAPS_DROPPED, a->caps_dropped);
  cordon_record_bool(&r, CORDON_STATUS_BOUNDING_DROPPED, a->bounding_dropped);
  cordon_record_int(&r, CORDON_STATUS_SKIPPED_RULES, a->skipped_rules);
  cordon_record_int(&r, CORDON_STATUS_METADATA, a->metadata);
  cordon_record_send(fd, &r);
}

void status_write_err(int fd, const struct cordon_err *e) {
  cordon_record_error(fd, e);
}

/* The command's wait status, from the supervisor: {"exit":true,"code":N},
 * {"exit":true,"signal":N}, or {"exit":true,"lost":true} when waitpid failed. */
void status_write_exit(int fd, int wait_status) {
  struct cordon_record r = {.n = 0};
  cordon_record_bool(&r, CORDON_STATUS_EXIT, 1);
  if (wait_status >= 0 && WIFSIGNALED(wait_status)) cordon_record_int(&r, CORDON_STATUS_SIGNAL, WTERMSIG(wait_status));
  else if (wait_status >= 0 && WIFEXITED(wait_status)) cordon_record_int(&r, CORDON_STATUS_CODE, WEXITSTATUS(wait_status));
  else cordon_record_bool(&r, CORDON_STATUS_LOST, 1);
  cordon_record_send(fd, &r);
}
