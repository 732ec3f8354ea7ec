#pragma once

#include <dlfcn.h>

namespace railyard {

// A function of a vendor library opened with dlopen, as the pointer type its caller declares
// (the agent builds against no vendor header). nullptr when the library lacks it.
template <class F>
F dl_symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(::dlsym(lib, name));
}

}  // namespace railyard
