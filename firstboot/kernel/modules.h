// Kernel modules: whether one is loaded, and loading one as modprobe would.
#pragma once

#include <string>

#include "outcome.h"

namespace railyard {

class Modules {
 public:
  virtual ~Modules() = default;
  virtual bool module_loaded(const std::string& name) = 0;
  virtual Status load_module(const std::string& name) = 0;
};

}  // namespace railyard
