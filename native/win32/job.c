/*
 * job.c — the job object that holds the command and everything it starts.
 *
 * Unnamed, so no other process can open it by name; this launcher holds
 * the only handle. JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: when that handle
 * closes — the launcher exits, crashes, or is killed because cordon's Node
 * process died (libuv puts its children in a kill-on-close job of its own)
 * — every process in the job is terminated (MSDN,
 * JOBOBJECT_BASIC_LIMIT_INFORMATION). No JOB_OBJECT_LIMIT_BREAKAWAY_OK or
 * SILENT_BREAKAWAY_OK: a CreateProcess with CREATE_BREAKAWAY_FROM_JOB
 * inside the sandbox fails with access denied instead of escaping the job.
 */
#include "launcher.h"

static DWORD limit_flags(const struct wplan *p) {
  /* DIE_ON_UNHANDLED_EXCEPTION: a crashing process ends instead of waiting for WER's dialog, which would keep the run alive. */
  DWORD f = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (p->procs) f |= JOB_OBJECT_LIMIT_ACTIVE_PROCESS; /* a fork bomb stops at the limit (CreateProcess fails) */
  if (p->memory) f |= JOB_OBJECT_LIMIT_JOB_MEMORY;    /* committed memory of all processes together */
  if (p->cpu_seconds) f |= JOB_OBJECT_LIMIT_JOB_TIME; /* user-mode time of the whole job; past it, the job is terminated */
  return f;
}

static int set_limits(HANDLE job, const struct wplan *p, struct werr *e) {
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION x;
  ZeroMemory(&x, sizeof x);
  x.BasicLimitInformation.LimitFlags = limit_flags(p);
  x.BasicLimitInformation.ActiveProcessLimit = p->procs;
  x.BasicLimitInformation.PerJobUserTimeLimit.QuadPart = (LONGLONG)(p->cpu_seconds * 10000000ull); /* 100 ns units */
  x.JobMemoryLimit = (SIZE_T)p->memory;
  if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &x, sizeof x))
    return werr_set(e, "job", "SetInformationJobObject(JobObjectExtendedLimitInformation)", GetLastError());
  return 0;
}

/*
 * UI limits: no USER handles of processes outside the job (window
 * messages to the caller's windows: "shatter" attacks), no clipboard, no
 * global atoms, no desktop switch, no system settings, no logoff or
 * shutdown (MSDN, JOBOBJECT_BASIC_UI_RESTRICTIONS).
 */
static int set_ui_limits(HANDLE job, struct werr *e) {
  JOBOBJECT_BASIC_UI_RESTRICTIONS ui = {JOB_OBJECT_UILIMIT_HANDLES | JOB_OBJECT_UILIMIT_READCLIPBOARD | JOB_OBJECT_UILIMIT_WRITECLIPBOARD |
                                        JOB_OBJECT_UILIMIT_GLOBALATOMS | JOB_OBJECT_UILIMIT_DESKTOP | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS |
                                        JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | JOB_OBJECT_UILIMIT_EXITWINDOWS};
  if (!SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof ui))
    return werr_set(e, "job", "SetInformationJobObject(JobObjectBasicUIRestrictions)", GetLastError());
  return 0;
}

HANDLE job_make(const struct wplan *p, struct werr *e) {
  HANDLE job = CreateJobObjectW(NULL, NULL);
  if (!job) { werr_set(e, "job", "CreateJobObjectW", GetLastError()); return NULL; }
  if (set_limits(job, p, e) || set_ui_limits(job, e)) {
    CloseHandle(job);
    return NULL;
  }
  return job;
}
