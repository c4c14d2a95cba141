// gpuprobe-hub-fetch ORG/NAME [--revision REV] [--parallel N] [--json]: a model's config.json, safetensors
// index and shard headers from the Hugging Face Hub (HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE and
// the cache variables as huggingface_hub reads them), then the tensors counted from the
// headers alone. Prints where everything was kept and what came over the network. What
// `plan --model ORG/NAME` will call (hub/hub_fetch.h); tools/hub_bench.sh times it.
// Exit 0 when done, 2 for bad usage or a malformed answer, 3 when the Hub cannot be reached
// or the model is not cached in offline mode.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hub/hub_fetch.h"
#include "model/safetensors_header.h"

namespace {

using gpuprobe::core::Status;
using gpuprobe::core::StatusCode;

int Fail(const Status& status) {
  std::fprintf(stderr, "gpuprobe-hub-fetch: error: %s\n", status.ToString().c_str());
  switch (status.code()) {
    case StatusCode::kNotFound:
    case StatusCode::kUnavailable:
      return 3;
    default:
      return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string repo;
  std::string revision = "main";
  int parallel = 8;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
    } else if (arg == "--revision" && i + 1 < argc) {
      revision = argv[++i];
    } else if (arg == "--parallel" && i + 1 < argc) {
      parallel = std::atoi(argv[++i]);
      if (parallel < 1 || parallel > 64) {
        std::fprintf(stderr, "gpuprobe-hub-fetch: --parallel takes 1 to 64\n");
        return 2;
      }
    } else if (repo.empty() && !arg.empty() && arg[0] != '-') {
      repo = arg;
    } else {
      std::fprintf(stderr, "usage: gpuprobe-hub-fetch ORG/NAME [--revision REV] [--parallel N] [--json]\n");
      return 2;
    }
  }
  if (repo.empty()) {
    std::fprintf(stderr, "usage: gpuprobe-hub-fetch ORG/NAME [--revision REV] [--parallel N] [--json]\n");
    return 2;
  }
  auto snapshot = gpuprobe::hub::FindOrFetchModel(repo, revision, parallel);
  if (!snapshot.ok()) return Fail(snapshot.status());

  gpuprobe::model::TensorTotals totals;
  nlohmann::json shards = nlohmann::json::array();
  for (const auto& shard : snapshot->shards) {
    auto header = gpuprobe::hub::ReadShardHeader(shard);
    if (!header.ok()) return Fail(header.status());
    const std::string label = shard.local_path.empty() ? shard.header_path : shard.local_path;
    auto parsed = gpuprobe::model::ParseSafetensorsHeader(header->bytes, header->data_bytes, label);
    if (!parsed.ok()) return Fail(parsed.status());
    gpuprobe::model::TensorTotals one;
    for (const auto& t : parsed->tensors) one.Add(t.dtype, t.elements, static_cast<double>(t.end - t.begin));
    for (const auto& t : parsed->tensors) totals.Add(t.dtype, t.elements, static_cast<double>(t.end - t.begin));
    shards.push_back({{"file", shard.file},
                      {"source", shard.local_path.empty() ? "saved_header" : "shard_file"},
                      {"path", label},
                      {"file_size_bytes", header->file_size},
                      {"header_bytes", header->bytes.size()},
                      {"tensors", one.tensors},
                      {"elements", one.elements}});
  }
  const auto& net = snapshot->network;
  if (json) {
    nlohmann::json doc = {{"repo_id", snapshot->repo_id},
                          {"revision", snapshot->revision},
                          {"commit", snapshot->commit},
                          {"snapshot_dir", snapshot->snapshot_dir},
                          {"config_path", snapshot->config_path},
                          {"index_path", snapshot->index_path},
                          {"has_safetensors", snapshot->has_safetensors},
                          {"shards", shards},
                          {"tensors", totals.tensors},
                          {"elements", totals.elements},
                          {"data_bytes", totals.bytes},
                          {"network", {{"requests", net.requests}, {"bytes_received", net.bytes_received},
                                       {"seconds", net.seconds}}}};
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
  }
  fmt::print("{} at {} (commit {})\n", snapshot->repo_id, snapshot->revision, snapshot->commit);
  fmt::print("  snapshot  {}\n", snapshot->snapshot_dir);
  fmt::print("  shards    {}{}\n", snapshot->shards.size(), snapshot->has_safetensors ? "" : " (no safetensors in this repository)");
  fmt::print("  tensors   {} holding {:.0f} elements, {:.0f} bytes of weights (counted from the headers)\n",
             totals.tensors, totals.elements, totals.bytes);
  if (net.requests == 0) {
    fmt::print("  network   nothing: everything came from the caches\n");
  } else {
    fmt::print("  network   {} requests, {} bytes received in {:.3f} s\n", net.requests, net.bytes_received, net.seconds);
  }
  return 0;
}
