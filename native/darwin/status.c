/*
 * status.c — the macOS launcher's records on the close-on-exec status fd
 * (writer: native/common/launcher-io.c, shared with the Linux launcher).
 * The "ok" record says what was applied; an error record names the step,
 * the call, errno and a detail (sandbox_init's own message). A successful
 * execve closes the fd after "ok"; an exec failure adds an error record.
 */
#include "cordon-launcher-io.h"
#include "cordon-wire.h"
#include "launcher.h"

void darwin_status_ok(int fd, const struct darwin_applied *a) {
  struct cordon_record r = {.n = 0};
  cordon_record_bool(&r, CORDON_STATUS_OK, 1);
  cordon_record_bool(&r, CORDON_STATUS_SEATBELT, a->seatbelt);
  cordon_record_bool(&r, CORDON_STATUS_DENY_ATTACH, a->deny_attach);
  cordon_record_bool(&r, CORDON_STATUS_CORE_ZERO, a->core_zero);
  cordon_record_int(&r, CORDON_STATUS_DYLD_SCRUBBED, a->dyld_scrubbed);
  cordon_record_send(fd, &r);
}
