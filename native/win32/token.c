/*
 * token.c — the command's primary token: a write-restricted copy of ours.
 *
 * CreateRestrictedToken with WRITE_RESTRICTED (MSDN, "Restricted Tokens"):
 * every access check that asks for write access is made twice, once with
 * the token's normal groups and once with only the restricting SIDs, and
 * both must grant it. The one restricting SID is this sandbox's own
 * capability SID, which appears in no other token and in no ACL except the
 * ones acl.c adds for this launch: the command can write where the user can
 * AND the sandbox SID was granted (the write roots), nowhere else. Reads are
 * not restricted by a write-restricted token (deny-read needs the
 * integrity label, see acl.c).
 */
#include <windows.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include "launcher.h"

/* Is `sid` among the token's groups? (CreateRestrictedToken is only handed SIDs that are there.) */
static int token_has_group(HANDLE tok, PSID sid) {
  DWORD len = 0;
  GetTokenInformation(tok, TokenGroups, NULL, 0, &len);
  TOKEN_GROUPS *g = len ? malloc(len) : NULL;
  int found = 0;
  if (g && GetTokenInformation(tok, TokenGroups, g, len, &len)) {
    for (DWORD i = 0; i < g->GroupCount && !found; i++) found = EqualSid(g->Groups[i].Sid, sid);
  }
  free(g);
  return found;
}

static HANDLE restrict_token(HANDLE tok, PSID sid, struct werr *e) {
  SID_AND_ATTRIBUTES restricting = {sid, 0};
  SID_AND_ATTRIBUTES admins = {NULL, 0};
  BYTE admins_sid[SECURITY_MAX_SID_SIZE];
  DWORD admins_len = sizeof admins_sid;
  HANDLE out = NULL;
  /* An elevated caller's Administrators group becomes deny-only: it can still
   * deny the command access, never grant it (MSDN, CreateRestrictedToken,
   * SidsToDisable). */
  if (CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, admins_sid, &admins_len) && token_has_group(tok, admins_sid)) admins.Sid = admins_sid;
  /* DISABLE_MAX_PRIVILEGE: every privilege but SeChangeNotifyPrivilege goes,
   * so SeBackupPrivilege/SeRestorePrivilege/SeTakeOwnershipPrivilege of an
   * admin caller cannot bypass the ACLs below. */
  if (!CreateRestrictedToken(tok, DISABLE_MAX_PRIVILEGE | WRITE_RESTRICTED, admins.Sid ? 1 : 0, admins.Sid ? &admins : NULL,
                             0, NULL, 1, &restricting, &out)) {
    werr_set(e, "token", "CreateRestrictedToken", GetLastError());
    return NULL;
  }
  return out;
}

/* The user's SID as a string, for the default DACL. */
static WCHAR *user_sid_string(HANDLE tok) {
  BYTE buf[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
  DWORD len = sizeof buf;
  WCHAR *s = NULL;
  if (GetTokenInformation(tok, TokenUser, buf, len, &len)) ConvertSidToStringSidW(((TOKEN_USER *)buf)->User.Sid, &s);
  return s;
}

/*
 * Objects the command creates (its process and threads, pipes, files
 * outside an inheriting directory) get the token's default DACL. A
 * write-restricted token can write them only if the restricting SID is
 * granted too, so the default DACL names SYSTEM, the user and the sandbox
 * SID — and nobody else.
 */
static int set_default_dacl(HANDLE rtok, HANDLE tok, const WCHAR *cap, struct werr *e) {
  WCHAR *user = user_sid_string(tok);
  WCHAR sddl[512];
  PSECURITY_DESCRIPTOR sd = NULL;
  BOOL present = FALSE, defaulted = FALSE;
  PACL dacl = NULL;
  if (!user) return werr_set(e, "token", "GetTokenInformation(TokenUser)", GetLastError());
  _snwprintf(sddl, sizeof sddl / sizeof *sddl, L"D:(A;;GA;;;SY)(A;;GA;;;%ls)(A;;GA;;;%ls)", user, cap);
  sddl[sizeof sddl / sizeof *sddl - 1] = 0;
  LocalFree(user);
  if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd, NULL))
    return werr_set(e, "token", "ConvertStringSecurityDescriptorToSecurityDescriptorW", GetLastError());
  GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted);
  TOKEN_DEFAULT_DACL dd = {dacl};
  BOOL ok = SetTokenInformation(rtok, TokenDefaultDacl, &dd, sizeof dd);
  DWORD err = GetLastError();
  LocalFree(sd);
  return ok ? 0 : werr_set(e, "token", "SetTokenInformation(TokenDefaultDacl)", err);
}

/*
 * Low integrity (S-1-16-4096): the mandatory integrity check runs before
 * the DACL, and an object without a label counts as medium with
 * no-write-up, so a low-integrity command cannot write anything not
 * labeled low — whatever its DACL says (MSDN, "Mandatory Integrity
 * Control"). acl.c labels the write roots low for the launch.
 */
static int set_low_integrity(HANDLE rtok, struct werr *e) {
  BYTE low[SECURITY_MAX_SID_SIZE];
  DWORD len = sizeof low;
  if (!CreateWellKnownSid(WinLowLabelSid, NULL, low, &len)) return werr_set(e, "token", "CreateWellKnownSid(WinLowLabelSid)", GetLastError());
  TOKEN_MANDATORY_LABEL label = {{low, SE_GROUP_INTEGRITY}};
  if (!SetTokenInformation(rtok, TokenIntegrityLevel, &label, sizeof label + GetLengthSid(low)))
    return werr_set(e, "token", "SetTokenInformation(TokenIntegrityLevel)", GetLastError());
  return 0;
}

HANDLE token_make(const struct wplan *p, PSID sid, struct werr *e) {
  HANDLE tok = NULL, rtok = NULL;
  DWORD want = TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT;
  if (!OpenProcessToken(GetCurrentProcess(), want, &tok)) { werr_set(e, "token", "OpenProcessToken", GetLastError()); return NULL; }
  rtok = restrict_token(tok, sid, e);
  if (rtok && (set_default_dacl(rtok, tok, p->sid, e) || (p->low_integrity && set_low_integrity(rtok, e)))) {
    CloseHandle(rtok);
    rtok = NULL;
  }
  CloseHandle(tok);
  return rtok;
}
