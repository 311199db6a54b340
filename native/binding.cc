// binding.cc — the only file that includes napi.h.
//
// It checks arguments, calls the plain C functions declared in cordon.h and
// maps their `struct cordon_err` to JS errors carrying { code, errno,
// syscall, step }. Exception policy: node-addon-api is built with
// NAPI_CPP_EXCEPTIONS disabled (NAPI_DISABLE_CPP_EXCEPTIONS); errors are
// thrown as pending JS exceptions and every function returns right after.
#include <napi.h>
#include <cerrno>
#include <cstring>
#include "include/cordon.h"

namespace {

const char *errno_name(int err) {
  switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case ENOSYS: return "ENOSYS";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ENOMEM: return "ENOMEM";
    case ENOSPC: return "ENOSPC";
    case EUSERS: return "EUSERS";
    case ECHILD: return "ECHILD";
    default: return "EUNKNOWN";
  }
}

Napi::Value ThrowCordonError(Napi::Env env, const cordon_err &e) {
  std::string msg = std::string(e.step ? e.step : "native") + ": " + (e.syscall ? e.syscall : "?") + ": " +
                    std::strerror(e.err);
  Napi::Error err = Napi::Error::New(env, msg);
  err.Set("code", Napi::String::New(env, errno_name(e.err)));
  err.Set("errno", Napi::Number::New(env, e.err));
  err.Set("syscall", Napi::String::New(env, e.syscall ? e.syscall : ""));
  err.Set("step", Napi::String::New(env, e.step ? e.step : ""));
  err.ThrowAsJavaScriptException();
  return env.Undefined();
}

Napi::Value NullableInt(Napi::Env env, int v) {
  return v < 0 ? env.Null() : Napi::Number::New(env, v);
}

Napi::Value Probe(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() != 0) {
    Napi::TypeError::New(env, "probe() takes no arguments").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  cordon_probe p;
  cordon_probe_run(&p);
  Napi::Object o = Napi::Object::New(env);
  o.Set("landlockAbi", NullableInt(env, p.landlock_abi));
  o.Set("landlockErrno", Napi::Number::New(env, p.landlock_errno));
  o.Set("landlockErrata", NullableInt(env, p.landlock_errata));
  o.Set("seccomp", Napi::Boolean::New(env, p.seccomp != 0));
  o.Set("seccompErrno", Napi::Number::New(env, p.seccomp_errno));
  o.Set("userns", Napi::Boolean::New(env, p.userns != 0));
  o.Set("usernsErrno", Napi::Number::New(env, p.userns_errno));
  o.Set("usernsStep", p.userns_step ? Napi::Value(Napi::String::New(env, p.userns_step)) : env.Null());
  o.Set("maxUserNamespaces", NullableInt(env, p.max_user_namespaces));
  o.Set("unprivilegedUsernsClone", NullableInt(env, p.unprivileged_userns_clone));
  o.Set("apparmorRestrictUserns", NullableInt(env, p.apparmor_restrict_userns));
  o.Set("noNewPrivs", Napi::Boolean::New(env, p.no_new_privs != 0));
  o.Set("kernel", Napi::String::New(env, p.kernel));
  o.Set("machine", Napi::String::New(env, p.machine));
  return o;
}

Napi::Value HardenSelf(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  cordon_hardening h;
  cordon_err e{};
  if (cordon_harden_self(&h, &e) < 0) return ThrowCordonError(env, e);
  Napi::Object o = Napi::Object::New(env);
  o.Set("dumpableOff", Napi::Boolean::New(env, h.dumpable_off != 0));
  o.Set("coreZero", Napi::Boolean::New(env, h.core_zero != 0));
  o.Set("scrubbed", Napi::Number::New(env, h.scrubbed));
  return o;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("probe", Napi::Function::New(env, Probe, "probe"));
  exports.Set("hardenSelf", Napi::Function::New(env, HardenSelf, "hardenSelf"));
  exports.Set("abiVersion", Napi::Number::New(env, 1));
  return exports;
}

}  // namespace

NODE_API_MODULE(cordon, Init)
