/*
 * cordon-wire.h — the wire protocol between the TypeScript side, the addon,
 * the launcher and its zygote: descriptor numbers, size limits, exit
 * statuses, request kinds and the field names of the status records.
 *
 * One definition. The launcher and the zygote use these names; the addon
 * exports every value listed in CORDON_WIRE_EXPORTS as `binding.wire`;
 * src/platform/linux/launch/wire.ts is the TypeScript copy, and
 * test/native/wire-contract.test.ts fails when the two differ in any value.
 * Adding a constant: define it here, list it in CORDON_WIRE_EXPORTS, add it
 * to wire.ts.
 *
 * Plain C with no includes, so that binding.cc (C++) and the static
 * launcher (C) can both use it.
 */
#ifndef CORDON_WIRE_H
#define CORDON_WIRE_H

/* ---------- the launcher's command line (native/linux/main.c) ---------- */

/* `cordon-launcher --zygote`: a spawn server on fds 3 and 4 (zygote.c). */
#define CORDON_ARG_ZYGOTE "--zygote"
/* `cordon-launcher --plan-fd N --status-fd M`: one confined command. */
#define CORDON_ARG_PLAN_FD "--plan-fd"
#define CORDON_ARG_STATUS_FD "--status-fd"

/* ---------- descriptors ---------- */

/* A launched child gets, as fds 0..4: stdin, stdout, stderr, the plan (a
 * sealed memfd, read to end of file) and the status stream (close-on-exec,
 * so it reaches end of file when the command's execve succeeds). */
#define CORDON_FD_PLAN 3
#define CORDON_FD_STATUS 4
#define CORDON_CHILD_FDS 5
/* The zygote gets its request socket (SOCK_SEQPACKET) on 3 and its event
 * stream, one "PID WAITSTATUS\n" line per child reaped, on 4. */
#define CORDON_FD_ZYGOTE_REQUESTS 3
#define CORDON_FD_ZYGOTE_EVENTS 4
/* Descriptors one request may carry (SCM_RIGHTS, unix(7)): the child's five
 * and, in namespace mode, the bind sources bwrap mounts by descriptor, on
 * fds 5, 6, … of the child. The kernel's own cap is SCM_MAX_FD (253). */
#define CORDON_MAX_REQUEST_FDS 64
/* A launch request may also carry, LAST, up to this many open cgroup.procs
 * files (cgroups(7)): the child writes itself into each before it runs any
 * code of the command's, and closes them. One per hierarchy: the v2 one and
 * the v1 pids, memory, cpu and freezer hierarchies of a hybrid host. */
#define CORDON_MAX_CGROUP_FDS 8

/* ---------- size limits ---------- */

/* One request is one SOCK_SEQPACKET message. The kernel refuses a message
 * larger than the sender's send buffer (less a small header) with EMSGSIZE;
 * that buffer starts at net.core.wmem_default, 208 KiB on a default
 * kernel. 160 KiB stays below it with room to spare, so a request the
 * TypeScript side accepts can always be sent (it refuses a larger one with
 * E2BIG before sending), and the zygote's buffer is exactly that size: a
 * larger one (it was 1 MiB) could never be filled by a request that the
 * caller sent. A bwrap argv is a few kilobytes. */
#define CORDON_MAX_REQUEST_BYTES (160u * 1024u)
/* Fields in one request: more is refused with E2BIG (never a truncated argv). */
#define CORDON_MAX_REQUEST_FIELDS 4096
/* A plan is kilobytes; the launcher refuses one above this (EFBIG) rather
 * than read without bound. */
#define CORDON_MAX_PLAN_BYTES (64u << 20)

/* ---------- exit statuses of a launched child ---------- */

/* A confinement step failed (the status stream says which), or the
 * request was malformed. The same numbers as env(1) and the shells. */
#define CORDON_EXIT_SETUP 125
/* The command was found but could not be executed (execve failed). */
#define CORDON_EXIT_CANNOT_EXECUTE 126
/* The command was not found (ENOENT), or bwrap could not be executed. */
#define CORDON_EXIT_NOT_FOUND 127

/* ---------- zygote requests (zygote-request.h) ---------- */

