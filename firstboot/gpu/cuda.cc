#include "gpu/cuda.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>

#include "gpu/dl_symbol.h"

namespace railyard {

namespace {

// The CUDA driver API's C types and values as its reference documents them; the agent
// declares the few it uses instead of building against cuda.h.
using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaNotSupported = 801;  // CUDA_ERROR_NOT_SUPPORTED
constexpr int kAttrDmaBufSupported = 124;    // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
constexpr int kPointerSyncMemops = 6;        // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
constexpr int kRangeHandleDmaBufFd = 1;      // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD
constexpr std::size_t kGpuPage = 2u << 20;   // the GPU's large page: dma-buf ranges are whole pages

}  // namespace

struct Cuda::Symbols {
  CUresult (*init)(unsigned) = nullptr;
  CUresult (*error_string)(CUresult, const char**) = nullptr;
  CUresult (*by_pci)(CUdevice*, const char*) = nullptr;
  CUresult (*ctx_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*ctx_release)(CUdevice) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*htod)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*dtoh)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*pointer_set_attribute)(const void*, int, CUdeviceptr) = nullptr;
  CUresult (*device_attribute)(int*, int, CUdevice) = nullptr;
  CUresult (*range_handle)(void*, CUdeviceptr, std::size_t, int, unsigned long long) = nullptr;
  const char* (*stand_in)() = nullptr;  // only a test double exports it
};

Cuda::~Cuda() {
  if (fn_ && fn_->ctx_release)
    for (const auto& [device, ctx] : retained_) fn_->ctx_release(device);
  if (handle_) ::dlclose(handle_);
}

std::string Cuda::why(const char* call, int rc) const {
  const char* text = nullptr;
  if (fn_ && fn_->error_string) fn_->error_string(rc, &text);
  return std::string(call) + ": " + (text ? text : "CUDA error " + std::to_string(rc));
}

Outcome<std::shared_ptr<Cuda>> Cuda::load(const CudaOptions& opts) {
  using Result = Outcome<std::shared_ptr<Cuda>>;
  void* h = ::dlopen(opts.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = ::dlerror();
    return Result::fail(EOPNOTSUPP, "no CUDA driver library on the node (" + std::string(e ? e : opts.library) +
                                        "): the NVIDIA driver's libcuda.so.1 is not installed");
  }
  std::shared_ptr<Cuda> c(new Cuda());
  c->handle_ = h;
  c->library_ = opts.library;
  c->fn_ = std::make_unique<Symbols>();
  Symbols& f = *c->fn_;
  f.init = dl_symbol<decltype(f.init)>(h, "cuInit");
  f.error_string = dl_symbol<decltype(f.error_string)>(h, "cuGetErrorString");
  f.by_pci = dl_symbol<decltype(f.by_pci)>(h, "cuDeviceGetByPCIBusId");
  f.ctx_retain = dl_symbol<decltype(f.ctx_retain)>(h, "cuDevicePrimaryCtxRetain");
  f.ctx_release = dl_symbol<decltype(f.ctx_release)>(h, "cuDevicePrimaryCtxRelease_v2");
  if (!f.ctx_release) f.ctx_release = dl_symbol<decltype(f.ctx_release)>(h, "cuDevicePrimaryCtxRelease");
  f.ctx_set_current = dl_symbol<decltype(f.ctx_set_current)>(h, "cuCtxSetCurrent");
  f.mem_alloc = dl_symbol<decltype(f.mem_alloc)>(h, "cuMemAlloc_v2");
  f.mem_free = dl_symbol<decltype(f.mem_free)>(h, "cuMemFree_v2");
  f.htod = dl_symbol<decltype(f.htod)>(h, "cuMemcpyHtoD_v2");
  f.dtoh = dl_symbol<decltype(f.dtoh)>(h, "cuMemcpyDtoH_v2");
  f.pointer_set_attribute = dl_symbol<decltype(f.pointer_set_attribute)>(h, "cuPointerSetAttribute");
  f.device_attribute = dl_symbol<decltype(f.device_attribute)>(h, "cuDeviceGetAttribute");
  f.range_handle = dl_symbol<decltype(f.range_handle)>(h, "cuMemGetHandleForAddressRange");
  f.stand_in = dl_symbol<decltype(f.stand_in)>(h, "railyard_cuda_stand_in");
  if (f.stand_in) c->stand_in_ = std::string(f.stand_in());
  if (!f.init || !f.by_pci || !f.ctx_retain || !f.ctx_release || !f.ctx_set_current || !f.mem_alloc || !f.mem_free ||
      !f.htod || !f.dtoh)
    return Result::fail(EIO, opts.library +
                                 " lacks the driver API's cuInit, cuDeviceGetByPCIBusId, "
                                 "cuDevicePrimaryCtxRetain, cuMemAlloc_v2 or cuMemcpy*_v2: not a usable libcuda");
  if (CUresult rc = f.init(0); rc != kCudaSuccess)
    return Result::fail(EIO, c->why("cuInit", rc) + " (is the nvidia kernel module loaded? see dmesg)");
  return Result(std::move(c));
}

