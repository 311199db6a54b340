/*
 * probe.c — what the addon reports about the Windows it runs on.
 *
 * RtlGetVersion, not GetVersionEx: the latter lies to a process without a
 * compatibility manifest (it reports Windows 8), and a Node addon has no
 * manifest of its own (MSDN, "Operating System Version"). Wine's ntdll
 * exports wine_get_version: under Wine, cordon's doctor says that no token,
 * ACL or job limit is enforced rather than report them as working.
 */
#include <windows.h>
#include <stdio.h>
#include <string.h>
#include "cordon.h"

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);
typedef const char *(CDECL *wine_get_version_fn)(void);

void cordon_win32_probe_run(struct cordon_win32_probe *p) {
  memset(p, 0, sizeof *p);
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  if (!ntdll) return;
  rtl_get_version_fn get = (rtl_get_version_fn)(void (*)(void))GetProcAddress(ntdll, "RtlGetVersion");
  OSVERSIONINFOW v;
  memset(&v, 0, sizeof v);
  v.dwOSVersionInfoSize = sizeof v;
  if (get && get(&v) == 0) {
    p->major = v.dwMajorVersion;
    p->minor = v.dwMinorVersion;
    p->build = v.dwBuildNumber;
  }
  wine_get_version_fn wine = (wine_get_version_fn)(void (*)(void))GetProcAddress(ntdll, "wine_get_version");
  if (wine) snprintf(p->wine, sizeof p->wine, "%s", wine());
}
