/*
 * seatbelt-api.h — the libsandbox calls the macOS launcher makes.
 *
 * On macOS they come from <sandbox.h> (sandbox_init, sandbox_free_error:
 * public, deprecated since 10.8 but still what Chromium, Codex and
 * sandbox-exec(1) itself use to apply an SBPL profile; Apple has no
 * supported replacement for a command-line child) and from libsystem_sandbox
 * (sandbox_check: exported but in no public header, so declared here as
 * Chromium and Elasticsearch do).
 *
 * Anywhere else the same names are declared for the test build only:
 * test/native/darwin-launcher.test.ts compiles the launcher on Linux
 * against test/native/fixtures/sandbox-double.c, which implements them
 * (records the profile, fails on request). No such build ships: binding.gyp
 * builds native/darwin only for OS=='mac'.
 */
#ifndef CORDON_SEATBELT_API_H
#define CORDON_SEATBELT_API_H

#include <stdint.h>
#include <sys/types.h>

#ifdef __APPLE__
#include <sandbox.h>
#include <sys/ptrace.h>
#else
int sandbox_init(const char *profile, uint64_t flags, char **errorbuf);
void sandbox_free_error(char *errorbuf);
/* macOS's request number; the double records the call instead of tracing. */
#define PT_DENY_ATTACH 31
int cordon_double_ptrace(int request, pid_t pid, char *addr, int data);
#define ptrace(req, pid, addr, data) cordon_double_ptrace((req), (pid), (addr), (data))
#endif

/* sandbox_check(pid, NULL, SANDBOX_FILTER_NONE) is 1 when `pid` runs under
 * any Seatbelt profile, 0 when not (measured by KiroCrew and Elasticsearch
 * users on macOS 14–26; undocumented, so anything else is treated as
 * "cannot tell" and refused). */
int sandbox_check(pid_t pid, const char *operation, int type, ...);
#define CORDON_SANDBOX_FILTER_NONE 0

#endif