/* The first field of a request. Each request but a join gets one int32
 * reply: the child's pid, 0 for a kill, or -errno. A join gets none (the
 * caller does not wait for it; a spare that did not join is harmless: the
 * child then joins its launch's cgroups itself). */
#define CORDON_REQ_LAUNCH "L" /* L UMASK NCG + 5 (+NCG) fds: run the launcher on them */
#define CORDON_REQ_EXEC "X"   /* X UMASK NCG FILE ARGS… + ≥5 (+NCG) fds: execve FILE (bwrap) */
#define CORDON_REQ_KILL "K"   /* K PID SIG SCOPE: signal a child not yet reaped */
#define CORDON_REQ_JOIN "J"   /* J + NCG fds: the spare joins these cgroups now; J + none: replace the spare */
#define CORDON_REQ_VERSION "V" /* V: the zygote protocol this launcher speaks (CORDON_ZYGOTE_PROTOCOL) */
/* The zygote protocol: 2 adds J (unanswered) and V. A launcher that answers V
 * with anything else (an older one: -EINVAL) is never sent a J, whose lack of
 * an answer it would not know about: every later reply would be one off. */
#define CORDON_ZYGOTE_PROTOCOL 2
/* SCOPE of a kill: the child's process group, or the child alone. */
#define CORDON_KILL_GROUP "g"
#define CORDON_KILL_PROCESS "p"

/* ---------- the plan (plan.c) ---------- */

/* The plan's "v": a launcher refuses any other, so a plan from a newer
 * TypeScript side is never half-understood. */
#define CORDON_PLAN_VERSION 1

/* ---------- status records (status.c): one JSON object per line ---------- */

/* The setup record, when every step succeeded: what was applied. */
#define CORDON_STATUS_OK "ok"
#define CORDON_STATUS_LANDLOCK_ABI "landlockAbi"
#define CORDON_STATUS_FS_HANDLED "fsHandled" /* hex string: a u64 mask */
#define CORDON_STATUS_NET_HANDLED "netHandled"
#define CORDON_STATUS_SCOPED "scoped"
#define CORDON_STATUS_LOG_FLAGS "logFlags"
#define CORDON_STATUS_SECCOMP_RULES "seccompRules"
#define CORDON_STATUS_NO_NEW_PRIVS "noNewPrivs"
#define CORDON_STATUS_CAPS_DROPPED "capsDropped"
#define CORDON_STATUS_BOUNDING_DROPPED "boundingDropped"
#define CORDON_STATUS_SKIPPED_RULES "skippedRules"
/* Landlock mode's metadata filter: 1 the supervisor decides chmod, chown,
 * utimes and xattr calls; 0 they are refused outright (a listener could not
 * be installed: a parent sandbox's filter, or another listener, EBUSY);
 * -1 not planned (namespace mode). */
#define CORDON_STATUS_METADATA "metadata"
/* The macOS launcher's setup record (native/darwin/status.c): "ok", then
 * whether the Seatbelt profile is in force, PT_DENY_ATTACH and RLIMIT_CORE 0
 * applied, and how many DYLD_* variables were taken out of the command's
 * environment. Not in CORDON_WIRE_EXPORTS (the addon is not on that path):
 * test/native/darwin-launcher.test.ts checks the record as
 * src/platform/darwin/start.ts reads it. */
#define CORDON_STATUS_SEATBELT "seatbelt"
#define CORDON_STATUS_DENY_ATTACH "denyAttach"
#define CORDON_STATUS_CORE_ZERO "coreZero"
#define CORDON_STATUS_DYLD_SCRUBBED "dyldScrubbed"
/* The error record ("ok": false): the failing step, syscall and errno. */
#define CORDON_STATUS_STEP "step"
#define CORDON_STATUS_SYSCALL "syscall"
#define CORDON_STATUS_ERRNO "errno"
#define CORDON_STATUS_DETAIL "detail"
/* The exit record, from the supervisor: the command's wait status. */
#define CORDON_STATUS_EXIT "exit"
#define CORDON_STATUS_CODE "code"
#define CORDON_STATUS_SIGNAL "signal"
#define CORDON_STATUS_LOST "lost"