Status Cuda::current(int device) {
  for (const auto& [d, ctx] : retained_)
    if (d == device) {
      if (CUresult rc = fn_->ctx_set_current(ctx); rc != kCudaSuccess)
        return Status::fail(EIO, why("cuCtxSetCurrent", rc));
      return success();
    }
  CUcontext ctx = nullptr;
  if (CUresult rc = fn_->ctx_retain(&ctx, device); rc != kCudaSuccess)
    return Status::fail(EIO, why("cuDevicePrimaryCtxRetain", rc));
  retained_.emplace_back(device, ctx);
  if (CUresult rc = fn_->ctx_set_current(ctx); rc != kCudaSuccess) return Status::fail(EIO, why("cuCtxSetCurrent", rc));
  return success();
}

Outcome<std::unique_ptr<GpuMemory>> Cuda::alloc(const std::string& pci, std::size_t bytes) {
  using Result = Outcome<std::unique_ptr<GpuMemory>>;
  CUdevice dev = -1;
  if (CUresult rc = fn_->by_pci(&dev, pci.c_str()); rc != kCudaSuccess)
    return Result::fail(ENODEV, pci + ": " + why("cuDeviceGetByPCIBusId", rc) + " (the driver did not take the GPU?)");
  if (Status s = current(dev); !s.ok()) return Result::fail(s, pci);
  std::unique_ptr<GpuMemory> m(new GpuMemory(shared_from_this(), dev));
  std::size_t size = (bytes + kGpuPage - 1) / kGpuPage * kGpuPage;
  CUdeviceptr p = 0;
  if (CUresult rc = fn_->mem_alloc(&p, size); rc != kCudaSuccess)
    return Result::fail(ENOMEM, pci + ": " + why("cuMemAlloc_v2", rc));
  m->ptr_ = p;
  m->size_ = size;
  // A NIC writing the memory behind CUDA's back: every synchronous copy must see it.
  if (fn_->pointer_set_attribute) {
    unsigned one = 1;
    if (CUresult rc = fn_->pointer_set_attribute(&one, kPointerSyncMemops, p); rc != kCudaSuccess)
      return Result::fail(EIO, pci + ": " + why("cuPointerSetAttribute(SYNC_MEMOPS)", rc));
  }
  int dmabuf = 0;
  if (!fn_->range_handle || !fn_->device_attribute) {
    m->why_no_dmabuf_ = "this libcuda has no cuMemGetHandleForAddressRange (a driver before CUDA 11.7)";
  } else if (CUresult rc = fn_->device_attribute(&dmabuf, kAttrDmaBufSupported, dev); rc != kCudaSuccess || !dmabuf) {
    m->why_no_dmabuf_ = rc != kCudaSuccess ? why("cuDeviceGetAttribute(DMA_BUF_SUPPORTED)", rc)
                                           : "the GPU or driver does not offer dma-buf (DMA_BUF_SUPPORTED is 0)";
  } else {
    int fd = -1;
    if (CUresult hr = fn_->range_handle(&fd, p, size, kRangeHandleDmaBufFd, 0); hr == kCudaSuccess && fd >= 0)
      m->dmabuf_fd_ = fd;
    else
      m->why_no_dmabuf_ = hr == kCudaNotSupported
                              ? "cuMemGetHandleForAddressRange: not supported (the kernel lacks dma-buf "
                                "support for the driver)"
                              : why("cuMemGetHandleForAddressRange", hr);
  }
  return Result(std::move(m));
}

GpuMemory::~GpuMemory() {
  if (dmabuf_fd_ >= 0) ::close(dmabuf_fd_);
  if (ptr_ && cuda_->current(device_).ok()) cuda_->fn_->mem_free(ptr_);
}

Status GpuMemory::copy_in(const void* src, std::size_t n) {
  if (Status s = cuda_->current(device_); !s.ok()) return s;
  if (CUresult rc = cuda_->fn_->htod(ptr_, src, n); rc != kCudaSuccess)
    return Status::fail(EIO, cuda_->why("cuMemcpyHtoD_v2", rc));
  return success();
}

Status GpuMemory::copy_out(void* dst, std::size_t n) {
  if (Status s = cuda_->current(device_); !s.ok()) return s;
  if (CUresult rc = cuda_->fn_->dtoh(dst, ptr_, n); rc != kCudaSuccess)
    return Status::fail(EIO, cuda_->why("cuMemcpyDtoH_v2", rc));
  return success();
}

}  // namespace railyard
