{
  # One build system for cordon's native code. Two targets:
  #  - cordon: the N-API addon (probe, hardening of the calling process);
  #  - cordon-launcher: the executable that confines a child before execve.
  # libseccomp is linked statically into the addon, which compiles the
  # seccomp rules once per process (the launcher only loads the finished
  # BPF program), so a prebuild needs no libseccomp on the user's machine.
  # The launcher is a static PIE: no dynamic loader work per spawn, and no
  # LD_* variable can inject code into it.
  "variables": {
    "hardening_cflags": [
      "-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-fvisibility=hidden",
      "-fPIE", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"
    ]
  },
  "targets": [
    {
      "target_name": "cordon",
      "sources": ["native/binding.cc", "native/common/err.c", "native/common/hardening.c"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "native/include"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags": ["-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-fvisibility=hidden", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++17", "-fno-exceptions"],
      "conditions": [
        ["OS=='linux'", {
          "sources": [
            "native/linux/probe.c", "native/linux/landlock-abi.c", "native/linux/seccomp-compile.c",
            "native/linux/zygote-client.c", "native/linux/fdpass.c"
          ],
          "libraries": ["-l:libseccomp.a"]
        }],
        ["OS=='mac'", { "xcode_settings": { "GCC_SYMBOLS_PRIVATE_EXTERN": "YES", "MACOSX_DEPLOYMENT_TARGET": "11.0" } }]
      ]
    },
    {
      "target_name": "cordon-launcher",
      "type": "executable",
      "include_dirs": ["native/include"],
      "conditions": [
        ["OS=='linux'", {
          "sources": [
            "native/common/err.c",
            "native/linux/main.c",
            "native/linux/launcher.c", "native/linux/json.c", "native/linux/plan.c",
            "native/linux/process.c", "native/linux/caps.c",
            "native/linux/landlock.c", "native/linux/landlock-abi.c",
            "native/linux/seccomp.c", "native/linux/exec.c", "native/linux/supervise.c", "native/linux/status.c",
            "native/linux/zygote.c", "native/linux/zygote-request.c", "native/linux/zygote-child.c",
            "native/linux/fdpass.c"
          ],
          "cflags": ["<@(hardening_cflags)", "-std=gnu11"],
          "ldflags": ["-static-pie", "-Wl,-z,relro,-z,now"]
        }]
      ]
    }
  ]
}
