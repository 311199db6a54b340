/*
 * seatbelt.c — apply the generated SBPL profile to this process, which
 * then execs the command: a Seatbelt profile is inherited across fork and
 * exec and can never be lifted (sandbox_init(3)).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "launcher.h"
#include "seatbelt-api.h"

/*
 * Seatbelt does not nest: a process already under a profile (cordon run
 * inside Codex's or another agent's sandbox, inside an App Sandbox) gets
 * `sandbox_apply: Operation not permitted` from sandbox_init. Ask first so
 * the error names the cause instead of a bare EPERM — and refuse when the
 * answer is anything but a clear "not sandboxed": running the command
 * without our profile is never the fallback.
 */
int darwin_refuse_nested(struct cordon_err *e) {
  int r = sandbox_check(getpid(), NULL, CORDON_SANDBOX_FILTER_NONE);
  if (r == 0) return 0;
  cordon_err_set(e, "seatbelt", "sandbox_check", EPERM);
  strncpy(e->detail,
          r == 1 ? "already inside a Seatbelt sandbox: Seatbelt profiles do not nest (sandbox_apply: Operation not permitted); run cordon outside the other sandbox"
                 : "sandbox_check could not tell whether this process is already sandboxed; refusing rather than guessing",
          sizeof e->detail - 1);
  return -1;
}

/*
 * sandbox_init(profile, 0, &err): flags 0 means `profile` is SBPL source
 * (not one of the named kSBXProfile* profiles). On failure err holds the
 * compiler's message (a syntax error, an unknown operation, a string too
 * long), which goes to the caller verbatim in the status record.
 *
 * sandbox_init is marked deprecated in the SDK (since macOS 10.8). It is
 * still the only public call that applies an SBPL profile to the calling
 * process — sandbox-exec(1), Chromium and Codex rely on it — so the
 * deprecation warning is silenced for this call alone, and -Werror stays
 * on for everything else.
 */
int darwin_seatbelt_apply(const char *profile, struct cordon_err *e) {
  char *msg = NULL;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  int r = sandbox_init(profile, 0, &msg);
#pragma GCC diagnostic pop
  if (r == 0) return 0;
  cordon_err_set(e, "seatbelt", "sandbox_init", errno ? errno : EPERM);
  strncpy(e->detail, msg ? msg : "sandbox_init failed without a message", sizeof e->detail - 1);
  if (msg) sandbox_free_error(msg);
  return -1;
}
