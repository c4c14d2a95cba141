// NCCL reached with dlopen, never linked: the binary starts where NCCL is not installed, and
// `bench collectives` says so (exit 3) instead of failing to load. The few types of nccl.h's
// ABI that gpuprobe calls are declared here from nccl.h's documented signatures (stable since
// NCCL 2.0), so no NCCL header is needed to build; tests/bench/nccl_abi_test.cpp checks them
// against nccl.h wherever that header is installed.
//
// Thread safety: LoadNccl() may be called from any thread; the table is immutable afterwards.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/dynamic_library.h"
#include "core/status.h"

namespace gpuprobe::bench::nccl {

/// ncclResult_t (an int-sized C enum); ncclSuccess is 0.
using Result = int;
inline constexpr Result kSuccess = 0;
/// ncclDataType_t; ncclFloat32 is 7.
using DataType = int;
inline constexpr DataType kFloat32 = 7;
/// ncclRedOp_t; ncclSum is 0.
using RedOp = int;
inline constexpr RedOp kSum = 0;
/// ncclComm_t: a pointer to NCCL's opaque communicator.
struct CommOpaque;
using Comm = CommOpaque*;
/// cudaStream_t (a pointer to the runtime's opaque CUstream_st).
using Stream = void*;

using GetVersionFn = Result (*)(int* version);
using CommInitAllFn = Result (*)(Comm* comms, int ndev, const int* devlist);
using CommDestroyFn = Result (*)(Comm comm);
using GetErrorStringFn = const char* (*)(Result result);
using AllReduceFn = Result (*)(const void* sendbuff, void* recvbuff, std::size_t count, DataType datatype, RedOp op,
                               Comm comm, Stream stream);
using AllGatherFn = Result (*)(const void* sendbuff, void* recvbuff, std::size_t sendcount, DataType datatype, Comm comm,
                               Stream stream);
using ReduceScatterFn = Result (*)(const void* sendbuff, void* recvbuff, std::size_t recvcount, DataType datatype,
                                   RedOp op, Comm comm, Stream stream);
using BroadcastFn = Result (*)(const void* sendbuff, void* recvbuff, std::size_t count, DataType datatype, int root,
                               Comm comm, Stream stream);
using SendFn = Result (*)(const void* sendbuff, std::size_t count, DataType datatype, int peer, Comm comm, Stream stream);
using RecvFn = Result (*)(void* recvbuff, std::size_t count, DataType datatype, int peer, Comm comm, Stream stream);
using GroupFn = Result (*)();

struct Api {
  GetVersionFn get_version = nullptr;
  CommInitAllFn comm_init_all = nullptr;
  CommDestroyFn comm_destroy = nullptr;
  GetErrorStringFn get_error_string = nullptr;
  AllReduceFn all_reduce = nullptr;
  AllGatherFn all_gather = nullptr;
  ReduceScatterFn reduce_scatter = nullptr;
  BroadcastFn broadcast = nullptr;
  SendFn send = nullptr;
  RecvFn recv = nullptr;
  GroupFn group_start = nullptr;
  GroupFn group_end = nullptr;
  int version = 0;           ///< ncclGetVersion's code, e.g. 22803 for 2.28.3
  std::string library_name;  ///< the file that was loaded
};

/// The library names tried in order: $GPUPROBE_NCCL_LIBRARY when set (a path or a name), else
/// "libnccl.so.2", "libnccl.so".
std::vector<std::string> NcclCandidates();

/// A loaded NCCL: the library stays open as long as this object lives.
struct Library {
  std::unique_ptr<core::DynamicLibrary> library;
  Api api;
};

/// Loads NCCL from the first loadable of `candidates` and binds every function above.
/// Unavailable (text "collectives.error.nccl_missing", hint "collectives.error.nccl_missing.hint")
/// when none loads; Unavailable ("collectives.error.nccl_symbol", {symbol, library}) when it
/// lacks a function.
core::Result<std::unique_ptr<Library>> LoadNcclFrom(const std::vector<std::string>& candidates);

/// The process-wide table from NcclCandidates(), loaded on first use and never unloaded (as
/// cuBLAS: NCCL's teardown must not run after the static CUDA runtime has shut down).
core::Result<const Api*> LoadNccl();

/// "2.28.3" from a version code (NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older
/// ones major*1000 + minor*100 + patch).
std::string NcclVersionText(int code);

}  // namespace gpuprobe::bench::nccl