/* ---------- what the addon exports (binding.wire) ---------- */

/* NUM(group, name, value), STR(group, name, value), FIELD(record, name):
 * the JavaScript shape is { group: { name: value } } and
 * status: { record: [name, …] } in this order. */
#define CORDON_WIRE_EXPORTS(NUM, STR, FIELD)                             \
  STR(arg, zygote, CORDON_ARG_ZYGOTE)                                    \
  STR(arg, planFd, CORDON_ARG_PLAN_FD)                                   \
  STR(arg, statusFd, CORDON_ARG_STATUS_FD)                               \
  NUM(fd, plan, CORDON_FD_PLAN)                                          \
  NUM(fd, status, CORDON_FD_STATUS)                                      \
  NUM(fd, childCount, CORDON_CHILD_FDS)                                  \
  NUM(fd, zygoteRequests, CORDON_FD_ZYGOTE_REQUESTS)                     \
  NUM(fd, zygoteEvents, CORDON_FD_ZYGOTE_EVENTS)                         \
  NUM(fd, maxPerRequest, CORDON_MAX_REQUEST_FDS)                         \
  NUM(fd, maxCgroups, CORDON_MAX_CGROUP_FDS)                             \
  NUM(limit, requestBytes, CORDON_MAX_REQUEST_BYTES)                     \
  NUM(limit, requestFields, CORDON_MAX_REQUEST_FIELDS)                   \
  NUM(limit, planBytes, CORDON_MAX_PLAN_BYTES)                           \
  NUM(exit, setup, CORDON_EXIT_SETUP)                                    \
  NUM(exit, cannotExecute, CORDON_EXIT_CANNOT_EXECUTE)                   \
  NUM(exit, notFound, CORDON_EXIT_NOT_FOUND)                             \
  STR(request, launch, CORDON_REQ_LAUNCH)                                \
  STR(request, exec, CORDON_REQ_EXEC)                                    \
  STR(request, kill, CORDON_REQ_KILL)                                    \
  STR(request, join, CORDON_REQ_JOIN)                                    \
  STR(request, version, CORDON_REQ_VERSION)                              \
  NUM(zygote, protocol, CORDON_ZYGOTE_PROTOCOL)                          \
  STR(request, killGroup, CORDON_KILL_GROUP)                             \
  STR(request, killProcess, CORDON_KILL_PROCESS)                         \
  NUM(plan, version, CORDON_PLAN_VERSION)                                \
  FIELD(setup, CORDON_STATUS_OK)                                         \
  FIELD(setup, CORDON_STATUS_LANDLOCK_ABI)                               \
  FIELD(setup, CORDON_STATUS_FS_HANDLED)                                 \
  FIELD(setup, CORDON_STATUS_NET_HANDLED)                                \
  FIELD(setup, CORDON_STATUS_SCOPED)                                     \
  FIELD(setup, CORDON_STATUS_LOG_FLAGS)                                  \
  FIELD(setup, CORDON_STATUS_SECCOMP_RULES)                              \
  FIELD(setup, CORDON_STATUS_NO_NEW_PRIVS)                               \
  FIELD(setup, CORDON_STATUS_CAPS_DROPPED)                               \
  FIELD(setup, CORDON_STATUS_BOUNDING_DROPPED)                           \
  FIELD(setup, CORDON_STATUS_SKIPPED_RULES)                              \
  FIELD(setup, CORDON_STATUS_METADATA)                                   \
  FIELD(error, CORDON_STATUS_OK)                                         \
  FIELD(error, CORDON_STATUS_STEP)                                       \
  FIELD(error, CORDON_STATUS_SYSCALL)                                    \
  FIELD(error, CORDON_STATUS_ERRNO)                                      \
  FIELD(error, CORDON_STATUS_DETAIL)                                     \
  FIELD(exit, CORDON_STATUS_EXIT)                                        \
  FIELD(exit, CORDON_STATUS_CODE)                                        \
  FIELD(exit, CORDON_STATUS_SIGNAL)                                      \
  FIELD(exit, CORDON_STATUS_LOST)

#endif
