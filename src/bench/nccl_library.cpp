#include "bench/nccl_library.h"

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

namespace gpuprobe::bench::nccl {
namespace {

template <typename F>
bool Bind(const core::DynamicLibrary& lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(lib.Symbol(name));
  return *out != nullptr;
}

}  // namespace

std::vector<std::string> NcclCandidates() {
  const char* forced = std::getenv("GPUPROBE_NCCL_LIBRARY");
  if (forced != nullptr && forced[0] != '\0') return {forced};
  return {"libnccl.so.2", "libnccl.so"};
}

core::Result<std::unique_ptr<Library>> LoadNcclFrom(const std::vector<std::string>& candidates) {
  auto lib = core::DynamicLibrary::Open(candidates);
  if (!lib.ok()) {
    std::string names;
    for (const auto& c : candidates) names += (names.empty() ? "" : ", ") + c;
    return core::Status::Unavailable("NCCL not found: none of " + names + " can be loaded",
                                     "install NCCL (the libnccl2 package, or the CUDA toolkit's NCCL) to run the collectives")
        .WithKeys("collectives.error.nccl_missing", {{"names", names}}, "collectives.error.nccl_missing.hint");
  }
  auto out = std::make_unique<Library>();
  const core::DynamicLibrary& l = **lib;
  Api& api = out->api;
  struct Entry {
    const char* name;
    bool bound;
  };
  const Entry entries[] = {
      {"ncclGetVersion", Bind(l, "ncclGetVersion", &api.get_version)},
      {"ncclCommInitAll", Bind(l, "ncclCommInitAll", &api.comm_init_all)},
      {"ncclCommDestroy", Bind(l, "ncclCommDestroy", &api.comm_destroy)},
      {"ncclGetErrorString", Bind(l, "ncclGetErrorString", &api.get_error_string)},
      {"ncclAllReduce", Bind(l, "ncclAllReduce", &api.all_reduce)},
      {"ncclAllGather", Bind(l, "ncclAllGather", &api.all_gather)},
      {"ncclReduceScatter", Bind(l, "ncclReduceScatter", &api.reduce_scatter)},
      {"ncclBroadcast", Bind(l, "ncclBroadcast", &api.broadcast)},
      {"ncclSend", Bind(l, "ncclSend", &api.send)},
      {"ncclRecv", Bind(l, "ncclRecv", &api.recv)},
      {"ncclGroupStart", Bind(l, "ncclGroupStart", &api.group_start)},
      {"ncclGroupEnd", Bind(l, "ncclGroupEnd", &api.group_end)},
  };
  for (const auto& e : entries) {
    if (!e.bound) {
      // ncclSend/ncclRecv arrived in NCCL 2.7: an older library lands here.
      return core::Status::Unavailable(fmt::format("{} lacks {} (NCCL too old?)", l.name(), e.name))
          .WithKeys("collectives.error.nccl_symbol", {{"symbol", e.name}, {"library", l.name()}},
                    "collectives.error.nccl_missing.hint");
    }
  }
  // ncclGetVersion needs no GPU: it reads a constant.
  if (api.get_version(&api.version) != kSuccess) api.version = 0;
  api.library_name = l.name();
  out->library = std::move(lib.value());
  return core::Result<std::unique_ptr<Library>>(std::move(out));
}

core::Result<const Api*> LoadNccl() {
  static std::once_flag once;
  static core::Result<const Api*> result = core::Status::Internal("not loaded");
  std::call_once(once, [] {
    auto loaded = LoadNcclFrom(NcclCandidates());
    if (!loaded.ok()) {
      result = loaded.status();
      return;
    }
    // Deliberately leaked: never unloaded (see the header).
    result = static_cast<const Api*>(&loaded.value().release()->api);
  });
  return result;
}

std::string NcclVersionText(int code) {
  if (code <= 0) return "unknown";
  if (code >= 20900) return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
}

}  // namespace gpuprobe::bench::nccl
