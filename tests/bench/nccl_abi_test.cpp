// The NCCL ABI declared in bench/nccl_library.h, checked against nccl.h where it is installed
// (CMake builds this test only then): every function type, once nccl.h's enums, communicator
// and stream types are mapped to gpuprobe's spellings, is the type gpuprobe calls through, and
// the enumerator values gpuprobe passes are nccl.h's.
#include <nccl.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "bench/nccl_library.h"

namespace gpuprobe::bench::nccl {
namespace {

template <typename T>
struct Abi {
  using type = T;
};
template <>
struct Abi<ncclResult_t> {
  using type = Result;
};
template <>
struct Abi<ncclDataType_t> {
  using type = DataType;
};
template <>
struct Abi<ncclRedOp_t> {
  using type = RedOp;
};
template <>
struct Abi<ncclComm_t> {
  using type = Comm;
};
template <>
struct Abi<ncclComm_t*> {
  using type = Comm*;
};
template <>
struct Abi<cudaStream_t> {
  using type = Stream;
};
template <typename R, typename... A>
struct Abi<R (*)(A...)> {
  using type = typename Abi<R>::type (*)(typename Abi<A>::type...);
};
template <typename F>
using AbiOf = typename Abi<F>::type;

static_assert(std::is_same_v<AbiOf<decltype(&::ncclGetVersion)>, GetVersionFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclCommInitAll)>, CommInitAllFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclCommDestroy)>, CommDestroyFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclGetErrorString)>, GetErrorStringFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclAllReduce)>, AllReduceFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclAllGather)>, AllGatherFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclReduceScatter)>, ReduceScatterFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclBroadcast)>, BroadcastFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclSend)>, SendFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclRecv)>, RecvFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclGroupStart)>, GroupFn>);
static_assert(std::is_same_v<AbiOf<decltype(&::ncclGroupEnd)>, GroupFn>);
// The C enums are passed as int: same size, same values.
static_assert(sizeof(ncclResult_t) == sizeof(Result));
static_assert(sizeof(ncclDataType_t) == sizeof(DataType));
static_assert(sizeof(ncclRedOp_t) == sizeof(RedOp));
static_assert(sizeof(cudaStream_t) == sizeof(Stream));
static_assert(static_cast<int>(ncclSuccess) == kSuccess);
static_assert(static_cast<int>(ncclFloat32) == kFloat32);
static_assert(static_cast<int>(ncclSum) == kSum);

TEST(NcclAbiTest, TheLoadedLibraryIsTheHeadersVersion) {
  auto lib = LoadNcclFrom({"libnccl.so.2", "libnccl.so"});
  if (!lib.ok()) GTEST_SKIP() << "no libnccl here: " << lib.status().message();
  // A library beside a header of another release is possible; the version code's encoding
  // is what must agree (both spell 2.x the same way).
  EXPECT_EQ((*lib)->api.version / 10000, NCCL_VERSION_CODE / 10000);
  EXPECT_EQ(NcclVersionText(NCCL_VERSION_CODE), fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH));
}

}  // namespace
}  // namespace gpuprobe::bench::nccl
