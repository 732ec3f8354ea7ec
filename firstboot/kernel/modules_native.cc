// NativeModules: kernel modules, through libkmod (modprobe's own library: dependencies,
// blacklists and options as modprobe would).
#include <libkmod.h>

#include <memory>

#include "kernel/modules_native.h"

namespace railyard {

namespace {

using Ctx = std::unique_ptr<kmod_ctx, decltype(&kmod_unref)>;

Ctx context() {
  Ctx ctx(kmod_new(nullptr, nullptr), kmod_unref);
  if (ctx) kmod_load_resources(ctx.get());
  return ctx;
}

}  // namespace

bool NativeModules::module_loaded(const std::string& name) {
  Ctx ctx = context();
  if (!ctx) return false;
  kmod_module* mod = nullptr;
  if (kmod_module_new_from_name(ctx.get(), name.c_str(), &mod) < 0) return false;
  int state = kmod_module_get_initstate(mod);
  kmod_module_unref(mod);
  return state == KMOD_MODULE_LIVE || state == KMOD_MODULE_BUILTIN;
}

Status NativeModules::load_module(const std::string& name) {
  Ctx ctx = context();
  if (!ctx) return Status::fail(ENOMEM, "modprobe " + name + ": cannot create a libkmod context");
  kmod_list* list = nullptr;
  int err = kmod_module_new_from_lookup(ctx.get(), name.c_str(), &list);
  if (err < 0) return Status::from_errno(-err, "modprobe " + name);
  if (!list) return Status::fail(ENOENT, "modprobe " + name + ": no such module for this kernel");
  Status result = success();
  kmod_list* it = nullptr;
  kmod_list_foreach(it, list) {
    kmod_module* mod = kmod_module_get_module(it);
    err = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, nullptr, nullptr, nullptr, nullptr);
    kmod_module_unref(mod);
    if (err < 0 && err != -EEXIST) {
      result = err == KMOD_PROBE_APPLY_BLACKLIST ? Status::fail(EPERM, "modprobe " + name + ": blacklisted")
                                                 : Status::from_errno(-err, "modprobe " + name);
      break;
    }
  }
  kmod_module_unref_list(list);
  return result;
}

}  // namespace railyard
