// CUDA through dlopen (gpu/cuda.cc) against railyard's test double of libcuda.so.1, driven
// by fixture files (tests/fixtures/cuda/); and the GPUDirect write's own bounds, which hold
// without an RDMA device.
#include "gpu/cuda.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "checks/ibverbs_data_path.h"

using namespace railyard;

namespace {

const std::string kFixtures = std::string(RAILYARD_SOURCE_DIR) + "/tests/fixtures/cuda/";

CudaOptions with(const std::string& fixture) {
  ::setenv("RAILYARD_CUDA_FIXTURE", (kFixtures + fixture).c_str(), 1);
  CudaOptions o;
  o.library = RAILYARD_CUDA_DOUBLE;
  return o;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE(
    "cuda: memory on a GPU found by PCI address, whole 2 MiB pages, written and read back, a dma-buf where offered") {
  auto c = Cuda::load(with("two-gpus.cuda"));
  REQUIRE_MESSAGE(c.ok(), c.error());
  REQUIRE((*c)->stand_in());
  CHECK(contains(*(*c)->stand_in(), "test double of libcuda.so.1"));

  auto m = (*c)->alloc("0000:18:00.0", 1 << 20);
  REQUIRE_MESSAGE(m.ok(), m.error());
  CHECK((*m)->address() != 0);
  CHECK((*m)->size() == (2u << 20));
  CHECK((*m)->dmabuf_fd() >= 0);
  std::vector<unsigned char> out(4096), back(4096, 0);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(i * 7);
  REQUIRE((*m)->copy_in(out.data(), out.size()).ok());
  REQUIRE((*m)->copy_out(back.data(), back.size()).ok());
  CHECK(out == back);

  // No dma-buf: the NIC must take the device pointer (nvidia-peermem); why is kept.
  auto p = (*c)->alloc("0000:2a:00.0", 3 << 20);
  REQUIRE(p.ok());
  CHECK((*p)->size() == (4u << 20));
  CHECK((*p)->dmabuf_fd() == -1);
  CHECK((*p)->why_no_dmabuf() == "the GPU or driver does not offer dma-buf (DMA_BUF_SUPPORTED is 0)");
}

TEST_CASE("cuda: a GPU the driver does not know, out of memory, and a failing copy are failures naming the GPU") {
  auto c = Cuda::load(with("two-gpus.cuda"));
  REQUIRE(c.ok());
  auto none = (*c)->alloc("0000:99:00.0", 4096);
  REQUIRE_FALSE(none.ok());
  CHECK(none.code() == ENODEV);
  CHECK(none.error() ==
        "0000:99:00.0: cuDeviceGetByPCIBusId: invalid device ordinal (the driver did not take the GPU?)");
  auto oom = (*c)->alloc("0000:3a:00.0", 4096);
  REQUIRE_FALSE(oom.ok());
  CHECK(oom.error() == "0000:3a:00.0: cuMemAlloc_v2: out of memory");
  auto ecc = (*c)->alloc("0000:5d:00.0", 4096);
  REQUIRE(ecc.ok());
  char b[16] = {};
  auto copied = (*ecc)->copy_in(b, sizeof b);
  REQUIRE_FALSE(copied.ok());
  CHECK(copied.error() == "cuMemcpyHtoD_v2: CUDA error 214");
}

TEST_CASE("cuda: no library is unsupported, a driver without GPUs fails") {
  CudaOptions absent;
  absent.library = "/nonexistent/libcuda.so.1";
  auto a = Cuda::load(absent);
  REQUIRE_FALSE(a.ok());
  CHECK(a.unsupported());
  CHECK(contains(a.error(), "no CUDA driver library on the node"));

  auto b = Cuda::load(with("no-device.cuda"));
  REQUIRE_FALSE(b.ok());
  CHECK_FALSE(b.unsupported());
  CHECK(b.error() == "cuInit: no CUDA-capable device is detected (is the nvidia kernel module loaded? see dmesg)");
}

TEST_CASE("gpudirect write: without an RDMA device it fails naming it; without CUDA it is unsupported") {
  IbverbsDataPath rdma(with("two-gpus.cuda"));
  auto t = rdma.gpu_write_test("mlx5_nonexistent", 3, "0000:18:00.0", 1 << 20, 2000);
  REQUIRE_FALSE(t.ok());
  CAPTURE(t.error());
  CHECK(contains(t.error(), "mlx5_nonexistent"));

  CudaOptions absent;
  absent.library = "/nonexistent/libcuda.so.1";
  IbverbsDataPath none(absent);
  auto u = none.gpu_write_test("mlx5_0", 3, "0000:18:00.0", 1 << 20, 2000);
  REQUIRE_FALSE(u.ok());
  CHECK(u.unsupported());
}

TEST_CASE("gpudirect write: a hung driver is bounded, and the next rail's test does not wait again") {
  IbverbsDataPath rdma(with("hung.cuda"));
  auto start = std::chrono::steady_clock::now();
  auto t = rdma.gpu_write_test("mlx5_0", 3, "0000:18:00.0", 1 << 20, 200);
  REQUIRE_FALSE(t.ok());
  CHECK(t.code() == ETIMEDOUT);
  CHECK(contains(t.error(), "did not finish within 400 ms"));
  auto again = rdma.gpu_write_test("mlx5_1", 3, "0000:18:00.0", 1 << 20, 200);
  REQUIRE_FALSE(again.ok());
  CHECK(contains(again.error(), "CUDA did not answer earlier in this run"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(2500));
}
