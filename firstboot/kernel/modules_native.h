// Kernel modules through libkmod, modprobe's own library.
#pragma once

#include "kernel/modules.h"

namespace railyard {

class NativeModules : public Modules {
 public:
  bool module_loaded(const std::string& name) override;
  Status load_module(const std::string& name) override;
};

}  // namespace railyard
